// Package authtest holds what tests of any package need from auth and
// production must never use.
package authtest

import "github.com/alexedwards/argon2id"

// Params are argon2id parameters for tests only: 1 MiB and one pass keep
// hashing fast, and would make stolen hashes cheap to crack.
var Params = &argon2id.Params{Memory: 1024, Iterations: 1, Parallelism: 1, SaltLength: 16, KeyLength: 32}
