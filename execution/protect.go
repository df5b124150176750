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
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ProtectedNames are the files and directories at the top of a root that
// other programs run or obey later, unconfined: a confined command in
// workspace-write may read them but not write, create, remove, rename or
// replace them (nothing is planted for later). ".git" is handled apart
// (see ProtectedGitNames): its own top level stays writable for git.
var ProtectedNames = []string{
	".gitmodules",
	".envrc",                            // direnv
	".vscode", ".idea", ".devcontainer", // editors' tasks and settings
	".mcp.json",                                                         // MCP servers agents start
	".claude", ".codex", ".gemini", ".cursor", ".qwen", ".github/hooks", // agents' settings and hooks
	// More agents' and editors' project files that start programs
	// unasked: Kiro's hooks (.kiro/hooks: a shell command on a file
	// saved) and MCP servers, OpenCode's plugins (.opencode/plugins,
	// loaded at its start) and config (MCP servers, npm plugins),
	// aider's lint-cmd (run after each edit it makes), Continue's and Roo
	// Code's MCP servers, Windsurf's hooks (.windsurf/hooks.json),
	// Cline's hooks, Zed's language servers and MCP servers (once a
	// worktree is trusted), Amazon Q's MCP servers, Factory's droid hooks
	// (.factory/hooks.json, settings.json), Crush's language servers and
	// MCP servers; a dev container's initializeCommand, which runs on
	// the host (.devcontainer.json, the spec's other place).
	".kiro", ".opencode", "opencode.json", "opencode.jsonc", ".aider.conf.yml",
	".continue", ".roo", ".windsurf", ".clinerules/hooks", ".zed", ".amazonq",
	".factory", "crush.json", ".crush.json", ".devcontainer.json",
	".helix", // its languages.toml's language servers start on a file opened (a workspace trusted by its path)
	// Git hook managers' configuration, which the hook they installed
	// runs on git commit (pre-commit's repo: local entries, lefthook's
	// run lines).
	".pre-commit-config.yaml",
	"lefthook.yml", "lefthook.yaml", "lefthook.json", "lefthook.jsonc", "lefthook.toml",
	".lefthook.yml", ".lefthook.yaml", ".lefthook.json", ".lefthook.jsonc", ".lefthook.toml",
	"lefthook-local.yml", "lefthook-local.yaml", "lefthook-local.json", "lefthook-local.jsonc", "lefthook-local.toml",
	".lefthook-local.yml", ".lefthook-local.yaml", ".lefthook-local.json", ".lefthook-local.jsonc", ".lefthook-local.toml",
	".config/lefthook.yml", ".config/lefthook.yaml",
	// mise trusts a configuration file by its path, not its content: a
	// trusted mise.toml that gains [env] _.source or [hooks] enter runs
	// it in the user's shell at the next prompt.
	"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".mise", ".config/mise", ".config/mise.toml",
	".lfsconfig", // git lfs push sends the objects to its lfs.url
	// A Mercurial repository's configuration: its hooks and extensions
	// run on hg status; a shared one's is where sharedpath points.
	".hg/hgrc", ".hg/hgrc-not-shared", ".hg/sharedpath",
	".shellgate.yaml", ".shellgate", // shellgate's project files
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".inputrc", // shell rc files (a root that is a home)
}

// ProtectedSuffixes end the names of files that other programs run or
// obey later, whatever comes before: protected as ProtectedNames are, at
// a root's top and beneath it (a VS Code workspace file's tasks and
// settings, as .vscode's).
var ProtectedSuffixes = []string{".code-workspace"}

// protectedSuffix says whether name ends with one of ProtectedSuffixes
// (folded, as a case-insensitive file system folds) after at least one
// other character.
func protectedSuffix(name string) bool {
	for _, suf := range ProtectedSuffixes {
		if len(name) > len(suf) && (strings.HasSuffix(name, suf) || notLowerASCII(name) && strings.EqualFold(name[len(name)-len(suf):], suf)) {
			return true
		}
	}
	return false
}

// ProtectedGitNames are the entries of a git directory that make git run
// programs or read its configuration from elsewhere: config (core.fsmonitor,
// core.hooksPath, aliases, filters), hooks, info (attributes, exclude),
// commondir (where a worktree's config and hooks live), remotes and
// branches (remotes git still reads from files there when the config
// does not define them: git push origin sends to their URL) and the
// object store's alternates (other object directories git reads, whose
// FIFO in place of a missing object made git log wait for ever). The rest of the
// git directory (index, objects, refs, logs, ORIG_HEAD, COMMIT_EDITMSG,
// lock files) stays writable so that git commit, add and checkout work.
// A submodule's git directory (modules/...) is protected the same way; a
// linked worktree's (worktrees/NAME) has its config.worktree and
// commondir protected.
var ProtectedGitNames = []string{"config", "config.worktree", "hooks", "info", "commondir", "remotes", "branches", "objects/info/alternates"}

