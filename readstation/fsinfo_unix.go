//go:build unix

package readstation

import (
	"io/fs"
	"os"
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
		return fi.ModTime().UnixNano(), statCtime(st)
	}
	return fi.ModTime().UnixNano(), 0
}

// statID is os.Stat (follow) or os.Lstat without the FileInfo they
// allocate: the mode as os reports it, the device and inode numbers, and
// os's error.
func statID(p string, follow bool) (mode fs.FileMode, dev, ino uint64, err error) {
	var st syscall.Stat_t
	op := "lstat"
	if follow {
		op = "stat"
	}
	for {
		if follow {
			err = syscall.Stat(p, &st)
		} else {
			err = syscall.Lstat(p, &st)
		}
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return 0, 0, 0, &fs.PathError{Op: op, Path: p, Err: err}
	}
	return unixMode(uint32(st.Mode)), uint64(st.Dev), uint64(st.Ino), nil
}

// unixMode converts a stat mode as os does.
func unixMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// openNoBlock opens p for reading without blocking on a FIFO or a device
// that waits (O_NONBLOCK, no controlling terminal): a file swapped for one
// between a stat and the open must not stall the station.
func openNoBlock(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
