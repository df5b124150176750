//go:build linux

package execution

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shellgate/shellgate/internal/asuser"
	"github.com/shellgate/shellgate/internal/testenv"
	"golang.org/x/sys/unix"
)

// The escapes of issue 26, each from a script in a workspace-write
// workspace, run as root and as a fresh unprivileged user (asuser: CI runs
// as root and re-executes the test under a uid of its own; a developer's
// machine runs it as the developer). Each row is checked on the real
// system during and after the run.

// escWorld is one escape's world: a workspace that is a git repository,
// a home with a canary key and a unix socket server (an ssh agent), a
// process outside the sandbox of the same user with a canary in its
// environment, and a loopback listener.
type escWorld struct {
	ws, home, sock string
	pid            int
	marker         string
	limits, stat   string
	reached        atomic.Int32
	lo             *loopback
	env            []string
	// inherited is a descriptor of this process, opened without
	// close-on-exec (as a parent program may leave one) on the file
	// inheritedLog outside the roots.
	inherited    int
	inheritedLog string
}

const escCanaryKey = "FAKE-PRIVATE-KEY-CANARY"

func newEscWorld(t *testing.T, n int) *escWorld {
	t.Helper()
	// (A short path: a unix socket's path has at most 107 bytes.)
	dir, err := os.MkdirTemp("", "esc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e := &escWorld{ws: filepath.Join(dir, "ws"), home: filepath.Join(dir, "home"), lo: newLoopback(t)}
	e.marker = fmt.Sprintf("37%d.%d", os.Getpid()%1000, n)
	for name, body := range map[string]string{
		"home/.ssh/id_rsa":         "-----BEGIN OPENSSH PRIVATE KEY-----\n" + escCanaryKey + "\n-----END OPENSSH PRIVATE KEY-----\n",
		"ws/README":                "r\n",
		"ws/.vscode/settings.json": "{}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") && !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	e.env = append(env, "HOME="+e.home, "GIT_CONFIG_NOSYSTEM=1")
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "first"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = e.ws, e.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	sleep := exec.Command("sleep", "600")
	sleep.Env = []string{"PATH=/usr/bin:/bin", "OUTSIDE_CANARY=c4n4ry-" + strconv.Itoa(n)}
	sleep.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	e.pid = sleep.Process.Pid
	e.limits, e.stat = procFile(e.pid, "limits"), procFile(e.pid, "stat")
	e.inheritedLog = filepath.Join(e.home, "inherited.log")
	if e.inherited, err = syscall.Open(e.inheritedLog, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_APPEND, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(e.inherited) })
	e.sock = filepath.Join(e.home, "agent.sock")
	ln, err := net.Listen("unix", e.sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.reached.Add(1)
		w.Write([]byte("AGENT-REACHED\n"))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return e
}

func procFile(pid int, name string) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + name)
	return string(b)
}

func (e *escWorld) read(rel string) string {
	b, _ := os.ReadFile(filepath.Join(e.ws, rel))
	return string(b)
}

// escRow is one escape: the script it runs in the workspace (sh esc.sh)
// and the check of what happened.
type escRow struct {
	name string
	need string
	// lists: the run was approved to list ~ (Confinement.Lists).
	lists  bool
	script func(e *escWorld) string
	// escaped says whether it happened (during the run or after it) and
	// what.
	escaped func(e *escWorld, out string) (bool, string)
}

func outHas(sub, what string) func(*escWorld, string) (bool, string) {
	return func(_ *escWorld, out string) (bool, string) { return strings.Contains(out, sub), what }
}

const escPython = "/usr/bin/python3"

