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
	// mountRoot says the file is the root of a mount (not known here:
	// false).
	mountRoot bool
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

// statCtime is lstatCtime of what p names (its symlinks followed).
func statCtime(p string) (ctimeStat, error) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return ctimeStat{}, err
	}
	// Not kept: nothing is cached on a stat here (realStatCtime cannot
	// tie a real path to the file it stats).
	return ctimeStat{dev: uint64(st.Dev), ino: st.Ino, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR,
		ctime: st.Ctim.Nano()}, nil
}

// realStatCtime returns the real path of p and the statCtime of what p
// names (not of one open file: kept is false, so nothing is cached on it).
func realStatCtime(p string) (string, ctimeStat, error) {
	real, err := realPath(p)
	if err != nil {
		return "", ctimeStat{}, err
	}
	st, err := statCtime(real)
	return real, st, err
}
