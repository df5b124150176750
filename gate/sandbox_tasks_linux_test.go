//go:build linux

package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/internal/sandboxtasks"
	"github.com/shellgate/shellgate/internal/testenv"
)

// taskWorkspace is a task workspace (sandboxtasks.Workspace) in a
// temporary directory.
func taskWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	sandboxtasks.Workspace(t, ws)
	return ws
}

// TestSandboxEverydayTasks runs the everyday tasks of issue 26 in
// workspace-write, with the toolchains as this machine has them installed
// in the real home (Go's caches, a pyenv python, rustup and cargo, npm).
// A row whose program is missing skips (fails in CI).
func TestSandboxEverydayTasks(t *testing.T) {
	needLandlock(t)
	if testing.Short() {
		t.Skip("builds real projects")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	ws := taskWorkspace(t)
	g := newGate(t, ws, WithoutDefaultPolicy(), WithPolicyModules(allowAll))
	passed, ran := 0, 0
	for _, tc := range sandboxtasks.Tasks {
		t.Run(tc.Name, func(t *testing.T) {
			for _, n := range tc.Needs {
				if p, ok := strings.CutPrefix(n, "~/"); ok {
					if _, err := os.Stat(filepath.Join(home, p)); err != nil {
						testenv.Missing(t, "%s is not installed", n)
					}
					continue
				}
				needTool(t, n)
			}
			ran++
			res := g.Run(context.Background(), Request{Command: tc.Cmd, Sandbox: execution.SandboxWorkspaceWrite, TimeoutMS: 300_000})
			if res.Status != StatusOK {
				out := ""
				if res.Output != nil {
					out = res.Output.String()
				}
				t.Errorf("%s: %s\n%s", tc.Cmd, res.StatusLine(), out)
				return
			}
			passed++
		})
	}
	t.Logf("everyday tasks in workspace-write: %d of %d pass", passed, ran)
}
