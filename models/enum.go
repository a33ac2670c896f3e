package models

import (
	"io"
	"slices"
	"strconv"

	"github.com/gpunex/gpunex/internal/fault"
)

// unmarshalEnum reads a GraphQL enum value into T, refusing values outside
// valid with a coded error naming the enum.
func unmarshalEnum[T ~string](v any, valid []T, name string) (T, error) {
	s, ok := v.(string)
	if !ok {
		return "", fault.E(fault.Invalid, "%s must be a string", name)
	}
	if !slices.Contains(valid, T(s)) {
		return "", fault.E(fault.Invalid, "%q is not a valid %s", s, name)
	}
	return T(s), nil
}

func marshalEnum[T ~string](w io.Writer, v T) {
	_, _ = io.WriteString(w, strconv.Quote(string(v)))
}
