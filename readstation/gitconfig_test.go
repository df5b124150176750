package readstation

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gitWorld is a real repository (git init) with a home of its own and a
// known environment: what git reads is only what the test writes.
type gitWorld struct {
	dir, home, repo string
	env             EnvMap
}

func newGitWorld(t *testing.T) gitWorld {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("SHELLGATE_CI") != "" {
			t.Fatalf("git is not installed: %v", err)
		}
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	w := gitWorld{dir: dir, home: filepath.Join(dir, "home"), repo: filepath.Join(dir, "home/repo")}
	w.env = EnvMap{"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "", "GIT_CONFIG_SYSTEM": "", "GIT_CONFIG_COUNT": "",
		"GIT_CONFIG_PARAMETERS": "", "XDG_CONFIG_HOME": ""}
	must(t, os.MkdirAll(w.repo, 0o755))
	w.git(t, "init", "-q", "-b", "main", w.repo)
	must(t, os.WriteFile(filepath.Join(w.repo, "a.txt"), []byte("one\n"), 0o644))
	w.git(t, "-C", w.repo, "add", "a.txt")
	w.git(t, "-C", w.repo, "-c", "user.name=A", "-c", "user.email=a@example.invalid", "commit", "-q", "-m", "one")
	must(t, os.WriteFile(filepath.Join(w.repo, "a.txt"), []byte("two\n"), 0o644))
	return w
}