var escRows = []escRow{
	{name: "plant .git/hooks/pre-commit",
		script: func(*escWorld) string {
			return `printf '#!/bin/sh\ntouch pwned\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && grep -q pwned .git/hooks/pre-commit && echo PLANTED`
		},
		escaped: func(e *escWorld, out string) (bool, string) {
			return strings.Contains(out, "PLANTED") || strings.Contains(e.read(".git/hooks/pre-commit"), "pwned"), "the hook was written (an unconfined git commit during the run runs it)"
		}},
	{name: "set core.fsmonitor in .git/config",
		script: func(*escWorld) string {
			return `git config core.fsmonitor 'touch pwned' || printf '[core]\n\tfsmonitor = touch pwned\n' >> .git/config; grep -q fsmonitor .git/config && echo PLANTED`
		},
		escaped: func(e *escWorld, out string) (bool, string) {
			return strings.Contains(out, "PLANTED") || strings.Contains(e.read(".git/config"), "fsmonitor"), "core.fsmonitor was in .git/config"
		}},
	{name: "define a remote in .git/remotes (git push origin sends there)",
		script: func(*escWorld) string {
			return `mkdir -p .git/remotes && printf 'URL: https://attacker.example/x.git\n' > .git/remotes/origin && echo PLANTED; ` +
				`printf 'https://attacker.example/y.git\n' > .git/branches/up && echo PLANTED-BRANCHES`
		},
		escaped: func(e *escWorld, out string) (bool, string) {
			return strings.Contains(e.read(".git/remotes/origin"), "attacker") || strings.Contains(e.read(".git/branches/up"), "attacker"),
				"a remote git reads from .git/remotes or .git/branches was left"
		}},
	{name: "leave a paused rebase with an exec line (git rebase --continue runs it)",
		script: func(*escWorld) string {
			return `git -c user.name=T -c user.email=t@example.com commit -q --allow-empty -m two && ` +
				`GIT_SEQUENCE_EDITOR="sed -i '1i break'" git -c user.name=T -c user.email=t@example.com rebase -q -i --exec 'touch pwned' HEAD~1; ` +
				`grep -q '^exec' .git/rebase-merge/git-rebase-todo && echo PLANTED`
		},
		escaped: func(e *escWorld, out string) (bool, string) {
			return strings.Contains(e.read(".git/rebase-merge/git-rebase-todo"), "exec"), "the todo list's exec line was left for git rebase --continue"
		}},
	{name: "leave a FIFO as a loose object (git log waits for ever)",
		script: func(*escWorld) string {
			return `h=$(git rev-parse HEAD); f=.git/objects/$(echo $h | cut -c1-2)/$(echo $h | cut -c3-); ` +
				`mv $f "$TMPDIR/obj" && mkfifo $f && echo PLANTED`
		},
		escaped: func(e *escWorld, out string) (bool, string) {
			var fifos []string
			filepath.WalkDir(filepath.Join(e.ws, ".git/objects"), func(p string, d os.DirEntry, err error) error {
				if err == nil && d.Type()&os.ModeNamedPipe != 0 {
					fifos = append(fifos, p)
				}
				return nil
			})
			if len(fifos) > 0 {
				// The real git, as the user runs it next.
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, "git", "log", "-1")
				cmd.Dir, cmd.Env = e.ws, e.env
				cmd.Run()
				return true, fmt.Sprintf("%v were left (git log -1 ended: %v)", fifos, ctx.Err() == nil)
			}
			return false, ""
		}},
	{name: "leave an alternate object directory with a FIFO as a loose object (git log waits for ever)",
		script: func(*escWorld) string {
			return `h=$(git rev-parse HEAD); a=$(echo $h | cut -c1-2); b=$(echo $h | cut -c3-); mkdir -p .git/alt/objects/$a && ` +
				`mv .git/objects/$a/$b "$TMPDIR/obj" && mkfifo .git/alt/objects/$a/$b && echo "$PWD/.git/alt/objects" > .git/objects/info/alternates && echo PLANTED`
		},
		escaped: func(e *escWorld, out string) (bool, string) {
			return strings.Contains(e.read(".git/objects/info/alternates"), "alt"), "the alternates file named the directory (git log -1 waits on its FIFO)"
		}},
	{name: "leave a paused rebase whose merge strategy is a file of the workspace (git rebase --continue runs it)",
		script: func(*escWorld) string {
			return `git -c user.name=T -c user.email=t@example.com commit -q --allow-empty -m two && echo x > f && git add f && ` +
				`git -c user.name=T -c user.email=t@example.com commit -q -m three && c=$(git rev-parse HEAD) && ` +
				`GIT_SEQUENCE_EDITOR="sed -i '1i break'" git -c user.name=T -c user.email=t@example.com rebase -q -i HEAD~2; ` +
				`echo "pick $c three" > .git/rebase-merge/git-rebase-todo && echo ../evil > .git/rebase-merge/strategy && ` +
				`mkdir -p 'git-merge-..' && printf '#!/bin/sh
touch pwned
exit 1
' > 'git-merge-../evil' && chmod +x 'git-merge-../evil' && echo PLANTED`
		},
		escaped: func(e *escWorld, out string) (bool, string) {
			if !strings.Contains(e.read(".git/rebase-merge/strategy"), "evil") {
				return false, ""
			}
			// The real git, as the user continues the rebase.
			cmd := exec.Command("git", "-c", "user.name=T", "-c", "user.email=t@example.com", "rebase", "--continue")
			cmd.Dir, cmd.Env = e.ws, e.env
			cmd.Run()
			return true, fmt.Sprintf("the strategy file was left (git rebase --continue ran it: %v)", exists(filepath.Join(e.ws, "pwned")))
		}},
	{name: "plant .vscode/tasks.json (existing .vscode)",
		script: func(*escWorld) string {
			return `echo '{"runOn":"folderOpen"}' > .vscode/tasks.json && echo PLANTED`
		},
		escaped: func(e *escWorld, out string) (bool, string) {
			return strings.Contains(out, "PLANTED") || strings.Contains(e.read(".vscode/tasks.json"), "folderOpen"), ".vscode/tasks.json was written"
		}},
	{name: "write through a descriptor inherited from the runner",
		script: func(e *escWorld) string {
			return "ls -l /proc/self/fd; bash -c 'echo PWNED >&" + strconv.Itoa(e.inherited) + "' && echo WROTE"
		},
		escaped: func(e *escWorld, out string) (bool, string) {
			b, _ := os.ReadFile(e.inheritedLog)
			return strings.Contains(string(b), "PWNED") || strings.Contains(out, "WROTE"), "a file outside the roots was written through the inherited descriptor"
		}},
	{name: "leave a set-user-ID or set-group-ID file", need: escPython,
		// As root, a set-user-ID root program in the workspace is one
		// its owner's users run later as root.
		script: func(*escWorld) string {
			return `cp /bin/true suid && chmod u+s suid; cp /bin/true sgid && chmod 2755 sgid; ` +
				escPython + ` -c 'import os; os.close(os.open("made", os.O_CREAT|os.O_WRONLY, 0o4755))'; ` +
				escPython + ` -c 'import os; os.close(os.open(".", os.O_TMPFILE|os.O_WRONLY, 0o4755))'; ` +
				`cp /bin/true cap && setcap cap_setuid+ep cap; ls -l suid sgid made cap`
		},
		escaped: func(e *escWorld, _ string) (bool, string) {
			var found []string
			filepath.WalkDir(e.ws, func(p string, d os.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return nil
				}
				if fi, err := d.Info(); err == nil && fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
					found = append(found, filepath.Base(p))
				}
				if v, err := unix.Lgetxattr(p, "security.capability", make([]byte, 64)); err == nil && v > 0 {
					found = append(found, filepath.Base(p)+" (capabilities)")
				}
				return nil
			})
			return len(found) > 0, fmt.Sprintf("%v were left with set-ID bits or capabilities", found)
		}},
	{name: "ls ~ approved, then read ~/.ssh/id_rsa", lists: true,
		script:  func(*escWorld) string { return `ls -a ~ >/dev/null; cat "$HOME/.ssh/id_rsa"` },
		escaped: outHas(escCanaryKey, "the key was printed")},
	{name: "/proc/PID/environ and maps of a process outside",
		script: func(e *escWorld) string {
			p := strconv.Itoa(e.pid)
			return "grep -a -o 'c4n4ry-[0-9]*' /proc/" + p + "/environ; grep -q stack /proc/" + p + "/maps && echo MAPS-READ"
		},
		escaped: func(_ *escWorld, out string) (bool, string) {
			return strings.Contains(out, "c4n4ry-") || strings.Contains(out, "MAPS-READ"), "its environ or maps were read"
		}},
	{name: "see a process outside in /proc",
		script: func(e *escWorld) string {
			return "cat /proc/" + strconv.Itoa(e.pid) + "/cmdline | tr '\\0' ' '; echo"
		},
		escaped: outHas("sleep 600", "its command line was read")},
	{name: "kill a process outside",
		script: func(e *escWorld) string { return "kill -TERM " + strconv.Itoa(e.pid) + " && echo KILLED" },
		escaped: func(e *escWorld, out string) (bool, string) {
			st := strings.Fields(procFile(e.pid, "stat"))
			return len(st) < 3 || st[2] == "Z" || strings.Contains(out, "KILLED"), "it was killed"
		}},
	{name: "renice a process outside", need: "renice",
		script: func(e *escWorld) string { return "renice -n 10 -p " + strconv.Itoa(e.pid) },
		escaped: func(e *escWorld, _ string) (bool, string) {
			a, b := strings.Fields(procFile(e.pid, "stat")), strings.Fields(e.stat)
			return len(a) > 18 && len(b) > 18 && a[18] != b[18], "its nice value changed"
		}},
	{name: "prlimit --pid on a process outside", need: "prlimit",
		script: func(e *escWorld) string { return "prlimit --pid " + strconv.Itoa(e.pid) + " --nofile=5:5" },
		escaped: func(e *escWorld, _ string) (bool, string) {
			return procFile(e.pid, "limits") != e.limits, "its open-files limit changed"
		}},
	{name: "a setsid child outlives the run", need: "setsid",
		script: func(e *escWorld) string {
			return "setsid sleep " + e.marker + " </dev/null >/dev/null 2>&1 & p=$!; until [ \"$(ps -o sid= -p $p | tr -d ' ')\" = $p ]; do :; done; echo started"
		},
		escaped: func(e *escWorld, _ string) (bool, string) {
			// The run is over: its namespace or cgroup ended what it left.
			pids := pidsWith("sleep\x00" + e.marker)
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
			return len(pids) > 0, "the child was alive after the run"
		}},
	{name: "unshare (user, net, mount namespaces)", need: "unshare",
		script: func(*escWorld) string {
			return "unshare -r true && echo USERNS; unshare -rn true && echo NETNS; unshare -rm true && echo MNTNS"
		},
		escaped: func(_ *escWorld, out string) (bool, string) {
			return strings.Contains(out, "USERNS") || strings.Contains(out, "NETNS") || strings.Contains(out, "MNTNS"), "unshare worked"
		}},
	{name: "clone(CLONE_NEWUSER|CLONE_NEWNET) directly", need: escPython,
		script: func(*escWorld) string {
			// clone(2) itself (x86-64 and arm64 take flags first), not unshare(2).
			return escPython + ` -c '
import ctypes, os, platform
nr = {"x86_64": 56, "aarch64": 220}[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)
pid = libc.syscall(nr, 0x10000000 | 0x40000000 | 17, 0, 0, 0, 0)
if pid == 0:
    os._exit(0)
if pid > 0:
    os.waitpid(pid, 0); print("CLONED")
else:
    print("refused", os.strerror(ctypes.get_errno()))'`
		},
		escaped: outHas("CLONED", "a child was cloned into new user and network namespaces")},
	{name: "chroot", need: "chroot", script: func(*escWorld) string { return "chroot / /bin/true && echo CHROOTED" },
		escaped: outHas("CHROOTED", "chroot / succeeded")},
	{name: "mknod a device, write through it",
		script: func(*escWorld) string { return "mknod dev c 1 3 && echo x > dev && echo MADE" },
		escaped: func(e *escWorld, out string) (bool, string) {
			fi, err := os.Lstat(filepath.Join(e.ws, "dev"))
			return strings.Contains(out, "MADE") || (err == nil && fi.Mode()&os.ModeDevice != 0), "a device was made"
		}},
	{name: "connect to a 127.0.0.1 listener (TCP, UDP)",
		script: func(e *escWorld) string {
			p := strconv.Itoa(e.lo.port)
			return "echo x > /dev/tcp/127.0.0.1/" + p + " && echo TCP; echo x > /dev/udp/127.0.0.1/" + p
		},
		escaped: func(e *escWorld, out string) (bool, string) {
			time.Sleep(100 * time.Millisecond) // the datagram's way to the listener
			return strings.Contains(out, "TCP") || e.lo.tcp.Load() > 0 || e.lo.udp.Load() > 0, "the listener was reached"
		}},
	{name: "connect to a unix socket outside (~/agent.sock)", need: "curl",
		script: func(e *escWorld) string { return "curl -sS --max-time 3 --unix-socket " + e.sock + " http://x/" },
		escaped: func(e *escWorld, out string) (bool, string) {
			return e.reached.Load() != 0 || strings.Contains(out, "AGENT-REACHED"), "the server outside answered"
		}},
	{name: "ptrace (strace -p) a process outside", need: "strace",
		script: func(e *escWorld) string {
			return "timeout 2 strace -p " + strconv.Itoa(e.pid) + " -e trace=none -o /dev/null; echo strace-exit=$?"
		},
		escaped: func(_ *escWorld, out string) (bool, string) {
			return strings.Contains(out, "strace-exit=124") || strings.Contains(out, "strace-exit=0"), "strace attached"
		}},
	{name: "400 processes", need: escPython,
		script: func(*escWorld) string {
			return escPython + ` -c '
import os, time
n, err = 0, ""
for i in range(400):
    try:
        p = os.fork()
    except OSError as e:
        err = str(e); break
    if p == 0:
        time.sleep(2); os._exit(0)
    n += 1
print("forked", n, err)'`
		},
		escaped: outHas("forked 400", "400 processes were forked")},
	{name: "2 GiB allocation", need: escPython,
		script:  func(*escWorld) string { return escPython + ` -c "b = bytearray(2 << 30); print('ALLOCATED')"` },
		escaped: outHas("ALLOCATED", "2 GiB were allocated")},
}

