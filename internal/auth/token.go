package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"hash"
	"strings"
	"sync"
)

// SessionTokenPrefix starts every session token, so a leaked token is easy
// to recognise (and to scan for in repositories and logs).
const SessionTokenPrefix = "gpx_s_"

// newToken returns a fresh token: prefix plus 256 random bits, base64url.
func newToken(prefix string) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("auth: crypto/rand failed: " + err.Error())
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// HashToken returns the hex SHA-256 of a token: what the database stores.
// A fast hash is right here: the token has 256 bits of entropy, so there is
// nothing for a slow password hash to protect.
func HashToken(token string) string {
	return sumToken(token).hex()
}

// tokenSum is the SHA-256 of a token, the key of the replica's caches.
type tokenSum [sha256.Size]byte

// sumToken hashes token (every signed-in request hashes one) with a
// hasher from the pool: no allocation. sha256.Sum256 on a buffer on the
// stack allocated nothing either until the server was built with its
// profile (make pgo): inlined into this function, Sum256's state is an
// interface the compiler no longer sees through, and the buffer and the
// result went to the heap, two allocations a request.
func sumToken(token string) tokenSum {
	h := tokenHashers.Get().(*tokenHasher)
	h.state.Reset()
	h.buf = append(h.buf[:0], token...)
	_, _ = h.state.Write(h.buf)
	h.state.Sum(h.sum[:0])
	sum := h.sum
	if cap(h.buf) <= 256 { // one grown by a long token is let go
		tokenHashers.Put(h)
	}
	return sum
}

// tokenHasher is a SHA-256 state with room for a token and its hash.
type tokenHasher struct {
	state hash.Hash
	buf   []byte
	sum   tokenSum
}

var tokenHashers = sync.Pool{New: func() any { return &tokenHasher{state: sha256.New(), buf: make([]byte, 0, 64)} }}

// hex is the hash as the database stores it.
func (s tokenSum) hex() string { return hex.EncodeToString(s[:]) }

// looksLikeToken rejects obviously malformed tokens before any query:
// the prefix, then 43 characters of the base64url alphabet (what 32
// random bytes encode to, unpadded).
func looksLikeToken(prefix, token string) bool {
	if !strings.HasPrefix(token, prefix) {
		return false
	}
	rest := token[len(prefix):]
	if len(rest) != base64.RawURLEncoding.EncodedLen(32) {
		return false
	}
	for i := range len(rest) {
		if !inBase64URL(rest[i]) {
			return false
		}
	}
	return true
}

// inBase64URL reports whether c is in the base64url alphabet.
func inBase64URL(c byte) bool {
	switch {
	case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_':
		return true
	}
	return false
}
