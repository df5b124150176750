package execution

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/shellgate/shellgate/gitrepo"
)

// Nested protected names: the files ProtectedNames lists, and git
// directories, beneath the top of a root (sub/.envrc that direnv loads
// when a person cd's there, pkg/.vscode/tasks.json of a folder an editor
// opens, vendor/x/.git/hooks of a nested repository or a submodule's
// checkout, a bare repository whose config git reads in it).
//
// Landlock grants by inode, not by name, so nothing can refuse the making
// of a file called .envrc in a writable directory; a seccomp supervisor
// that read the name from the command's memory could be raced by another
// thread of it. So the design is: those that exist are found by a bounded
// walk before the run and bound read-only like the root's (protectedPaths),
// and after the run, once every process of the command is gone, the same
// walk finds those that are new or replaced and moves them aside with a
// denial that names the path (guard.undo). That fails closed: what the
// command made is looked at on the file system after it could change it,
// not judged from what it said it would do; and a walk that could not see
// every directory says so in a denial.
//
// A new git directory (git init, git clone) is kept, but not what would
// run a program: a hook that is not one of git's *.sample templates, a
// config (or config.worktree) that sets a key which makes git run
// something (gitrepo.Lookup, an alias, an include) or cannot be read, a
// commondir. A new .git file (a gitdir pointer) is kept only when it
// points into a root, where the walk sees what it points to.

// The walk's bounds: directories read, and depth below a root.
const (
	maxNestedDirs  = 20000
	maxNestedDepth = 32
)

// nestedScan is what a walk of the roots found beneath their tops.
type nestedScan struct {
	// names are ProtectedNames entries below a root's top.
	names []string
	// gitDirs are git directories below a root's top: a directory
	// named .git, or a bare repository (HEAD, objects and refs in it).
	gitDirs []string
	// gitFiles are .git files (gitdir pointers) below a root's top.
	gitFiles []string
	// incomplete says the walk stopped at its bounds: what lies beyond
	// was not seen.
	incomplete bool
}

// nestedNames are ProtectedNames by their first component (".github"
// stands for .github/hooks).
var nestedNames = func() map[string]string {
	m := map[string]string{}
	for _, n := range ProtectedNames {
		first, _, _ := strings.Cut(n, "/")
		m[first] = n
	}
	return m
}()

// scanNested walks the directories beneath roots (not following
// symlinks, not into git directories, protected directories or what skip
// says), within the bounds.
func scanNested(roots []string, skip func(string) bool) nestedScan {
	var s nestedScan
	type dir struct {
		path  string
		depth int
	}
	seen := map[string]bool{}
	var queue []dir
	for _, r := range roots {
		queue = append(queue, dir{filepath.Clean(r), 0})
	}
	read := 0
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if seen[d.path] {
			continue
		}
		seen[d.path] = true
		if read >= maxNestedDirs {
			s.incomplete = true
			break
		}
		read++
		ents, err := os.ReadDir(d.path)
		if err != nil {
			continue
		}
		top := d.depth == 0
		if !top && isGitDirEntries(ents) {
			s.gitDirs = append(s.gitDirs, d.path)
			continue
		}
		for _, e := range ents {
			name := e.Name()
			p := filepath.Join(d.path, name)
			if skip(p) {
				continue
			}
			if name == ".git" {
				if !top {
					switch {
					case e.IsDir():
						s.gitDirs = append(s.gitDirs, p)
					case e.Type().IsRegular():
						s.gitFiles = append(s.gitFiles, p)
					}
				}
				continue
			}
			if full, ok := nestedNames[name]; ok {
				if !top {
					if full == name {
						s.names = append(s.names, p)
					} else if _, err := os.Lstat(filepath.Join(d.path, full)); err == nil {
						s.names = append(s.names, filepath.Join(d.path, full))
					}
				}
				if full == name {
					continue // protected whole: not walked
				}
			}
			if e.IsDir() {
				if d.depth+1 > maxNestedDepth {
					s.incomplete = true
					continue
				}
				queue = append(queue, dir{p, d.depth + 1})
			}
		}
	}
	return s
}

// isGitDirEntries says whether a directory with these entries is a git
// directory as git's discovery takes one: HEAD, objects and refs.
func isGitDirEntries(ents []os.DirEntry) bool {
	n := 0
	for _, e := range ents {
		switch e.Name() {
		case "HEAD":
			if e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0 {
				n++
			}
		case "objects", "refs":
			if e.IsDir() {
				n++
			}
		}
	}
	return n == 3
}

// nestedBefore is the state of what the walk found before the run.
type nestedBefore struct {
	roots   []string
	skip    func(string) bool
	states  map[string]pathState // every path the scan found
	gitDirs map[string]bool
}

