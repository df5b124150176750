package execution

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// homeSecrets are the files and directories under the home directory
// that hold credentials: no directory that is one of them, holds one or
// lies inside one is ever made readable as a toolchain.
var homeSecrets = []string{
	".ssh", ".aws", ".gnupg", ".config/gh", ".docker", ".kube", ".netrc",
	".git-credentials", ".npmrc", ".pypirc", ".cargo/credentials.toml",
	".cargo/credentials", ".config/gcloud", ".azure", ".password-store",
	".vault-token", ".config/hub", ".local/share/keyrings", ".terraform.d",
	".gem/credentials", ".m2/settings.xml", ".gradle/gradle.properties",
	".config/git/credentials", ".pgpass", ".my.cnf",
}

// toolchainHomes are where version managers and installers keep
// toolchains: the variable that moves the directory, and its default
// under the home directory.
var toolchainHomes = []struct{ env, rel string }{
	{"PYENV_ROOT", ".pyenv"},
	{"ASDF_DATA_DIR", ".asdf"},
	{"MISE_DATA_DIR", ".local/share/mise"},
	{"NVM_DIR", ".nvm"},
	{"VOLTA_HOME", ".volta"},
	{"RUSTUP_HOME", ".rustup"},
	{"RBENV_ROOT", ".rbenv"},
	{"NODENV_ROOT", ".nodenv"},
	{"GOENV_ROOT", ".goenv"},
	{"UV_PYTHON_INSTALL_DIR", ".local/share/uv/python"},
	{"", "sdk"}, // golang.org/dl's go1.N.M downloads
	{"", ".sdkman/candidates"},
	{"", ".bun/bin"},
	{"", ".deno/bin"},
}

// ToolchainDirs returns the directories outside the system directories
// that hold the toolchains in use, for a confined command to read and
// execute: the version managers' homes that exist (pyenv, asdf, mise,
// nvm, volta, rustup, rbenv, nodenv, goenv, uv's pythons, golang.org/dl's
// sdk), GOROOT (set, or the one the go on PATH belongs to), the download
// cache of the Go module cache (read through GOPROXY=file://, see
// cacheEnv), the active virtualenv and its base interpreter. env is the
// command's environment; home its home directory. A directory that is the
// home directory or above it, that holds one of homeSecrets or lies inside
// one, or that denied reports, is left out.
func ToolchainDirs(env []string, home string, denied func(string) bool) []string {
	get := func(k string) string { return EnvValue(env, k) }
	var cands []string
	for _, t := range toolchainHomes {
		if v := get(t.env); t.env != "" && filepath.IsAbs(v) {
			cands = append(cands, v)
		} else if home != "" {
			cands = append(cands, filepath.Join(home, t.rel))
		}
	}
	if v := get("GOROOT"); filepath.IsAbs(v) {
		cands = append(cands, v)
	}
	if g := goRootOf(get("PATH")); g != "" {
		cands = append(cands, g)
	}
	if m := goModCache(get, home); m != "" {
		cands = append(cands, filepath.Join(m, "cache", "download"))
	}
	if v := get("VIRTUAL_ENV"); filepath.IsAbs(v) {
		cands = append(cands, v)
		if base := venvBase(filepath.Join(v, "pyvenv.cfg")); base != "" {
			cands = append(cands, base)
		}
	}
	seen := map[string]bool{}
	var out []string
	knownPaths.refresh()
	for _, d := range cands {
		d = filepath.Clean(d)
		if seen[d] || !filepath.IsAbs(d) {
			continue
		}
		// safeToolchainDir, with the resolution of d kept by knownPaths
		// (most candidates do not exist: they are not judged).
		real, st, err := knownRealPath(d)
		if err != nil || !st.dir || !safePlace(d, home, denied) || real != d && !safePlace(real, home, denied) {
			continue
		}
		seen[d] = true
		out = append(out, d)
	}
	return out
}

