//go:build linux

package execution

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shellgate/shellgate/internal/asuser"
	"golang.org/x/sys/unix"
)

// nestedWorkspace makes a repository with what a developer's workspace
// nests: a repository in sub (its own .git), a submodule in lib (a .git
// file), pkg/.vscode and deep/a/b/.envrc. It returns the workspace and
// the environment git runs with.
func nestedWorkspace(t *testing.T, git string) (string, []string) {
	t.Helper()
	base, home := t.TempDir(), t.TempDir()
	ws, src := filepath.Join(base, "ws"), filepath.Join(base, "src")
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	for name, body := range map[string]string{
		"ws/README": "r\n", "ws/pkg/.vscode/settings.json": "{}\n", "ws/deep/a/b/.envrc": "export A=1\n",
		"ws/sub/file": "s\n", "src/lib.txt": "l\n",
	} {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(src, "init", "-q", "-b", "main")
	run(src, "add", "-A")
	run(src, "commit", "-q", "-m", "lib")
	run(filepath.Join(ws, "sub"), "init", "-q", "-b", "main")
	run(filepath.Join(ws, "sub"), "add", "-A")
	run(filepath.Join(ws, "sub"), "commit", "-q", "-m", "sub")
	run(ws, "init", "-q", "-b", "main")
	run(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", src, "lib")
	run(ws, "add", "README", "pkg", "deep", "lib", ".gitmodules")
	run(ws, "commit", "-q", "-m", "first")
	return ws, env
}

// TestSandboxNestedProtected: in workspace-write, a script in the
// workspace plants, beneath the top, what git, direnv, editors and agents
// run later (in existing nested places and new ones, by writing, making,
// moving in from TMPDIR, as a new bare or nested repository): nothing of
// it is left, and the result names each path. A clean new repository, a
// clone and commits in the workspace and its nested repository still
// work; a person widens one call for one directory.
func TestSandboxNestedProtected(t *testing.T) {
	needLandlock(t)
	git := needTool(t, "git")
	ws, env := nestedWorkspace(t, git)
	run := func(cmd string, unprotect ...string) Outcome {
		t.Helper()
		return runSpec(t, context.Background(), Spec{Command: cmd, Dir: ws, Env: env, Timeout: time.Minute,
			Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{ws}, Unprotect: unprotect}})
	}
	attempts := []string{
		// Existing nested places: bound read-only.
		`echo 'touch /tmp/pwned' >> deep/a/b/.envrc`,
		`echo '{"tasks":[]}' > pkg/.vscode/tasks.json`,
		`echo x > sub/.git/hooks/pre-commit`,
		`git -C sub config core.fsmonitor 'touch pwned'`,
		`echo 'gitdir: /tmp/evil' > lib/.git`,
		// New nested places: moved aside after the run.
		`mkdir -p new/dir && echo 'touch pwned' > new/dir/.envrc`,
		`mkdir -p pkg2/.vscode && echo '{}' > pkg2/.vscode/tasks.json`,
		`mkdir -p x/y/.claude && echo '{}' > x/y/.claude/settings.json`,
		`mkdir -p m && echo '{}' > m/.mcp.json`,
		`mkdir -p $TMPDIR/mv && echo 'touch pwned' > $TMPDIR/mv/.envrc && mv $TMPDIR/mv moved`,
		`git init -q --bare bare && git -C bare config core.pager 'touch pwned'`,
		`git init -q n && printf '#!/bin/sh\ntouch pwned\n' > n/.git/hooks/pre-commit && chmod +x n/.git/hooks/pre-commit`,
		`git init -q f && git -C f config alias.st '!touch pwned'`,
		`mkdir -p p && echo 'gitdir: /tmp/evil' > p/.git`,
		// New git directories inside the workspace's own: a submodule's
		// (its clone is made before .gitmodules is refused) and a
		// linked worktree's.
		`git -c protocol.file.allow=always submodule add -q "$PWD/sub" evilmod >/dev/null 2>&1; echo x > .git/modules/evilmod/hooks/post-checkout`,
		`git worktree add -q evilwt 2>/dev/null && echo /tmp > .git/worktrees/evilwt/commondir`,
		// Pointers to a git directory the walk does not check: one
		// hidden in the workspace's own git directory (not walked), as
		// a .git file and as a .git symlink, and a symlink out of the
		// roots (the sandbox cache outlives the run).
		`git init -q --bare .git/evil/g && git -C .git/evil/g config core.fsmonitor 'touch pwned' && git -C .git/evil/g config core.bare false && ` +
			`mkdir -p ptr && echo "gitdir: $PWD/.git/evil/g" > ptr/.git && mkdir -p lnk && ln -s ../.git/evil/g lnk/.git`,
		`mkdir -p out && ln -s /tmp out/.git`,
		// A bare repository whose refs is a symlink (git takes objects and
		// refs that it can search, not only directories).
		`git init -q --bare sbare && mv sbare/refs sbare/refs.d && ln -s refs.d sbare/refs && git -C sbare config core.pager 'touch pwned'`,
		// A remote defined in a new repository's .git/remotes.
		`git init -q rem && mkdir -p rem/.git/remotes && echo 'URL: https://attacker.example/x.git' > rem/.git/remotes/origin`,
		// FIFOs where git opens a file and waits for a writer for ever:
		// a .gitignore, the index, a loose ref, a nested repository's.
		`mkfifo pkg/.gitignore .git/fifo-ref && mv .git/fifo-ref .git/refs/heads/hang && mv .git/index .git/index.saved && mkfifo .git/index`,
		`mkfifo sub/.git/packed-refs`,
	}
	before := snapshotFiles(t, ws)
	out := run(strings.Join(attempts, "\n"))
	text := out.Output.String()
	t.Logf("output:\n%s\ndenied: %+v", text, out.Sandbox.Denied)

	for _, p := range []string{"deep/a/b/.envrc", "pkg/.vscode/settings.json", "lib/.git", "sub/.git/config"} {
		if got := snapshotFiles(t, ws)[p]; got != before[p] {
			t.Errorf("%s changed: %q", p, got)
		}
	}
	for _, p := range []string{"pkg/.vscode/tasks.json", "sub/.git/hooks/pre-commit"} {
		if exists(filepath.Join(ws, p)) {
			t.Errorf("%s was written in an existing nested place", p)
		}
	}
	undone := []string{"new/dir/.envrc", "pkg2/.vscode", "x/y/.claude", "m/.mcp.json", "moved/.envrc",
		"bare/config", "n/.git/hooks/pre-commit", "f/.git/config", "p/.git",
		".git/modules/evilmod/hooks/post-checkout", ".git/worktrees/evilwt/commondir",
		"ptr/.git", "lnk/.git", "out/.git", "sbare/config", "rem/.git/remotes/origin",
		"pkg/.gitignore", ".git/refs/heads/hang", ".git/index", "sub/.git/packed-refs",
		// The worktree's checkout of the tracked protected names: made
		// by the command like any other.
		"evilwt/.gitmodules", "evilwt/pkg/.vscode", "evilwt/deep/a/b/.envrc"}
	var got []string
	for _, d := range out.Sandbox.Denied {
		if d.Op != "write" {
			t.Errorf("a refused write reported as %s: %+v", d.Op, d)
		}
		if d.Undone {
			rel, _ := filepath.Rel(ws, d.Path)
			got = append(got, rel)
			if !strings.Contains(text, SandboxMarker("write of the protected "+d.Path, SandboxWorkspaceWrite)) {
				t.Errorf("no marker names %s", d.Path)
			}
		}
	}
	slices.Sort(got)
	slices.Sort(undone)
	if diff := cmp.Diff(undone, got); diff != "" {
		t.Errorf("undone paths (-want +got):\n%s\ndenied: %+v", diff, out.Sandbox.Denied)
	}
	for _, p := range undone {
		if exists(filepath.Join(ws, p)) {
			t.Errorf("%s is still in the workspace", p)
		}
	}
	// The new repositories stay, without what would run.
	for _, p := range []string{"bare/HEAD", "n/.git/HEAD", "n/.git/hooks/pre-commit.sample"} {
		if !exists(filepath.Join(ws, p)) {
			t.Errorf("%s of a new repository was removed", p)
		}
	}

	if err := os.Rename(filepath.Join(ws, ".git/index.saved"), filepath.Join(ws, ".git/index")); err != nil {
		t.Errorf("the index the script set aside: %v", err)
	}
	// Git still works: commits in the workspace and in the nested
	// repository, a new repository and a clone are kept whole.
	out = run(`echo c >> README && git commit -q -am second && echo c >> sub/file && git -C sub commit -q -am second && ` +
		`git init -q clean && git -C clean commit -q --allow-empty -m x && git clone -q sub clone && ` +
		`git -C clone log --format=%s | head -1`)
	if out.ExitCode != 0 || strings.TrimSpace(out.Output.String()) != "second" {
		t.Fatalf("git in workspace-write: exit %d\n%s\ndenied %+v", out.ExitCode, out.Output.String(), out.Sandbox.Denied)
	}
	if len(out.Sandbox.Denied) != 0 {
		t.Errorf("clean git work was refused: %+v", out.Sandbox.Denied)
	}
	for _, p := range []string{"clean/.git/config", "clone/.git/config", "clone/file"} {
		if !exists(filepath.Join(ws, p)) {
			t.Errorf("%s was removed", p)
		}
	}

	// A submodule added in a call that may write .gitmodules and the
	// repository's config keeps its new git directory whole.
	out = run(`git -c protocol.file.allow=always submodule add -q "$PWD/sub" mod2 && git commit -q -m mod2 && git -C mod2 log --format=%s | head -1`,
		filepath.Join(ws, ".gitmodules"), filepath.Join(ws, ".git/config"))
	if out.ExitCode != 0 || out.Output.String() != "second\n" || len(out.Sandbox.Denied) != 0 {
		t.Errorf("git submodule add: exit %d, denied %+v\n%s", out.ExitCode, out.Sandbox.Denied, out.Output.String())
	}

	// A person widens one call for one directory (and what lies beneath).
	out = run(`mkdir -p tools/.vscode && echo '{}' > tools/.vscode/tasks.json && echo x > sub/.git/hooks/pre-push`,
		filepath.Join(ws, "tools"), filepath.Join(ws, "sub/.git/hooks"))
	if out.ExitCode != 0 || len(out.Sandbox.Denied) != 0 || !exists(filepath.Join(ws, "tools/.vscode/tasks.json")) || !exists(filepath.Join(ws, "sub/.git/hooks/pre-push")) {
		t.Errorf("the widened call: exit %d, denied %+v\n%s", out.ExitCode, out.Sandbox.Denied, out.Output.String())
	}
	out = run(`echo '{}' > tools/.vscode/launch.json`)
	if exists(filepath.Join(ws, "tools/.vscode/launch.json")) {
		t.Errorf("the widening outlived its call:\n%s", out.Output.String())
	}
}

// snapshotFiles records the content of every regular file under dir (and
// "-> target" for a symlink), by relative path.
func snapshotFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			m[rel] = "-> " + l
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			m[rel] = string(b)
		}
		return nil
	})
	return m
}

