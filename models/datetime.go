package models

import (
	"io"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/gpunex/gpunex/internal/fault"
)

// DateTimePrecision is the precision every stored time keeps: PostgreSQL's
// timestamptz keeps microseconds, and bun writes SQLite's times with
// microseconds too ("2006-01-02 15:04:05.999999-07:00").
const DateTimePrecision = time.Microsecond

// MarshalDateTime writes t as the DateTime scalar: RFC 3339 in UTC,
// truncated to DateTimePrecision. A time fresh from a mutation (the clock
// reads nanoseconds) is then written exactly as it reads when loaded from
// either database, so a client cache sees no change that is none. The
// zero time is null.
func MarshalDateTime(t time.Time) graphql.Marshaler {
	if t.IsZero() {
		return graphql.Null
	}
	return graphql.WriterFunc(func(w io.Writer) {
		var buf [40]byte
		b := append(buf[:0], '"')
		b = t.UTC().Truncate(DateTimePrecision).AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
		_, _ = w.Write(b)
	})
}

// UnmarshalDateTime reads the DateTime scalar: an RFC 3339 time with any
// offset and fractional seconds, returned in UTC at DateTimePrecision (what
// would be stored).
func UnmarshalDateTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, fault.E(fault.Invalid, "DateTime must be an RFC 3339 string such as \"2026-11-29T22:34:37Z\"")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fault.E(fault.Invalid, "%q is not an RFC 3339 time such as \"2026-11-29T22:34:37Z\"", s)
	}
	return t.UTC().Truncate(DateTimePrecision), nil
}