// protectedPath is one path a confined command must not change.
type protectedPath struct {
	path string
	// pin: a git directory itself, kept writable but bound onto itself
	// so that it cannot be renamed, removed or replaced.
	pin bool
}

// maxProtected bounds the protected paths of one confinement (a git
// directory with thousands of submodules, a workspace of many nested
// repositories).
const maxProtected = 2048

// protectedPaths lists what c protects in its roots: for each root the
// ProtectedNames and, when root/.git is a directory, that git directory;
// for each git directory (root/.git and c.GitDirs) its ProtectedGitNames
// and those of the submodules' and worktrees' git directories beneath it.
// c.Unprotect (a person widened one call) are left out, and so is what
// lies beneath them. Beneath each root's top, the same names and the
// git directories and .git files a bounded walk finds are protected too
// (see scanNested).
func protectedPaths(c *Confinement) []protectedPath {
	out, _ := protectedPathsScan(c)
	return out
}

// protectedPathsScan is protectedPaths with the state of what the walk
// beneath the roots' tops found, for the check after the run.
func protectedPathsScan(c *Confinement) ([]protectedPath, *nestedBefore) {
	knownPaths.refresh()
	unprotected := func(p string) bool {
		for _, u := range c.Unprotect {
			if within(p, filepath.Clean(u)) {
				return true
			}
		}
		return false
	}
	roots := rootDirs(c)
	// The directories' stamps, kept from the last scan while nothing on
	// their way changed (scanStamps.get).
	kept := map[string]bool{}
	stamp := func(d string) dirStamp { return scanStamps.get(d, kept) }
	rootGit := make([]bool, len(roots)) // root/.git is a directory
	for i, r := range roots {
		st := stamp(r)
		if isGit, ok := scanStamps.rootGit(r, st); ok {
			rootGit[i] = isGit
			continue
		}
		fi, err := os.Lstat(filepath.Join(r, ".git"))
		rootGit[i] = err == nil && fi.IsDir()
		scanStamps.setRootGit(r, st, rootGit[i])
	}
	// The names at the roots' tops and in their (and c.GitDirs') git
	// directories, the same for every run of c (staticProtected); what
	// the file system adds comes after them.
	fixed := staticProtected(c, roots, rootGit, unprotected)
	out := make([]protectedPath, len(fixed.paths), len(fixed.paths)+32)
	copy(out, fixed.paths)
	seen := map[string]bool{}
	add := func(p string, pin bool) {
		p = filepath.Clean(p)
		if fixed.has[p] || seen[p] || len(out) >= maxProtected || unprotected(p) {
			return
		}
		seen[p] = true
		out = append(out, protectedPath{p, pin})
	}
	// What a git directory does not hold is not looked for (its
	// worktrees and modules, a paused rebase's files).
	holds := listingHolds(stamp)
	// Directories read once for both the paths and the state of the
	// inner git directories (newNestedBefore).
	read := map[string][]os.DirEntry{}
	readDir := func(d string) ([]os.DirEntry, error) {
		if ents, ok := read[d]; ok {
			if ents == nil {
				return nil, os.ErrNotExist
			}
			return ents, nil
		}
		ents, err := readListed(d, holds)
		if err != nil {
			read[d] = nil
			return nil, err
		}
		if ents == nil {
			ents = []os.DirEntry{}
		}
		read[d] = ents
		return ents, nil
	}
	var gitDir, gitDirInner func(g string, depth int)
	gitDir = func(g string, depth int) {
		add(g, true)
		for _, n := range ProtectedGitNames {
			add(filepath.Join(g, n), false)
		}
		gitDirInner(g, depth)
	}
	gitDirInner = func(g string, depth int) {
		if depth > 4 {
			return
		}
		// Linked worktrees: worktrees/NAME/{config.worktree,commondir,gitdir}.
		if ents, err := readDir(filepath.Join(g, "worktrees")); err == nil {
			for i, e := range ents {
				if i >= 64 || !e.IsDir() {
					continue
				}
				w := filepath.Join(g, "worktrees", e.Name())
				add(filepath.Join(w, "config.worktree"), false)
				add(filepath.Join(w, "commondir"), false)
				add(filepath.Join(w, "hooks"), false)
			}
		}
		// Submodules: modules/PATH is a git directory (it has HEAD); PATH
		// may have several components.
		moduleGitDirs(filepath.Join(g, "modules"), readDir, func(p string, _ int) { gitDir(p, depth+1) })
	}
	// The git directories whose submodules' and worktrees' git
	// directories are checked after the run for new ones.
	var tops []string
	for i, r := range roots {
		if rootGit[i] {
			dotgit := filepath.Join(r, ".git")
			gitDirInner(dotgit, 0)
			tops = append(tops, dotgit)
		}
	}
	for _, g := range c.GitDirs {
		if filepath.IsAbs(g) {
			gitDirInner(filepath.Clean(g), 0)
		}
	}
	// What the repositories' configuration names in the roots: a hooks
	// directory, an included file, a helper program (configNamedPaths).
	inRoots := func(p string) bool {
		for _, r := range roots {
			if p != r && within(p, r) {
				return true
			}
		}
		return false
	}
	for i, r := range roots {
		if rootGit[i] {
			for _, p := range configNamedPaths(filepath.Join(r, ".git"), r, inRoots) {
				add(p, false)
			}
		}
	}
	for _, g := range c.GitDirs {
		if !filepath.IsAbs(g) {
			continue
		}
		// A linked worktree's git directory names its checkout's .git
		// file (gitdir); a bare repository is its own top.
		top := filepath.Clean(g)
		if p, ok := ReadGitPointer(filepath.Join(g, "gitdir"), ""); ok && filepath.IsAbs(p) {
			top = filepath.Dir(filepath.Clean(p))
		}
		for _, p := range configNamedPaths(filepath.Clean(g), top, inRoots) {
			add(p, false)
		}
	}
	scan := walkNested(roots, unprotected) // the events were taken above
	for _, p := range scan.names {
		add(p, false)
	}
	// What the .envrc files, mise's configuration files and Mercurial's
	// hgrc files (at the tops and beneath) load, and the directories they
	// put on PATH.
	var pathDirs []string
	named := func(files, dirs []string) {
		for _, f := range filterIn(files, inRoots) {
			add(f, false)
		}
		for _, d := range filterIn(dirs, inRoots) {
			if !unprotected(d) {
				pathDirs = append(pathDirs, d)
			}
		}
	}
	for _, r := range roots {
		// The root's listing, kept while its watch saw no event, says
		// which of these files can exist (ok false: each is looked at).
		names, ok := dirNames.get(r, stamp(r))
		has := func(rel string) bool {
			first, _, _ := strings.Cut(rel, "/")
			return !ok || names[first]
		}
		if has(".envrc") {
			named(envrcNamedPaths(filepath.Join(r, ".envrc")))
		}
		for _, n := range miseConfigNames {
			if has(n) {
				named(miseNamedPaths(filepath.Join(r, n), r))
			}
		}
	}
	for _, n := range scan.names {
		if filepath.Base(n) == ".envrc" {
			named(envrcNamedPaths(n))
		}
		if filepath.Base(n) == "hgrc" {
			named(hgrcNamedPaths(n), nil)
		}
		if project := miseConfigProject(n); project != "" {
			named(miseNamedPaths(n, project))
		} else if p := filepath.Join(n, "config.toml"); miseConfigProject(p) != "" {
			named(miseNamedPaths(p, miseConfigProject(p))) // .mise, .config/mise
		}
	}
	for _, p := range scan.gitFiles {
		add(p, false) // a submodule's checkout: where its git directory is
	}
	for _, g := range scan.gitDirs {
		gitDir(g, 1)
		top := g
		if filepath.Base(g) == ".git" {
			top = filepath.Dir(g)
		}
		for _, p := range configNamedPaths(g, top, inRoots) {
			add(p, false)
		}
	}
	for _, g := range c.GitDirs {
		if filepath.IsAbs(g) {
			tops = append(tops, filepath.Clean(g))
		}
	}
	tops = append(tops, scan.gitDirs...)
	b := newNestedBefore(roots, unprotected, scan, tops, readDir, holds)
	if len(pathDirs) > 0 {
		b.pathDirs, b.shadows = pathDirs, map[string]pathState{}
		shadowStates(pathDirs, b.shadows)
	}
	return out, b
}

