//go:build unix

package trust

import (
	"fmt"
	"os"
	"syscall"
)

func checkOwner(path string, fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s is owned by uid %d, not by this user (uid %d)", path, st.Uid, os.Getuid())
	}
	return nil
}
