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
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// looksLikeToken rejects obviously malformed tokens before any query.
func looksLikeToken(prefix, token string) bool {
	if !strings.HasPrefix(token, prefix) {
		return false
	}
	rest := token[len(prefix):]
	if len(rest) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil
}
