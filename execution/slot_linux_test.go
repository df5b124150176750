//go:build linux

package execution

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSlotReuse runs confined commands one after another with the same
// confinement: a run that left nothing behind hands its PID namespace to
// the next (which sees none of the earlier run's processes), a run that
// left a process running retires it (the process is killed, and the next
// run starts in a new namespace: its shell is pid 2 again).
func TestSlotReuse(t *testing.T) {
	needSlots(t)
	needTool(t, "ps")
	for _, mode := range []SandboxMode{SandboxReadOnly, SandboxWorkspaceWrite} {
		t.Run(string(mode), func(t *testing.T) {
			dir := t.TempDir()
			run := func(cmd string) Outcome {
				t.Helper()
				return runSpec(t, context.Background(), Spec{Command: cmd, Dir: dir, Timeout: time.Minute,
					Sandbox: &Confinement{Mode: mode, Roots: []string{dir}}})
			}
			pid := func(out Outcome) int {
				t.Helper()
				n, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(out.Output.String(), "\n", 2)[0]))
				if err != nil {
					t.Fatalf("no pid in %q", out.Output.String())
				}
				return n
			}
			// A clean run (its child ended and was reaped).
			if p := pid(run("sleep 0.01 & wait; echo $$")); p != 2 {
				t.Errorf("first run: $$ = %d, want 2 (a new namespace)", p)
			}
			out := run("echo $$; ps -e -o pid=,args=")
			p := pid(out)
			if p <= 2 {
				t.Errorf("second run: $$ = %d: the namespace was not kept (the reuse is untested)", p)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(out.Output.String()), "\n")[1:] {
				f := strings.Fields(l)
				if len(f) >= 2 && f[1] != "ps" && f[0] != strconv.Itoa(p) {
					got = append(got, strings.Join(f[1:], " "))
				}
			}
			if diff := cmp.Diff([]string{"shellgate-init -c :"}, got); diff != "" {
				t.Errorf("the kept namespace shows other processes than init, the shell and ps (-want +got):\n%s", diff)
			}
			// A run that leaves a process running: it is killed, and the
			// namespace is not handed on.
			marker := "32.444" + strconv.Itoa(len(mode))
			out = run("setsid sleep " + marker + " </dev/null >/dev/null 2>&1 & p=$!; until [ \"$(ps -o sid= -p $p | tr -d ' ')\" = $p ]; do :; done; echo started")
			if processWith(marker) {
				t.Errorf("the setsid child outlived the run")
			}
			if p := pid(run("echo $$")); p != 2 {
				t.Errorf("after a run that left a process: $$ = %d, want 2 (a new namespace)", p)
			}
		})
	}
}

