package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
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

// sumToken hashes token, through a buffer on the stack for a token of
// the usual size (every signed-in request hashes one).
func sumToken(token string) tokenSum {
	var buf [64]byte
	if len(token) <= len(buf) {
		n := copy(buf[:], token)
		return sha256.Sum256(buf[:n])
	}
	return sha256.Sum256([]byte(token))
}

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