// knownRealPath is realStatCtime of d, kept by knownPaths while nothing on
// d's way changed (the caller took the events: knownPaths.refresh).
func knownRealPath(d string) (string, ctimeStat, error) {
	k := pathDirKey{d, "", resolvedDir}
	if v, ok := knownPaths.lookup(k); ok {
		return v.real, v.st, v.err
	}
	pw := knownPaths.watch(d)
	real, st, err := realStatCtime(d)
	if pw != nil && (err == nil || errors.Is(err, fs.ErrNotExist)) {
		knownPaths.remember(k, pw, knownPath{st: st, err: err, real: real})
	}
	return real, st, err
}

// safeToolchainDir reports whether d may be made readable: absolute, not
// the file system root, not the home directory or above it, holding no
// credentials of homeSecrets and not inside them, and not denied.
func safeToolchainDir(d, home string, denied func(string) bool) bool {
	if !safePlace(d, home, denied) {
		return false
	}
	// The real directory must pass as well (a symlink into ~/.ssh).
	if real, err := realPath(d); err == nil && real != d {
		return safeToolchainDir(real, home, denied)
	}
	return true
}

// safePlace is safeToolchainDir of the path d as written (its symlinks
// not looked at).
func safePlace(d, home string, denied func(string) bool) bool {
	if !filepath.IsAbs(d) || d == "/" {
		return false
	}
	if home != "" {
		home = filepath.Clean(home)
		if within(home, d) {
			return false
		}
		for _, p := range homeSecretPaths(home) {
			if within(p, d) || within(d, p) {
				return false
			}
		}
	}
	return denied == nil || !denied(d)
}

// homeSecretPaths are homeSecrets under home (the last home asked for is
// kept: every run asks for the same one).
func homeSecretPaths(home string) []string {
	if k := lastHomeSecrets.Load(); k != nil && k.home == home {
		return k.paths
	}
	k := &homeSecretList{home: home}
	for _, s := range homeSecrets {
		k.paths = append(k.paths, filepath.Join(home, s))
	}
	lastHomeSecrets.Store(k)
	return k.paths
}

type homeSecretList struct {
	home  string
	paths []string
}

var lastHomeSecrets atomic.Pointer[homeSecretList]

// dirKind is what a directory readDirsIDs grants is.
type dirKind uint8

const (
	systemDir   dirKind = iota // in systemReadDirs
	pathDir                    // on PATH
	rootDir                    // a root
	resolvedDir                // a directory resolved (knownRealPath)
)

// safePathDir is safeToolchainDir(d, home, nil) of a directory on PATH,
// with the identity of the file d names (its symlinks followed); a
// system directory (systemReadDirs) is judged by the directory it names
// only, when that is another; a root is not judged (it is granted). What
// is found is kept by knownPaths while nothing it rests on changes.
// Else the verdict is kept under (d, home, kind) with the device, inode
// and ctime of the file d names, where its file system keeps ctimes
// (ctimeKept) or it is the root of a mount (/proc, /sys, which cannot
// move): the next run that finds d naming the same file, unchanged,
// takes it with one statx instead of resolving d again. What the verdict
// rests on cannot change without the ctime: a directory has one parent,
// and renaming or moving it sets its ctime; a new directory on a reused
// inode number has another ctime; a symlink swapped on the way names
// another file. (A directory above d renamed into a secret's directory
// keeps d's ctime: the directory granted is still the one judged, with
// what it holds.) The real path and the identity of a new verdict are
// read from one open file, so a swap between the two cannot pair a
// verdict with another file.
func safePathDir(d, home string, kind dirKind) (ctimeStat, bool, error) {
	k := pathDirKey{d, home, kind}
	if v, ok := knownPaths.lookup(k); ok {
		return v.st, v.safe, v.err
	}
	pw := knownPaths.watch(d)
	st, safe, err := judgePathDir(k)
	if pw != nil && (err == nil || errors.Is(err, fs.ErrNotExist)) {
		knownPaths.remember(k, pw, knownPath{st: st, safe: safe, err: err})
	}
	return st, safe, err
}

