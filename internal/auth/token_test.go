package auth_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpunex/gpunex/internal/auth"
)

// The hash a token is stored and looked up by is its SHA-256, whatever
// the token's length and whatever was hashed before it: the hashers are
// reused (sumToken), so a long token hashed after a short one, a short
// one after a long one, and many at once on several goroutines must each
// give their own hash.
func TestATokenHashIsItsSHA256WhateverCameBefore(t *testing.T) {
	t.Parallel()
	tokens := []string{"", "a", "gpx_s_" + strings.Repeat("x", 43), strings.Repeat("y", 64), strings.Repeat("z", 65),
		strings.Repeat("w", 300), "gpx_a_short", strings.Repeat("v", 1000), "b"}
	want := func(tok string) string {
		sum := sha256.Sum256([]byte(tok))
		return hex.EncodeToString(sum[:])
	}
	for _, tok := range tokens {
		require.Equal(t, want(tok), auth.HashToken(tok), "a token of %d bytes", len(tok))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				tok := tokens[(g+i)%len(tokens)]
				if got := auth.HashToken(tok); got != want(tok) {
					t.Errorf("goroutine %d: a token of %d bytes hashed to %s", g, len(tok), got)
					return
				}
			}
		})
	}
	wg.Wait()
}