// TestSandboxPathReplacedBetweenRuns changes what a path of a kept
// confinement names between two runs with the same Confinement: each
// second run must be confined as a run with everything built afresh
// would be. A cache keyed on path names (a slot, a kept path descriptor, a
// kept mount namespace) fails these.
func TestSandboxPathReplacedBetweenRuns(t *testing.T) {
	needPidns(t)
	home := t.TempDir()
	ssh := filepath.Join(home, ".ssh")
	if err := os.Mkdir(ssh, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ssh, "id_ed25519"), []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	type step struct {
		cmd  string
		want string // a line of the output
	}
	tests := []struct {
		name  string
		mode  SandboxMode
		setup func(t *testing.T, root string) (path []string) // dirs to put on PATH
		first step
		// replace changes the file system between the runs.
		replace func(t *testing.T, root string)
		second  step
		// under is the root's parent ("": a temporary directory).
		under string
	}{{
		// The root itself removed and made again (a kept descriptor of
		// the old directory would grant what is gone).
		name:    "root made again",
		mode:    SandboxWorkspaceWrite,
		first:   step{"touch a && echo ok", "ok"},
		replace: func(t *testing.T, root string) { must(t, os.RemoveAll(root)); must(t, os.Mkdir(root, 0o755)) },
		second:  step{"touch b && echo ok", "ok"},
	}, {
		// A protected directory replaced (git's hooks): the new one is
		// read-only too.
		name: "hooks replaced",
		mode: SandboxWorkspaceWrite,
		setup: func(t *testing.T, root string) []string {
			must(t, exec.Command("git", "init", "-q", root).Run())
			return nil
		},
		first: step{"echo x > .git/hooks/pre-commit || echo refused", "refused"},
		replace: func(t *testing.T, root string) {
			hooks := filepath.Join(root, ".git", "hooks")
			must(t, os.RemoveAll(hooks))
			must(t, os.Mkdir(hooks, 0o755))
		},
		second: step{"echo x > .git/hooks/pre-commit || echo refused", "refused"},
	}, {
		// A directory on PATH inside the root (a virtualenv's bin) that
		// a command replaced by a symlink to ~/.ssh: the next run must
		// not read the key through it.
		name: "PATH dir now a symlink to ~/.ssh",
		mode: SandboxWorkspaceWrite,
		setup: func(t *testing.T, root string) []string {
			must(t, os.MkdirAll(filepath.Join(root, "venv", "bin"), 0o755))
			return []string{filepath.Join(root, "venv", "bin")}
		},
		first: step{"cat " + filepath.Join(ssh, "id_ed25519") + " || echo refused", "refused"},
		replace: func(t *testing.T, root string) {
			bin := filepath.Join(root, "venv", "bin")
			must(t, os.RemoveAll(bin))
			must(t, os.Symlink(ssh, bin))
		},
		second: step{"cat venv/bin/id_ed25519 || echo refused", "refused"},
	}, {
		// The same in a root inside a system directory that every
		// command may read (/dev/shm is in /dev; workspaces live in
		// /usr/src/app or /opt too): the directory on PATH is judged
		// all the same.
		name:  "PATH dir in a root in a system directory now a symlink to ~/.ssh",
		mode:  SandboxWorkspaceWrite,
		under: "/dev/shm",
		setup: func(t *testing.T, root string) []string {
			must(t, os.MkdirAll(filepath.Join(root, "venv", "bin"), 0o755))
			return []string{filepath.Join(root, "venv", "bin")}
		},
		first: step{"cat " + filepath.Join(ssh, "id_ed25519") + " || echo refused", "refused"},
		replace: func(t *testing.T, root string) {
			bin := filepath.Join(root, "venv", "bin")
			must(t, os.RemoveAll(bin))
			must(t, os.Symlink(ssh, bin))
		},
		second: step{"cat venv/bin/id_ed25519 || echo refused", "refused"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "root")
			if tt.under != "" {
				dir, err := os.MkdirTemp(tt.under, "shellgate-test-")
				must(t, err)
				t.Cleanup(func() { os.RemoveAll(dir) })
				root = filepath.Join(dir, "root")
			}
			must(t, os.Mkdir(root, 0o755))
			var path []string
			if tt.setup != nil {
				path = tt.setup(t, root)
			}
			env := BuildEnv(os.Environ(), nil, nil)
			env = setEnv(env, "HOME", home)
			env = setEnv(env, "PATH", strings.Join(append(path, "/usr/local/bin", "/usr/bin", "/bin"), ":"))
			c := &Confinement{Mode: tt.mode, Roots: []string{root}}
			for i, s := range []step{tt.first, tt.second} {
				if i == 1 {
					tt.replace(t, root)
				}
				out := runSpec(t, context.Background(), Spec{Command: s.cmd, Dir: root, Env: env, Timeout: time.Minute, Sandbox: c})
				lines := strings.Split(out.Output.String(), "\n")
				if !slices.Contains(lines, s.want) || strings.Contains(out.Output.String(), "PRIVATE KEY") {
					t.Errorf("run %d (%s): want a line %q (and no key); output:\n%s", i+1, s.cmd, s.want, out.Output.String())
				}
			}
		})
	}
}