// judgePathDir is safePathDir without knownPaths.
func judgePathDir(k pathDirKey) (ctimeStat, bool, error) {
	d, home := k.dir, k.home
	st, err := statCtime(d)
	if err != nil || k.kind == rootDir {
		return st, err == nil, err
	}
	if st.kept || st.mountRoot {
		pathDirVerdicts.Lock()
		v, ok := pathDirVerdicts.m[k]
		pathDirVerdicts.Unlock()
		if ok && v.st == st {
			return st, v.safe, nil
		}
	}
	real, st, err := realStatCtime(d)
	if err != nil {
		return st, false, err
	}
	safe := (k.kind == systemDir || safePlace(d, home, nil)) && (real == d || safePlace(real, home, nil))
	if st.kept || st.mountRoot {
		pathDirVerdicts.Lock()
		if len(pathDirVerdicts.m) >= 4096 {
			clear(pathDirVerdicts.m)
		}
		pathDirVerdicts.m[k] = pathDirVerdict{st, safe}
		pathDirVerdicts.Unlock()
	}
	return st, safe, nil
}

type pathDirKey struct {
	dir, home string
	kind      dirKind
}

type pathDirVerdict struct {
	st   ctimeStat
	safe bool
}

// pathDirVerdicts are safePathDir's verdicts.
var pathDirVerdicts = struct {
	sync.Mutex
	m map[pathDirKey]pathDirVerdict
}{m: map[pathDirKey]pathDirVerdict{}}

// realPath is filepath.EvalSymlinks (on Linux the kernel's own
// resolution, read back from /proc: one lookup instead of one per path
// component).
var realPath = filepath.EvalSymlinks

// goRootOf returns the GOROOT of the first go on path, when it is a Go
// installation (bin/go beside src/runtime).
func goRootOf(path string) string {
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, "go")
		real, st, err := knownRealPath(p)
		if err != nil || st.dir || !isExecutable(real) {
			continue
		}
		root := filepath.Dir(filepath.Dir(real))
		if _, st, err := knownRealPath(filepath.Join(root, "src", "runtime")); err == nil && st.dir {
			return root
		}
		return ""
	}
	return ""
}

// isExecutable reports whether p is a regular file with an execute bit.
func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// goModCache is the user's Go module cache: GOMODCACHE, or the first
// GOPATH entry's pkg/mod, or ~/go/pkg/mod.
func goModCache(get func(string) string, home string) string {
	if v := get("GOMODCACHE"); filepath.IsAbs(v) {
		return v
	}
	if gp := filepath.SplitList(get("GOPATH")); len(gp) > 0 && filepath.IsAbs(gp[0]) {
		return filepath.Join(gp[0], "pkg", "mod")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, "go", "pkg", "mod")
}

// venvBase returns the prefix of a virtualenv's base interpreter: the
// parent of pyvenv.cfg's "home" (the directory that holds the python).
func venvBase(cfg string) string {
	if !isRegular(cfg) {
		return ""
	}
	f, err := os.OpenFile(cfg, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64<<10))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(k) == "home" {
			v = filepath.Clean(strings.TrimSpace(v))
			if filepath.IsAbs(v) {
				return filepath.Dir(v)
			}
		}
	}
	return ""
}

// SandboxCacheDir is the per-user directory of the sandbox's build caches
// ($XDG_CACHE_HOME/shellgate/sandbox, ~/.cache/shellgate/sandbox): only
// confined commands write it (cacheEnv points the tools there), each
// workspace's in a directory of its own (ws/NAME-HASH: see
// workspaceCache), and it stays between runs so that builds stay warm.
// "" when there is no home.
func SandboxCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(d) {
		return ""
	}
	return filepath.Join(d, "shellgate", "sandbox")
}

