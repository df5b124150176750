package corpus

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Entry kinds in a fixture.
const (
	KindFile    = "file"
	KindDir     = "dir"
	KindSymlink = "symlink"
)

// Fixture is a small tree of files, directories and symlinks laid out in a
// fresh workspace (and home) before a case is judged.
type Fixture []Entry

// Entry is one file, directory or symlink of a fixture.
type Entry struct {
	// Path is slash-separated and relative to the workspace, or starts
	// with "~/" for the home directory.
	Path string
	// Kind is KindFile, KindDir or KindSymlink.
	Kind string
	// Content is a file's content.
	Content string
	// Target is a symlink's target; a leading "~/" means the fixture's home
	// directory, a leading "./" or a plain name is relative to the link.
	Target string
	// Perm is the permission bits (0 means 0644 for files, 0755 for dirs;
	// a mode of 0000 is kept as the sticky bit alone).
	Perm os.FileMode
}

// checkPath reports whether p is a clean relative fixture path.
func checkPath(p string) error {
	rel := strings.TrimPrefix(p, "~/")
	switch {
	case p == "" || rel == "":
		return fmt.Errorf("empty path")
	case strings.HasPrefix(rel, "/"):
		return fmt.Errorf("path %q is absolute; fixtures live in the workspace or ~/", p)
	case path.Clean(rel) != strings.TrimSuffix(rel, "/"):
		return fmt.Errorf("path %q is not clean", p)
	case rel == ".." || strings.HasPrefix(rel, "../"):
		return fmt.Errorf("path %q leaves the workspace", p)
	}
	return nil
}

// Key is a canonical string for the fixture: equal keys lay equal trees, so
// the runner lays each distinct fixture once.
func (f Fixture) Key() string {
	s := make([]string, len(f))
	for i, e := range f {
		s[i] = fmt.Sprintf("%q %s %q %q %o", e.Path, e.Kind, e.Content, e.Target, e.Perm)
	}
	sort.Strings(s)
	return strings.Join(s, "\n")
}

// Layout is where a fixture was laid out.
type Layout struct {
	// Work is the workspace directory (the default cwd and root).
	Work string
	// Home is the home directory.
	Home string
}

// Lay creates base/work and base/home and lays the fixture in them. base
// must exist. See [Fixture.LayShared] for the rules.
func (f Fixture) Lay(base string) (Layout, error) {
	return f.LayShared(base, "", nil)
}

// LayShared lays the fixture in base/work and, for "~/" entries, in home
// (base/home when home is ""). Several fixtures may share one home: seen
// records what was laid there (path to entry), an identical entry is laid
// once and a conflicting one is an error. Parents are created as needed;
// permissions are applied last, deepest first, so that an unreadable
// directory can still be filled. Unless the fixture lays a .git of its own,
// the workspace gets an empty .git directory: it marks the workspace as the
// root, as a repository's top level is in real use, so that a case whose
// cwd is a subdirectory still has the whole workspace as its root.
func (f Fixture) LayShared(base, home string, seen map[string]string) (Layout, error) {
	l := Layout{Work: filepath.Join(base, "work"), Home: home}
	if home == "" {
		l.Home = filepath.Join(base, "home")
	}
	if seen == nil {
		seen = map[string]string{}
	}
	for _, d := range []string{l.Work, l.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return l, err
		}
	}
	// Resolve symlinks in the base itself (macOS /var → /private/var) so
	// that roots and real paths agree.
	if w, err := filepath.EvalSymlinks(l.Work); err == nil {
		l.Work = w
	}
	if h, err := filepath.EvalSymlinks(l.Home); err == nil {
		l.Home = h
	}
	type perm struct {
		p    string
		mode os.FileMode
	}
	var perms []perm
	hasGit := false
	for _, e := range f {
		if err := checkPath(e.Path); err != nil {
			return l, err
		}
		if e.Path == ".git" || strings.HasPrefix(e.Path, ".git/") {
			hasGit = true
		}
		p := l.Resolve(e.Path)
		if strings.HasPrefix(e.Path, "~/") {
			key := fmt.Sprintf("%s %q %q %o", e.Kind, e.Content, e.Target, e.Perm)
			if prev, ok := seen[e.Path]; ok {
				if prev != key {
					return l, fmt.Errorf("%s: another fixture lays it differently in the shared home", e.Path)
				}
				continue
			}
			seen[e.Path] = key
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return l, err
		}
		switch e.Kind {
		case KindFile:
			if err := os.WriteFile(p, []byte(e.Content), 0o644); err != nil {
				return l, err
			}
		case KindDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return l, err
			}
		case KindSymlink:
			t := e.Target
			if strings.HasPrefix(t, "~/") || t == "~" {
				t = filepath.Join(l.Home, strings.TrimPrefix(strings.TrimPrefix(t, "~"), "/"))
			}
			if err := os.Symlink(t, p); err != nil {
				return l, err
			}
		default:
			return l, fmt.Errorf("%s: unknown entry kind %q", e.Path, e.Kind)
		}
		if e.Perm != 0 && e.Kind != KindSymlink {
			mode := e.Perm
			if mode == permNone {
				mode = 0
			}
			perms = append(perms, perm{p, mode})
		}
	}
	if !hasGit {
		if err := os.Mkdir(filepath.Join(l.Work, ".git"), 0o755); err != nil && !os.IsExist(err) {
			return l, err
		}
	}
	sort.Slice(perms, func(i, j int) bool { return len(perms[i].p) > len(perms[j].p) })
	for _, pm := range perms {
		if err := os.Chmod(pm.p, pm.mode); err != nil {
			return l, err
		}
	}
	return l, nil
}

// Resolve turns a fixture-relative path ("src/a.go", "~/.ssh") into an
// absolute path in the layout.
func (l Layout) Resolve(p string) string {
	if p == "~" {
		return l.Home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(l.Home, filepath.FromSlash(p[2:]))
	}
	return filepath.Join(l.Work, filepath.FromSlash(p))
}

// Unlay makes every directory under base writable again so that it can be
// removed (a fixture may hold unreadable directories).
func Unlay(base string) {
	_ = filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		} else if err != nil {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
}