// listingHolds returns holds(dir, name): whether the directory dir may
// hold name, from dir's listing kept under its watched stamp (dirNames;
// stamp takes it): false is an entry that does not exist, as an lstat
// would have said, without one; a listing not kept says it may. Each
// directory is stamped once, when first asked about: the caller took
// the events that came before (knownPaths.refresh).
func listingHolds(stamp func(string) dirStamp) func(dir, name string) bool {
	listings := map[string]map[string]bool{}
	return func(dir, name string) bool {
		names, ok := listings[dir]
		if !ok {
			names, _ = dirNames.get(dir, stamp(dir))
			listings[dir] = names
		}
		return names == nil || names[name]
	}
}

// scanStamps are the stamps the scans took last, by directory, and
// whether each root's .git was a directory then: a directory that
// stillStamped says has not changed keeps its stamp without a look, and
// a root with the same stamp the same .git.
var scanStamps = stampMemo{m: map[string]keptStamp{}}

type stampMemo struct {
	mu sync.Mutex
	m  map[string]keptStamp
}

type keptStamp struct {
	st dirStamp
	// gitKnown: isGit says whether the directory's .git was a directory
	// when it had the stamp st.
	gitKnown, isGit bool
}

// get returns d's stamp: the last one when stillStamped (same are the
// directories whose stamps were kept so: d's own directory among them
// says d's name still leads to it), or a new one.
func (c *stampMemo) get(d string, same map[string]bool) dirStamp {
	c.mu.Lock()
	e, ok := c.m[d]
	c.mu.Unlock()
	if ok && stillStamped(d, e.st, same) {
		same[d] = true
		return e.st
	}
	st := stampDir(d)
	if ok && st.ok && st == e.st {
		// Looked at, and as it was: the same directory, unchanged.
		same[d] = true
		return st
	}
	c.mu.Lock()
	if len(c.m) >= maxDirNames {
		clear(c.m)
	}
	c.m[d] = keptStamp{st: st}
	c.mu.Unlock()
	return st
}