// cacheEnv returns env with each build tool's cache variable pointed into
// the sandbox cache dir: Go's build and module caches (GOCACHE,
// GOMODCACHE; GOPROXY first tries the user's own module cache as a
// file:// proxy, so modules already downloaded need no network), npm's
// cache, pip's, cargo's home (its registry and git checkouts) and
// XDG_CACHE_HOME for the rest. The user's caches stay untouched: a
// confined command cannot poison what unconfined builds use. home is the
// command's home directory (for the user's module cache).
func cacheEnv(env []string, dir, home string) []string {
	if dir == "" {
		return env
	}
	get := func(k string) string { return EnvValue(env, k) }
	proxy := get("GOPROXY")
	if proxy == "" {
		proxy = "https://proxy.golang.org,direct"
	}
	if m := goModCache(get, home); m != "" && !strings.HasPrefix(proxy, "file://") {
		dl := "file://" + filepath.ToSlash(filepath.Join(m, "cache", "download"))
		if proxy == "off" {
			proxy = dl
		} else {
			proxy = dl + "," + proxy
		}
	}
	sub := cacheSubdirs(dir)
	set := [...][2]string{
		{"GOCACHE", sub[0]},
		{"GOMODCACHE", sub[1]},
		{"GOPROXY", proxy},
		{"npm_config_cache", sub[2]},
		{"PIP_CACHE_DIR", sub[3]},
		{"CARGO_HOME", sub[4]},
		{"XDG_CACHE_HOME", sub[5]},
		{"YARN_CACHE_FOLDER", sub[6]},
		{"npm_config_logs_dir", sub[7]},
	}
	// A variable set in any letter case replaces the ones npm would read
	// in another case (npm_config_cache and NPM_CONFIG_CACHE).
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, s := range set {
			if len(k) == len(s[0]) && strings.EqualFold(k, s[0]) {
				drop = true
				break
			}
		}
		if !drop {
			out = append(out, kv)
		}
	}
	for _, s := range set {
		out = append(out, s[0]+"="+s[1])
	}
	return out
}

// cacheSubdirs are the tools' directories in the sandbox cache dir, in
// cacheEnv's order (the last dir asked for is kept).
func cacheSubdirs(dir string) *[8]string {
	if k := lastCacheSubdirs.Load(); k != nil && k.dir == dir {
		return &k.sub
	}
	k := &cacheSubdirList{dir: dir}
	for i, s := range []string{"go-build", "go-mod", "npm", "pip", "cargo", "xdg", "yarn", "npm/_logs"} {
		k.sub[i] = filepath.Join(dir, s)
	}
	lastCacheSubdirs.Store(k)
	return &k.sub
}

type cacheSubdirList struct {
	dir string
	sub [8]string
}

var lastCacheSubdirs atomic.Pointer[cacheSubdirList]

// ensureCacheDir creates the sandbox cache dir (0700) and its tool
// subdirectories; it reports whether it is a directory of this user.
func ensureCacheDir(dir string) bool {
	_, ok := ensureCacheDirID(dir)
	return ok
}

// ensureCacheDirID is ensureCacheDir; it returns the identity of the
// directory as it found it.
func ensureCacheDirID(dir string) (fileID, bool) {
	if dir == "" {
		return fileID{}, false
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fileID{}, false
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil || !fi.IsDir() {
		return fileID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		return fileID{}, false
	}
	if _, ok := cacheDirsMade.Load(dir); !ok {
		for _, sub := range []string{"go-build", "go-mod", "npm", "pip", "cargo", "xdg", "yarn"} {
			_ = os.Mkdir(filepath.Join(dir, sub), 0o700)
		}
		cacheDirsMade.Store(dir, true)
	}
	return fileID{uint64(st.Dev), st.Ino}, true
}

// cacheDirsMade are the cache directories whose tools' folders were made
// (a tool makes its own again if one was removed since).
var cacheDirsMade sync.Map
