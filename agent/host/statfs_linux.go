package host

import "syscall"

// osStatfs is statfs(2): the filesystem's size and the blocks available
// to an unprivileged user, in bytes.
func osStatfs(path string) (total, free uint64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, 0, err
	}
	if st.Frsize <= 0 {
		return 0, 0, syscall.EINVAL
	}
	unit := uint64(st.Frsize)
	return st.Blocks * unit, st.Bavail * unit, nil
}