// newNestedBefore records the scan s of roots.
func newNestedBefore(roots []string, skip func(string) bool, s nestedScan) *nestedBefore {
	b := &nestedBefore{roots: roots, skip: skip, states: map[string]pathState{}, gitDirs: map[string]bool{}}
	for _, list := range [][]string{s.names, s.gitFiles, s.gitDirs} {
		for _, p := range list {
			b.states[p] = statePath(p)
		}
	}
	for _, g := range s.gitDirs {
		b.gitDirs[g] = true
	}
	return b
}

// check walks again after the run and undoes, with g, what is new: a
// protected name made or replaced is moved aside, a new git directory
// loses what would run a program, a new .git file that points outside
// the roots is moved aside.
func (b *nestedBefore) check(g *guard) []SandboxDenial {
	if b == nil {
		return nil
	}
	s := scanNested(b.roots, b.skip)
	var out []SandboxDenial
	deny := func(p, why string) {
		where := g.moveAside(p)
		out = append(out, SandboxDenial{Op: "write", Path: p, Undone: true, Line: "protected path " + p + " " + why + "; " + where})
	}
	changed := func(p string) bool {
		was, ok := b.states[p]
		return !ok || was != statePath(p)
	}
	for _, p := range s.names {
		if changed(p) {
			deny(p, "was created by the command")
		}
	}
	for _, p := range s.gitFiles {
		if changed(p) && !b.pointsIntoRoots(p) {
			deny(p, "was created by the command and points outside the roots")
		}
	}
	for _, gd := range s.gitDirs {
		if b.gitDirs[gd] && !changed(gd) {
			continue // bound before the run
		}
		for _, bad := range unsafeGitParts(gd) {
			deny(bad.path, "was created by the command in a new git directory ("+bad.why+")")
		}
	}
	if s.incomplete {
		out = append(out, SandboxDenial{Op: "write", Line: fmt.Sprintf("the workspace has more than %d directories (or is deeper than %d): protected names made beyond them were not checked", maxNestedDirs, maxNestedDepth)})
	}
	return out
}

// pointsIntoRoots says whether the .git file p names a directory in a root.
func (b *nestedBefore) pointsIntoRoots(p string) bool {
	target, ok := readPointer(p, "gitdir:")
	if !ok {
		return false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p), target)
	}
	target = filepath.Clean(target)
	for _, r := range b.roots {
		if within(target, r) {
			return true
		}
	}
	return false
}

// unsafePart is a part of a git directory that would make git run a program.
type unsafePart struct{ path, why string }

// unsafeGitParts lists, in the git directory gd, what would make git run
// a program: a hook that is not a template (*.sample), a config or
// config.worktree that sets such a key or cannot be read, a commondir.
func unsafeGitParts(gd string) []unsafePart {
	var out []unsafePart
	if ents, err := os.ReadDir(filepath.Join(gd, "hooks")); err == nil {
		for _, e := range ents {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".sample") {
				out = append(out, unsafePart{filepath.Join(gd, "hooks", e.Name()), "a hook"})
			}
		}
	} else if fi, err := os.Lstat(filepath.Join(gd, "hooks")); err == nil && !fi.IsDir() {
		out = append(out, unsafePart{filepath.Join(gd, "hooks"), "hooks is not a directory"})
	}
	for _, name := range []string{"config", "config.worktree"} {
		p := filepath.Join(gd, name)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if why := configRunsPrograms(p); why != "" {
			out = append(out, unsafePart{p, why})
		}
	}
	if _, err := os.Lstat(filepath.Join(gd, "commondir")); err == nil {
		out = append(out, unsafePart{filepath.Join(gd, "commondir"), "a commondir sends git to another git directory"})
	}
	return out
}

// maxGitConfig bounds the config file read.
const maxGitConfig = 1 << 20

// configRunsPrograms says why the git config file p would make git run a
// program, or "" when nothing in it does: a key gitrepo's table lists,
// an alias, an include; a file that is not regular, too large or not
// parsed counts too.
func configRunsPrograms(p string) string {
	if !isRegular(p) {
		return "config is not a regular file"
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "config cannot be read"
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGitConfig+1))
	if err != nil || len(data) > maxGitConfig {
		return "config cannot be read whole"
	}
	entries, err := gitrepo.ParseFile(data)
	if err != nil {
		return "config cannot be parsed"
	}
	for _, e := range entries {
		sec := e.Section()
		if sec == "alias" || sec == "include" || sec == "includeif" {
			return "config sets " + e.Name
		}
		if _, ok := gitrepo.Lookup(e); ok {
			return "config sets " + e.Name + ", which makes git run a program"
		}
	}
	return ""
}

// readPointer reads the first line of a small regular file without its
// prefix (a .git file's "gitdir: X").
func readPointer(p, prefix string) (string, bool) {
	if !isRegular(p) {
		return "", false
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	buf := make([]byte, 4097)
	n, _ := io.ReadFull(f, buf)
	if n == 0 || n > 4096 {
		return "", false
	}
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}
