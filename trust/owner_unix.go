//go:build unix

package trust

import (
	"fmt"
	"os"
	"syscall"
)

// CheckOwner returns an error when fi (the Lstat of path) belongs to
// another user than the one running: a file another user owns can be
// rewritten behind this user's back, so it is never trusted.
func CheckOwner(path string, fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is owned by uid %d, not by this user (uid %d)", path, st.Uid, os.Getuid())
	}
	return nil
}
