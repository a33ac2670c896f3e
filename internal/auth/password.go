package auth

import (
	"sync/atomic"

	"github.com/alexedwards/argon2id"
)

// hasher runs argon2id, the one costly step of signing in: each hash or
// verification holds Params.Memory (64 MiB by default) while it runs.
type hasher struct {
	params *argon2id.Params
	// started counts hashes and verifications begun (PasswordChecks).
	started atomic.Int64
}

// hash derives the stored hash of a new password.
func (h *hasher) hash(password string) (string, error) {
	h.started.Add(1)
	return argon2id.CreateHash(password, h.params)
}

// verify reports whether password matches hash.
func (h *hasher) verify(password, hash string) (bool, error) {
	h.started.Add(1)
	return argon2id.ComparePasswordAndHash(password, hash)
}

// PasswordChecks reports how many password hashes and verifications this
// service has begun: what a test counts to show a request was refused
// before any password was tried.
func (s *Service) PasswordChecks() int64 { return s.hasher.started.Load() }
