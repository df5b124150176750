package execution

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/shellgate/shellgate/gitrepo"
	"golang.org/x/sys/unix"
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
// commondir. A new .git file (a gitdir pointer) or .git symlink is kept
// only when it points to a git directory the walk checked (not one
// outside the roots, hidden in another git directory, which the walk
// does not enter, or beyond its bounds).

// The walk's bounds: directories read, and depth below a root.
const (
	maxNestedDirs  = 20000
	maxNestedDepth = 32
)

// nestedScan is what a walk of the roots found beneath their tops.
type nestedScan struct {
	// names are ProtectedNames entries below a root's top, and names
	// with one of ProtectedSuffixes at it too.
	names []string
	// gitDirs are git directories below a root's top: a directory
	// named .git, or a bare repository (HEAD, objects and refs in it).
	gitDirs []string
	// gitFiles are .git files (gitdir pointers) below a root's top.
	gitFiles []string
	// fifos are FIFOs in the directories walked (not in git directories:
	// see gitFIFOs).
	fifos []string
	// unreadable are directories the walk could not read (a command may
	// have taken their permissions away): what lies in them was not seen.
	unreadable []string
	// incomplete says the walk stopped at its bounds: what lies beyond
	// was not seen.
	incomplete bool
}

// nestedNames are the ProtectedNames of one component; nestedChildren
// the others by their parent's name (.github: hooks), found when the walk
// reads that parent.
var nestedNames, nestedChildren = func() (map[string]bool, map[string][]string) {
	names, children := map[string]bool{}, map[string][]string{}
	for _, n := range ProtectedNames {
		if parent, child, ok := strings.Cut(n, "/"); ok {
			children[parent] = append(children[parent], child)
		} else {
			names[n] = true
		}
	}
	return names, children
}()

// scanNested walks the directories beneath roots (not following
// symlinks, not into git directories, protected directories or what skip
// says), within the bounds, after taking the events that came before.
func scanNested(roots []string, skip func(string) bool) nestedScan {
	knownPaths.refresh()
	return walkNested(roots, skip)
}

// walkNested is scanNested for a caller that took the events a moment
// before (knownPaths.refresh).
func walkNested(roots []string, skip func(string) bool) nestedScan {
	var s nestedScan
	type dir struct {
		path  string
		depth int
		// same: its parent is unchanged since it was read, so the name
		// still names the directory it named then.
		same bool
	}
	// The walk does not follow symlinks: a directory is reached once
	// from its parent, or as a root (a root within another is walked
	// as a root only).
	isRoot := map[string]bool{}
	var queue []dir
	for _, r := range roots {
		r = filepath.Clean(r)
		if !isRoot[r] {
			isRoot[r] = true
			queue = append(queue, dir{r, 0, dirInfos.rootSame(r)})
		}
	}
	read := 0
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if read >= maxNestedDirs {
			s.incomplete = true
			break
		}
		read++
		info, ok, same := dirInfos.get(d.path, d.same)
		if !ok {
			// Gone, or no longer a directory, is nothing to look at; a
			// directory that cannot be read is reported, and so is one
			// that cannot even be looked at (its path longer than the
			// system takes: a command can make one step by step).
			fi, err := os.Lstat(d.path)
			gone := err != nil && (errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR))
			if !gone && (err != nil || fi.IsDir()) && len(s.unreadable) < 16 {
				s.unreadable = append(s.unreadable, d.path)
			}
			continue
		}
		top := d.depth == 0
		if !info.gitDir {
			for _, n := range info.fifos {
				if !skip(filepath.Join(d.path, n)) {
					s.fifos = append(s.fifos, filepath.Join(d.path, n))
				}
			}
		}
		if !top && info.gitDir {
			s.gitDirs = append(s.gitDirs, d.path)
			continue
		}
		keep := func(list []string, name string) []string {
			p := filepath.Join(d.path, name)
			if top || skip(p) {
				return list
			}
			return append(list, p)
		}
		for _, n := range info.names {
			if top && protectedSuffix(n) && !skip(filepath.Join(d.path, n)) {
				// Not among the names joined to a root's top: found here.
				s.names = append(s.names, filepath.Join(d.path, n))
				continue
			}
			s.names = keep(s.names, n)
		}
		for _, n := range info.gitDirs {
			s.gitDirs = keep(s.gitDirs, n)
		}
		for _, n := range info.gitFiles {
			s.gitFiles = keep(s.gitFiles, n)
		}
		for _, p := range info.subdirs {
			if isRoot[p] || skip(p) {
				continue
			}
			if d.depth+1 > maxNestedDepth {
				s.incomplete = true
				continue
			}
			queue = append(queue, dir{p, d.depth + 1, same})
		}
	}
	return s
}

