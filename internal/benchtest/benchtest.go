// Package benchtest sizes the benchmarks. make bench runs each at full
// size and checks its target; make test runs every benchmark once beside
// the tests at its smallest size, asserting no target, so that a change
// that breaks one (it no longer builds, panics, its SQL fails) fails CI
// instead of the next make bench.
package benchtest

import (
	"os"
	"testing"
)

// Env is the variable make test sets to Smallest's value: the benchmarks
// then run in the same go test as the tests, on the same test binaries,
// with no second build and link of each package.
const Env = "GPUNEX_BENCH"

// smallest is Env's value that asks for the smallest sizes.
const smallest = "smallest"

// Smallest reports whether the benchmarks run at their smallest size:
// under go test -short, or with GPUNEX_BENCH=smallest.
func Smallest() bool {
	return testing.Short() || os.Getenv(Env) == smallest
}

// Sized is full, or smallest when Smallest.
func Sized[T any](full, smallest T) T {
	if Smallest() {
		return smallest
	}
	return full
}
