package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/internal/testenv"
)

// TestConfirmPushes runs the real git push, once per spelling, from a
// clone whose main was rewritten (amended) after it was pushed, and holds
// the report's pushes to what git did: the remote's main is rewritten
// exactly when a push names main as the branch it updates and forces it.
// The first operand is the repository, never a refspec (git push --force
// main pushes to a repository named main, and fails).
func TestConfirmPushes(t *testing.T) {
	git := testenv.LookPath(t, "git")
	bash := testenv.LookPath(t, "bash")
	tests := []string{
		"git push --force origin main",
		"git push -f origin HEAD:refs/heads/main",
		"git push origin +main",
		"git push origin main --force-with-lease",
		"git push origin main",
		"git push --force main",
		"git push --force origin main:feature",
		"git push origin +HEAD:feature",
	}
	for _, cmd := range tests {
		t.Run(cmd, func(t *testing.T) {
			dir := t.TempDir()
			env := append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b",
				"GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
			gitIn := func(wd string, args ...string) string {
				t.Helper()
				c := exec.Command(git, args...)
				c.Dir, c.Env = wd, env
				out, err := c.CombinedOutput()
				if err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
				return strings.TrimSpace(string(out))
			}
			w := filepath.Join(dir, "w")
			gitIn(dir, "init", "-q", "--bare", "-b", "main", "remote.git")
			gitIn(dir, "init", "-q", "-b", "main", "w")
			gitIn(w, "commit", "-q", "--allow-empty", "-m", "one")
			gitIn(w, "remote", "add", "origin", "../remote.git")
			gitIn(w, "push", "-q", "origin", "main")
			pushed := gitIn(dir, "-C", "remote.git", "rev-parse", "main")
			gitIn(w, "commit", "-q", "--amend", "--allow-empty", "-m", "two")

			c := exec.Command(bash, "-c", cmd)
			c.Dir, c.Env = w, env
			c.CombinedOutput() // a rejected push fails; what matters is the remote
			rewritten := gitIn(dir, "-C", "remote.git", "rev-parse", "main") != pushed

			forcedMain := false
			for _, s := range Classify(cmd, WithDialect(DialectBash)).Segments {
				for _, p := range s.Pushes {
					if p.Branch == "main" && p.Force {
						forcedMain = true
					}
				}
			}
			if forcedMain != rewritten {
				t.Errorf("the report has a forced push of main: %t; the real git rewrote the remote's main: %t", forcedMain, rewritten)
			}
		})
	}
}