// rootGit says whether r's .git was a directory when r had the stamp st
// (ok false: not known).
func (c *stampMemo) rootGit(r string, st dirStamp) (isGit, ok bool) {
	if !st.watched {
		return false, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, have := c.m[r]
	return e.isGit, have && e.gitKnown && e.st == st
}

// setRootGit records whether r's .git is a directory, r having the
// stamp st.
func (c *stampMemo) setRootGit(r string, st dirStamp, isGit bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[r]; ok && e.st == st {
		c.m[r] = keptStamp{st: st, gitKnown: true, isGit: isGit}
	}
}

// readListed is os.ReadDir of a git directory's worktrees or modules
// directory (innerGitDirsRead), not looked for when its git directory
// does not hold it (holds).
func readListed(d string, holds func(dir, name string) bool) ([]os.DirEntry, error) {
	if b := filepath.Base(d); (b == "worktrees" || b == "modules") && !holds(filepath.Dir(d), b) {
		return nil, os.ErrNotExist
	}
	return os.ReadDir(d)
}

// fixedProtected are the protected paths of a confinement that do not
// depend on what its roots hold beyond whether each root's .git is a
// directory: the ProtectedNames at each root's top, and the git
// directories (root/.git, c.GitDirs) with their ProtectedGitNames,
// cleaned, without those unprotected; has is the set of paths.
type fixedProtected struct {
	paths []protectedPath
	has   map[string]bool
	// names and gitNames are ProtectedNames and ProtectedGitNames as
	// they were (a list changed since is joined again).
	names, gitNames []string
}

// staticProtected returns c's fixedProtected, kept by what it is made
// of (every run of a workspace asks for the same), roots being
// rootDirs(c) and rootGit whether each one's .git is a directory.
func staticProtected(c *Confinement, roots []string, rootGit []bool, unprotected func(string) bool) *fixedProtected {
	var k strings.Builder
	for i, r := range roots {
		k.WriteString(r)
		if rootGit[i] {
			k.WriteString("\x00g")
		}
		k.WriteString("\x01")
	}
	for _, list := range [][]string{c.GitDirs, c.Unprotect} {
		k.WriteString("\x02")
		for _, g := range list {
			k.WriteString(g)
			k.WriteString("\x01")
		}
	}
	key := k.String()
	fixedMemo.Lock()
	f, ok := fixedMemo.m[key]
	fixedMemo.Unlock()
	if ok && slices.Equal(f.names, ProtectedNames) && slices.Equal(f.gitNames, ProtectedGitNames) {
		return f
	}
	f = &fixedProtected{has: map[string]bool{}, names: slices.Clone(ProtectedNames), gitNames: slices.Clone(ProtectedGitNames)}
	add := func(p string, pin bool) {
		p = filepath.Clean(p)
		if f.has[p] || len(f.paths) >= maxProtected || unprotected(p) {
			return
		}
		f.has[p] = true
		f.paths = append(f.paths, protectedPath{p, pin})
	}
	gitDir := func(g string) {
		add(g, true)
		for _, n := range ProtectedGitNames {
			add(filepath.Join(g, n), false)
		}
	}
	for i, r := range roots {
		dotgit := filepath.Join(r, ".git")
		if rootGit[i] {
			gitDir(dotgit)
		} else {
			add(dotgit, false) // a .git file, or none yet
		}
		for _, n := range ProtectedNames {
			add(filepath.Join(r, n), false)
		}
	}
	for _, g := range c.GitDirs {
		if filepath.IsAbs(g) {
			gitDir(g)
		}
	}
	fixedMemo.Lock()
	if len(fixedMemo.m) >= 64 {
		clear(fixedMemo.m)
	}
	fixedMemo.m[key] = f
	fixedMemo.Unlock()
	return f
}

var fixedMemo = struct {
	sync.Mutex
	m map[string]*fixedProtected
}{m: map[string]*fixedProtected{}}

// symlinkTargets are what the protected paths that are symlinks (by
// their states before, one each) lead to in roots: fully resolved, or,
// for one whose target does not exist yet, that target. A path a person
// unprotected is left out, and so is a root itself.
func symlinkTargets(prot []protectedPath, before []pathState, roots, unprotect []string) []protectedPath {
	var out []protectedPath
	var seen map[string]bool
	for i, p := range prot {
		if i >= len(before) || before[i].symlink == "" {
			continue
		}
		if seen == nil {
			seen = make(map[string]bool, len(prot))
			for _, q := range prot {
				seen[q.path] = true
			}
		}
		t, err := filepath.EvalSymlinks(p.path)
		if err != nil {
			t = before[i].symlink
			if !filepath.IsAbs(t) {
				t = filepath.Join(filepath.Dir(p.path), t)
			}
		}
		t = filepath.Clean(t)
		in := false
		for _, r := range roots {
			if t != r && within(t, r) {
				in = true
			}
		}
		for _, u := range unprotect {
			if within(t, filepath.Clean(u)) {
				in = false
			}
		}
		if in && !seen[t] && len(prot)+len(out) < maxProtected {
			seen[t] = true
			out = append(out, protectedPath{path: t})
		}
	}
	return out
}

// pathState is what a protected path was before the run.
type pathState struct {
	exists  bool
	dev     uint64
	ino     uint64
	mode    os.FileMode
	symlink string // the target, for a symlink
}

func statePath(p string) pathState {
	fi, err := os.Lstat(p)
	if err != nil {
		return pathState{}
	}
	s := pathState{exists: true, mode: fi.Mode().Type()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.dev, s.ino = uint64(st.Dev), st.Ino
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		s.symlink, _ = os.Readlink(p)
	}
	return s
}

// guard watches the protected paths the kernel could not pin (those that
// did not exist yet, and symlinks): after the run, one that appeared or
// was replaced is moved out of the workspace into the quarantine (or
// removed), a replaced symlink is put back, and each is reported as a
// refused write.
type guard struct {
	paths      []string
	before     []pathState
	quarantine string // a directory to move into; "" removes
	// parents are the stamps of the paths' parent directories before the
	// run, by path; parentOf[i] is paths[i]'s.
	parents  map[string]dirStamp
	parentOf []string
	// order are the keys of parents, shorter first (a directory's own
	// directory before it): the paths' directories, and those between
	// two of them.
	order []string
	// same are the parents unchanged by the run, by path (undo).
	same map[string]bool
	// nested is what the walk beneath the roots' tops found before the
	// run (nil: none); undo walks again.
	nested *nestedBefore
}

// dirStamp is what lstat said of a directory at one moment: a path's
// entries in a directory with the same stamp later are the same files
// (an entry made, removed or renamed in a directory changes its ctime,
// which a command cannot set back). ok says the stamp can stand for its
// entries: the path is a directory whose ctime was older than racyWindow
// when it was taken (a change in the same clock tick keeps the ctime), or
// it does not exist (ENOENT, ENOTDIR: no entry beneath it can either).
//
// Where inotify watches the directory (guardWatch), the stamp holds the
// watch and its generation (knownPaths): while no event came for it,
// its entries are the same whatever its ctime, so a directory changed a
// moment ago (a file an agent just wrote) can stand too.
type dirStamp struct {
	ok       bool
	missing  bool
	dev, ino uint64
	ctime    int64
	// watched: wd watches the directory; gen and mount are the
	// generations when the stamp was taken.
	watched    bool
	wd         int32
	gen, mount uint64
}

// stampDir takes the stamp of the directory p. The caller took the
// events that came before (knownPaths.refresh).
func stampDir(p string) dirStamp {
	now := time.Now()
	st, err := lstatCtime(p)
	if err != nil {
		return dirStamp{ok: errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR), missing: true}
	}
	if !st.dir {
		return dirStamp{}
	}
	ds := dirStamp{ok: now.Sub(time.Unix(0, st.ctime)) > racyWindow && st.kept, dev: st.dev, ino: st.ino, ctime: st.ctime}
	if wd, ok := guardWatches.watch(p, st.dev, st.ino); ok {
		ds.wd, ds.gen, ds.mount, ds.watched = wd, knownPaths.genOf(wd), knownPaths.mountGen(), true
		ds.ok = true
	}
	return ds
}