// dirInfo is what one directory holds, for the walk: its entries that
// are protected names (hooks too, in a directory named .github),
// .git directories and files, the subdirectories to walk (their paths),
// and whether it is itself a git directory.
type dirInfo struct {
	names, gitDirs, gitFiles, subdirs []string
	// fifos are the entries that are FIFOs (the next program that opens
	// one waits for a writer for ever).
	fifos  []string
	gitDir bool
}

// readDirInfo reads the directory p.
func readDirInfo(p string) (dirInfo, bool) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return dirInfo{}, false
	}
	return dirInfoOf(p, ents), true
}

// dirInfoOf is what the directory p with the entries ents holds.
func dirInfoOf(p string, ents []os.DirEntry) dirInfo {
	var info dirInfo
	for _, e := range ents {
		if e.Type()&os.ModeNamedPipe != 0 {
			info.fifos = append(info.fifos, e.Name())
		}
	}
	if isGitDirEntries(ents) {
		info.gitDir = true
		return info
	}
	kids := nestedChildren[filepath.Base(p)]
	if kids == nil && mayFold(filepath.Base(p)) {
		for parent, k := range nestedChildren {
			if strings.EqualFold(parent, filepath.Base(p)) {
				kids = k
			}
		}
	}
	for _, e := range ents {
		name := e.Name()
		if nestedNames[name] || slices.Contains(kids, name) || foldedProtected(name, kids) || protectedSuffix(name) {
			info.names = append(info.names, name)
			continue // protected whole: not walked
		}
		if name == ".git" || mayFold(name) && strings.EqualFold(name, ".git") {
			switch {
			case e.IsDir():
				info.gitDirs = append(info.gitDirs, name)
			case e.Type().IsRegular(), e.Type()&os.ModeSymlink != 0:
				// git follows a .git symlink to a directory as it
				// follows a .git file's gitdir.
				info.gitFiles = append(info.gitFiles, name)
			}
			continue
		}
		if e.IsDir() {
			info.subdirs = append(info.subdirs, filepath.Join(p, name))
		}
	}
	return info
}

// mayFold says whether the name could equal .git or the parent of a
// protected name's child (.github, .config: all begin with a dot) on a
// file system that folds case without being one: it is not plain
// lower-case ASCII, which folds only to itself.
func mayFold(name string) bool {
	return len(name) >= 2 && name[0] == '.' && notLowerASCII(name)
}

// notLowerASCII says whether s has an upper-case or a non-ASCII letter.
func notLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

// foldedProtected says whether name is, folded (strings.EqualFold: Unicode
// simple folding, as case-insensitive file systems fold), one of the
// protected names or kids: on macOS, a Windows drive under WSL or an
// ext4 casefold directory, .VSCODE is the .vscode an editor opens.
func foldedProtected(name string, kids []string) bool {
	if !notLowerASCII(name) {
		return false
	}
	if nestedFolded[foldKey(name)] {
		return true
	}
	for _, k := range kids {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// nestedFolded are nestedNames by their foldKey.
var nestedFolded = func() map[string]bool {
	m := map[string]bool{}
	for n := range nestedNames {
		m[foldKey(n)] = true
	}
	return m
}()

// foldKey is s with each rune replaced by the least rune of its Unicode
// simple folding orbit: two strings are strings.EqualFold exactly when
// their foldKeys are equal.
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		b.WriteRune(least)
	}
	return b.String()
}

// dirInfos keeps what readDirInfo read, by directory. Each directory
// read is watched with inotify (knownPaths), the directory itself (by its
// descriptor, whatever its name): while no event came for it, its
// entries are the same. The walk goes down from the roots: a directory
// whose parent is unchanged is still the one its name named, and is
// taken without a system call; one whose parent changed is opened to see
// whether it is the same directory. Where inotify cannot watch, a
// directory is kept while its change time stays: an entry made, removed
// or renamed in it changes its ctime, which a command cannot set back
// (utimensat sets the ctime to now; the clock cannot be set in the
// sandbox), and one changed within racyWindow before it was read is read
// again, since a change in the same clock tick leaves the same ctime.
var dirInfos = dirInfoCache{m: map[string]cachedDirInfo{}}

