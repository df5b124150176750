//go:build linux

package execution

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shellgate/shellgate/internal/asuser"
	"github.com/shellgate/shellgate/internal/testenv"
)

// needUserSlots skips (fails in CI) where runs without root do not start
// from kept helpers; the caller runs as an unprivileged user.
func needUserSlots(t *testing.T) {
	t.Helper()
	needLandlock(t)
	if !userSlotsOn() {
		testenv.Missing(t, "no kept helper for uid %d (mount namespace %v, helper %v: %s, PID namespace %v: %s, pids cgroup %q)",
			os.Getuid(), linuxSandbox.mountns, linuxSandbox.helper, linuxSandbox.helperErr, helperPidns.ok, helperPidns.err, pidsCgroupBase())
	}
}

// keeperOf returns the pid of the idle kept helper whose rules name dir
// (0: none).
func keeperOf(dir string) int {
	userSlots.mu.Lock()
	defer userSlots.mu.Unlock()
	for _, s := range userSlots.idle {
		if strings.Contains(s.key, dir+"\x00") && s.cmd != nil && s.cmd.Process != nil {
			return s.cmd.Process.Pid
		}
	}
	return 0
}

// isKeeper reports whether pid is a live kept helper.
func isKeeper(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && strings.HasPrefix(string(b), keeperArg0+"\x00")
}

// shellPid is the number on the output's line "PID n".
func shellPid(t *testing.T, out Outcome) int {
	t.Helper()
	for _, l := range strings.Split(out.Output.String(), "\n") {
		if v, ok := strings.CutPrefix(l, "PID "); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return n
			}
		}
	}
	t.Fatalf("no PID line in %q", out.Output.String())
	return 0
}

