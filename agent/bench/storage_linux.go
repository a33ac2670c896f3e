package bench

import (
	"fmt"
	"syscall"
)

// oDirect bypasses the page cache, so reads measure the disk.
const oDirect = syscall.O_DIRECT

// statfsFree is the space available to unprivileged users on dir's
// filesystem (the agent need not run as root).
func statfsFree(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, fmt.Errorf("statfs: %w", err)
	}
	return st.Bavail * uint64(st.Bsize), nil
}
