package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// needGit skips a test without git on a developer's machine, and fails it
// in CI (SHELLGATE_CI), where .ci/run installs git.
func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("SHELLGATE_CI") != "" {
			t.Fatalf("git is not installed: %v", err)
		}
		t.Skip("git is not installed")
	}
}

// osFiles reads files for the tests: regular files of at most 1 MiB.
type osFiles struct{}

func (osFiles) ReadFile(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir) {
			return nil, fs.ErrNotExist
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if fi.Size() > 1<<20 {
		return nil, fmt.Errorf("too large")
	}
	return os.ReadFile(p)
}

func (osFiles) RealPath(p string) (string, error) { return filepath.EvalSymlinks(p) }

// world is a temp directory git runs in: root/home is HOME, root/repo a
// repository; the host's configuration never leaks in.
type world struct {
	root, home, repo string
	env              map[string]string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	w := &world{root: root, home: root + "/home", repo: root + "/repo"}
	w.env = map[string]string{"HOME": w.home, "GIT_CONFIG_NOSYSTEM": "1"}
	if err := os.MkdirAll(w.home, 0o755); err != nil {
		t.Fatal(err)
	}
	// A repository as git init makes it, without running git init (the
	// fuzz target makes one per input).
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(w.repo+"/.git/"+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(w.repo+"/.git/HEAD", []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.repo+"/.git/config", []byte("[core]\n\trepositoryformatversion = 0\n\tbare = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// environ is the whole environment git runs with.
func (w *world) environ() []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "LANG=C", "LC_ALL=C", "GIT_TERMINAL_PROMPT=0"}
	for k, v := range w.env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

func (w *world) git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := w.gitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return out
}

func (w *world) gitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = w.environ()
	cmd.Stdin = nil
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String() + errb.String(), err
	}
	return out.String(), nil
}

// write writes files by their path under root ("repo/.git/config").
func (w *world) write(t testing.TB, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(w.root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(w.expand(data)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// expand replaces $ROOT with the world's root.
func (w *world) expand(s string) string { return strings.ReplaceAll(s, "$ROOT", w.root) }

// show renders entries one a line: scope, file, name, value.
func show(es []Entry, root string) []string {
	out := []string{}
	for _, e := range es {
		v := "=" + e.Value
		if e.NoValue {
			v = " (no value)"
		}
		out = append(out, fmt.Sprintf("%s %s %q%s", e.Scope, strings.ReplaceAll(e.File, root, "$ROOT"), e.Name, v))
	}
	return out
}

// gitList is git's own reading: git config --list --show-origin
// --show-scope -z in the repository; ok false when git refuses.
func (w *world) gitList(t testing.TB) ([]Entry, string, bool) {
	out, err := w.gitErr(w.repo, "config", "--list", "--show-origin", "--show-scope", "-z")
	if err != nil {
		return nil, out, false
	}
	var es []Entry
	parts := strings.Split(out, "\x00")
	for i := 0; i+2 < len(parts); i += 3 {
		scope, origin, kv := parts[i], parts[i+1], parts[i+2]
		file, isFile := strings.CutPrefix(origin, "file:")
		if !isFile {
			file = ""
		} else if !strings.HasPrefix(file, "/") {
			file = w.repo + "/" + file
		}
		e := Entry{Scope: Scope(scope), File: file}
		name, value, hasValue := strings.Cut(kv, "\n")
		e.Name, e.Value, e.NoValue = name, value, !hasValue
		es = append(es, e)
	}
	return es, "", true
}

// ours is this package's reading of the world's configuration.
func (w *world) ours() (*Config, error) {
	return Load(Options{
		Files:     osFiles{},
		Env:       func(n string) (string, bool) { return w.env[n], true },
		GitDir:    w.repo + "/.git",
		CommonDir: w.repo + "/.git",
	})
}

// compare holds our reading to git's.
func (w *world) compare(t testing.TB, label string) {
	t.Helper()
	want, gitErr, gitOK := w.gitList(t)
	cfg, err := w.ours()
	switch {
	case !gitOK && err == nil:
		t.Errorf("%s: git refuses the configuration (%s) but we read %d entries:\n%s", label, strings.TrimSpace(gitErr), len(cfg.Entries), strings.Join(show(cfg.Entries, w.root), "\n"))
		return
	case !gitOK:
		return // both refuse
	case err != nil:
		var ne *NotEstablishedError
		if errors.As(err, &ne) && ne.unsure {
			return
		}
		t.Errorf("%s: git reads the configuration but we do not: %v\ngit's:\n%s", label, err, strings.Join(show(want, w.root), "\n"))
		return
	}
	for i := range cfg.Entries {
		cfg.Entries[i].EnvKey = "" // git does not show it
	}
	got := show(cfg.Entries, w.root)
	wantS := show(want, w.root)
	if cfg.Superset {
		// git's entries, in order, are among ours.
		j := 0
		for _, g := range got {
			if j < len(wantS) && g == wantS[j] {
				j++
			}
		}
		if j < len(wantS) {
			t.Errorf("%s: git reads %s, which our superset lacks\ngit's:\n%s\nours:\n%s", label, wantS[j], strings.Join(wantS, "\n"), strings.Join(got, "\n"))
		}
		return
	}
	if strings.Join(got, "\n") != strings.Join(wantS, "\n") {
		t.Errorf("%s: entries differ\ngit's:\n%s\nours:\n%s", label, strings.Join(wantS, "\n"), strings.Join(got, "\n"))
	}
}