// TestUserSlotReuse runs, as an unprivileged user, confined commands one
// after another with the same confinement, with the real bash and ps: a
// run that left nothing behind hands its kept helper (the same process)
// and PID namespace to the next, which sees none of the earlier run's
// processes; the shell's exit status, a timeout that stops it, and what
// the seccomp filter refused are each run's own; a run that left a
// process running retires the helper (the process is killed, the helper
// is gone, the next run starts in a new namespace: its shell is pid 2).
func TestUserSlotReuse(t *testing.T) {
	needLandlock(t)
	if asuser.Run(t, nil) {
		return
	}
	needUserSlots(t)
	needTool(t, "ps")
	for _, mode := range []SandboxMode{SandboxReadOnly, SandboxWorkspaceWrite} {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			run := func(cmd string, timeout time.Duration) Outcome {
				t.Helper()
				return runSpec(t, context.Background(), Spec{Command: cmd, Dir: dir, Timeout: timeout,
					Sandbox: &Confinement{Mode: mode, Roots: []string{dir}}})
			}
			if p := shellPid(t, run("sleep 0.01 & wait; echo PID $$", time.Minute)); p != 2 {
				t.Errorf("first run: $$ = %d, want 2 (a new namespace)", p)
			}
			keeper := keeperOf(dir)
			if keeper == 0 {
				t.Fatalf("no kept helper after a clean run")
			}
			out := run("echo PID $$; ps -e -o pid=,args=", time.Minute)
			p := shellPid(t, out)
			if p <= 2 {
				t.Errorf("second run: $$ = %d: the namespace was not kept", p)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out.Output.String()), "\n")[1:] {
				f := strings.Fields(l)
				if len(f) >= 2 && f[1] != "ps" && f[0] != strconv.Itoa(p) {
					got = append(got, strings.Join(f[1:], " "))
				}
			}
			if diff := cmp.Diff([]string{"shellgate-init -c read -r _ <&3; :"}, got); diff != "" {
				t.Errorf("the kept namespace shows other processes than init, the shell and ps (-want +got):\n%s", diff)
			}
			if k := keeperOf(dir); k != keeper {
				t.Errorf("second run: kept helper %d, want %d (the same)", k, keeper)
			}
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(keeper) + "/status"); err == nil {
				for _, l := range strings.Split(string(b), "\n") {
					if strings.HasPrefix(l, "VmRSS") || strings.HasPrefix(l, "Threads") {
						t.Logf("kept helper %d: %s", keeper, strings.Join(strings.Fields(l), " "))
					}
				}
			}
			// The directory report (an extra descriptor) is passed on.
			must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
			out = runSpec(t, context.Background(), Spec{Command: "cd sub", Dir: dir, Timeout: time.Minute, ReportDir: true,
				Sandbox: &Confinement{Mode: mode, Roots: []string{dir}}})
			if want := filepath.Join(dir, "sub"); out.FinalDir != want {
				t.Errorf("final directory %q, want %q", out.FinalDir, want)
			}
			// The exit status and the refusals are the run's.
			chroot := func(d SandboxDenial) bool { return d.Op == "syscall" && strings.HasPrefix(d.Path, "chroot") }
			out = run("echo PID $$; chroot / /bin/true; exit 7", time.Minute)
			if out.ExitCode != 7 || !slices.ContainsFunc(out.Sandbox.Denied, chroot) {
				t.Errorf("chroot run: exit %d, denied %+v; want 7 and the chroot named", out.ExitCode, out.Sandbox.Denied)
			}
			out = run("echo PID $$; kill -TERM $$", time.Minute)
			if out.Signal != "SIGTERM" || slices.ContainsFunc(out.Sandbox.Denied, chroot) {
				t.Errorf("next run: signal %q, denied %+v; want SIGTERM and no refusal of the run before", out.Signal, out.Sandbox.Denied)
			}
			// A timeout stops the shell. (A shell killed with a child
			// leaves it to init, a zombie there: the helper is retired.)
			out = run("echo PID $$; exec sleep 30", 300*time.Millisecond)
			if out.Stopped != StopTimeout || out.Signal != "SIGTERM" {
				t.Errorf("timeout: stopped %q, signal %q, output %q", out.Stopped, out.Signal, out.Output.String())
			}
			if k := keeperOf(dir); k != keeper {
				t.Errorf("after runs that left nothing: kept helper %d, want %d (the same)", k, keeper)
			}
			// A run that leaves a process running: it is killed, and the
			// helper is retired.
			marker := "33.444" + strconv.Itoa(len(mode))
			out = run("setsid sleep "+marker+" </dev/null >/dev/null 2>&1 & p=$!; until [ \"$(ps -o sid= -p $p | tr -d ' ')\" = $p ]; do :; done; echo started", time.Minute)
			if !slices.ContainsFunc(out.Sandbox.Denied, func(d SandboxDenial) bool { return d.Op == "process" }) {
				t.Errorf("the result does not say a process was left and killed: %+v", out.Sandbox.Denied)
			}
			if processWith(marker) {
				t.Errorf("the setsid child outlived the run")
			}
			if k := keeperOf(dir); k != 0 || isKeeper(keeper) {
				t.Errorf("the kept helper %d was not retired (idle: %d)", keeper, k)
			}
			if p := shellPid(t, run("echo PID $$", time.Minute)); p != 2 {
				t.Errorf("after a run that left a process: $$ = %d, want 2 (a new namespace)", p)
			}
			if k := keeperOf(dir); k == 0 || k == keeper {
				t.Errorf("after the retired helper: kept helper %d, want a new one", k)
			}
		})
	}
}