// TestScanNestedBounds: the walk finds protected names, .git files and
// git directories (named .git, or bare) beneath the top but not at it,
// does not walk into them, and says when it stopped at its depth bound.
func TestScanNestedBounds(t *testing.T) {
	root := t.TempDir()
	deep := root
	for i := 0; i <= maxNestedDepth; i++ {
		deep = filepath.Join(deep, "d")
	}
	for _, p := range []string{".envrc", "a/.envrc", "a/.vscode/x/.envrc", "b/.git/HEAD", "b/.git/hooks/h", "c/.git",
		"bare/HEAD", "bare/objects/", "bare/refs/", "bare/sub/.envrc", "e/.github/hooks/h.json", "e/.github/workflows/ci.yml",
		strings.TrimPrefix(deep, root+"/") + "/.envrc"} {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			os.MkdirAll(full, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := scanNested([]string{root}, func(p string) bool { return p == filepath.Join(root, "skipped") })
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(root, p)
			out = append(out, r)
		}
		slices.Sort(out)
		return out
	}
	got := map[string][]string{"names": rel(s.names), "gitDirs": rel(s.gitDirs), "gitFiles": rel(s.gitFiles)}
	want := map[string][]string{"names": {"a/.envrc", "a/.vscode", "e/.github/hooks"}, "gitDirs": {"b/.git", "bare"}, "gitFiles": {"c/.git"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scan (-want +got):\n%s", diff)
	}
	if !s.incomplete {
		t.Errorf("a tree deeper than %d levels was walked whole", maxNestedDepth)
	}
}

// TestNestedWalkWatched walks a tree, changes it as a command could (a
// moment after it was read: the ctime shortcut would read it again, the
// watch must see it), and walks it again: every protected name made is
// found. The directories of the first walk are kept watched.
func TestNestedWalkWatched(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, root, outside string)
		want   string // a protected path (relative) the second walk finds
	}{{
		name:   "made deep",
		change: func(t *testing.T, root, outside string) { touch(t, root, "a/b/c/.envrc") },
		want:   "a/b/c/.envrc",
	}, {
		name: "parent renamed and made again",
		change: func(t *testing.T, root, outside string) {
			must(t, os.Rename(filepath.Join(root, "a/b"), filepath.Join(root, "a/b2")))
			must(t, os.MkdirAll(filepath.Join(root, "a/b/c"), 0o755))
			touch(t, root, "a/b2/c/.vscode")
		},
		want: "a/b2/c/.vscode",
	}, {
		name: "subtree moved under a new parent",
		change: func(t *testing.T, root, outside string) {
			must(t, os.Rename(filepath.Join(root, "a"), filepath.Join(outside, "a")))
			must(t, os.Mkdir(filepath.Join(root, "a"), 0o755))
			must(t, os.Rename(filepath.Join(outside, "a/b"), filepath.Join(root, "a/b")))
			touch(t, root, "a/b/c/.envrc")
		},
		want: "a/b/c/.envrc",
	}, {
		// The directory a/b/c is moved away with its grandparent, so it
		// sees no event itself; a new a/b/c holds the name.
		name: "grandparent moved away and the path made again",
		change: func(t *testing.T, root, outside string) {
			must(t, os.Rename(filepath.Join(root, "a"), filepath.Join(root, "z")))
			touch(t, root, "a/b/c/.envrc")
		},
		want: "a/b/c/.envrc",
	}, {
		name: "root replaced",
		change: func(t *testing.T, root, outside string) {
			must(t, os.Rename(root, filepath.Join(outside, "old-root")))
			must(t, os.Mkdir(root, 0o755))
			touch(t, root, "a/.envrc")
		},
		want: "a/.envrc",
	}, {
		// The root's parent moved away: the old root itself sees no
		// event.
		name: "root's parent replaced",
		change: func(t *testing.T, root, outside string) {
			must(t, os.Rename(filepath.Dir(root), filepath.Join(outside, "old-parent")))
			must(t, os.MkdirAll(root, 0o755))
			touch(t, root, "a/.envrc")
		},
		want: "a/.envrc",
	}, {
		name: "hard link",
		change: func(t *testing.T, root, outside string) {
			must(t, os.Link(filepath.Join(root, "x/file"), filepath.Join(root, "a/b/.envrc")))
		},
		want: "a/b/.envrc",
	}, {
		name: "directory moved in from outside",
		change: func(t *testing.T, root, outside string) {
			touch(t, outside, "m/n/.envrc")
			must(t, os.Rename(filepath.Join(outside, "m"), filepath.Join(root, "x/m")))
		},
		want: "x/m/n/.envrc",
	}, {
		name: "git directory made",
		change: func(t *testing.T, root, outside string) {
			must(t, exec.Command("git", "init", "-q", filepath.Join(root, "a/b/c")).Run())
		},
		want: "a/b/c/.git",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outside := filepath.Join(t.TempDir(), "p", "root"), t.TempDir()
			must(t, os.MkdirAll(filepath.Join(root, "a/b/c"), 0o755))
			touch(t, root, "x/file")
			none := func(string) bool { return false }
			// As a run does: the roots' identities first (rootDirs).
			walk := func() nestedScan {
				knownPaths.refresh()
				if _, _, err := safePathDir(root, "", rootDir); err != nil {
					t.Fatal(err)
				}
				return scanNested([]string{root}, none)
			}
			first := walk()
			if len(first.names)+len(first.gitDirs) > 0 {
				t.Fatalf("first walk: %+v", first)
			}
			if e, ok := dirInfos.m[filepath.Join(root, "a/b")]; !ok || !e.watched {
				t.Fatalf("a/b is not kept watched after the first walk: %+v %v", e, ok)
			}
			tt.change(t, root, outside)
			second := walk()
			found := append(append([]string{}, second.names...), second.gitDirs...)
			if !slices.Contains(found, filepath.Join(root, tt.want)) {
				t.Errorf("the second walk found %q, not %s", found, tt.want)
			}
		})
	}
}

