//go:build linux

package sandboxes

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellgate/shellgate/internal/sandboxtasks"
)

// taskWorkspace lays out the task workspace (sandboxtasks.Workspace, the
// one gate's TestSandboxEverydayTasks runs in) in ws.
func taskWorkspace(t *testing.T, ws string) string {
	t.Helper()
	sandboxtasks.Workspace(t, ws)
	return ws
}

// taskResult is the tasks' table and what the overhead measurement needs.
type taskResult struct {
	rows []row
	// ws is each sandbox's task workspace, after its tasks ran.
	ws []string
	// worked[i][j]: task i worked in sandbox j.
	worked [][]bool
}

// compareTasks runs the 16 tasks in each sandbox, in a task workspace of
// its own, with the toolchains in the real home (the environment is the
// test's own).
func compareTasks(t *testing.T, all []sandbox, base string) taskResult {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	var tr taskResult
	for _, sb := range all {
		tr.ws = append(tr.ws, taskWorkspace(t, filepath.Join(base, "tasks-"+sb.name)))
	}
	for _, tc := range sandboxtasks.Tasks {
		r := row{name: tc.Name}
		missing := ""
		for _, n := range tc.Needs {
			p := n
			if rel, ok := strings.CutPrefix(n, "~/"); ok {
				p = filepath.Join(home, rel)
			}
			if _, err := exec.LookPath(p); err != nil {
				missing = n + " is not installed"
			}
		}
		var worked []bool
		for j, sb := range all {
			var v verdict
			if missing != "" {
				v = verdict{"not run", missing}
			} else {
				o := run(sb, tr.ws[j], os.Environ(), tc.Cmd, 6*time.Minute)
				v = taskVerdict(o, map[string]string{tr.ws[j]: "$WS", home: "~"})
				t.Logf("task %q in %s: %s\n%s", tc.Name, sb.name, v, o.out)
			}
			r.cells = append(r.cells, v)
			worked = append(worked, v.kind == "worked")
		}
		tr.rows = append(tr.rows, r)
		tr.worked = append(tr.worked, worked)
	}
	return tr
}
