package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shellgate/shellgate/trust"
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

// RacyWindow is how long after a file's last change a same-size edit may
// keep its modification time (coarse file system timestamps: a few
// milliseconds on ext4, up to 2 s on FAT): an InputStamp taken within it
// also compares content.
const RacyWindow = 2 * time.Second

// maxStampContent is the largest file whose content an InputStamp digests.
const maxStampContent = 1 << 20

// InputStamp is the state of a decision's inputs (config files, policy
// directories, the trust store) that a resident engine compares before
// every decision: for every entry at or under the paths, its size, mode,
// modification and change times and inode (and a symlink's target). When
// one of them changed within RacyWindow of the stamp, the content of every
// file is digested too, the way git treats racily clean index entries, so
// that an edit that keeps the size and the timestamp is still a change.
type InputStamp struct {
	paths []string
	stat  string
	sum   string // "" when the stamp is not racy
}

// NewInputStamp stamps the inputs at paths now.
func NewInputStamp(paths ...string) *InputStamp {
	s := &InputStamp{paths: append([]string(nil), paths...)}
	var newest time.Time
	s.stat, newest = statStamp(s.paths)
	if time.Since(newest) < RacyWindow {
		s.sum = contentStamp(s.paths)
	}
	return s
}

// Changed reports whether an input changed since the stamp. A racy stamp
// whose window has passed is checked once more by content and then
// becomes a plain stat stamp: any later edit moves the file's times. It is
// not safe for concurrent use.
func (s *InputStamp) Changed() bool {
	stat, newest := statStamp(s.paths)
	if stat != s.stat {
		return true
	}
	if s.sum == "" {
		return false
	}
	if contentStamp(s.paths) != s.sum {
		return true
	}
	if time.Since(newest) >= RacyWindow {
		s.sum = ""
	}
	return false
}

// walkInputs calls fn for every entry at or under paths, following a root
// that is a symlink to a directory; an entry that cannot be read is
// reported with its error.
func walkInputs(paths []string, fn func(p string, fi fs.FileInfo, err error)) {
	paths = append([]string(nil), paths...)
	for i := 0; i < len(paths); i++ {
		root := paths[i]
		if root == "" {
			continue
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				fn(p, nil, err)
				return nil
			}
			if p == root && d.Type()&fs.ModeSymlink != 0 {
				if r, err := filepath.EvalSymlinks(root); err == nil {
					if st, err := os.Stat(r); err == nil && st.IsDir() {
						paths = append(paths, r)
					}
				}
			}
			fi, err := d.Info()
			fn(p, fi, err)
			return nil
		})
		if err != nil {
			fn(root, nil, err)
		}
	}
}

func statStamp(paths []string) (string, time.Time) {
	var b strings.Builder
	var newest time.Time
	walkInputs(paths, func(p string, fi fs.FileInfo, err error) {
		if err != nil {
			fmt.Fprintf(&b, "%s!%v\n", p, err)
			return
		}
		ino, ctime := inodeChange(fi)
		mt := fi.ModTime()
		if mt.After(newest) {
			newest = mt
		}
		if ctime.After(newest) {
			newest = ctime
		}
		b.WriteString(p)
		fmt.Fprintf(&b, " %d %d %d %d %v", fi.Size(), mt.UnixNano(), ctime.UnixNano(), ino, fi.Mode())
		if fi.Mode()&fs.ModeSymlink != 0 {
			t, _ := os.Readlink(p)
			b.WriteString(" ->")
			b.WriteString(t)
			// The file a symlink names may change without the link.
			if st, err := os.Stat(p); err == nil {
				ino, ctime := inodeChange(st)
				fmt.Fprintf(&b, " %d %d %d %d", st.Size(), st.ModTime().UnixNano(), ctime.UnixNano(), ino)
				if st.ModTime().After(newest) {
					newest = st.ModTime()
				}
				if ctime.After(newest) {
					newest = ctime
				}
			}
		}
		b.WriteByte('\n')
	})
	return b.String(), newest
}

func contentStamp(paths []string) string {
	h := sha256.New()
	walkInputs(paths, func(p string, fi fs.FileInfo, err error) {
		if err != nil {
			return
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(p); err == nil {
				fi = st
			}
		}
		if !fi.Mode().IsRegular() || fi.Size() > maxStampContent {
			return
		}
		data, err := trust.ReadRegular(p, maxStampContent)
		if err != nil {
			fmt.Fprintf(h, "%s!%v\n", p, err)
			return
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(h, "%s %x\n", p, sum)
	})
	return hex.EncodeToString(h.Sum(nil))
}
