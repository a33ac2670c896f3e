package config

import (
	"log/slog"
	"strings"
)

// Redacted is what a Token prints as.
const Redacted = "[redacted]"

// Token is an agent token. It is a secret: it formats, logs and marshals as
// "[redacted]", so a Config can be printed or logged whole without leaking
// it. Reveal returns the token itself, for the Authorization header only.
type Token string

// Reveal returns the token.
func (t Token) Reveal() string { return string(t) }

// String returns "[redacted]"; fmt uses it for %v, %s, %q and %x.
func (t Token) String() string { return Redacted }

// GoString returns "[redacted]", for %#v.
func (t Token) GoString() string { return `config.Token("` + Redacted + `")` }

// LogValue makes slog write "[redacted]".
func (t Token) LogValue() slog.Value { return slog.StringValue(Redacted) }

// MarshalText makes encoders (JSON, slog's handlers) write "[redacted]".
func (t Token) MarshalText() ([]byte, error) { return []byte(Redacted), nil }

// Redact replaces every occurrence of the token in s with "[redacted]", for
// text from outside (a server message, an error) that might echo it.
func (t Token) Redact(s string) string {
	if t == "" {
		return s
	}
	return strings.ReplaceAll(s, string(t), Redacted)
}
