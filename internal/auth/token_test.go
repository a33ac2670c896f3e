package auth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A token is refused before any look-up unless it is the prefix and 43
// characters of the base64url alphabet, exactly what base64url decodes;
// its hash is the hex SHA-256 the database stores, whatever its length.
func TestATokenIsReadAsItsFormAndHashedAsTheDatabaseStoresIt(t *testing.T) {
	t.Parallel()
	good := newToken(SessionTokenPrefix)
	require.True(t, looksLikeToken(SessionTokenPrefix, good))
	require.False(t, looksLikeToken(AgentTokenPrefix, good), "another kind's prefix")
	rest := good[len(SessionTokenPrefix):]
	for _, c := range "+/=. \x00é" {
		bad := SessionTokenPrefix + string(c) + rest[len(string(c)):]
		_, err := base64.RawURLEncoding.DecodeString(bad[len(SessionTokenPrefix):])
		require.Error(t, err, "%q is not base64url", c)
		require.False(t, looksLikeToken(SessionTokenPrefix, bad), "%q", bad)
	}
	require.False(t, looksLikeToken(SessionTokenPrefix, good[:len(good)-1]), "one character short")
	require.False(t, looksLikeToken(SessionTokenPrefix, good+"A"), "one character long")
	for _, tok := range []string{good, "", strings.Repeat("x", 64), strings.Repeat("x", 65), strings.Repeat("y", 500)} {
		sum := sha256.Sum256([]byte(tok))
		require.Equal(t, hex.EncodeToString(sum[:]), HashToken(tok), "a token of %d bytes", len(tok))
	}
}