// pidsWith lists the processes whose command line contains s.
func pidsWith(s string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, d := range ents {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if b, _ := os.ReadFile("/proc/" + d.Name() + "/cmdline"); strings.Contains(string(b), s) {
			out = append(out, pid)
		}
	}
	return out
}

// TestSandboxEscapes runs every escape row confined in workspace-write, as
// root and as an unprivileged user, and requires that none escapes and
// that the result names the protections this machine could not give.
func TestSandboxEscapes(t *testing.T) {
	needLandlock(t)
	t.Run("root", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skipf("root's route needs root; this process runs as uid %d, whose route the nonroot subtest runs", os.Getuid())
		}
		runEscapes(t)
	})
	t.Run("nonroot", func(t *testing.T) {
		if asuser.Run(t, nil) {
			return
		}
		if os.Getuid() == 0 {
			t.Fatal("asuser.Run left the test to root")
		}
		runEscapes(t)
	})
}

func runEscapes(t *testing.T) {
	needLandlock(t)
	sup := testRunner.SandboxSupport()
	t.Logf("uid %d: support %+v (mount namespace: %q, PID namespace: %q, helper: %q)", os.Getuid(), sup, linuxSandbox.mountnsErr, linuxSandbox.pidnsErr, linuxSandbox.helperErr)
	var summary []string
	for i, row := range escRows {
		t.Run(row.name, func(t *testing.T) {
			if row.need != "" {
				if _, err := exec.LookPath(row.need); err != nil {
					testenv.Missing(t, "%s is not installed", row.need)
				}
			}
			e := newEscWorld(t, i)
			if err := os.WriteFile(filepath.Join(e.ws, "esc.sh"), []byte(row.script(e)+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			c := &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{e.ws}}
			if row.lists {
				c.Lists = []string{e.home}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := testRunner.Run(ctx, Spec{Command: "sh esc.sh", Dir: e.ws, Env: e.env, Timeout: time.Minute, Sandbox: c})
			if err != nil {
				summary = append(summary, fmt.Sprintf("%-50s refused to start: %v", row.name, err))
				t.Fatalf("the run did not start: %v", err)
			}
			text := out.Output.String()
			escaped, what := row.escaped(e, text)
			verdict := "held"
			if escaped {
				verdict = "ESCAPED: " + what
				t.Errorf("escaped: %s\noutput:\n%s\nsandbox: %+v", what, text, out.Sandbox)
			}
			summary = append(summary, fmt.Sprintf("%-50s %s", row.name, verdict))
			t.Logf("output:\n%s\nisolation %v, denied %+v, note %q", text, out.Sandbox.Isolation, out.Sandbox.Denied, out.Sandbox.Note)
		})
	}
	t.Logf("escapes as uid %d:\n%s", os.Getuid(), strings.Join(summary, "\n"))
}

// TestPackageAsUser runs this package's tests (but the escapes, which
// TestSandboxEscapes runs as both, and the root-only cgroup test) as a
// fresh unprivileged user, when the tests run as root: the confinement
// developers get is the one tested.
func TestPackageAsUser(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the package's tests again")
	}
	// TestPidsCgroupLeftBehind needs a writable pids cgroup, which only
	// root has (an unprivileged run's process cap is RLIMIT_NPROC): the
	// root run tests it, and in CI (SHELLGATE_CI) the user's run would
	// fail it as a missing requirement.
	asuser.RunTests(t, ".", []string{"TestSandboxEscapes", "TestPidsCgroupLeftBehind"}, nil)
}

// TestSandboxWithoutHelper: where the helper cannot run (user
// namespaces turned off), an unprivileged user's command still runs
// confined, and the result and SandboxSupport say what it lacks: the
// protected paths only checked after the run, no PID namespace. Run as a
// fresh unprivileged user (the helper's state is set as a failed probe
// leaves it).
func TestSandboxWithoutHelper(t *testing.T) {
	needLandlock(t)
	if asuser.Run(t, nil) {
		return
	}
	if linuxSandbox.mountns {
		testenv.Missing(t, "an unprivileged user with a mount namespace of its own (uid %d): the helper route this test covers is not taken", os.Getuid())
	}
	sup := testRunner.SandboxSupport()
	if !linuxSandbox.helper {
		t.Fatalf("the helper did not start for uid %d: %s", os.Getuid(), linuxSandbox.helperErr)
	}
	if slices.ContainsFunc(sup.Missing, func(m string) bool { return strings.HasPrefix(m, "mountns") || strings.HasPrefix(m, "pidns") }) {
		t.Errorf("with the helper, Missing still lists a namespace: %q", sup.Missing)
	}
	saved := linuxSandbox.helper
	linuxSandbox.helper = false
	defer func() { linuxSandbox.helper = saved }()
	if m := missingProtections(); !slices.ContainsFunc(m, func(m string) bool { return strings.HasPrefix(m, "mountns: ") }) ||
		!slices.ContainsFunc(m, func(m string) bool { return strings.HasPrefix(m, "pidns: ") }) {
		t.Errorf("without the helper, Missing = %q; want mountns and pidns", m)
	}
	e := newEscWorld(t, 99)
	out := runSpec(t, context.Background(), Spec{Command: "echo x >> .git/config; echo ran", Dir: e.ws, Env: e.env, Timeout: time.Minute,
		Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{e.ws}}})
	if !strings.Contains(out.Output.String(), "ran") {
		t.Fatalf("the command did not run:\n%s", out.Output.String())
	}
	for _, want := range []string{"not bound read-only", "no PID namespace"} {
		if !strings.Contains(out.Sandbox.Note, want) {
			t.Errorf("the result's note %q does not say %q", out.Sandbox.Note, want)
		}
	}
	for _, iso := range []string{"mountns", "pidns"} {
		if slices.Contains(out.Sandbox.Isolation, iso) {
			t.Errorf("isolation %v claims %s", out.Sandbox.Isolation, iso)
		}
	}
}

