package hook

import (
	"crypto/sha256"
	"encoding/hex"
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

// maxStampContent is the largest file whose content Stamp digests.
const maxStampContent = 1 << 20

// Stamp is Fingerprint for the inputs of a decision (config files, policy
// directories, the trust store): it also digests the content of every
// regular file up to 1 MiB, so that an edit that keeps the size within the
// file system's timestamp granularity (a few milliseconds on many) is
// still a change. A resident engine compares it on every decision.
func Stamp(paths ...string) string {
	var b strings.Builder
	paths = append([]string(nil), paths...)
	for i := 0; i < len(paths); i++ {
		root := paths[i]
		if root == "" {
			continue
		}
		// A root that is a symlink to a directory: walk where it points
		// too (WalkDir does not follow it).
		if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if r, err := filepath.EvalSymlinks(root); err == nil {
				if st, err := os.Stat(r); err == nil && st.IsDir() {
					paths = append(paths, r)
				}
			}
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
			fmt.Fprintf(&b, "%s %d %d %v", p, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
			if fi.Mode()&fs.ModeSymlink != 0 {
				t, _ := os.Readlink(p)
				fmt.Fprintf(&b, " ->%s", t)
				if st, err := os.Stat(p); err == nil {
					fi = st
				}
			}
			if fi.Mode().IsRegular() && fi.Size() <= maxStampContent {
				if data, err := os.ReadFile(p); err == nil {
					sum := sha256.Sum256(data)
					b.WriteByte(' ')
					b.WriteString(hex.EncodeToString(sum[:]))
				}
			}
			b.WriteByte('\n')
			return nil
		})
		if err != nil {
			fmt.Fprintf(&b, "%s!%v\n", root, err)
		}
	}
	return b.String()
}
