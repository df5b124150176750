//go:build linux

package sandboxtasks

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/internal/asuser"
)

// UserToolchains gives u, in their home, the toolchains the tasks use as
// this process's user (root in CI) has them in theirs: Go's module cache
// with the workspace's one dependency (downloaded, with no network, from a
// copy of this user's module cache), pyenv with a virtualenv of the
// system's python3 as its version, rustup's stable toolchains (hard links
// to this user's: readable, not writable, for u) and cargo's proxies on
// PATH. What this user lacks, u lacks too (the task's row then says so).
func UserToolchains(tb testing.TB, u *asuser.User) {
	tb.Helper()
	root, err := os.UserHomeDir()
	if err != nil {
		tb.Fatal(err)
	}
	env := func(extra ...string) []string { return append(append([]string{}, u.Env...), extra...) }
	run := func(dir string, extra []string, name string, args ...string) {
		tb.Helper()
		cmd := u.Command(dir, name, args...)
		cmd.Env = env(extra...)
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Logf("as %s: %s %v: %v\n%s", u, name, args, err, out)
		}
	}
	// Go: a file proxy holding go-cmp, from this user's module cache.
	proxy := filepath.Join(u.Dir, "goproxy")
	if gobin, err := exec.LookPath("go"); err == nil {
		if out, err := exec.Command(gobin, "env", "GOMODCACHE").Output(); err == nil {
			src := filepath.Join(strings.TrimSpace(string(out)), "cache", "download", "github.com", "google", "go-cmp", "@v")
			if err := copyTree(src, filepath.Join(proxy, "github.com", "google", "go-cmp", "@v"), nil); err != nil {
				tb.Logf("go-cmp is not in this user's module cache (the Go rows will fail): %v", err)
			}
		}
	}
	// pyenv without its versions.
	if fi, err := os.Stat(filepath.Join(root, ".pyenv", "bin", "pyenv")); err == nil && !fi.IsDir() {
		if err := copyTree(filepath.Join(root, ".pyenv"), filepath.Join(u.Home, ".pyenv"), map[string]bool{"versions": true, "shims": true}); err != nil {
			tb.Fatal(err)
		}
	}
	// rustup's stable toolchains as hard links, cargo's proxies copied.
	stables, _ := filepath.Glob(filepath.Join(root, ".rustup", "toolchains", "stable-*"))
	if len(stables) > 0 {
		dst := filepath.Join(u.Home, ".rustup", "toolchains")
		if err := os.MkdirAll(dst, 0o755); err != nil {
			tb.Fatal(err)
		}
		for _, s := range stables {
			if out, err := exec.Command("cp", "-al", s, dst).CombinedOutput(); err != nil {
				tb.Fatalf("cp -al %s: %v\n%s", s, err, out)
			}
		}
		if err := os.WriteFile(filepath.Join(u.Home, ".rustup", "settings.toml"), []byte("version = \"12\"\nprofile = \"minimal\"\n\n[overrides]\n"), 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := copyTree(filepath.Join(root, ".cargo", "bin"), filepath.Join(u.Home, ".cargo", "bin"), nil); err != nil {
			tb.Fatal(err)
		}
	}
	for _, p := range []string{u.Home, proxy} {
		if err := asuser.Chown(u, p); err != nil && !errors.Is(err, os.ErrNotExist) {
			tb.Fatal(err)
		}
	}
	for i, kv := range u.Env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			u.Env[i] = "PATH=" + filepath.Join(u.Home, ".cargo", "bin") + string(filepath.ListSeparator) + v
		}
	}
	if _, err := os.Stat(proxy); err == nil {
		run(u.Home, []string{"GOPROXY=file://" + proxy, "GOSUMDB=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local"}, "go", "mod", "download", "github.com/google/go-cmp@v0.7.0")
	}
	if py := filepath.Join(u.Home, ".pyenv", "bin", "pyenv"); exists(py) {
		// The system's python3 (PATH may lead to this user's pyenv).
		python := "/usr/bin/python3"
		if !exists(python) {
			python, _ = exec.LookPath("python3")
		}
		if python != "" {
			run(u.Home, nil, python, "-m", "venv", filepath.Join(u.Home, ".pyenv", "versions", "ci-system"))
			run(u.Home, nil, py, "global", "ci-system")
			run(u.Home, nil, py, "rehash")
		}
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// copyTree copies the tree src to dst (files, directories and symlinks,
// with their modes), leaving out the top-level entries in skip.
func copyTree(src, dst string, skip map[string]bool) error {
	return filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if skip[rel] {
			if fi.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		to := filepath.Join(dst, rel)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, to)
		case fi.IsDir():
			return os.MkdirAll(to, fi.Mode().Perm()|0o700)
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(to, b, fi.Mode().Perm())
		}
		return nil
	})
}
