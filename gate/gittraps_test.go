package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/internal/testenv"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// time0 is a modification time long past: a file with it makes the
// index's stat data out of date.
var time0 = time.Unix(1_000_000, 0)

// TestGitTrapsConfirm builds, with the real git, repositories that make
// read-only git commands run code or reach another repository (issue 27:
// hooks, submodules git steps into, partial clones, git directories
// elsewhere), shows with the real git that each trap fires (a marker file
// written, a fetch traced, a secret printed), and holds shellgate's
// decision through the real pipeline to it: asked (readonly: denied) with
// a reason that names the file; the same commands in a plain repository
// stay allowed.
func TestGitTrapsConfirm(t *testing.T) {
	git := testenv.LookPath(t, "git")
	home := t.TempDir()
	if r, err := filepath.EvalSymlinks(home); err == nil {
		home = r
	}
	t.Setenv("HOME", home)
	marker := filepath.Join(home, "MARKER")
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat",
		"GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "LC_ALL=C"}
	run := func(dir string, args ...string) string {
		t.Helper()
		c := exec.Command(git, args...)
		c.Dir, c.Env = dir, env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(p, body string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh\ntouch " + marker + "\n"
	// repo makes a repository with one commit of f.txt; stale makes the
	// index's stat data out of date, so that git status refreshes and
	// writes it (as after any edit).
	repo := func(dir string) string {
		t.Helper()
		run(home, "init", "-q", dir)
		write(filepath.Join(dir, "f.txt"), "one\n", 0o644)
		run(dir, "add", "f.txt")
		run(dir, "commit", "-q", "-m", "one")
		return dir
	}
	stale := func(dir string) {
		t.Helper()
		if err := os.Chtimes(filepath.Join(dir, "f.txt"), time0, time0); err != nil {
			t.Fatal(err)
		}
	}
	// The private repository outside the workspace, whose history holds
	// a secret.
	private := repo(filepath.Join(home, "private"))
	write(filepath.Join(private, "secret.txt"), "TOPSECRET\n", 0o644)
	run(private, "add", "secret.txt")
	run(private, "commit", "-q", "-m", "secret")
	secretBlob := run(private, "rev-parse", "HEAD:secret.txt")
	// A server for the partial clone.
	srv := repo(filepath.Join(home, "srv"))
	run(srv, "config", "uploadpack.allowFilter", "true")
	run(srv, "config", "uploadpack.allowAnySHA1InWant", "true")

	type trap struct {
		name  string
		build func(ws string) // plants the trap in the workspace ws
		cmd   string          // run by the real git, and decided
		fired func(ws, out, trace string) bool
		want  []string // in the reason: the file that makes it unsafe
	}
	ran := func(_, _, _ string) bool {
		_, err := os.Stat(marker)
		return err == nil
	}
	hook := func(dir string) { write(filepath.Join(dir, ".git/hooks/post-index-change"), script, 0o755) }
	fsmonitor := func(dir string) { run(dir, "config", "core.fsmonitor", filepath.Join(home, "mon.sh")) }
	write(filepath.Join(home, "mon.sh"), script+"exit 1\n", 0o755)
	// gitlink records dir (a repository of its own) in ws's index as a
	// submodule, as git update-index --cacheinfo does: .gitmodules does
	// not name it.
	gitlink := func(ws, rel string) {
		sub := filepath.Join(ws, rel)
		repo(sub)
		run(ws, "update-index", "--add", "--cacheinfo", "160000,"+run(sub, "rev-parse", "HEAD")+","+rel)
	}
	// envSubmodule records lib, whose history commits a .env, as a
	// gitlink of ws.
	envSubmodule := func(ws string) string {
		gitlink(ws, "lib")
		lib := filepath.Join(ws, "lib")
		write(filepath.Join(lib, ".env"), "TOKEN=supersecret\n", 0o644)
		run(lib, "add", ".env")
		run(lib, "commit", "-q", "-m", "env")
		run(ws, "update-index", "--cacheinfo", "160000,"+run(lib, "rev-parse", "HEAD")+",lib")
		return lib
	}
	traps := []trap{
		{name: "hook", build: func(ws string) { hook(ws); stale(ws) }, cmd: "git status", fired: ran,
			want: []string{"/.git/hooks/post-index-change", "git status would run it"}},
		{name: "hook diff", build: func(ws string) { hook(ws); stale(ws) }, cmd: "git diff", fired: ran,
			want: []string{"/.git/hooks/post-index-change"}},
		{name: "hook describe", build: func(ws string) { hook(ws); stale(ws) }, cmd: "git describe --dirty --always", fired: ran,
			want: []string{"/.git/hooks/post-index-change"}},
		{name: "hook symlink", build: func(ws string) {
			write(filepath.Join(ws, "tools/h.sh"), script, 0o755)
			if err := os.Symlink("../../tools/h.sh", filepath.Join(ws, ".git/hooks/post-index-change")); err != nil {
				t.Fatal(err)
			}
			stale(ws)
		}, cmd: "git status", fired: ran, want: []string{"/.git/hooks/post-index-change"}},
		{name: "hooksPath", build: func(ws string) {
			run(ws, "config", "core.hooksPath", ".githooks")
			write(filepath.Join(ws, ".githooks/post-index-change"), script, 0o755)
			stale(ws)
		}, cmd: "git -C sub status", fired: ran, want: []string{"/.githooks/post-index-change"}},
		{name: "hooksPath home", build: func(ws string) {
			run(ws, "config", "core.hooksPath", "~/hooks")
			write(filepath.Join(home, "hooks/post-index-change"), script, 0o755)
			stale(ws)
		}, cmd: "git status", fired: ran, want: []string{home + "/hooks/post-index-change"}},
		{name: "unlisted submodule fsmonitor", build: func(ws string) {
			gitlink(ws, "deep/er/inner")
			fsmonitor(filepath.Join(ws, "deep/er/inner"))
		}, cmd: "git status", fired: ran, want: []string{"core.fsmonitor", "/deep/er/inner/.git/config"}},
		{name: "unlisted submodule hook", build: func(ws string) {
			gitlink(ws, "lib")
			hook(filepath.Join(ws, "lib"))
			stale(filepath.Join(ws, "lib"))
		}, cmd: "git diff", fired: ran, want: []string{"/lib/.git/hooks/post-index-change"}},
		{name: "nested submodule behind a gitdir file", build: func(ws string) {
			gitlink(ws, "a")
			a := filepath.Join(ws, "a")
			gitlink(a, "b")
			run(a, "commit", "-q", "-m", "b")
			// b's git directory moves to the workspace's store; b/.git
			// is a file naming it.
			b := filepath.Join(a, "b")
			store := filepath.Join(ws, "store/b.git")
			if err := os.MkdirAll(filepath.Dir(store), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(filepath.Join(b, ".git"), store); err != nil {
				t.Fatal(err)
			}
			write(filepath.Join(b, ".git"), "gitdir: ../../store/b.git\n", 0o644)
			run(b, "config", "core.worktree", b)
			fsmonitor(b)
		}, cmd: "git status", fired: ran, want: []string{"core.fsmonitor", "/store/b.git/config"}},
		{name: "grep into a submodule", build: func(ws string) {
			envSubmodule(ws)
			write(filepath.Join(ws, ".gitmodules"), "[submodule \"lib\"]\n\tpath = lib\n\turl = ./lib\n", 0o644)
			run(ws, "config", "submodule.recurse", "true")
			run(ws, "config", "submodule.lib.active", "true")
		}, cmd: "git grep TOKEN", fired: func(_, out, _ string) bool { return strings.Contains(out, "supersecret") },
			want: []string{"/lib/.env", "deny row", "submodule.recurse"}},
		{name: "diff into a submodule", build: func(ws string) {
			lib := envSubmodule(ws)
			write(filepath.Join(lib, ".env"), "TOKEN=changed\n", 0o644)
			run(ws, "config", "diff.submodule", "diff")
		}, cmd: "git diff", fired: func(_, out, _ string) bool { return strings.Contains(out, "supersecret") },
			want: []string{"/lib/.env", "deny row", "diff.submodule=diff"}},
		{name: "partial clone", build: func(ws string) {
			if err := os.RemoveAll(filepath.Join(ws, ".git")); err != nil {
				t.Fatal(err)
			}
			run(home, "clone", "-q", "--filter=blob:none", "--no-checkout", "file://"+srv, filepath.Join(ws, "pc"))
			if err := os.Rename(filepath.Join(ws, "pc/.git"), filepath.Join(ws, ".git")); err != nil {
				t.Fatal(err)
			}
		}, cmd: "git log -p", fired: func(_, _, trace string) bool {
			return strings.Contains(trace, "fetch origin") // git runs git fetch for the missing blobs
		}, want: []string{"partial clone", "remote.origin.promisor", "/.git/config", "file://" + srv}},
		{name: "gitdir file", build: func(ws string) {
			if err := os.RemoveAll(filepath.Join(ws, ".git")); err != nil {
				t.Fatal(err)
			}
			write(filepath.Join(ws, ".git"), "gitdir: "+filepath.Join(private, ".git")+"\n", 0o644)
		}, cmd: "git log -p", fired: func(_, out, _ string) bool { return strings.Contains(out, "TOPSECRET") },
			want: []string{private + "/.git", "outside the roots"}},
		{name: "git symlink", build: func(ws string) {
			if err := os.RemoveAll(filepath.Join(ws, ".git")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(private, ".git"), filepath.Join(ws, ".git")); err != nil {
				t.Fatal(err)
			}
		}, cmd: "git log -p", fired: func(_, out, _ string) bool { return strings.Contains(out, "TOPSECRET") },
			want: []string{private + "/.git", "outside the roots"}},
		{name: "commondir", build: func(ws string) {
			write(filepath.Join(ws, ".git/commondir"), filepath.Join(private, ".git")+"\n", 0o644)
		}, cmd: "git log -p", fired: func(_, out, _ string) bool { return strings.Contains(out, "TOPSECRET") },
			want: []string{private + "/.git", "commondir", "outside the roots"}},
		{name: "alternates", build: func(ws string) {
			write(filepath.Join(ws, ".git/objects/info/alternates"), filepath.Join(private, ".git/objects")+"\n", 0o644)
		}, cmd: "git cat-file -p " + secretBlob, fired: func(_, out, _ string) bool { return strings.Contains(out, "TOPSECRET") },
			want: []string{private + "/.git/objects", "alternates", "outside the roots"}},
	}
	// The pipeline knows the environment git runs in, as the hook
	// client tells it.
	p, err := NewPipeline(PipelineOptions{Env: readstation.NewFullEnv(env)})
	if err != nil {
		t.Fatal(err)
	}
	decide := func(ws, cmd, mode string) CheckResult {
		t.Helper()
		res, err := p.Check(context.Background(), policy.Request{Command: cmd, Cwd: ws, Mode: mode, Shell: classify.DialectBash})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for i, tc := range traps {
		t.Run(tc.name, func(t *testing.T) {
			ws := repo(filepath.Join(home, "ws", string(rune('a'+i))))
			if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			// The same command in the plain repository is allowed.
			if res := decide(ws, tc.cmd, "default"); res.Action != policy.Allow {
				t.Errorf("%s in a plain repository: %s %v", tc.cmd, res.Action, res.Reasons)
			}
			tc.build(ws)
			// The trap fires in the real git.
			if err := os.Remove(marker); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			trace := filepath.Join(home, "trace")
			_ = os.Remove(trace)
			c := exec.Command("bash", "-c", tc.cmd)
			c.Dir, c.Env = ws, append(env, "GIT_TRACE="+trace)
			out, _ := c.CombinedOutput()
			tr, _ := os.ReadFile(trace)
			if !tc.fired(ws, string(out), string(tr)) {
				t.Fatalf("the trap did not fire in the real git:\n%s\ntrace:\n%s", out, tr)
			}
			// shellgate asks, and in readonly mode denies, naming the file.
			for mode, want := range map[string]policy.Action{"default": policy.Ask, "readonly": policy.Deny} {
				res := decide(ws, tc.cmd, mode)
				msgs, found := reasonNaming(res, tc.want)
				if res.Action != want || !found {
					t.Errorf("%s (%s): %s, reasons:\n  %s\nwant %s with a reason naming %q", tc.cmd, mode, res.Action, strings.Join(msgs, "\n  "), want, tc.want)
				}
			}
		})
	}
	// Reads git runs no hook for stay allowed beside a hook; a repository
	// with only the sample hooks, or with a husky hooksPath holding only
	// commit hooks, stays allowed for every read.
	t.Run("allowed", func(t *testing.T) {
		ws := repo(filepath.Join(home, "ws", "hooked"))
		hook(ws)
		husky := repo(filepath.Join(home, "ws", "husky"))
		run(husky, "config", "core.hooksPath", ".husky")
		for _, h := range []string{"pre-commit", "commit-msg", "pre-push"} {
			write(filepath.Join(husky, ".husky", h), script, 0o755)
		}
		write(filepath.Join(husky, ".git/hooks/post-index-change"), script, 0o644) // not executable: git ignores it
		samples := repo(filepath.Join(home, "ws", "samples"))
		if m, _ := filepath.Glob(filepath.Join(samples, ".git/hooks/*.sample")); len(m) == 0 {
			t.Fatal("git init wrote no sample hooks")
		}
		// A linked worktree and a submodule, each the workspace: their git
		// directories are elsewhere, but git's own layout points back.
		main := repo(filepath.Join(home, "main"))
		wt := filepath.Join(home, "ws", "wt")
		run(main, "worktree", "add", "-q", wt)
		super := repo(filepath.Join(home, "super"))
		run(super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", main, "lib")
		lib := filepath.Join(super, "lib")
		for _, tc := range []struct{ dir, cmd string }{
			{wt, "git status"}, {wt, "git log -p"}, {lib, "git status"}, {lib, "git log -p"},
			{ws, "git log -p"}, {ws, "git show"}, {ws, "git branch"},
			{husky, "git status"}, {husky, "git diff"}, {husky, "git log -p"},
			{samples, "git status"}, {samples, "git diff"}, {samples, "git describe --dirty --always"},
		} {
			if err := os.Remove(marker); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			stale(tc.dir)
			c := exec.Command("bash", "-c", tc.cmd)
			c.Dir, c.Env = tc.dir, env
			if out, err := c.CombinedOutput(); err != nil {
				t.Errorf("%s: %v\n%s", tc.cmd, err, out)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("%s in %s ran a hook", tc.cmd, tc.dir)
			}
			if res := decide(tc.dir, tc.cmd, "readonly"); res.Action != policy.Allow {
				t.Errorf("%s in %s: %s %v", tc.cmd, filepath.Base(tc.dir), res.Action, res.Reasons)
			}
		}
	})
}

// TestGitLFS: a developer who ran `git lfs install` (filter "lfs" in
// ~/.gitconfig) is not asked about git status in a repository whose
// .gitattributes selects it: git-lfs is the user's program, and what a
// repository could make it run or write (lfs.extension.<name>.clean and
// lfs.storage in .git/config, a git-lfs of the workspace's on PATH) asks,
// each shown to fire in the real git and git-lfs. The same settings in
// .lfsconfig, which git-lfs ignores (shown too), stay allowed.
func TestGitLFS(t *testing.T) {
	git := testenv.LookPath(t, "git")
	testenv.LookPath(t, "git-lfs")
	home := t.TempDir()
	if r, err := filepath.EvalSymlinks(home); err == nil {
		home = r
	}
	t.Setenv("HOME", home)
	marker := filepath.Join(home, "MARKER")
	basePath := os.Getenv("PATH")
	env := func(path string) []string {
		return []string{"HOME=" + home, "PATH=" + path, "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat",
			"GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "LC_ALL=C"}
	}
	run := func(dir string, args ...string) {
		t.Helper()
		c := exec.Command(git, args...)
		c.Dir, c.Env = dir, env(basePath)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
		}
	}
	write := func(p, body string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	run(home, "lfs", "install") // writes filter "lfs" to ~/.gitconfig
	script := "#!/bin/sh\ntouch " + marker + "\ncat\n"
	write(filepath.Join(home, "ext.sh"), script, 0o755)
	repo := func(name string) string {
		t.Helper()
		ws := filepath.Join(home, "ws", name)
		run(home, "init", "-q", ws)
		write(filepath.Join(ws, ".gitattributes"), "*.bin filter=lfs diff=lfs merge=lfs -text\n", 0o644)
		write(filepath.Join(ws, "a.bin"), "data\n", 0o644)
		run(ws, "add", ".")
		run(ws, "commit", "-q", "-m", "one")
		return ws
	}
	type tc struct {
		name  string
		build func(ws string) (path string) // plants; returns the PATH git runs with
		fired bool                          // the real git status leaves the marker
		want  []string                      // in a reason, when asked
	}
	cases := []tc{
		{name: "plain", build: func(string) string { return basePath }},
		{name: "lfsconfig ignored", build: func(ws string) string {
			write(filepath.Join(ws, ".lfsconfig"), "[lfs \"extension.x\"]\n\tclean = "+home+"/ext.sh %f\n\tsmudge = cat\n\tpriority = 0\n[lfs]\n\tstorage = "+marker+"\n", 0o644)
			return basePath
		}},
		{name: "extension", build: func(ws string) string {
			run(ws, "config", "lfs.extension.x.clean", home+"/ext.sh %f")
			run(ws, "config", "lfs.extension.x.smudge", "cat")
			run(ws, "config", "lfs.extension.x.priority", "0")
			return basePath
		}, fired: true, want: []string{"lfs.extension.x.clean", "/.git/config"}},
		{name: "storage", build: func(ws string) string {
			run(ws, "config", "lfs.storage", marker)
			return basePath
		}, fired: true, want: []string{"lfs.storage", "/.git/config"}},
		{name: "git-lfs on PATH", build: func(ws string) string {
			write(filepath.Join(ws, "bin/git-lfs"), "#!/bin/sh\ntouch "+marker+"\nexit 1\n", 0o755)
			return filepath.Join(ws, "bin") + ":" + basePath
		}, fired: true, want: []string{"/bin/git-lfs"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := repo(strings.ReplaceAll(c.name, " ", "-"))
			path := c.build(ws)
			_ = os.RemoveAll(marker)
			if err := os.Chtimes(filepath.Join(ws, "a.bin"), time0, time0); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(git, "status", "--short")
			cmd.Dir, cmd.Env = ws, env(path)
			out, _ := cmd.CombinedOutput()
			_, err := os.Stat(marker)
			if fired := err == nil; fired != c.fired {
				t.Fatalf("git status left the marker: %v, want %v\n%s", fired, c.fired, out)
			}
			p, err := NewPipeline(PipelineOptions{Env: readstation.NewFullEnv(env(path))})
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range []string{"default", "readonly"} {
				res, err := p.Check(context.Background(), policy.Request{Command: "git status", Cwd: ws, Mode: mode, Shell: classify.DialectBash})
				if err != nil {
					t.Fatal(err)
				}
				want := policy.Allow
				if c.fired {
					want = map[string]policy.Action{"default": policy.Ask, "readonly": policy.Deny}[mode]
				}
				msgs, found := reasonNaming(res, c.want)
				if res.Action != want || !found && c.fired {
					t.Errorf("git status (%s): %s, reasons:\n  %s\nwant %s naming %q", mode, res.Action, strings.Join(msgs, "\n  "), want, c.want)
				}
			}
		})
	}
}

// reasonNaming returns the messages of res's reasons and whether one of
// them holds every string of want.
func reasonNaming(res CheckResult, want []string) (msgs []string, found bool) {
	for _, r := range res.Reasons {
		msgs = append(msgs, r.Message)
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(r.Message, w)
		}
		found = found || ok
	}
	return msgs, found
}