// TestUserSlotPathReplaced changes what a path of a kept helper's
// confinement names between two runs with the same Confinement, as an
// unprivileged user: a protected path, the root, a directory on PATH; the
// second run must start from a new helper ($$ is 2 again) confined as
// one built afresh. With nothing changed, the helper is kept.
func TestUserSlotPathReplaced(t *testing.T) {
	needLandlock(t)
	if asuser.Run(t, nil) {
		return
	}
	needUserSlots(t)
	home := t.TempDir()
	ssh := filepath.Join(home, ".ssh")
	must(t, os.Mkdir(ssh, 0o700))
	must(t, os.WriteFile(filepath.Join(ssh, "id_ed25519"), []byte("PRIVATE KEY\n"), 0o600))
	gitInit := func(t *testing.T, root string) []string {
		must(t, exec.Command("git", "init", "-q", root).Run())
		return nil
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T, root string) (path []string)
		replace func(t *testing.T, root string)
		cmd     string
		want    string // a line of the second run's output
		kept    bool   // the second run reuses the first's helper
	}{{
		name:    "nothing replaced",
		setup:   gitInit,
		replace: func(t *testing.T, root string) {},
		cmd:     "echo x > .git/hooks/pre-commit || echo refused",
		want:    "refused",
		kept:    true,
	}, {
		name:  "protected hooks replaced",
		setup: gitInit,
		replace: func(t *testing.T, root string) {
			hooks := filepath.Join(root, ".git", "hooks")
			must(t, os.RemoveAll(hooks))
			must(t, os.Mkdir(hooks, 0o755))
		},
		cmd:  "echo x > .git/hooks/pre-commit || echo refused",
		want: "refused",
	}, {
		name:    "root made again",
		replace: func(t *testing.T, root string) { must(t, os.RemoveAll(root)); must(t, os.Mkdir(root, 0o755)) },
		cmd:     "touch b && echo ok",
		want:    "ok",
	}, {
		name: "PATH dir now a symlink to ~/.ssh",
		setup: func(t *testing.T, root string) []string {
			must(t, os.MkdirAll(filepath.Join(root, "venv", "bin"), 0o755))
			return []string{filepath.Join(root, "venv", "bin")}
		},
		replace: func(t *testing.T, root string) {
			bin := filepath.Join(root, "venv", "bin")
			must(t, os.RemoveAll(bin))
			must(t, os.Symlink(ssh, bin))
		},
		cmd:  "cat venv/bin/id_ed25519 || echo refused",
		want: "refused",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			must(t, os.Mkdir(root, 0o755))
			var path []string
			if tt.setup != nil {
				path = tt.setup(t, root)
			}
			env := BuildEnv(os.Environ(), nil, nil)
			env = setEnv(env, "HOME", home)
			env = setEnv(env, "PATH", strings.Join(append(path, "/usr/local/bin", "/usr/bin", "/bin"), ":"))
			c := &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{root}}
			run := func(cmd string) Outcome {
				return runSpec(t, context.Background(), Spec{Command: "echo PID $$; " + cmd, Dir: root, Env: env, Timeout: time.Minute, Sandbox: c})
			}
			if p := shellPid(t, run("true")); p != 2 {
				t.Fatalf("first run: $$ = %d, want 2", p)
			}
			tt.replace(t, root)
			out := run(tt.cmd)
			text := out.Output.String()
			if !slices.Contains(strings.Split(text, "\n"), tt.want) || strings.Contains(text, "PRIVATE KEY") {
				t.Errorf("second run: want a line %q (and no key); output:\n%s", tt.want, text)
			}
			if p := shellPid(t, out); (p > 2) != tt.kept {
				t.Errorf("second run: $$ = %d; kept helper want %v", p, tt.kept)
			}
		})
	}
}