// unchangedSince says whether the directory stamped was before still is
// the same, unchanged: its entries need not be looked at again. The
// caller took the events that came since (knownPaths.refresh).
func unchangedSince(was dirStamp, p string) bool {
	if !was.ok {
		return false
	}
	now := stampDir(p)
	if was.watched {
		return now.watched && now.dev == was.dev && now.ino == was.ino && now.ctime == was.ctime &&
			now.wd == was.wd && now.gen == was.gen && now.mount == was.mount
	}
	return now.missing == was.missing && now.dev == was.dev && now.ino == was.ino && now.ctime == was.ctime
}

// guardWatches are the inotify watches of the guard's directories, by
// path, with the identity of the directory each watches.
var guardWatches = guardWatchCache{m: map[string]guardWatched{}}

type guardWatched struct {
	dev, ino uint64
	wd       int32
	mount    uint64
}

type guardWatchCache struct {
	mu sync.Mutex
	m  map[string]guardWatched
}

// newGuard records the state of paths before the run.
func newGuard(paths []string, quarantine string) *guard {
	knownPaths.refresh()
	g := &guard{paths: paths, quarantine: quarantine}
	if m := guardMemos.find(paths); m != nil {
		// The same paths as a run before: their states then stand when
		// every directory they are in has the stamp it had then (see
		// guardMemo).
		g.parentOf, g.order = m.parentOf, m.order
		g.parents = make(map[string]dirStamp, len(m.order))
		same := true
		kept := make(map[string]bool, len(m.order))
		for i, d := range m.order {
			was := m.stamps[i]
			if stillStamped(d, was, kept) {
				g.parents[d], kept[d] = was, true
				continue
			}
			st := g.stampParent(d)
			g.parents[d] = st
			kept[d] = st == was
			same = same && kept[d]
		}
		if same {
			g.before = slices.Clone(m.before)
			return g
		}
	} else {
		g.parentOf = make([]string, len(paths))
		seen := make(map[string]bool, 16)
		for i, p := range paths {
			d := filepath.Dir(p)
			g.parentOf[i] = d
			if !seen[d] {
				seen[d] = true
				g.order = append(g.order, d)
			}
		}
		// A directory between two of them (.git/objects, between .git
		// and .git/objects/info) is stamped too, though no path is in
		// it: while it is unchanged, the one beneath keeps its stamp
		// without a look (stillStamped).
		for _, d := range g.order {
			if way := filepath.Dir(d); !seen[way] && seen[filepath.Dir(way)] {
				seen[way] = true
				g.order = append(g.order, way)
			}
		}
		// A directory's own directory first (stampParent).
		slices.SortStableFunc(g.order, func(a, b string) int { return len(a) - len(b) })
		g.parents = make(map[string]dirStamp, len(g.order))
		for _, d := range g.order {
			// Stamped before its entries: a change between the two
			// changes the stamp, so undo looks at them again.
			g.parents[d] = g.stampParent(d)
		}
	}
	g.before = make([]pathState, 0, len(paths))
	for i, p := range paths {
		d := g.parentOf[i]
		if st := g.parents[d]; st.ok && st.missing {
			g.before = append(g.before, pathState{}) // no directory: no entry
			continue
		}
		if names, ok := dirNames.get(d, g.parents[d]); ok && !names[filepath.Base(p)] {
			g.before = append(g.before, pathState{}) // not in the listing
			continue
		}
		g.before = append(g.before, pathStates.get(p, g.parents[d]))
	}
	guardMemos.keep(g)
	return g
}

