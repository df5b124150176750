package hook

import (
	"os"
	"syscall"
	"time"
)

// inodeChange returns a file's inode and status change time (which, unlike
// the modification time, a program cannot set back).
func inodeChange(fi os.FileInfo) (uint64, time.Time) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, time.Time{}
	}
	return uint64(st.Ino), time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
}
