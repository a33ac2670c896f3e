//go:build !linux

package host

import "errors"

// osStatfs reads no disk outside Linux: the agent is built and shipped for
// Linux hosts (its installer and image), and elsewhere the disk is left
// out of its facts as any fact it cannot read is (Reader.Facts).
func osStatfs(string) (total, free uint64, err error) {
	return 0, 0, errors.New("host: the disk is read on Linux")
}
