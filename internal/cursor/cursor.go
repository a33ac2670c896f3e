// Package cursor encodes the opaque cursors of Relay-style connections:
// a kind and an id, base64url, so a cursor of one list is refused by
// another.
package cursor

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// Encode returns the cursor of id in lists of kind.
func Encode(kind string, id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(kind + ":" + strconv.FormatInt(id, 10)))
}

// Decode reads a cursor of kind; ok is false for anything else.
func Decode(kind, c string) (id int64, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, false
	}
	rest, found := strings.CutPrefix(string(b), kind+":")
	if !found {
		return 0, false
	}
	id, err = strconv.ParseInt(rest, 10, 64)
	return id, err == nil && id > 0
}