// needSlots skips where confined commands do not start from slots: they
// are root's route (without root, the helper gives each run a new PID
// namespace).
func needSlots(t *testing.T) {
	t.Helper()
	needPidns(t)
	if !linuxSandbox.pidns {
		t.Skip("no slots without root: the helper's route makes a PID namespace per run")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestSlotTmpFresh runs workspace-write commands one after the other in
// one kept slot: the first cannot write beside its TMPDIR; the second's
// TMPDIR is empty and private (0700) although the first left files in it
// and opened its mode; the third's too, after the second changed only
// the mode; and nothing is left once each run is over.
func TestSlotTmpFresh(t *testing.T) {
	needSlots(t)
	dir := t.TempDir()
	run := func(cmd string) string {
		t.Helper()
		out := runSpec(t, context.Background(), Spec{Command: cmd, Dir: dir, Timeout: time.Minute,
			Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir}}})
		return out.Output.String()
	}
	out := run(`{ echo y > "$TMPDIR/../beside"; } 2>/dev/null && echo WROTE-BESIDE; echo x > "$TMPDIR/left" && mkdir "$TMPDIR/d" && ln -s /etc "$TMPDIR/link" && chmod 777 "$TMPDIR" && echo "$TMPDIR"`)
	if strings.Contains(out, "WROTE-BESIDE") {
		t.Errorf("the first run wrote beside its TMPDIR:\n%s", out)
	}
	first := strings.TrimSpace(out)
	if !filepath.IsAbs(first) {
		t.Fatalf("first run: %q", out)
	}
	left := func(run string) {
		t.Helper()
		if ents, err := os.ReadDir(first); err == nil && len(ents) > 0 {
			t.Errorf("after the %s run its TMPDIR %s holds %d entries", run, first, len(ents))
		}
	}
	left("first")
	check := func(name, cmd string) {
		t.Helper()
		got := strings.Fields(run(`echo $$ "$TMPDIR"; stat -c %a "$TMPDIR"; ls -A "$TMPDIR" | sed 's/^/ENTRY:/'; ` + cmd))
		if len(got) < 3 {
			t.Fatalf("%s run: %q", name, got)
		}
		if got[0] == "2" {
			t.Errorf("the %s run did not reuse the slot ($$ is 2): the emptied TMPDIR is untested", name)
		}
		if got[2] != "700" {
			t.Errorf("%s run: TMPDIR %s mode %s, want 700", name, got[1], got[2])
		}
		for _, f := range got[3:] {
			if strings.HasPrefix(f, "ENTRY:") {
				t.Errorf("the %s run sees %q left by the run before", name, f)
			}
		}
	}
	check("second", `chmod 755 "$TMPDIR"`)
	left("second")
	check("third", `:`)
	left("third")
}

// TestSlotSparesOutsideChildren starts processes from many of this
// process's threads, then slots on threads that may be those very
// threads (Go hands a goroutine that locks itself any idle thread), and
// retires them. A slot thread's children that are not in its PID
// namespace (what the thread forked for something else before it became
// the slot's) are not the slot's: retiring must leave them alive, and
// they must not keep the slot from being reused.
func TestSlotSparesOutsideChildren(t *testing.T) {
	needSlots(t)
	var victims []*exec.Cmd
	t.Cleanup(func() {
		for _, v := range victims {
			v.Process.Kill()
			v.Wait()
		}
	})
	// Each goroutine forks from its locked thread and gives the thread
	// back (unlocked, it is kept for other goroutines).
	for i := 0; i < 2*runtime.GOMAXPROCS(0)+4; i++ {
		done := make(chan *exec.Cmd)
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			c := exec.Command("sleep", "600")
			if err := c.Start(); err != nil {
				t.Error(err)
				c = nil
			}
			done <- c
		}()
		if c := <-done; c != nil {
			victims = append(victims, c)
		}
	}
	reused := 0
	for i := 0; i < 12; i++ {
		dir := t.TempDir()
		run := func(cmd string) Outcome {
			t.Helper()
			return runSpec(t, context.Background(), Spec{Command: cmd, Dir: dir, Timeout: time.Minute,
				Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir}}})
		}
		run("true")
		if p := shellPid(t, run("echo PID $$")); p > 2 {
			reused++
		}
		// A run that leaves a process retires its slot.
		run("sleep 30 </dev/null >/dev/null 2>&1 &")
	}
	for _, v := range victims {
		if st := strings.Fields(procFile(v.Process.Pid, "stat")); len(st) < 3 || st[2] == "Z" {
			t.Errorf("process %d, started outside any sandbox, was killed by a slot's retirement", v.Process.Pid)
		}
	}
	if reused != 12 {
		t.Errorf("%d of 12 slots were handed to a second run; a run that left nothing must keep its slot", reused)
	}
}