// TestSandboxNetworkAllowed: a confinement that allows the network (an
// approved egress) reaches a 127.0.0.1 listener, as root and as an
// unprivileged user (whose helper then makes no network namespace), and
// one that does not, does not.
func TestSandboxNetworkAllowed(t *testing.T) {
	needLandlock(t)
	run := func(t *testing.T) {
		for _, network := range []bool{true, false} {
			l := newLoopback(t)
			dir := t.TempDir()
			out := runSpec(t, context.Background(), Spec{Command: "echo x > /dev/tcp/127.0.0.1/" + strconv.Itoa(l.port) + " && echo CONNECTED", Dir: dir, Timeout: time.Minute,
				Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir}, Network: network}})
			if got := strings.Contains(out.Output.String(), "CONNECTED"); got != network {
				t.Errorf("network %v: connected %v, want %v; output:\n%s\nsandbox %+v", network, got, network, out.Output.String(), out.Sandbox)
			}
		}
	}
	t.Run("root", func(t *testing.T) {
		if os.Getuid() != 0 {
			t.Skipf("root's route needs root; this process runs as uid %d, whose route the nonroot subtest runs", os.Getuid())
		}
		run(t)
	})
	t.Run("nonroot", func(t *testing.T) {
		if asuser.Run(t, nil) {
			return
		}
		run(t)
	})
}

