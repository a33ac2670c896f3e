package api

import (
	"encoding/json"
	"net/http"

	"github.com/gpunex/gpunex/internal/fault"
)

// writeHTTPError answers outside GraphQL execution (authentication, body
// size) in the GraphQL response shape, so clients parse one format.
func writeHTTPError(w http.ResponseWriter, status int, code fault.Code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"errors": []map[string]any{{"message": message, "extensions": map[string]any{"code": code}}},
	})
}
