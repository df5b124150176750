//go:build !unix

package readstation

import "io/fs"

// devIno is not available here: the admission then compares paths, types
// and sizes only.
func devIno(fi fs.FileInfo) (dev, ino uint64) { return 0, uint64(fi.Size()) }

// changeTimes returns the modification time of fi (no ctime here).
func changeTimes(fi fs.FileInfo) (mtime, ctime int64) { return fi.ModTime().UnixNano(), 0 }
