//go:build !unix

package readstation

import (
	"io/fs"
	"os"
)

// devIno is not available here: the admission then compares paths, types
// and sizes only.
func devIno(fi fs.FileInfo) (dev, ino uint64) { return 0, uint64(fi.Size()) }

// changeTimes returns the modification time of fi (no ctime here).
func changeTimes(fi fs.FileInfo) (mtime, ctime int64) { return fi.ModTime().UnixNano(), 0 }

// statID is os.Stat (follow) or os.Lstat: the mode, devIno and the error.
func statID(p string, follow bool) (mode fs.FileMode, dev, ino uint64, err error) {
	var fi fs.FileInfo
	if follow {
		fi, err = os.Stat(p)
	} else {
		fi, err = os.Lstat(p)
	}
	if err != nil {
		return 0, 0, 0, err
	}
	dev, ino = devIno(fi)
	return fi.Mode(), dev, ino, nil
}

// openNoBlock opens p for reading.
func openNoBlock(p string) (*os.File, error) { return os.Open(p) }
