//go:build !linux

package bench

import "errors"

// oDirect is zero where the agent does not run in production: reads are
// buffered there.
const oDirect = 0

// statfsFree is not implemented off Linux; tests inject Storage.FreeSpace.
func statfsFree(string) (uint64, error) {
	return 0, errors.New("free space is only read on Linux")
}
