package readstation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSubmoduleHelpers: git status looks into every submodule with the
// submodule's own config, so a helper set there is one the repository
// chose: under .git/modules (a name with a slash, a nested submodule) and
// in a submodule's own .git directory at a path .gitmodules names.
func TestSubmoduleHelpers(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	fsmonitor := "[core]\n\tfsmonitor = touch pwned\n"
	files := map[string]string{
		"absorbed/.git/HEAD":                             "ref: refs/heads/main\n",
		"absorbed/.git/modules/sub/HEAD":                 "ref: refs/heads/main\n",
		"absorbed/.git/modules/sub/config":               fsmonitor,
		"slash/.git/HEAD":                                "ref: refs/heads/main\n",
		"slash/.git/modules/libs/json/HEAD":              "ref: refs/heads/main\n",
		"slash/.git/modules/libs/json/config":            "[core]\n\tpager = touch pwned\n",
		"nested/.git/HEAD":                               "ref: refs/heads/main\n",
		"nested/.git/modules/outer/HEAD":                 "ref: refs/heads/main\n",
		"nested/.git/modules/outer/config":               "[core]\n\tbare = false\n",
		"nested/.git/modules/outer/modules/inner/HEAD":   "ref: refs/heads/main\n",
		"nested/.git/modules/outer/modules/inner/config": fsmonitor,
		"legacy/.git/HEAD":                               "ref: refs/heads/main\n",
		"legacy/.gitmodules":                             "[submodule \"x\"]\n\tpath = vendor/x\n\turl = ../x\n",
		"legacy/vendor/x/.git/HEAD":                      "ref: refs/heads/main\n",
		"legacy/vendor/x/.git/config":                    fsmonitor,
		"gitfile/.git/HEAD":                              "ref: refs/heads/main\n",
		"gitfile/.gitmodules":                            "[submodule \"x\"]\n\tpath = x\n",
		"gitfile/x/.git":                                 "gitdir: ../../elsewhere/x.git\n",
		"elsewhere/x.git/HEAD":                           "ref: refs/heads/main\n",
		"elsewhere/x.git/config":                         fsmonitor,
		"linked/.git/HEAD":                               "ref: refs/heads/main\n",
		"store/sub/HEAD":                                 "ref: refs/heads/main\n",
		"store/sub/config":                               fsmonitor,
		"looped/.git/HEAD":                               "ref: refs/heads/main\n",
		"clean/.git/HEAD":                                "ref: refs/heads/main\n",
		"clean/.git/modules/sub/HEAD":                    "ref: refs/heads/main\n",
		"clean/.git/modules/sub/config":                  "[core]\n\tworktree = ../../../sub\n",
	}
	writeTree(t, dir, files)
	// A modules directory that is a symlink, and one that cannot be
	// resolved.
	must(t, os.Symlink(filepath.Join(dir, "store"), filepath.Join(dir, "linked/.git/modules")))
	must(t, os.Symlink("modules", filepath.Join(dir, "looped/.git/modules")))
	for _, top := range []string{"absorbed", "slash", "nested", "legacy", "gitfile", "linked", "looped", "clean"} {
		for _, d := range []string{".git/objects", ".git/refs"} {
			must(t, os.MkdirAll(filepath.Join(dir, top, d), 0o755))
		}
	}
	tests := []struct {
		cwd  string
		want []string
	}{
		{"absorbed", []string{"core.fsmonitor in $T/absorbed/.git/modules/sub/config"}},
		{"slash", []string{"core.pager in $T/slash/.git/modules/libs/json/config"}},
		{"nested", []string{"core.fsmonitor in $T/nested/.git/modules/outer/modules/inner/config"}},
		{"legacy", []string{"core.fsmonitor in $T/legacy/vendor/x/.git/config"}},
		// The submodule's git directory is outside the roots: git status
		// (status.submoduleSummary) prints that repository's history.
		{"gitfile", []string{"core.fsmonitor in $T/elsewhere/x.git/config", "outside-roots: $T/elsewhere/x.git"}},
		{"linked", []string{"core.fsmonitor in $T/store/sub/config"}},
		{"looped", []string{"not-established: $T/looped/.git/modules"}},
		{"clean", []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.cwd, func(t *testing.T) {
			cwd := filepath.Join(dir, tc.cwd)
			st := judge(t, "git status", rootBoundary(dir, cwd))
			got := []string{}
			for _, h := range st.RepoHelpers {
				got = append(got, strings.ReplaceAll(h.Key+" in "+h.File, dir, "$T"))
			}
			for _, r := range st.Reads {
				if r.Source == "repository" {
					got = append(got, strings.ReplaceAll(string(r.Verdict)+": "+r.Path, dir, "$T"))
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("git status in %s: helpers (-want +got):\n%s", tc.cwd, d)
			}
		})
	}
}

// TestRunsGitHelpers: a program that runs git in its repository (catalog
// runs_git: go list) gets the repository's helpers reported as git does;
// one that does not (go version) gets none.
func TestRunsGitHelpers(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	writeTree(t, dir, map[string]string{
		"mod/.git/HEAD":   "ref: refs/heads/main\n",
		"mod/.git/config": "[core]\n\tfsmonitor = touch pwned\n",
		"mod/go.mod":      "module example.com/x\n",
	})
	for cmd, want := range map[string]int{"go list ./...": 1, "go version": 0, "cd mod && go list ./...": 1} {
		cwd := filepath.Join(dir, "mod")
		if strings.HasPrefix(cmd, "cd ") {
			cwd = dir
		}
		st := judge(t, cmd, rootBoundary(dir, cwd))
		if got := len(st.RepoHelpers); got != want {
			t.Errorf("%s: %d helpers, want %d: %+v", cmd, got, want, st.RepoHelpers)
		}
	}
}
