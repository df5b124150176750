//go:build unix

package readstation

import (
	"io/fs"
	"syscall"
)

// devIno returns the device and inode numbers of fi.
func devIno(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}

// changeTimes returns the modification and status-change times of fi, in
// nanoseconds.
func changeTimes(fi fs.FileInfo) (mtime, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fi.ModTime().UnixNano(), st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return fi.ModTime().UnixNano(), 0
}
