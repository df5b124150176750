//go:build !linux

package execution

import (
	"bytes"

	"golang.org/x/sys/unix"
)

// ctimeStat is what lstatCtime says of a path.
type ctimeStat struct {
	dev, ino uint64
	dir      bool
	ctime    int64 // ns
	// kept says the file system keeps ctimes itself: APFS and HFS+.
	kept bool
}

// lstatCtime is lstat of p, with whether its file system keeps ctimes
// itself (asked each time).
func lstatCtime(p string) (ctimeStat, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return ctimeStat{}, err
	}
	var fs unix.Statfs_t
	kept := false
	if unix.Statfs(p, &fs) == nil {
		name := string(bytes.TrimRight(fs.Fstypename[:], "\x00"))
		kept = name == "apfs" || name == "hfs"
	}
	return ctimeStat{dev: uint64(st.Dev), ino: st.Ino, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR,
		ctime: st.Ctim.Nano(), kept: kept}, nil
}
