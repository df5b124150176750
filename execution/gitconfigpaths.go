package execution

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/shellgate/shellgate/gitrepo"
	"golang.org/x/sys/unix"
)

// A repository's configuration may name files in the workspace that git
// runs or reads as configuration later: the hooks directory
// (core.hooksPath = .husky, as husky sets it), an included file
// (include.path, includeIf.*.path), a helper program by its path
// (core.fsmonitor = tools/fsmon.sh, a filter's or diff driver's program).
// Those are ordinary files of the workspace, which a confined command
// could write: the user's next git commit, git status or alias would run
// what it wrote, unconfined. configNamedPaths finds them, in the roots,
// so that they are protected as the git directory's own files are (bound
// read-only where they exist, moved aside after the run where they did
// not).

// gitHookNames are the hooks git runs, for a hooks directory that is a
// root itself (core.hooksPath = .): its hooks are protected one by one.
var gitHookNames = gitrepo.HookNames

// configNamedPaths returns the paths in the roots that the configuration
// git reads in the git directory gd (every scope, as gitrepo.Load reads
// it, with this process's environment: the user's later git has it)
// names as hooks, included files or programs. top is the work tree's top
// (where git runs hooks and helpers); inRoots says whether a path lies
// in a root. The answer is kept while the files it was read from are
// unchanged.
func configNamedPaths(gd, top string, inRoots func(string) bool) []string {
	key := gd + "\x00" + top
	namedCache.Lock()
	e, ok := namedCache.m[key]
	namedCache.Unlock()
	if ok && e.fresh() {
		return filterIn(e.paths, inRoots)
	}
	files := &stampedFiles{}
	env := func(n string) (string, bool) { v, _ := os.LookupEnv(n); return v, true }
	common := gd
	if v, ok := ReadGitPointer(filepath.Join(gd, "commondir"), ""); ok {
		if !filepath.IsAbs(v) {
			v = filepath.Join(gd, v)
		}
		common = filepath.Clean(v)
	}
	o := gitrepo.Options{Files: files, Env: env, GitDir: gd, CommonDir: common}
	cfg, err := gitrepo.Load(o)
	if err != nil {
		// Not read exactly as git reads it: the repository's own file,
		// every condition taken, is what a command could have made name
		// the workspace.
		o.AllConditions = true
		if cfg, err = gitrepo.LoadFile(o, filepath.Join(common, "config"), gitrepo.ScopeLocal); err != nil {
			return nil
		}
	}
	home, _ := os.LookupEnv("HOME")
	paths := namedIn(cfg, top, home)
	namedCache.Lock()
	if len(namedCache.m) >= 256 {
		clear(namedCache.m)
	}
	namedCache.m[key] = namedEntry{files: files.read, paths: paths}
	namedCache.Unlock()
	return filterIn(paths, inRoots)
}

// namedIn lists what cfg names: the hooks directory (the last
// core.hooksPath), the files it includes (those that exist, by the
// entries they set, and every include.path, which may name one not made
// yet), and the programs its helpers name by a path.
func namedIn(cfg *gitrepo.Config, top, home string) []string {
	var out []string
	resolve := func(p, base string) string {
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			if home == "" {
				return ""
			}
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		case !filepath.IsAbs(p):
			p = filepath.Join(base, p)
		}
		return filepath.Clean(p)
	}
	hooks := ""
	for _, e := range cfg.Entries {
		if e.File != "" {
			out = append(out, filepath.Clean(e.File))
		}
		switch sec := e.Section(); {
		case e.Name == "core.hookspath":
			hooks = e.Value
		case e.Name == "include.path" || sec == "includeif" && e.Key() == "path":
			if e.File != "" && e.Value != "" {
				out = append(out, resolve(e.Value, filepath.Dir(e.File)))
			}
		default:
			_, helper := gitrepo.Lookup(e)
			if !helper && sec != "alias" {
				continue
			}
			prog := strings.TrimPrefix(strings.TrimSpace(e.Value), "!")
			if f := strings.Fields(prog); len(f) > 0 && strings.Contains(f[0], "/") {
				out = append(out, resolve(strings.Trim(f[0], `"'`), top))
			}
		}
	}
	if hooks != "" {
		if d := resolve(hooks, top); d != "" {
			if d == top || within(top, d) {
				// The hooks directory holds the work tree: its hooks one
				// by one.
				for _, h := range gitHookNames {
					out = append(out, filepath.Join(d, h))
				}
			} else {
				out = append(out, d)
				if filepath.Base(d) == huskyHooksDir {
					// Its hooks run their namesakes one level up.
					for _, h := range gitHookNames {
						out = append(out, filepath.Join(filepath.Dir(d), h))
					}
				}
			}
		}
	}
	return out
}

// huskyHooksDir is the name of the hooks directory husky 9 makes in its
// own (core.hooksPath = .husky/_): each hook there runs the script of
// the same name in the directory above (.husky/pre-commit), which git
// commit so runs as surely as a hook.
const huskyHooksDir = "_"

// filterIn keeps the paths that lie in a root (not a root itself).
func filterIn(paths []string, inRoots func(string) bool) []string {
	var out []string
	for _, p := range paths {
		if p != "" && inRoots(p) {
			out = append(out, p)
		}
	}
	return out
}

// namedCache keeps configNamedPaths' answers by git directory and top,
// with the stamps of the files they were read from.
var namedCache = struct {
	sync.Mutex
	m map[string]namedEntry
}{m: map[string]namedEntry{}}

type namedEntry struct {
	files []fileStamp
	paths []string
	// dirs: an .envrc's PATH directories (envrcNamedPaths).
	dirs []string
}

// fresh says whether every file the entry was read from (or found
// missing) is as it was.
func (e namedEntry) fresh() bool {
	for _, f := range e.files {
		if stampOf(f.path) != f {
			return false
		}
	}
	return true
}

// fileStamp is what stat (following symlinks) said of a file: a missing
// one has ok false.
type fileStamp struct {
	path           string
	ok             bool
	dev, ino, size uint64
	mtime, ctime   int64
}

func stampOf(p string) fileStamp {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return fileStamp{path: p}
	}
	return fileStamp{path: p, ok: true, dev: uint64(st.Dev), ino: st.Ino, size: uint64(st.Size),
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// stampedFiles reads configuration files for gitrepo (following
// symlinks, as git does; never waiting on a FIFO; at most maxGitConfig
// bytes) and records the stamp of each file asked for.
type stampedFiles struct{ read []fileStamp }

func (f *stampedFiles) ReadFile(p string) ([]byte, error) {
	f.read = append(f.read, stampOf(p))
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR) {
			return nil, fs.ErrNotExist
		}
		return nil, err
	}
	file := os.NewFile(uintptr(fd), p)
	defer file.Close()
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(file, maxGitConfig+1))
	if err != nil || len(data) > maxGitConfig {
		return nil, errors.New("cannot be read whole")
	}
	return data, nil
}

func (f *stampedFiles) RealPath(p string) (string, error) { return filepath.EvalSymlinks(p) }
