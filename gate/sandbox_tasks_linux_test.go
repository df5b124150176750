//go:build linux

package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/internal/asuser"
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
	everydayTasks(t)
}

// TestSandboxEverydayTasksAsUser runs the same tasks as a fresh
// unprivileged user (asuser; CI runs as root), with the toolchains
// installed in that user's home (sandboxtasks.UserToolchains): the
// confinement developers get, not root's.
func TestSandboxEverydayTasksAsUser(t *testing.T) {
	needLandlock(t)
	if testing.Short() {
		t.Skip("builds real projects")
	}
	if asuser.Run(t, func(t *testing.T, u *asuser.User) { sandboxtasks.UserToolchains(t, u) }) {
		return
	}
	everydayTasks(t)
}

// everydayTasks runs each task of sandboxtasks in a task workspace, in
// workspace-write, as this user.
func everydayTasks(t *testing.T) {
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
