package readstation

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gitrepo"
	"github.com/shellgate/shellgate/internal/testenv"
)

// gitHookNames are the hooks git 2.39 knows (githooks(5)).
var gitHookNames = gitrepo.HookNames

// TestGitHooksConfirm holds readHooks to the real git: in a repository
// where every hook git knows is installed (each logs its name), with a
// stale index, a submodule and a branch, each read-only command runs only
// hooks readHooks names for its subcommand, and the station reports
// exactly those (every command is one the catalog allows).
func TestGitHooksConfirm(t *testing.T) {
	git := testenv.LookPath(t, "git")
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	log := filepath.Join(dir, "ran")
	env := []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com"}
	ws := filepath.Join(dir, "ws")
	sh := func(script string) {
		t.Helper()
		c := exec.Command("sh", "-ec", script)
		c.Dir, c.Env = dir, append(env, "GIT="+git)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	sh(`$GIT init -q ws && cd ws && echo a > a && echo b > b && $GIT add . && $GIT commit -qm one && $GIT tag v1 &&
		$GIT tag -a v2 -m v2 && echo c >> a && $GIT commit -qam two && $GIT branch side &&
		$GIT init -q lib && (cd lib && echo l > l && $GIT add l && $GIT commit -qm l) &&
		$GIT update-index --add --cacheinfo 160000,$($GIT -C lib rev-parse HEAD),lib && $GIT commit -qm lib`)
	for _, repo := range []string{ws, filepath.Join(ws, "lib")} {
		for _, h := range gitHookNames {
			must(t, os.WriteFile(filepath.Join(repo, ".git/hooks", h), []byte("#!/bin/sh\necho "+h+" >> "+log+"\n"), 0o755))
		}
	}
	cmds := []string{"git status", "git status --short", "git diff", "git diff --stat", "git diff HEAD",
		"git diff --cached", "git describe --dirty", "git describe", "git log -p", "git log --stat", "git show",
		"git branch", "git branch -a", "git stash list", "git config --list", "git rev-parse HEAD", "git grep a",
		"git ls-files", "git remote -v", "git blame a", "git tag", "git tag -l", "git shortlog -s HEAD",
		"git cat-file -p HEAD", "git rev-list HEAD", "git show-ref", "git for-each-ref", "git ls-tree HEAD",
		"git merge-base HEAD side", "git check-ignore x", "git check-attr -a a", "git reflog", "git name-rev HEAD",
		"git diff-tree HEAD", "git symbolic-ref HEAD", "git version", "git clean -n", "git worktree list"}
	b := Boundary{Roots: []string{dir}, Cwd: ws, Home: dir, DenyRows: DefaultDenyRows, Env: ProcessEnv}
	for i, cmd := range cmds {
		t.Run(cmd, func(t *testing.T) {
			r := classify.Classify(cmd, classify.WithDialect(classify.DialectBash))
			if !r.Reversible {
				t.Fatalf("%s is not one the catalog allows", cmd)
			}
			when := time.Unix(int64(1_000_000+i), 0)
			for _, f := range []string{"ws/a", "ws/b", "ws/lib/l"} {
				must(t, os.Chtimes(filepath.Join(dir, f), when, when))
			}
			_ = os.Remove(log)
			c := exec.Command("bash", "-c", cmd)
			c.Dir, c.Env = ws, env
			out, _ := c.CombinedOutput()
			data, _ := os.ReadFile(log)
			ran := map[string]bool{}
			for _, h := range strings.Fields(string(data)) {
				ran[h] = true
			}
			seg := &r.Segments[0]
			want := []string{}
			for h := range ran {
				if !slices.Contains(hooksOf(seg), h) {
					t.Errorf("the real git ran the hook %s, which readHooks does not name for %s\n%s", h, seg.Subcommand, out)
				}
				want = append(want, ".git/hooks/"+h, "lib/.git/hooks/"+h)
			}
			st := Judge(r, b)
			got := []string{}
			for _, h := range st.RepoHelpers {
				if h.Kind == HelperHook {
					got = append(got, strings.TrimPrefix(h.File, ws+"/"))
				}
			}
			// The station may name a hook git did not run this time (the
			// index was fresh), never miss one it ran.
			for _, w := range want {
				if !slices.Contains(got, w) {
					t.Errorf("git ran %s; the station reported %v", w, got)
				}
			}
		})
	}
}

// TestRepoHooks: which hook files the station reports, and what it
// cannot establish.
func TestRepoHooks(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	head := "ref: refs/heads/main\n"
	writeTree(t, dir, map[string]string{
		"plain/.git/HEAD":                           head,
		"plain/.git/hooks/pre-commit.sample":        "#!/bin/sh\n",
		"plain/.git/hooks/post-index-change.sample": "#!/bin/sh\n",
		"noexec/.git/HEAD":                          head,
		"noexec/.git/hooks/post-index-change":       "#!/bin/sh\n",
		"exec/.git/HEAD":                            head,
		"exec/.git/hooks/post-index-change":         "#!/bin/sh\n",
		"link/.git/HEAD":                            head,
		"link/tools/h":                              "#!/bin/sh\n",
		"dangling/.git/HEAD":                        head,
		"fifo/.git/HEAD":                            head,
		"husky/.git/HEAD":                           head,
		"husky/.git/config":                         "[core]\n\thooksPath = .husky\n",
		"husky/.husky/pre-commit":                   "#!/bin/sh\n",
		"rel/.git/HEAD":                             head,
		"rel/.git/config":                           "[core]\n\thooksPath = tools/hooks\n",
		"rel/tools/hooks/post-index-change":         "#!/bin/sh\n",
		"tilde/.git/HEAD":                           head,
		"tilde/.git/config":                         "[core]\n\thooksPath = ~/hooks\n",
		"home/hooks/post-index-change":              "#!/bin/sh\n",
		"user/.git/HEAD":                            head,
		"user/.git/config":                          "[core]\n\thooksPath = ~root/hooks\n",
		"filehooks/.git/HEAD":                       head,
		"filehooks/.git/config":                     "[core]\n\thooksPath = notadir\n",
		"filehooks/notadir":                         "x\n",
		"locked/.git/HEAD":                          head,
		"locked/.git/hooks/x":                       "",
		"worktree/.git":                             "gitdir: ../main/.git/worktrees/wt\n",
		"main/.git/HEAD":                            head,
		"main/.git/worktrees/wt/HEAD":               head,
		"main/.git/worktrees/wt/commondir":          "../..\n",
		"main/.git/worktrees/wt/gitdir":             dir + "/worktree/.git\n",
		"main/.git/hooks/post-index-change":         "#!/bin/sh\n",
		"bare.git/HEAD":                             head,
		"bare.git/config":                           "[core]\n\tbare = true\n\thooksPath = h\n",
	})
	for _, top := range []string{"plain", "noexec", "exec", "link", "dangling", "fifo", "husky", "rel", "tilde", "user", "filehooks", "locked", "main"} {
		for _, d := range []string{".git/objects", ".git/refs", ".git/hooks"} {
			must(t, os.MkdirAll(filepath.Join(dir, top, d), 0o755))
		}
	}
	for _, d := range []string{"bare.git/objects", "bare.git/refs"} {
		must(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	for _, p := range []string{"plain/.git/hooks/pre-commit.sample", "plain/.git/hooks/post-index-change.sample", "exec/.git/hooks/post-index-change",
		"link/tools/h", "husky/.husky/pre-commit", "rel/tools/hooks/post-index-change", "home/hooks/post-index-change", "main/.git/hooks/post-index-change"} {
		must(t, os.Chmod(filepath.Join(dir, p), 0o755))
	}
	must(t, os.Symlink("../../tools/h", filepath.Join(dir, "link/.git/hooks/post-index-change")))
	must(t, os.Symlink("../../tools/none", filepath.Join(dir, "dangling/.git/hooks/post-index-change")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo/.git/hooks/post-index-change"), 0o644))
	must(t, os.Chmod(filepath.Join(dir, "locked/.git/hooks"), 0))
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "locked/.git/hooks"), 0o755) })
	tests := []struct {
		cwd, cmd string
		want     []string
	}{
		{"plain", "git status", []string{}},
		{"noexec", "git status", []string{}},
		{"exec", "git status", []string{"hook $T/exec/.git/hooks/post-index-change"}},
		{"exec", "git diff", []string{"hook $T/exec/.git/hooks/post-index-change"}},
		{"exec", "git log -p", []string{}},
		{"exec", "git -C . describe --dirty", []string{"hook $T/exec/.git/hooks/post-index-change"}},
		{"link", "git status", []string{"hook $T/link/.git/hooks/post-index-change"}},
		{"dangling", "git status", []string{}},
		{"fifo", "git status", []string{"hook $T/fifo/.git/hooks/post-index-change"}},
		{"husky", "git status", []string{}},
		{"rel", "git status", []string{"hook $T/rel/tools/hooks/post-index-change"}},
		{"tilde", "git status", []string{"hook $T/home/hooks/post-index-change"}},
		{"user", "git status", []string{"not-established: $T/user/.git/config"}},
		{"filehooks", "git status", []string{}},
		{"worktree", "git status", []string{"hook $T/main/.git/hooks/post-index-change"}},
		{"bare.git", "git --bare status", []string{"not-established: $T/bare.git/config"}},
	}
	if os.Geteuid() != 0 {
		tests = append(tests, struct {
			cwd, cmd string
			want     []string
		}{"locked", "git status", []string{"not-established: $T/locked/.git/hooks/post-index-change"}})
	}
	for _, tc := range tests {
		t.Run(tc.cwd+" "+tc.cmd, func(t *testing.T) {
			b := Boundary{Roots: []string{dir}, Cwd: filepath.Join(dir, tc.cwd), Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows, Env: ProcessEnv}
			r := classify.Classify(tc.cmd, classify.WithDialect(classify.DialectBash))
			done := make(chan *Station, 1)
			go func() { done <- Judge(r, b) }()
			var st *Station
			select {
			case st = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the station blocked (a hook that is a FIFO?)")
			}
			got := []string{}
			for _, h := range st.RepoHelpers {
				got = append(got, strings.ReplaceAll(h.Kind+" "+h.File, dir, "$T"))
			}
			for _, r := range st.Reads {
				if r.Source == "repository" {
					got = append(got, strings.ReplaceAll(string(r.Verdict)+": "+r.Path, dir, "$T"))
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s in %s (-want +got):\n%s", tc.cmd, tc.cwd, d)
			}
		})
	}
}

// TestGitPromisorsAndNesting: every spelling of a partial clone is
// reported; gitlinks nested past the bound are not established.
func TestGitPromisorsAndNesting(t *testing.T) {
	git := testenv.LookPath(t, "git")
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	head := "ref: refs/heads/main\n"
	writeTree(t, dir, map[string]string{
		"remote/.git/HEAD":                       head,
		"remote/.git/config":                     "[remote \"origin\"]\n\turl = http://127.0.0.1:9/x.git\n\tpromisor\n",
		"off/.git/HEAD":                          head,
		"off/.git/config":                        "[remote \"origin\"]\n\turl = http://127.0.0.1:9/x.git\n\tpromisor = false\n",
		"ext/.git/HEAD":                          head,
		"ext/.git/config":                        "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tpartialClone = up\n[remote \"up\"]\n\turl = ssh://h/x\n",
		"pack/.git/HEAD":                         head,
		"pack/.git/objects/pack/pack-1.promisor": "",
	})
	for _, top := range []string{"remote", "off", "ext", "pack"} {
		for _, d := range []string{".git/objects", ".git/refs"} {
			must(t, os.MkdirAll(filepath.Join(dir, top, d), 0o755))
		}
	}
	// deep: gitlinks nested one level past maxSubmoduleDepth.
	env := []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
	d := filepath.Join(dir, "deep")
	var chain []string
	for i := 0; i <= maxSubmoduleDepth+1; i++ {
		chain = append(chain, d)
		c := exec.Command(git, "init", "-q", d)
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		d = filepath.Join(d, "s")
	}
	for i := len(chain) - 2; i >= 0; i-- {
		c := exec.Command(git, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("1", 40)+",s")
		c.Dir, c.Env = chain[i], env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	tests := []struct {
		cwd  string
		want []string
	}{
		{"remote", []string{"promisor remote.origin.promisor $T/remote/.git/config http://127.0.0.1:9/x.git"}},
		{"off", []string{}},
		{"ext", []string{"promisor extensions.partialclone $T/ext/.git/config ssh://h/x"}},
		{"pack", []string{"promisor  $T/pack/.git/objects/pack/pack-1.promisor "}},
		{"deep", []string{"not-established: $T/deep" + strings.Repeat("/s", maxSubmoduleDepth) + "/.git/index"}},
	}
	for _, tc := range tests {
		t.Run(tc.cwd, func(t *testing.T) {
			st := judge(t, "git log --oneline", rootBoundary(dir, filepath.Join(dir, tc.cwd)))
			got := []string{}
			for _, h := range st.RepoHelpers {
				got = append(got, strings.ReplaceAll(h.Kind+" "+h.Key+" "+h.File+" "+h.Value, dir, "$T"))
			}
			for _, r := range st.Reads {
				if r.Source == "repository" {
					got = append(got, strings.ReplaceAll(string(r.Verdict)+": "+r.Path, dir, "$T"))
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("git log in %s (-want +got):\n%s", tc.cwd, d)
			}
		})
	}
}
