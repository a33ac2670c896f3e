//go:build !linux

package host

import "errors"

// osStatfs is not implemented outside Linux, where the agent runs: the
// disk is then not reported.
func osStatfs(string) (total, free uint64, err error) {
	return 0, 0, errors.New("host: statfs is read on Linux only")
}