// stillStamped says, without a look at it, that the directory d still
// has the watched stamp was: its watch saw no event since (its entries
// and attributes are the same), and its name still leads to it, because
// either its own directory is unchanged since its stamp (same, by path:
// renaming or replacing d is an event there) or d is a root whose kept
// finding (knownPaths: every directory on its way watched) is the
// directory stamped. false: look (stampDir). The caller took the events
// that came since (knownPaths.refresh).
func stillStamped(d string, was dirStamp, same map[string]bool) bool {
	if !was.watched || !knownPaths.wdSame(was.wd, was.gen, was.mount) {
		return false
	}
	if same[filepath.Dir(d)] {
		return true
	}
	v, ok := knownPaths.lookup(pathDirKey{d, "", rootDir})
	return ok && v.err == nil && v.st.dev == was.dev && v.st.ino == was.ino
}

// stampParent is stampDir(d) for the guard's directory d, whose own
// directory, when the guard has it too, was stamped before: a name that
// directory's kept listing does not hold is a directory that does not
// exist, as its lstat would have said (ENOENT), without one.
func (g *guard) stampParent(d string) dirStamp {
	if ps, ok := g.parents[filepath.Dir(d)]; ok && ps.ok {
		if ps.missing {
			return dirStamp{ok: true, missing: true}
		}
		if names, ok := dirNames.get(filepath.Dir(d), ps); ok && !names[filepath.Base(d)] {
			return dirStamp{ok: true, missing: true}
		}
	}
	return stampDir(d)
}