func (w gitWorld) environ() []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "LANG=C"}
	for k, v := range w.env {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func (w gitWorld) git(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env = w.environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (w gitWorld) write(t *testing.T, files map[string]string) {
	t.Helper()
	for p, data := range files {
		full := filepath.Join(w.dir, p)
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.WriteFile(full, []byte(strings.ReplaceAll(data, "$DIR", w.dir)), 0o644))
	}
}

// TestGitConfigEveryScope: a program git runs, set in any file or
// variable git reads (in a spelling git accepts), is a helper named with
// its file; a configuration git refuses, or one set where the station
// cannot see, is not established; the settings a developer keeps in
// ~/.gitconfig ask nothing for git status, git log -p and git diff.
func TestGitConfigEveryScope(t *testing.T) {
	reads := []string{"git status", "git log -p", "git diff"}
	tests := []struct {
		name  string
		files map[string]string
		env   EnvMap
		cmds  []string
		want  []string // helpers "key file", and not-established reads "! path"
	}{
		{name: "plain repository", cmds: reads, want: []string{}},
		{name: "benign ~/.gitconfig", files: map[string]string{
			"home/.gitconfig": "[user]\n\tname = A\n\temail = a@example.invalid\n[core]\n\teditor = vim\n\tpager = delta\n\tfsmonitor = true\n[credential]\n\thelper = store\n[pager]\n\tlog = less\n[sequence]\n\teditor = vim\n[merge \"ours\"]\n\tdriver = true\n[filter \"lfs\"]\n\tsmudge = git-lfs smudge -- %f\n[diff]\n\ttool = meld\n",
		}, cmds: reads, want: []string{}},
		{name: "benign xdg config and system config", files: map[string]string{
			"home/.config/git/config": "[core]\n\tpager = less -R\n[credential \"https://example.com\"]\n\thelper = gcloud.sh\n",
			"sys":                     "[core]\n\teditor = nano\n",
		}, env: EnvMap{"GIT_CONFIG_SYSTEM": "$DIR/sys", "GIT_CONFIG_NOSYSTEM": ""}, cmds: reads, want: []string{}},
		{name: "tricky spelling", files: map[string]string{
			"home/repo/.git/config": "\xef\xbb\xbf[CORE]\r\n\tFSMonitor\t=\t\"./ev\"\\\r\nil ; x\r\n",
		}, cmds: reads, want: []string{"core.fsmonitor $H/repo/.git/config"}},
		{name: "include", files: map[string]string{
			"home/repo/.git/config": "[include]\n\tpath = ../cfg/x\n",
			"home/repo/cfg/x":       "[core]\n\tfsmonitor = ./evil\n",
		}, cmds: []string{"git status"}, want: []string{"core.fsmonitor $H/repo/.git/../cfg/x"}},
		{name: "includeIf gitdir", files: map[string]string{
			"home/repo/.git/config": "[includeIf \"gitdir:~/repo/\"]\n\tpath = ~/x\n",
			"home/x":                "[core]\n\tfsmonitor = ./evil\n",
		}, cmds: []string{"git status"}, want: []string{"core.fsmonitor $H/x"}},
		{name: "~/.gitconfig", files: map[string]string{
			"home/.gitconfig": "[core]\n\tfsmonitor = ~/evil\n",
		}, cmds: reads, want: []string{"core.fsmonitor $H/.gitconfig"}},
		{name: "~/.gitconfig overridden by the repository", files: map[string]string{
			"home/.gitconfig":       "[core]\n\tfsmonitor = ~/evil\n",
			"home/repo/.git/config": "[core]\n\tfsmonitor = false\n",
		}, cmds: []string{"git status"}, want: []string{}},
		{name: "~/.gitconfig diff.external", files: map[string]string{
			"home/.gitconfig": "[diff]\n\texternal = difft\n",
		}, cmds: []string{"git diff"}, want: []string{"diff.external $H/.gitconfig"}},
		{name: "~/.gitconfig filter selected by the repository's attributes", files: map[string]string{
			"home/.gitconfig":          "[filter \"x\"]\n\tclean = ~/evil\n",
			"home/repo/.gitattributes": "*.txt filter=x\n",
		}, cmds: []string{"git status"}, want: []string{"attribute filter=x $H/repo/.gitattributes"}},
		{name: "GIT_CONFIG_COUNT", env: EnvMap{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": "./evil"},
			cmds: []string{"git status"}, want: []string{"core.fsmonitor the environment (GIT_CONFIG_KEY_0)"}},
		{name: "GIT_CONFIG_GLOBAL", files: map[string]string{"g": "[core]\n\tfsmonitor = ./evil\n"}, env: EnvMap{"GIT_CONFIG_GLOBAL": "$DIR/g"},
			cmds: []string{"git status"}, want: []string{"core.fsmonitor $DIR/g"}},
		{name: "GIT_CONFIG_COUNT not known", env: EnvMap{"GIT_CONFIG_NOSYSTEM": "1"}, cmds: []string{"git status"}, want: []string{"! $GIT_CONFIG_*"}},
		{name: "config git refuses", files: map[string]string{
			"home/repo/.git/config": "[core]\n\tfsmonitor = ./evil\n[bad\n",
		}, cmds: []string{"git status"}, want: []string{"! $H/repo/.git/config"}},
		{name: "~/.gitconfig git refuses", files: map[string]string{
			"home/.gitconfig": "[user]\n\tname = \"A\n",
		}, cmds: []string{"git status"}, want: []string{"! $H/.gitconfig"}},
		{name: "core.worktree elsewhere", files: map[string]string{
			"home/repo/.git/config": "[core]\n\tworktree = $DIR/elsewhere\n",
			"elsewhere/secret":      "s",
		}, cmds: []string{"git diff"}, want: []string{"! $H/repo/.git/config"}},
		{name: "core.worktree is the top", files: map[string]string{
			"home/repo/.git/config": "[core]\n\tworktree = ..\n",
		}, cmds: []string{"git diff"}, want: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newGitWorld(t)
			w.write(t, tc.files)
			env := EnvMap{}
			for k, v := range w.env {
				env[k] = v
			}
			if tc.name == "GIT_CONFIG_COUNT not known" {
				env = tc.env
			} else {
				for k, v := range tc.env {
					env[k] = strings.ReplaceAll(v, "$DIR", w.dir)
				}
			}
			for _, cmd := range tc.cmds {
				b := Boundary{Roots: []string{w.repo}, Cwd: w.repo, Home: w.home, DenyRows: DefaultDenyRows, Env: env}
				st := judge(t, cmd, b)
				got := []string{}
				for _, h := range st.RepoHelpers {
					got = append(got, h.Key+" "+strings.ReplaceAll(strings.ReplaceAll(h.File, w.home, "$H"), w.dir, "$DIR"))
				}
				for _, r := range st.Reads {
					if r.Verdict == VerdictNotEstablished {
						got = append(got, "! "+strings.ReplaceAll(strings.ReplaceAll(r.Path, w.home, "$H"), w.dir, "$DIR"))
					}
				}
				want := append([]string{}, tc.want...)
				sort.Strings(got)
				sort.Strings(want)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: helpers and not-established reads (-want +got):\n%s", cmd, diff)
				}
			}
		})
	}
}

// TestGitUsesCoreWorktree: git obeys core.worktree in a repository's
// config, reading (and git diff printing) the files of that directory,
// which the repository's index may track: what TestGitConfigEveryScope's
// "core.worktree elsewhere" guards against.
func TestGitUsesCoreWorktree(t *testing.T) {
	w := newGitWorld(t)
	w.write(t, map[string]string{"elsewhere/a.txt": "SECRET\n"})
	w.git(t, "-C", w.repo, "config", "core.worktree", filepath.Join(w.dir, "elsewhere"))
	out := w.git(t, "-C", w.repo, "diff")
	if !strings.Contains(out, "+SECRET") {
		t.Errorf("git diff with core.worktree elsewhere printed:\n%s\nwant the file of that directory", out)
	}
}