func touch(t *testing.T, root, rel string) {
	t.Helper()
	p := filepath.Join(root, rel)
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, []byte("x\n"), 0o644))
}

// TestNestedWalkWatchBound: with this process at its bound of inotify
// watches, the walk takes no more and still finds what a command planted
// (by the directories' ctimes, looked at again a moment after a change).
func TestNestedWalkWatchBound(t *testing.T) {
	knownPaths.refresh()
	knownPaths.mu.Lock()
	held := len(knownPaths.held)
	knownPaths.mu.Unlock()
	old := maxWatches
	maxWatches = func() int { return held }
	t.Cleanup(func() { maxWatches = old })
	root := t.TempDir()
	for _, d := range []string{"a/b", "c/d", "e"} {
		must(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	none := func(string) bool { return false }
	scanNested([]string{root}, none)
	knownPaths.mu.Lock()
	now := len(knownPaths.held)
	knownPaths.mu.Unlock()
	if now > held {
		t.Errorf("the walk took %d watches beyond the bound", now-held)
	}
	touch(t, root, "c/d/.envrc")
	s := scanNested([]string{root}, none)
	if !slices.Contains(s.names, filepath.Join(root, "c/d/.envrc")) {
		t.Errorf("unwatched walk found %q, not c/d/.envrc", s.names)
	}
}

// TestNestedWalkUnreadable: a directory the walk cannot read (its
// permissions taken away, as a command of the user's may) is reported
// as unchecked after the run, not passed over in silence.
func TestNestedWalkUnreadable(t *testing.T) {
	// Root reads every directory: as a fresh unprivileged user.
	if asuser.Run(t, nil) {
		return
	}
	root := t.TempDir()
	hidden := filepath.Join(root, "a", "hidden")
	touch(t, root, "a/hidden/.envrc")
	must(t, os.Chmod(hidden, 0))
	t.Cleanup(func() { os.Chmod(hidden, 0o755) })
	b := &nestedBefore{roots: []string{root}, skip: func(string) bool { return false }}
	var got []string
	for _, d := range b.check(&guard{}) {
		if d.Op == "unchecked" {
			got = append(got, d.Path)
		}
	}
	if !slices.Contains(got, hidden) {
		t.Errorf("unchecked: %q, want %s", got, hidden)
	}
}

// TestNestedWalkLongPath: a directory whose path is longer than the
// system takes (made step by step, as a command in it can) cannot be
// read by its path; a protected name made in it is reported as
// unchecked, not passed over in silence.
func TestNestedWalkLongPath(t *testing.T) {
	root := t.TempDir()
	name := strings.Repeat("x", 250)
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	must(t, err)
	depth := 0
	for ; len(root)+depth*(len(name)+1) < 4200; depth++ {
		must(t, unix.Mkdirat(fd, name, 0o755))
		next, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		must(t, err)
		unix.Close(fd)
		fd = next
	}
	must(t, unix.Mkdirat(fd, ".vscode", 0o755))
	unix.Close(fd)
	b := &nestedBefore{roots: []string{root}, skip: func(string) bool { return false }}
	var got []string
	for _, d := range b.check(&guard{}) {
		if d.Op == "unchecked" {
			got = append(got, d.Path)
		}
	}
	if len(got) == 0 {
		t.Errorf("a protected name %d levels down a path of more than 4096 bytes was passed over in silence", depth)
	}
}

// TestScanNestedFolded: on a file system that folds case (macOS, a
// Windows drive under WSL, an ext4 casefold directory) .VSCODE is the
// .vscode an editor opens and .GIT the .git git reads: the walk finds
// names that differ from a protected one only in case (Unicode simple
// folding, as the file systems fold: ſ is s, K is k) as that name.
func TestScanNestedFolded(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"a/.VSCODE/", "b/.EnvRc", "c/.GIT", "d/.GitHub/HOOKS/", "e/.ſhellgate.yaml", "f/.Git/HEAD", "f/.Git/objects/", "f/.Git/refs/",
		"g/.envrc-not", "g/envrc", "g/.gitignore", "h/Mise.TOML", "i/.Config/MISE/", "j/Lefthook.yml.bak"} {
		full := filepath.Join(root, p)
		if strings.HasSuffix(p, "/") {
			must(t, os.MkdirAll(full, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.WriteFile(full, []byte("gitdir: /tmp\n"), 0o644))
	}
	s := scanNested([]string{root}, func(string) bool { return false })
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(root, p)
			out = append(out, r)
		}
		slices.Sort(out)
		return out
	}
	got := map[string][]string{"names": rel(s.names), "gitDirs": rel(s.gitDirs), "gitFiles": rel(s.gitFiles)}
	want := map[string][]string{"names": {"a/.VSCODE", "b/.EnvRc", "d/.GitHub/HOOKS", "e/.ſhellgate.yaml", "h/Mise.TOML", "i/.Config/MISE"}, "gitDirs": {"f/.Git"}, "gitFiles": {"c/.GIT"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("scan (-want +got):\n%s", diff)
	}
}

// TestSequencerFilesRun: the paused operations' files that make git run
// a program when the user continues (git 2.39 ran a strategy ../evil as
// the workspace's git-merge-../evil on git rebase --continue and git
// cherry-pick --continue), and those that do not.
func TestSequencerFilesRun(t *testing.T) {
	tests := []struct {
		path, data string
		runs       bool
	}{
		{rebaseTodo, "pick 1234 x\nbreak\n", false},
		{rebaseTodo, "pick 1234 x\nexec make test\n", true},
		{"rebase-merge/strategy", "ort\n", false},
		{"rebase-merge/strategy", "resolve\n", false},
		{"rebase-merge/strategy", "../evil\n", true},
		{"rebase-merge/strategy", "custom\n", true},
		{"sequencer/opts", "[options]\n\tno-commit = true\n", false},
		{"sequencer/opts", "[options]\n\tstrategy = recursive\n", false},
		{"sequencer/opts", "[options]\n\tstrategy = ../evil\n", true},
		{"sequencer/opts", "[Options]\n\tStrategy = \"../ev\" \"il\"\n", true},
		{"sequencer/opts", "[options\n", true}, // not read as git reads it
	}
	for _, tt := range tests {
		i := slices.IndexFunc(sequencerFiles, func(f sequencerFile) bool { return f.path == tt.path })
		if i < 0 {
			t.Fatalf("%s is not among sequencerFiles", tt.path)
		}
		p := filepath.Join(t.TempDir(), "f")
		must(t, os.WriteFile(p, []byte(tt.data), 0o644))
		if got := sequencerFiles[i].runs(p, []byte(tt.data)); got != tt.runs {
			t.Errorf("%s %q: runs %v, want %v", tt.path, tt.data, got, tt.runs)
		}
	}
}
