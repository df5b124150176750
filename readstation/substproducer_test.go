package readstation

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/internal/testenv"
)

// TestSubstitutionProducers: an unquoted $(...) file operand whose one
// command is find, git ls-files or rg --files is judged as every path the
// producer could print, in repositories the real git made: a tracked
// secret or a tracked symlink to one is denied as cat of it would be; a
// name the shell would split or glob-expand, on disk or only in the index,
// or one starting with "-" where the reader parses options, is not
// established.
func TestSubstitutionProducers(t *testing.T) {
	gitBin := testenv.LookPath(t, "git")
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	home := filepath.Join(dir, "home")
	must(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	must(t, os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("KEY\n"), 0o600))
	repo := func(name string, files map[string]string, links map[string]string, gone []string) string {
		top := filepath.Join(dir, name)
		for p, body := range files {
			must(t, os.MkdirAll(filepath.Dir(filepath.Join(top, p)), 0o755))
			must(t, os.WriteFile(filepath.Join(top, p), []byte(body), 0o644))
		}
		for p, target := range links {
			must(t, os.MkdirAll(filepath.Dir(filepath.Join(top, p)), 0o755))
			must(t, os.Symlink(target, filepath.Join(top, p)))
		}
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
			cmd := exec.Command(gitBin, args...)
			cmd.Dir = top
			cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
			}
		}
		for _, p := range gone {
			must(t, os.Remove(filepath.Join(top, p))) // tracked, no longer on disk
		}
		return top
	}
	code := map[string]string{"main.go": "package main\n", "docs/a.md": "# a\n"}
	repo("clean", code, nil, nil)
	repo("env", map[string]string{"main.go": "package main\n", "sub/.env": "T=1\n"}, nil, nil)
	repo("link", code, map[string]string{"docs/key.md": filepath.Join(home, ".ssh", "id_rsa")}, nil)
	repo("space", map[string]string{"main.go": "x\n", "a b.go": "x\n"}, nil, nil)
	repo("gone", map[string]string{"main.go": "x\n", "x /etc/passwd.go": "x\n"}, nil, []string{"x /etc/passwd.go"})
	repo("glob", map[string]string{"main.go": "x\n", "[a].md": "x\n"}, nil, nil)
	repo("dash", map[string]string{"main.go": "x\n", "-n.go": "x\n"}, nil, nil)
	tests := []struct {
		cwd, cmd string
		want     string
	}{
		{"clean", "wc -l $(git ls-files)", "ok"},
		{"clean", "cat $(find . -name '*.md')", "ok"},
		{"clean", "head -5 $(rg --files docs)", "ok"},
		{"env", "cat $(git ls-files)", "denied **/.env in-tree"},
		{"env", "cat $(find . -name '*.go')", "ok"},
		{"link", "cat $(git ls-files)", "denied ~/.ssh/** in-tree"},
		{"link", "cat $(find docs)", "denied ~/.ssh/** in-tree"},
		{"space", "cat $(git ls-files)", "not-established"},
		{"space", "cat $(find . -name '*.go')", "not-established"},
		{"space", "cat $(find . -name 'main*')", "ok"},
		// Only the index still names it: git prints it, the shell splits it.
		{"gone", "cat $(git ls-files)", "not-established"},
		{"gone", "cat $(find . -name '*.go')", "ok"},
		{"glob", "cat $(git ls-files)", "not-established"},
		{"glob", "cat $(rg --files)", "not-established"},
		// -n.go would be wc's -n; after -- it is a file.
		{"dash", "wc -l $(git ls-files)", "not-established"},
		{"dash", "wc -l -- $(git ls-files)", "ok"},
		{"dash", "cat $(rg --files)", "not-established"},
		// find prints ./-n.go, but the check does not tell: fail closed.
		{"dash", "cat $(find . -name '*.go')", "not-established"},
		// Not bound to a producer: options not modelled, NUL output, another
		// command, quoted.
		{"clean", "cat $(git ls-files -s)", "not-established"},
		{"clean", "cat $(find . -print0)", "not-established"},
		{"clean", "cat $(git diff --name-only)", "not-established"},
		{"clean", `cat "$(git ls-files)"`, "not-established"},
		{"clean", "cat $(cd docs && find .)", "not-established"},
	}
	for _, tc := range tests {
		t.Run(tc.cwd+" "+tc.cmd, func(t *testing.T) {
			cwd := filepath.Join(dir, tc.cwd)
			b := rootBoundary(dir, cwd)
			st := judge(t, tc.cmd, b)
			got := "no read"
			for _, r := range st.Reads {
				if strings.HasPrefix(r.Path, "$(") || strings.HasPrefix(r.Path, `"$(`) {
					got = string(r.Verdict)
					if r.Row != "" {
						got += " " + r.Row
					}
					if r.InTree {
						got += " in-tree"
					}
					if d := cmp.Diff(tc.want, got); d != "" {
						t.Errorf("%s in %s (-want +got):\n%s\n%s", tc.cmd, tc.cwd, d, r.Message)
					}
					return
				}
			}
			t.Errorf("%s: no read of the substitution", tc.cmd)
		})
	}
}
