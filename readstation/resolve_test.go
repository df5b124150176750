package readstation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// resolveTree is a directory with the links the resolver must follow:
// relative, absolute, chained, dangling, to a file, with ".." in targets,
// and a loop.
func resolveTree(t testing.TB) string {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	writeFiles(t, dir, []string{"a/b/c/f", "x/y/g", "file"})
	for name, target := range map[string]string{
		"rel": "a/b", "abs": filepath.Join(dir, "x"), "chain": "rel", "up": "a/b/c/../..",
		"dangling": "nowhere/deeper", "absdangling": filepath.Join(dir, "gone"), "tofile": "file",
		"dotdot": "a/missing/../../x", "loop1": "loop2", "loop2": "loop1", "a/b/c/self": ".",
	} {
		must(t, os.Symlink(target, filepath.Join(dir, name)))
	}
	return dir
}

// resolvePaths are paths below the tree that exist, are missing at some
// depth, lie under a file, a dangling link or a loop, or hold "..".
var resolvePaths = []string{
	"a/b/c/f", "a/b/c/missing", "a/b/missing/deeper/still", "missing", "missing/a/b", "rel/c/f",
	"rel/c/nope", "chain/nope/x", "abs/y/g", "abs/nope/z", "up/b/c/f", "up/nope", "dangling",
	"dangling/x", "dangling/x/y", "absdangling/x", "tofile", "tofile/x", "tofile/x/y", "file/x",
	"file/x/../y", "dotdot/y/g", "dotdot/nope/q", "loop1", "loop1/x", "a/b/c/self/self/nope/x",
	"a/b/c/../../b/nope", "missing/../a/b/c/f", "a/b/c/f/..", "rel/../nope/x",
}

// checkResolve fails when resolving p through the cache (each parent
// first, as Judge does) differs from walking it from the root, component
// by component, with a fresh cache.
func checkResolve(t *testing.T, p string) {
	t.Helper()
	warm := &fsCache{}
	// Resolve the ancestors first, as a command's other reads may.
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			warm.resolve(p[:i])
		}
	}
	got := warm.resolve(p)
	want := (&fsCache{}).walk("/", p, p)
	if diff := cmp.Diff(showResolved(want), showResolved(got)); diff != "" {
		t.Errorf("resolve(%s) differs from the walk from the root (-walk +resolve):\n%s", p, diff)
	}
	if got2 := (&fsCache{}).resolve(p); showResolved(got2) != showResolved(want) {
		t.Errorf("resolve(%s) with a cold cache = %s, want %s", p, showResolved(got2), showResolved(want))
	}
}

func showResolved(r resolved) string {
	return fmt.Sprintf("real=%s exists=%v mode=%v dev=%d ino=%d err=%v", r.real, r.exists, r.mode, r.dev, r.ino, r.err)
}

// TestResolveMatchesWalk: resolving a path through its parent (and the
// parent's shortcut for a missing or non-directory parent) finds what the
// component-by-component walk from the root finds.
func TestResolveMatchesWalk(t *testing.T) {
	dir := resolveTree(t)
	for _, p := range resolvePaths {
		checkResolve(t, dir+"/"+p)
	}
}

// FuzzResolve checks the resolver against the walk from the root on any
// path below the tree.
func FuzzResolve(f *testing.F) {
	for _, p := range resolvePaths {
		f.Add(p)
	}
	dir := resolveTree(f)
	f.Fuzz(func(t *testing.T, p string) {
		if strings.ContainsRune(p, 0) || len(p) > 200 {
			return
		}
		checkResolve(t, filepath.Clean(dir+"/"+p))
	})
}

// TestStatIDMatchesOS: statID reports what os.Stat and os.Lstat report (the
// mode, the device and inode, the error's text) for a file, a directory,
// links, a named pipe, a device, a setuid file, a sticky directory, a
// missing path and a path through a file.
func TestStatIDMatchesOS(t *testing.T) {
	dir := resolveTree(t)
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o640))
	must(t, os.WriteFile(filepath.Join(dir, "suid"), nil, 0o755))
	must(t, os.Chmod(filepath.Join(dir, "suid"), 0o755|os.ModeSetuid|os.ModeSetgid))
	must(t, os.Mkdir(filepath.Join(dir, "sticky"), 0o755))
	must(t, os.Chmod(filepath.Join(dir, "sticky"), 0o1777|os.ModeSticky))
	paths := []string{"/dev/null", "/", dir}
	for _, p := range append(resolvePaths, "fifo", "suid", "sticky") {
		paths = append(paths, filepath.Join(dir, p))
	}
	for _, p := range paths {
		for _, follow := range []bool{true, false} {
			var fi os.FileInfo
			var err error
			if follow {
				fi, err = os.Stat(p)
			} else {
				fi, err = os.Lstat(p)
			}
			mode, dev, ino, gotErr := statID(p, follow)
			want := fmt.Sprint(err)
			var wdev, wino uint64
			var wmode os.FileMode
			if err == nil {
				wmode, want = fi.Mode(), "<nil>"
				wdev, wino = devIno(fi)
			}
			if got := fmt.Sprint(gotErr); got != want || mode != wmode || dev != wdev || ino != wino {
				t.Errorf("statID(%s, follow %v) = %v %d %d %s, want %v %d %d %s", p, follow, mode, dev, ino, got, wmode, wdev, wino, want)
			}
		}
	}
}
