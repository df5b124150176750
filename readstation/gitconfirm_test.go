package readstation

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/internal/testenv"
)

// TestGitPointedConfirm runs the real git, once per spelling that points
// it elsewhere (every variable and option of the catalog's git_repo has
// one), in a project whose repository configures a command
// (core.fsmonitor, alias.hi) that leaves a marker when it runs, and holds
// the station to what git did: whenever git ran a command a config file
// chose, the station reported a helper in that file or was not
// established. src says which file git takes it from, so that every case
// really exercises what it names (a case whose premise fails, fails).
//
// The project proj is a repository whose config sets both, and a Go main
// package (go list runs git status there); proj/sub is a clean
// repository; proj's top level also looks like a git directory (HEAD,
// objects, refs) whose ./config sets alias.bh, which git --bare reads;
// ~/evil is a repository outside the roots that sets both, and ~/evil.cfg
// a config file that sets alias.hi.
func TestGitPointedConfirm(t *testing.T) {
	git := testenv.LookPath(t, "git")
	bash := testenv.LookPath(t, "bash")
	testenv.LookPath(t, "go")
	const projCfg, evilCfg = "proj/.git/config", "evil/.git/config"
	tests := []struct {
		cmd string
		src string // the config file whose command git runs, "" for none
	}{
		{"git status", projCfg},
		{"git hi", projCfg},
		{"git -C sub status", ""},
		{"git -C sub hi", ""}, // sub defines no alias hi
		{"git --work-tree=sub status", projCfg},
		{"git -C sub --work-tree=.. status", ""},
		{"git --bare bh", "proj/config"},
		{"git bh", ""}, // only proj's ./config defines bh
		{"git --git-dir=../evil/.git status", evilCfg},
		{"GIT_DIR=../evil/.git git status", evilCfg},
		{"env GIT_DIR=../evil/.git git status", evilCfg},
		{"GIT_COMMON_DIR=../../evil/.git git -C sub hi", evilCfg},
		{"GIT_CONFIG_GLOBAL=../../evil.cfg git -C sub hi", "evil.cfg"},
		{"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.hi GIT_CONFIG_VALUE_0='!touch ../../marker' git -C sub hi", "(environment)"},
		{"GIT_WORK_TREE=sub git status", projCfg},
		{"GIT_PAGER=cat GIT_OPTIONAL_LOCKS=0 git -C sub hi", ""},
		// go list stamps the main package with git status, in its own
		// environment (catalog runs_git, and git_repo on go list).
		{"go list", projCfg},
		{"GIT_DIR=../evil/.git go list", evilCfg},
	}
	// Every variable and option the catalog's git_repo names is one of
	// the cases: the catalog claims nothing the real git did not show.
	g := classify.DefaultCatalog().Lookup("git").GitRepo
	claims := map[string]bool{g.GitDir: false, g.Bare: false, g.WorkTree: false}
	for _, e := range g.Env {
		claims[e] = false
	}
	for _, tc := range tests {
		for _, s := range classify.Classify(tc.cmd, classify.WithDialect(classify.DialectBash)).Segments {
			if s.GitRepo == nil {
				continue
			}
			for _, a := range s.GitRepo.Env {
				for e := range claims {
					if e == a.Name || strings.HasSuffix(e, "*") && strings.HasPrefix(a.Name, strings.TrimSuffix(e, "*")) {
						claims[e] = true
					}
				}
			}
			for _, o := range append(append(s.GitRepo.GitDir, s.GitRepo.WorkTree...), ptrOpts(s.GitRepo.Bare)...) {
				claims[o.Name] = true
			}
		}
	}
	for c, seen := range claims {
		if !seen {
			t.Errorf("the catalog's git_repo names %s, which no case runs", c)
		}
	}
	home := t.TempDir()
	proj, marker := filepath.Join(home, "proj"), filepath.Join(home, "marker")
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0",
		"GOCACHE="+filepath.Join(home, "gocache"), "GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	for _, r := range []string{proj, filepath.Join(proj, "sub"), filepath.Join(home, "evil")} {
		c := exec.Command(git, "init", "-q", r)
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git init %s: %v\n%s", r, err, out)
		}
	}
	// quoted: ";" begins a comment in a git config
	monitor, touch := `"touch `+marker+`; false"`, `"!touch `+marker+`; false"`
	for _, r := range []string{proj, filepath.Join(home, "evil")} {
		f, err := os.OpenFile(filepath.Join(r, ".git/config"), os.O_APPEND|os.O_WRONLY, 0)
		must(t, err)
		_, err = f.WriteString("[core]\n\tfsmonitor = " + monitor + "\n[alias]\n\thi = " + touch + "\n")
		must(t, err)
		must(t, f.Close())
	}
	must(t, os.WriteFile(filepath.Join(home, "evil.cfg"), []byte("[alias]\n\thi = "+touch+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(proj, "go.mod"), []byte("module m\n\ngo 1.21\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
	writeGitDir(t, proj, "[core]\n\trepositoryformatversion = 0\n\tbare = true\n[alias]\n\tbh = "+touch+"\n")
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			if err := os.Remove(marker); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			c := exec.Command(bash, "-c", tc.cmd)
			c.Dir, c.Env = proj, env
			out, _ := c.CombinedOutput() // a helper that fails, or an unknown alias, fails git
			_, err := os.Stat(marker)
			if ran := err == nil; ran != (tc.src != "") {
				t.Fatalf("the real git ran a configured command: %t, want %t\n%s", ran, tc.src != "", out)
			}
			if tc.src == "" {
				return
			}
			st := Judge(classify.Classify(tc.cmd, classify.WithDialect(classify.DialectBash)), Boundary{Roots: []string{proj}, Cwd: proj, Home: home, DenyRows: DefaultDenyRows, Env: ProcessEnv})
			var seen []string
			for _, h := range st.RepoHelpers {
				if h.File == filepath.Join(home, tc.src) {
					return // reported where git found it
				}
				seen = append(seen, h.Key+" in "+h.File)
			}
			if !st.Established {
				return // what git reads is not known: asked, or denied
			}
			t.Errorf("git ran a command %s chose; the station is established and reported no helper there (helpers: %s)", tc.src, strings.Join(seen, ", "))
		})
	}
}

// ptrOpts is the option o points at, as a list.
func ptrOpts(o *classify.Opt) []classify.Opt {
	if o == nil {
		return nil
	}
	return []classify.Opt{*o}
}
