//go:build linux

package execution

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellgate/shellgate/internal/testenv"
)

// needPidns skips (fails in CI) where confined commands get no PID
// namespace (not root, or a kernel before procfs's pidns option).
func needPidns(t *testing.T) {
	t.Helper()
	needLandlock(t)
	if !slices.Contains(testRunner.SandboxSupport().Isolation, "pidns") {
		testenv.Missing(t, "no PID namespace for confined commands here: %s", linuxSandbox.pidnsErr)
	}
}

// TestPidNamespace runs commands confined in both modes and checks, with
// the real bash and ps, that each sees only its own processes (the
// stopped init and itself), is not the namespace's init (so a timeout's
// SIGTERM and kill $$ end it as before), and that what it leaves running
// ends with the run.
func TestPidNamespace(t *testing.T) {
	needPidns(t)
	needTool(t, "ps")
	for _, mode := range []SandboxMode{SandboxReadOnly, SandboxWorkspaceWrite} {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			run := func(cmd string, timeout time.Duration) Outcome {
				t.Helper()
				if timeout == 0 {
					timeout = time.Minute
				}
				return runSpec(t, context.Background(), Spec{Command: cmd, Dir: dir, Timeout: timeout,
					Sandbox: &Confinement{Mode: mode, Roots: []string{dir}}})
			}
			out := run("echo $$; ps -e -o pid=,args=", 0)
			lines := strings.Split(strings.TrimSpace(out.Output.String()), "\n")
			// (Root's init is a stopped shell; an unprivileged user's, the
			// helper's, waits on a pipe: userns_linux.go.)
			if len(lines) < 3 || lines[0] != "2" || !strings.HasPrefix(strings.Join(strings.Fields(lines[1]), " "), "1 shellgate-init -c ") {
				t.Errorf("$$ and the namespace's init: want 2 and \"1 shellgate-init -c ...\", got:\n%s", out.Output.String())
			}
			for _, l := range lines[1:] {
				f := strings.Fields(l)
				if pid, err := strconv.Atoi(f[0]); err != nil || pid > 10 || pid == os.Getpid() {
					t.Errorf("a process outside the run is visible: %q", l)
				}
			}
			if !slices.Contains(out.Sandbox.Isolation, "pidns") {
				t.Errorf("isolation %v lacks pidns", out.Sandbox.Isolation)
			}
			// A timeout stops the shell with SIGTERM, as unconfined.
			out = run("sleep 30", 300*time.Millisecond)
			if out.Stopped != StopTimeout || out.Signal != "SIGTERM" || slices.Contains(out.Notes, NoteKilled) {
				t.Errorf("timeout: stopped %q, signal %q, notes %v; want timeout by SIGTERM", out.Stopped, out.Signal, out.Notes)
			}
			out = run("kill -KILL $$", 0)
			if out.Signal != "SIGKILL" {
				t.Errorf("kill -KILL $$: signal %q, exit %d", out.Signal, out.ExitCode)
			}
			// A process the command started in a session of its own (not
			// in its process group) ends with the run, and the result says so.
			marker := "31.777" + strconv.Itoa(len(mode)) // a sleep of this run's own
			// (It waits until the child has its own session, so that the
			// run's end and not the stop of its process group ends it.)
			out = run("setsid sleep "+marker+" </dev/null >/dev/null 2>&1 & p=$!; until [ \"$(ps -o sid= -p $p | tr -d ' ')\" = $p ]; do :; done; echo started", 0)
			if alive := processWith(marker); alive {
				t.Errorf("the setsid child outlived the run")
			}
			if !slices.ContainsFunc(out.Sandbox.Denied, func(d SandboxDenial) bool { return d.Op == "process" }) {
				t.Errorf("the result does not say a process was killed: %+v", out.Sandbox.Denied)
			}
		})
	}
}

// processWith reports whether a process on this host has s in its
// command line.
func processWith(s string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.Contains(string(b), s) {
			return true
		}
	}
	return false
}