// TestCloneParentLeftover: a shell that starts a process with
// CLONE_PARENT gives it the shell's parent (outside the PID namespace),
// so it is no child of init, and with setsid it leaves the shell's process
// group, which the runner stops; it is still the run's, and a run that
// leaves it running must not hand its namespace on: the process is killed and
// the next run starts in a new namespace. (The real python3, its clone
// through ctypes.)
func TestCloneParentLeftover(t *testing.T) {
	needLandlock(t)
	python := needTool(t, "/usr/bin/python3", "python3")
	nr := map[string]int{"amd64": 56, "arm64": 220}[runtime.GOARCH]
	if nr == 0 {
		testenv.Missing(t, "the clone system call's number on %s (the test knows amd64 and arm64): CLONE_PARENT leftovers are unconfirmed here", runtime.GOARCH)
	}
	run := func(t *testing.T, marker string) {
		dir := t.TempDir()
		run := func(cmd string) Outcome {
			t.Helper()
			return runSpec(t, context.Background(), Spec{Command: cmd, Dir: dir, Timeout: time.Minute,
				Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir}}})
		}
		if p := shellPid(t, run("echo PID $$")); p != 2 {
			t.Fatalf("first run: $$ = %d, want 2", p)
		}
		script := fmt.Sprintf(`import ctypes, os, time
pid = ctypes.CDLL(None, use_errno=True).syscall(%d, 0x8000 | 17, 0, 0, 0, 0)
if pid == 0:
    os.setsid()
    time.sleep(%s)
    os._exit(0)
print("PID", os.getpid(), "sibling", pid, flush=True)
`, nr, marker)
		out := run("exec " + python + " -c '" + script + "'")
		if !strings.Contains(out.Output.String(), "sibling") {
			t.Fatalf("the clone did not run: %s", out.Output.String())
		}
		if processWith("time.sleep(" + marker) {
			t.Errorf("the CLONE_PARENT sibling outlived the run: %s", out.Output.String())
		}
		if p := shellPid(t, run("echo PID $$; ps -e -o pid=,args=")); p != 2 {
			t.Errorf("after a run that left a sibling: $$ = %d, want 2 (a new namespace)", p)
		}
	}
	t.Run("root", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skipf("root's slots exist only for root (this process is uid %d, whose kept helper the nonroot subtests cover; CI runs this one as root)", os.Getuid())
		}
		needSlots(t)
		run(t, "34.5551")
	})
	t.Run("root zombie", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skipf("root's slots exist only for root (this process is uid %d, whose kept helper the nonroot subtests cover; CI runs this one as root)", os.Getuid())
		}
		needSlots(t)
		run(t, "0")
	})
	t.Run("nonroot", func(t *testing.T) {
		if asuser.Run(t, nil) {
			return
		}
		needUserSlots(t)
		run(t, "34.5552")
	})
	// The sibling ends at once, before the shell: a zombie of the
	// runner's, which no one reaps, is in the namespace after the run.
	t.Run("nonroot zombie", func(t *testing.T) {
		if asuser.Run(t, nil) {
			return
		}
		needUserSlots(t)
		run(t, "0")
	})
}

// TestUserSlotDeadKeeper: a kept helper that died while idle cannot start
// the next run, which then starts through a helper of its own, confined
// as before (fail closed), and the one after gets a new kept helper.
func TestUserSlotDeadKeeper(t *testing.T) {
	needLandlock(t)
	if asuser.Run(t, nil) {
		return
	}
	needUserSlots(t)
	dir := t.TempDir()
	must(t, exec.Command("git", "init", "-q", dir).Run())
	run := func(cmd string) Outcome {
		t.Helper()
		return runSpec(t, context.Background(), Spec{Command: "echo PID $$; " + cmd, Dir: dir, Timeout: time.Minute,
			Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir}}})
	}
	run("true")
	keeper := keeperOf(dir)
	if keeper == 0 {
		t.Fatal("no kept helper after a clean run")
	}
	must(t, syscall.Kill(keeper, syscall.SIGKILL))
	// Gone (a zombie: its descriptors are closed).
	for {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(keeper) + "/stat")
		if i := strings.LastIndexByte(string(b), ')'); err != nil || (i > 0 && i+2 < len(b) && b[i+2] == 'Z') {
			break
		}
		time.Sleep(time.Millisecond)
	}
	out := run("echo x > .git/hooks/pre-commit || echo refused; echo $TMPDIR; touch \"$TMPDIR/t\" && echo tmp-ok")
	text := out.Output.String()
	for _, want := range []string{"refused", "tmp-ok", "PID 2"} {
		if !slices.Contains(strings.Split(text, "\n"), want) {
			t.Errorf("the run after the kept helper died: no line %q in:\n%s", want, text)
		}
	}
	if k := keeperOf(dir); k != 0 {
		t.Errorf("kept helper %d idle after a run through a helper of its own", k)
	}
	run("true")
	if k := keeperOf(dir); k == 0 || k == keeper {
		t.Errorf("after the fallback: kept helper %d, want a new one", k)
	}
}
