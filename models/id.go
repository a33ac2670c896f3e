package models

import (
	"encoding/json"
	"io"
	"strconv"

	"github.com/99designs/gqlgen/graphql"

	"github.com/gpunex/gpunex/internal/fault"
)

// MarshalInt64ID writes an int64 primary key as a GraphQL ID, which the
// spec serialises as a string.
func MarshalInt64ID(id int64) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		// A decimal needs no escaping: its quotes and digits, in one
		// buffer, without strconv.Quote's copy.
		b := make([]byte, 0, len(`"-9223372036854775808"`))
		b = append(strconv.AppendInt(append(b, '"'), id, 10), '"')
		_, _ = w.Write(b)
	})
}

// UnmarshalInt64ID reads a GraphQL ID holding a positive int64.
func UnmarshalInt64ID(v any) (int64, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = x.String()
	case int64:
		s = strconv.FormatInt(x, 10)
	case int:
		s = strconv.Itoa(x)
	default:
		return 0, fault.E(fault.Invalid, "ID must be a string")
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fault.E(fault.Invalid, "%q is not a valid ID", s)
	}
	return id, nil
}
