package api

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"

	"github.com/gpunex/gpunex/internal/fault"
)

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// writeHTTPError answers outside GraphQL execution (authentication, body
// size) in the GraphQL response shape, so clients parse one format.
func writeHTTPError(w http.ResponseWriter, status int, code fault.Code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"errors": []map[string]any{{"message": message, "extensions": map[string]any{"code": code}}},
	})
}