// TestSandboxHelperWithoutPidns: on a kernel whose procfs cannot be
// mounted for a new PID namespace (before Linux 6.16), the helper still
// binds the protected paths read-only, and the result says the PID
// namespace is missing. Run as a fresh unprivileged user, with the
// helper's state set as its probe leaves it on such a kernel.
func TestSandboxHelperWithoutPidns(t *testing.T) {
	needLandlock(t)
	if asuser.Run(t, nil) {
		return
	}
	testRunner.SandboxSupport()
	if linuxSandbox.mountns || !linuxSandbox.helper {
		testenv.Missing(t, "the helper is not in use here (mount namespace %v, helper: %s)", linuxSandbox.mountns, linuxSandbox.helperErr)
	}
	saved := helperPidns
	helperPidns.ok, helperPidns.err = false, "mount the namespace's procfs: invalid argument"
	defer func() { helperPidns = saved }()
	e := newEscWorld(t, 98)
	script := `printf '#!/bin/sh\n' > .git/hooks/pre-commit && echo PLANTED; cat /proc/` + strconv.Itoa(e.pid) + `/cmdline | tr '\0' ' '; echo`
	out := runSpec(t, context.Background(), Spec{Command: script, Dir: e.ws, Env: e.env, Timeout: time.Minute,
		Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{e.ws}}})
	text := out.Output.String()
	if strings.Contains(text, "PLANTED") || !strings.Contains(text, "Read-only file system") {
		t.Errorf("the hook was not refused read-only:\n%s", text)
	}
	if !strings.Contains(text, "sleep 600") {
		t.Errorf("without a PID namespace the process outside should be visible (the check of this test):\n%s", text)
	}
	if !strings.Contains(out.Sandbox.Note, "no PID namespace") || slices.Contains(out.Sandbox.Isolation, "pidns") || !slices.Contains(out.Sandbox.Isolation, "mountns") {
		t.Errorf("note %q, isolation %v: want mountns, no pidns, and the note saying so", out.Sandbox.Note, out.Sandbox.Isolation)
	}
	if m := missingProtections(); !slices.ContainsFunc(m, func(m string) bool { return strings.HasPrefix(m, "pidns: ") }) ||
		slices.ContainsFunc(m, func(m string) bool { return strings.HasPrefix(m, "mountns: ") }) {
		t.Errorf("Missing = %q; want pidns, not mountns", m)
	}
}