// racyWindow is longer than the timestamp tick of the file systems whose
// ctimes are trusted (ctimeKept: ext2 and ext3 keep whole seconds).
const racyWindow = time.Second

// maxDirInfos bounds the cache (it is emptied when full).
const maxDirInfos = 200000

type cachedDirInfo struct {
	dev, ino uint64
	ctime    int64 // ns; 0 with a watch
	info     dirInfo
	// watched: wd watches the directory, gen and mount are the
	// generations it was read at (knownPaths.wdSame).
	watched    bool
	wd         int32
	gen, mount uint64
}

type dirInfoCache struct {
	mu sync.Mutex
	m  map[string]cachedDirInfo
}

// get returns what the directory p holds, from the cache when p is the
// same directory, unchanged since it was read. parentSame says p's
// parent is unchanged since p was read (its name names the same
// directory); same says p is unchanged too (for its children).
func (c *dirInfoCache) get(p string, parentSame bool) (info dirInfo, ok, same bool) {
	c.mu.Lock()
	e, have := c.m[p]
	c.mu.Unlock()
	if have && e.watched && parentSame && knownPaths.wdSame(e.wd, e.gen, e.mount) {
		return e.info, true, true
	}
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return dirInfo{}, false, false
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return dirInfo{}, false, false
	}
	dev, ino := uint64(st.Dev), st.Ino
	if have && e.watched && e.dev == dev && e.ino == ino && knownPaths.wdSame(e.wd, e.gen, e.mount) {
		return e.info, true, true
	}
	if wd, gen, mount, watched := knownPaths.watchFD(fd); watched {
		ents, err := f.ReadDir(-1)
		if err != nil {
			return dirInfo{}, false, false
		}
		info := dirInfoOf(p, ents)
		c.put(p, cachedDirInfo{dev: dev, ino: ino, info: info, watched: true, wd: wd, gen: gen, mount: mount})
		return info, true, false
	}
	// No watch: the directory's change time.
	cst, err := lstatCtime(p)
	if err != nil || !cst.dir || cst.dev != dev || cst.ino != ino {
		return dirInfo{}, false, false
	}
	if !cst.kept {
		info, ok := readDirInfo(p) // a ctime that stands for nothing
		return info, ok, false
	}
	if have && !e.watched && e.dev == dev && e.ino == ino && e.ctime == cst.ctime {
		return e.info, true, false
	}
	now := time.Now()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return dirInfo{}, false, false
	}
	info = dirInfoOf(p, ents)
	if now.Sub(time.Unix(0, cst.ctime)) > racyWindow {
		c.put(p, cachedDirInfo{dev: dev, ino: ino, ctime: cst.ctime, info: info})
	}
	return info, true, false
}

// rootSame says whether the root r still names the directory read last
// (knownPaths keeps its identity while nothing on its way changed).
func (c *dirInfoCache) rootSame(r string) bool {
	v, ok := knownPaths.lookup(pathDirKey{r, "", rootDir})
	if !ok || v.err != nil {
		return false
	}
	c.mu.Lock()
	e, have := c.m[r]
	c.mu.Unlock()
	return have && e.watched && e.dev == v.st.dev && e.ino == v.st.ino
}

// put keeps e for p.
func (c *dirInfoCache) put(p string, e cachedDirInfo) {
	c.mu.Lock()
	if len(c.m) >= maxDirInfos {
		clear(c.m)
	}
	c.m[p] = e
	c.mu.Unlock()
}

