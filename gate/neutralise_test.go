package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/internal/testenv"
	"github.com/shellgate/shellgate/policy"
)

func slicesContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestRunNeutralisesRepository: shellgate run (Gate.Run) in a hostile
// repository, with the real git: a post-index-change hook in .git/hooks
// and a core.fsmonitor program do not run (core.hooksPath=/dev/null and
// core.fsmonitor=false are forced), though each runs when the same
// command runs in the agent's own environment; and the decision on git
// status in the fsmonitor repository asks, since a hook's decision is
// all there is where the agent runs the command itself.
func TestRunNeutralisesRepository(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir, marker string)
		asks  bool
	}{
		{"post-index-change hook", func(t *testing.T, dir, marker string) {
			writeScript(t, filepath.Join(dir, ".git", "hooks", "post-index-change"), "touch "+marker)
		}, false},
		{"core.fsmonitor", func(t *testing.T, dir, marker string) {
			evil := filepath.Join(dir, ".git", "evil.sh")
			writeScript(t, evil, "touch "+marker)
			cmd := exec.Command("git", "config", "core.fsmonitor", evil)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git config: %v %s", err, out)
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := gitRepo(t)
			marker := filepath.Join(dir, "PWNED")
			tc.plant(t, dir, marker)
			cmd := "git status --short"
			raw := runSpec(t, context.Background(), execution.Spec{Command: cmd, Dir: dir, Env: baseEnv()})
			if _, err := os.Stat(marker); err != nil {
				t.Fatalf("control: %s did not run the planted program in the agent's environment, so this proves nothing:\n%s", cmd, raw.Output.String())
			}
			cleanup(dir)
			// The file's times change again, so git refreshes the index.
			if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			g := newGate(t, dir, WithEnv(baseEnv(), nil, nil))
			d, err := g.Check(context.Background(), Request{Command: "git status"})
			if err != nil {
				t.Fatal(err)
			}
			if tc.asks && d.Action != policy.Ask {
				t.Errorf("the decision on git status is %s, want ask: %v", d.Action, d.Reasons)
			}
			res := g.Run(context.Background(), Request{Command: cmd, Approver: approve(true)})
			if res.Status != StatusOK || !strings.Contains(res.Output.String(), "M f.txt") {
				t.Errorf("git status through the gate: status %s %s:\n%s", res.Status, res.Code, res.Output.String())
			}
			if _, err := os.Stat(marker); err == nil {
				t.Errorf("the planted program ran through the gate")
			}
		})
	}
}

// TestRunNoLazyFetch: a read of file content in a partial clone, allowed
// as reversible and run by the gate, does not fetch the missing object
// from the promisor remote (GIT_NO_LAZY_FETCH, and no transport allowed),
// where the same read in the agent's own environment does.
func TestRunNoLazyFetch(t *testing.T) {
	testenv.LookPath(t, "git") // unconfirmed off CI without git, a failure in CI
	base := t.TempDir()
	run := func(dir string, env []string, args ...string) (string, error) {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = env
		out, err := c.CombinedOutput()
		return string(out), err
	}
	env := baseEnv()
	srv := filepath.Join(base, "srv")
	if err := os.Mkdir(srv, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"config", "uploadpack.allowFilter", "true"}, {"config", "uploadpack.allowAnySHA1InWant", "true"}} {
		if out, err := run(srv, env, args...); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(srv, "f"), []byte("secret content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "f"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "x"}} {
		if out, err := run(srv, env, args...); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	clone := func(name string) string {
		dir := filepath.Join(base, name)
		if out, err := run(base, env, "clone", "-q", "--no-local", "--no-checkout", "--filter=blob:none", "file://"+srv, dir); err != nil {
			t.Fatalf("git clone: %v %s", err, out)
		}
		// The repository allows the transport itself.
		if out, err := run(dir, env, "config", "protocol.file.allow", "always"); err != nil {
			t.Fatalf("git config: %v %s", err, out)
		}
		return dir
	}
	cmd := "git cat-file -p HEAD:f"
	control := clone("control")
	if out := runSpec(t, context.Background(), execution.Spec{Command: cmd, Dir: control, Env: env}); !strings.Contains(out.Output.String(), "secret content") {
		t.Fatalf("control: the lazy fetch did not happen in the agent's environment, so this proves nothing:\n%s", out.Output.String())
	}
	dir := clone("gated")
	g := newGate(t, dir, WithEnv(env, nil, nil))
	res := g.Run(context.Background(), Request{Command: cmd, Approver: approve(true)})
	if res.Decision == nil || res.Decision.Action != policy.Allow {
		t.Logf("decision: %v (the read stays neutralised either way)", res.Decision)
	}
	if strings.Contains(res.Output.String(), "secret content") {
		t.Errorf("the gate's run fetched the object from the promisor remote:\n%s", res.Output.String())
	}
}