// guardMemos keep the guards' states before their runs, by their
// paths: a run of the same command in the same workspace protects the
// same paths, and while each of their directories has the same stamp the
// states are the same, without a look at each path. A stamp stands for
// the directory's entries only when it is watched (the kept listing and
// states are by it: dirNames, pathStates) or the directory does not
// exist; a guard with any other is not kept.
var guardMemos guardMemoList

type guardMemoList struct {
	sync.Mutex
	list []*guardMemo // the last few, newest last
}

// guardMemo is one guard's paths, directories and states before a run.
type guardMemo struct {
	paths, parentOf, order []string
	stamps                 []dirStamp // order's
	before                 []pathState
}

// maxGuardMemos bounds guardMemos (one per workspace and command shape
// run lately).
const maxGuardMemos = 8

// find returns the memo of these paths, or nil.
func (l *guardMemoList) find(paths []string) *guardMemo {
	l.Lock()
	defer l.Unlock()
	for i := len(l.list) - 1; i >= 0; i-- {
		if m := l.list[i]; slices.Equal(m.paths, paths) {
			return m
		}
	}
	return nil
}

// keep keeps g's states before its run, when every stamp of its
// directories stands for their entries.
func (l *guardMemoList) keep(g *guard) {
	m := &guardMemo{paths: slices.Clone(g.paths), parentOf: g.parentOf, order: g.order,
		stamps: make([]dirStamp, len(g.order)), before: slices.Clone(g.before)}
	for i, d := range g.order {
		st := g.parents[d]
		if !st.ok || !st.missing && !st.watched {
			return
		}
		m.stamps[i] = st
	}
	l.Lock()
	defer l.Unlock()
	l.list = slices.DeleteFunc(l.list, func(o *guardMemo) bool { return slices.Equal(o.paths, m.paths) })
	if len(l.list) >= maxGuardMemos {
		l.list = l.list[1:]
	}
	l.list = append(l.list, m)
}

// pathStates keeps statePath's answers under the watched stamp of the
// path's directory: while no event came for the directory, its entry is
// the same file (replacing, removing or renaming it is an event of the
// directory; a symlink's target cannot change in place).
var pathStates = pathStateCache{m: map[string]keptState{}}

type keptState struct {
	parent dirStamp
	state  pathState
}

type pathStateCache struct {
	mu sync.Mutex
	m  map[string]keptState
}

// get is statePath(p), kept under parent, the stamp of p's directory,
// when it is watched.
func (c *pathStateCache) get(p string, parent dirStamp) pathState {
	if !parent.watched {
		return statePath(p)
	}
	c.mu.Lock()
	e, ok := c.m[p]
	c.mu.Unlock()
	if ok && e.parent == parent {
		return e.state
	}
	s := statePath(p)
	c.mu.Lock()
	if len(c.m) >= maxDirNames {
		clear(c.m)
	}
	c.m[p] = keptState{parent, s}
	c.mu.Unlock()
	return s
}

