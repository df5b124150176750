package hook

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Fingerprint summarises the size and modification time of every file at or
// under paths (directories are walked), so that an engine can poll for a
// changed policy or config and reload. A path that cannot be read
// contributes its error, so that its appearance or repair is a change too.
func Fingerprint(paths ...string) string {
	var b strings.Builder
	for _, root := range paths {
		if root == "" {
			continue
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				fmt.Fprintf(&b, "%s!%v\n", p, err)
				return nil
			}
			fi, err := d.Info()
			if err != nil {
				fmt.Fprintf(&b, "%s!%v\n", p, err)
				return nil
			}
			fmt.Fprintf(&b, "%s %d %d %v\n", p, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
			return nil
		})
		if err != nil {
			fmt.Fprintf(&b, "%s!%v\n", root, err)
		}
	}
	return b.String()
}

// Executable returns the path of the running program with symlinks
// resolved, for Fingerprint: an engine whose binary was replaced exits.
func Executable() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