// isGitDirEntries says whether a directory with these entries may be a
// git directory as git's discovery takes one: HEAD, objects and refs.
// git asks only that it can search objects and refs (access X_OK), which
// a symlink or an executable file passes too, so any type counts.
func isGitDirEntries(ents []os.DirEntry) bool {
	n := 0
	for _, e := range ents {
		switch e.Name() {
		case "HEAD":
			if e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0 {
				n++
			}
		case "objects", "refs":
			n++
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
	// tops are the git directories whose submodules' (modules/...) and
	// linked worktrees' (worktrees/NAME) git directories were recorded
	// in inner, to find new ones after the run.
	tops  []string
	inner map[string]pathState
	// todos are the paused rebases', cherry-picks' and reverts' state
	// files (sequencerFiles) of tops and their inner git directories
	// before the run, by path.
	todos map[string]string
	// pathDirs are the directories in the roots an .envrc puts on PATH;
	// shadows their entries named as a system program before the run
	// (shadowStates).
	pathDirs []string
	shadows  map[string]pathState
}

// newNestedBefore records the scan s of roots, and the inner git
// directories of tops. holds says whether a git directory may hold a
// name (false: it does not).
// readDir reads a directory (os.ReadDir, or what was read a moment
// before).
func newNestedBefore(roots []string, skip func(string) bool, s nestedScan, tops []string, readDir func(string) ([]os.DirEntry, error), holds func(g, name string) bool) *nestedBefore {
	b := &nestedBefore{roots: roots, skip: skip, states: map[string]pathState{}, gitDirs: map[string]bool{},
		tops: tops, inner: map[string]pathState{}, todos: map[string]string{}}
	todo := func(g string) {
		for _, f := range sequencerFiles {
			if dir, _, _ := strings.Cut(f.path, "/"); !holds(g, dir) {
				continue // no such operation paused
			}
			p := filepath.Join(g, f.path)
			if data, err := readSmallRegular(p, maxGitConfig); err == nil {
				b.todos[p] = string(data)
			}
		}
	}
	for _, list := range [][]string{s.names, s.gitFiles, s.gitDirs, s.fifos} {
		for _, p := range list {
			b.states[p] = statePath(p)
		}
	}
	for _, g := range s.gitDirs {
		b.gitDirs[g] = true
	}
	for _, g := range tops {
		todo(g)
		for _, d := range innerGitDirsRead(g, readDir) {
			b.inner[d.path] = statePath(d.path)
			todo(d.path)
		}
	}
	return b
}

// innerGit is a git directory inside another: a submodule's
// (modules/PATH) or a linked worktree's (worktrees/NAME, whose commondir
// names common).
type innerGit struct {
	path     string
	worktree bool
	common   string
}

// innerGitDirsRead lists the submodules' and linked worktrees' git
// directories of the git directory g (bounded as protectedPaths is),
// reading directories with readDir.
func innerGitDirsRead(g string, readDir func(string) ([]os.DirEntry, error)) []innerGit {
	var out []innerGit
	if ents, err := readDir(filepath.Join(g, "worktrees")); err == nil {
		for i, e := range ents {
			if i >= 64 || !e.IsDir() {
				continue
			}
			out = append(out, innerGit{filepath.Join(g, "worktrees", e.Name()), true, g})
		}
	}
	moduleGitDirs(filepath.Join(g, "modules"), readDir, func(p string, level int) {
		out = append(out, innerGit{path: p})
		if level < 4 {
			out = append(out, innerGitDirsRead(p, readDir)...)
		}
	})
	return out
}

// moduleGitDirs calls found with each git directory (a directory that
// holds a regular HEAD) below modules, a git directory's modules/ where
// a submodule's git directory is modules/PATH and PATH may have several
// components: at most 64 entries a directory and 5 levels, as git
// submodule makes them; level is the depth found it at.
func moduleGitDirs(modules string, readDir func(string) ([]os.DirEntry, error), found func(p string, level int)) {
	var walk func(d string, level int)
	walk = func(d string, level int) {
		ents, err := readDir(d)
		if err != nil || level > 4 {
			return
		}
		for i, e := range ents {
			if i >= 64 || !e.IsDir() {
				continue
			}
			p := filepath.Join(d, e.Name())
			if isRegular(filepath.Join(p, "HEAD")) {
				found(p, level)
			} else {
				walk(p, level+1)
			}
		}
	}
	walk(modules, 0)
}

// check walks again after the run and undoes, with g, what is new (the
// caller took the run's events: knownPaths.refresh): a
// protected name made or replaced is moved aside, a new git directory
// loses what would run a program, a new .git file that points outside
// the roots is moved aside.
func (b *nestedBefore) check(g *guard) []SandboxDenial {
	if b == nil {
		return nil
	}
	s := walkNested(b.roots, b.skip) // undo took the run's events
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
	if len(b.pathDirs) > 0 {
		now := map[string]pathState{}
		shadowStates(b.pathDirs, now)
		for p, st := range now {
			if was, ok := b.shadows[p]; (!ok || was != st) && !b.skip(p) {
				deny(p, "was made by the command in a directory an .envrc puts on PATH, where the user's shell runs it for the system program of that name")
			}
		}
	}
	// The git directories this check looks into (or that were bound
	// before the run): a new .git file or symlink is kept only when it
	// points to one of them.
	checked := map[string]bool{}
	for _, gd := range s.gitDirs {
		checked[gd] = true
	}
	inner := map[string][]innerGit{}
	holds := listingHolds(g.stampAfter)
	readDir := func(d string) ([]os.DirEntry, error) { return readListed(d, holds) }
	for _, top := range b.tops {
		checked[top] = true
		inner[top] = innerGitDirsRead(top, readDir)
		for _, in := range inner[top] {
			checked[in.path] = true
		}
	}
	for _, p := range s.gitFiles {
		if changed(p) && !pointsToChecked(p, checked) {
			deny(p, "was created by the command and points to a git directory the sandbox did not check (outside the roots, inside another git directory or beyond the walk)")
		}
	}
	for _, p := range s.fifos {
		if changed(p) {
			deny(p, "is a FIFO the command left (the next program that opens it waits for ever)")
		}
	}
	for gd := range checked {
		dirs := map[string]bool{}
		for _, f := range sequencerFiles {
			dir, _ := filepath.Split(f.path)
			seen, ok := dirs[dir]
			if !ok {
				seen = holds(gd, strings.TrimSuffix(dir, "/"))
				if seen {
					_, err := os.Lstat(filepath.Join(gd, dir))
					seen = err == nil
				}
				dirs[dir] = seen
			}
			if !seen {
				continue // no such operation paused: one look for its files
			}
			p := filepath.Join(gd, f.path)
			if _, err := os.Lstat(p); err != nil || b.skip(p) {
				continue
			}
			data, err := readSmallRegular(p, maxGitConfig)
			switch was, ok := b.todos[p]; {
			case err != nil:
				deny(p, "is a paused "+f.what+" that "+err.Error())
			case (!ok || was != string(data)) && f.runs(p, data):
				deny(p, "is a paused "+f.what+" that "+f.why)
			}
		}
		for _, p := range gitFIFOs(gd) {
			if !b.skip(p) {
				deny(p, "is a FIFO the command left in a git directory (the next git that opens it waits for ever)")
			}
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
	for _, top := range b.tops {
		for _, in := range inner[top] {
			if was, ok := b.inner[in.path]; ok && was == statePath(in.path) {
				continue // bound before the run
			}
			parts := unsafeGitParts(in.path)
			if in.worktree {
				parts = slices.DeleteFunc(parts, func(u unsafePart) bool {
					return filepath.Base(u.path) == "commondir" && commondirIs(u.path, in.common)
				})
			}
			for _, bad := range parts {
				deny(bad.path, "was created by the command in a new git directory ("+bad.why+")")
			}
		}
	}
	if s.incomplete {
		out = append(out, SandboxDenial{Op: "unchecked", Line: fmt.Sprintf("the workspace has more than %d directories (or is deeper than %d): protected names made beyond them were not checked", maxNestedDirs, maxNestedDepth)})
	}
	for _, d := range s.unreadable {
		out = append(out, SandboxDenial{Op: "unchecked", Path: d, Line: "the directory " + d + " could not be read after the run: protected names made in it were not checked"})
	}
	return out
}

// rebaseTodo is where a paused interactive rebase keeps what it does
// next, in its git directory: git rebase --continue runs its exec lines.
const rebaseTodo = "rebase-merge/git-rebase-todo"

// sequencerFiles are the files of a paused rebase, cherry-pick or revert
// (in its git directory) that make git run a program when the user
// continues it: one that the run made or changed so that it does is
// moved aside after the run. Those in one directory are listed together
// (the directory is looked at first).
var sequencerFiles = []sequencerFile{
	{rebaseTodo, "rebase's todo list", "has an exec line, which git rebase --continue runs",
		func(_ string, data []byte) bool { return todoRunsPrograms(string(data)) }},
	// git runs a strategy that is not its own as git-merge-STRATEGY: one
	// with a slash (../x) is a file of the workspace.
	{"rebase-merge/strategy", "rebase's merge strategy", "is not one of git's (git rebase --continue runs git-merge-STRATEGY, a file of the workspace when it has a slash)",
		func(_ string, data []byte) bool { return !gitStrategies[strings.TrimSpace(string(data))] }},
	{"sequencer/opts", "cherry-pick's or revert's options", "name a merge strategy that is not one of git's (git cherry-pick --continue runs git-merge-STRATEGY)",
		optsRunProgram},
}

// sequencerFile is one of sequencerFiles: its path in the git directory,
// what it is, why one is moved aside, and whether its content data
// makes git run a program.
type sequencerFile struct {
	path, what, why string
	runs            func(path string, data []byte) bool
}

// gitStrategies are the merge strategies git has itself (built in, or
// in its exec path).
var gitStrategies = map[string]bool{"ort": true, "recursive": true, "resolve": true, "octopus": true, "ours": true, "subtree": true}

// todoRunsPrograms says whether a rebase todo list has a line that runs
// a program (exec, x).
func todoRunsPrograms(todo string) bool {
	for _, line := range strings.Split(todo, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && (f[0] == "exec" || f[0] == "x") {
			return true
		}
	}
	return false
}

// optsRunProgram says whether a paused cherry-pick's or revert's options
// (sequencer/opts, in git's config syntax) name a merge strategy that is
// not git's, or cannot be read as git reads them.
func optsRunProgram(p string, _ []byte) bool {
	none := func(string) (string, bool) { return "", true }
	cfg, err := gitrepo.LoadFile(gitrepo.Options{Files: &stampedFiles{}, Env: none}, p, gitrepo.ScopeLocal)
	if err != nil {
		return true
	}
	for _, e := range cfg.Entries {
		if e.Name == "options.strategy" && !gitStrategies[e.Value] {
			return true
		}
	}
	return false
}

// gitFIFODirs are the directories of a git directory where git opens
// files by name, as a tree: its top (index, HEAD, packed-refs, ORIG_HEAD
// ...), the loose refs (each remote's under refs/remotes), the object
// store's lists, its loose objects (objects/ab/cdef...: a FIFO in place
// of the commit HEAD names made git status, git log and git fsck wait
// for ever) and the reflogs. (A directory is looked at through its
// parent, so that an unchanged one costs no system call.)
var gitFIFODirs = []gitFIFODir{
	{name: "refs", kids: []gitFIFODir{{name: "heads"}, {name: "tags"}, {name: "remotes", each: true}}},
	{name: "objects", skip: true, loose: true, kids: []gitFIFODir{{name: "info"}, {name: "pack"}}},
	{name: "logs", kids: []gitFIFODir{{name: "refs", skip: true, kids: []gitFIFODir{{name: "heads"}}}}},
}

// gitFIFODir is a directory of gitFIFODirs: skip, its own entries are
// not looked at (only its kids); each, every subdirectory's are too (64
// at most); loose, those of every subdirectory named by two hex digits
// (the loose objects' 256).
type gitFIFODir struct {
	name              string
	skip, each, loose bool
	kids              []gitFIFODir
}

// isLooseObjectDir says whether name is a loose object directory's: two
// lower-case hex digits.
func isLooseObjectDir(name string) bool {
	isHex := func(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }
	return len(name) == 2 && isHex(name[0]) && isHex(name[1])
}

// gitFIFOs lists the FIFOs in the git directory gd's gitFIFODirs: git
// opens its files without O_NONBLOCK, so a FIFO there makes the next git
// status or git branch wait for ever. A git directory holds none of its
// own (git's fsmonitor daemon makes a socket, which open refuses at once).
//
// The answer is kept with the watches of the directories it looked at
// and of gd's parent (where gd is watched, as the walk leaves a root):
// while none of them had an event, a FIFO cannot have come (a directory
// made where there was none is an event of its parent).
func gitFIFOs(gd string) []string {
	gitFIFOCache.Lock()
	e, ok := gitFIFOCache.m[gd]
	gitFIFOCache.Unlock()
	if ok && e.same() {
		return e.fifos
	}
	var out []string
	var stamps []watchStamp
	keep := true
	stamp := func(d string) {
		dirInfos.mu.Lock()
		c, ok := dirInfos.m[d]
		dirInfos.mu.Unlock()
		if !ok || !c.watched {
			keep = false
			return
		}
		stamps = append(stamps, watchStamp{c.wd, c.gen, c.mount})
	}
	stamp(filepath.Dir(gd))
	var look func(d string, parentSame, skip, each, loose bool, kids []gitFIFODir)
	look = func(d string, parentSame, skip, each, loose bool, kids []gitFIFODir) {
		info, ok, same := dirInfos.get(d, parentSame)
		if !ok {
			return
		}
		stamp(d)
		if !skip {
			for _, n := range info.fifos {
				out = append(out, filepath.Join(d, n))
			}
		}
		if each {
			for i, sub := range info.subdirs {
				if i >= 64 {
					break
				}
				look(sub, same, false, false, false, nil)
			}
		}
		if loose {
			for _, sub := range info.subdirs {
				if isLooseObjectDir(filepath.Base(sub)) {
					look(sub, same, false, false, false, nil)
				}
			}
		}
		for _, k := range kids {
			look(filepath.Join(d, k.name), same, k.skip, k.each, k.loose, k.kids)
		}
	}
	look(gd, false, false, false, false, gitFIFODirs)
	if keep {
		gitFIFOCache.Lock()
		if len(gitFIFOCache.m) >= 1024 {
			clear(gitFIFOCache.m)
		}
		gitFIFOCache.m[gd] = gitFIFOEntry{stamps, out}
		gitFIFOCache.Unlock()
	}
	return out
}

// gitFIFOCache keeps gitFIFOs' answers by git directory.
var gitFIFOCache = struct {
	sync.Mutex
	m map[string]gitFIFOEntry
}{m: map[string]gitFIFOEntry{}}

type gitFIFOEntry struct {
	stamps []watchStamp
	fifos  []string
}

// watchStamp is a directory's watch and its generations when it was read.
type watchStamp struct {
	wd         int32
	gen, mount uint64
}

// same says whether no watch of the entry had an event since.
func (e gitFIFOEntry) same() bool {
	return knownPaths.stampsSame(e.stamps)
}

// pointsToChecked says whether the .git file or symlink p names one of
// the git directories in checked (the walk found it, and what in it
// would run a program was looked at), by its path or, when a symlink is
// on the way, by where it leads.
func pointsToChecked(p string, checked map[string]bool) bool {
	var target string
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		t, err := os.Readlink(p)
		if err != nil {
			return false
		}
		target = t
	} else if t, ok := ReadGitPointer(p, "gitdir:"); ok {
		target = t
	} else {
		return false
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(p), target)
	}
	target = filepath.Clean(target)
	if checked[target] {
		return true
	}
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		return false
	}
	for c := range checked {
		if r, err := filepath.EvalSymlinks(c); err == nil && r == real {
			return true
		}
	}
	return false
}

// commondirIs says whether the commondir file p (a linked worktree's)
// names the git directory common, as git worktree add writes it.
func commondirIs(p, common string) bool {
	v, ok := ReadGitPointer(p, "")
	if !ok {
		return false
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(filepath.Dir(p), v)
	}
	return filepath.Clean(v) == filepath.Clean(common)
}

// unsafePart is a part of a git directory that would make git run a program.
type unsafePart struct{ path, why string }

// unsafeGitParts lists, in the git directory gd, what would make git run
// a program or send to a place the command chose: a hook that is not a
// template (*.sample), a config or config.worktree that sets such a key
// or cannot be read, a commondir, a remote in remotes or branches.
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
	for _, name := range []string{"remotes", "branches"} {
		p := filepath.Join(gd, name)
		if ents, err := os.ReadDir(p); err == nil {
			for _, e := range ents {
				out = append(out, unsafePart{filepath.Join(p, e.Name()), "a remote git reads from " + name})
			}
		} else if _, err := os.Lstat(p); err == nil {
			out = append(out, unsafePart{p, name + " is not a directory"})
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
	data, err := readSmallRegular(p, maxGitConfig)
	if err != nil {
		return "config " + err.Error()
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

// ReadGitPointer reads the first line of a small regular file git keeps a
// path in (".git", "gitdir", "commondir"), without its prefix ("gitdir:"
// for a .git file); ok is false when the file is missing, not regular
// (never followed, never a FIFO), larger than 4 KiB or lacks the prefix.
func ReadGitPointer(p, prefix string) (string, bool) {
	data, err := readSmallRegular(p, 4096)
	if err != nil || len(data) == 0 {
		return "", false
	}
	line, _, _ := strings.Cut(string(data), "\n")
	v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
	v = strings.TrimSpace(v)
	return v, ok && v != ""
}

// readSmallRegular reads the file p whole when it is a regular file of at
// most max bytes: opened without following a final symlink and without
// blocking, its type checked on the open file (a path swapped for a FIFO
// or a device after any earlier look is refused, never waited on).
func readSmallRegular(p string, max int64) ([]byte, error) {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, errors.New("cannot be read")
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("is not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || int64(len(data)) > max {
		return nil, errors.New("cannot be read whole")
	}
	return data, nil
}