// dirNames keeps the entries' names of the guard's parent directories
// by their stamps, so that a protected path that does not exist costs
// no lstat of its own: a directory with the same stamp has the same
// entries. An entry that exists is looked at each time (a mount on it
// does not change its directory's stamp).
var dirNames = dirNameCache{m: map[string]cachedNames{}}

// maxDirNames bounds the directories kept, maxDirEntries the entries
// of one directory kept (a larger one is not).
const (
	maxDirNames   = 4096
	maxDirEntries = 4096
)

type cachedNames struct {
	stamp dirStamp
	names map[string]bool
}

type dirNameCache struct {
	mu sync.Mutex
	m  map[string]cachedNames
}

// get returns the names of the entries of the directory p, stamped st
// (a directory): kept, or read when the directory opened (not following
// a symlink) is the one stamped, unchanged while it is read.
func (c *dirNameCache) get(p string, st dirStamp) (map[string]bool, bool) {
	if !st.ok || st.missing {
		return nil, false
	}
	c.mu.Lock()
	e, ok := c.m[p]
	c.mu.Unlock()
	if ok && e.stamp == st {
		return e.names, true
	}
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	same := func() bool {
		var fst unix.Stat_t
		return unix.Fstat(fd, &fst) == nil && uint64(fst.Dev) == st.dev && fst.Ino == st.ino && fst.Ctim.Nano() == st.ctime
	}
	if !same() {
		return nil, false
	}
	list, err := f.Readdirnames(maxDirEntries + 1)
	if (err != nil && err != io.EOF) || len(list) > maxDirEntries || !same() {
		return nil, false
	}
	names := make(map[string]bool, len(list))
	for _, n := range list {
		names[n] = true
	}
	c.mu.Lock()
	if len(c.m) >= maxDirNames {
		clear(c.m)
	}
	c.m[p] = cachedNames{st, names}
	c.mu.Unlock()
	return names, true
}

// stampAfter is stampDir(d) after the run, for one of g's directories
// that undo found unchanged: its stamp from before the run.
func (g *guard) stampAfter(d string) dirStamp {
	if g.same[d] {
		return g.parents[d]
	}
	return stampDir(d)
}

// undo puts back what the run changed; it returns one denial per path.
func (g *guard) undo() []SandboxDenial {
	if g == nil {
		return nil
	}
	var out []SandboxDenial
	same := map[string]bool{}
	knownPaths.refresh() // the run's changes
	for _, d := range g.order {
		st := g.parents[d]
		if st.ok && st.missing && same[filepath.Dir(d)] {
			// Absent, in a directory unchanged since: still absent.
			same[d] = true
			continue
		}
		same[d] = stillStamped(d, st, same) || unchangedSince(st, d)
	}
	for i, p := range g.paths {
		if same[g.parentOf[i]] {
			continue // its directory is unchanged: so is it
		}
		was, now := g.before[i], statePath(p)
		if was == now {
			continue
		}
		if !now.exists {
			// Removed (a symlink the kernel could not pin): put it back.
			if was.symlink != "" && os.Symlink(was.symlink, p) == nil {
				out = append(out, SandboxDenial{Op: "write", Path: p, Undone: true, Line: "protected path " + p + " was removed by the command; the symlink was restored"})
			}
			continue
		}
		where := g.moveAside(p)
		if was.symlink != "" {
			_ = os.Symlink(was.symlink, p)
		}
		out = append(out, SandboxDenial{Op: "write", Path: p, Undone: true, Line: "protected path " + p + " was created by the command; " + where})
	}
	g.same = same
	return append(out, g.nested.check(g)...)
}

// moveAside moves p into the quarantine (or removes it) and says where
// it went.
func (g *guard) moveAside(p string) string {
	if g.quarantine != "" {
		d := filepath.Join(g.quarantine, fmt.Sprintf("%s-%d", time.Now().UTC().Format("20060102T150405"), os.Getpid()))
		if os.MkdirAll(d, 0o700) == nil {
			dst := filepath.Join(d, strings.TrimPrefix(strings.ReplaceAll(filepath.Clean(p), "/", "%"), "%"))
			if os.Rename(p, dst) == nil {
				return "moved to " + dst
			}
		}
	}
	if err := os.RemoveAll(p); err != nil {
		return "it could not be removed: " + err.Error()
	}
	return "removed"
}

// isRegular reports whether p is a regular file (not followed).
func isRegular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}
