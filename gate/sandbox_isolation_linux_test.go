//go:build linux

package gate

import (
	"context"
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

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/internal/testenv"
)

// outsideProcess starts a process outside the sandbox (as the test's
// user), with a canary in its environment, and returns its pid.
func outsideProcess(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "120")
	cmd.Env = append(os.Environ(), "OUTSIDE_CANARY=c4n4ry-"+strconv.Itoa(os.Getpid()))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// procField reads a line of /proc/PID/limits or a field of /proc/PID/stat.
func procText(t *testing.T, pid int, name string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// refusedCall says whether the result names a system call the seccomp
// filter refused, by the start of its name.
func refusedCall(prefix string) func(*execution.SandboxInfo) bool {
	return func(sb *execution.SandboxInfo) bool {
		return slices.ContainsFunc(sb.Denied, func(d execution.SandboxDenial) bool {
			return d.Op == "syscall" && strings.HasPrefix(d.Path, prefix) && strings.Contains(d.Line, "refused by the sandbox")
		})
	}
}

// TestSandboxIsolation runs each escape of issue 26 from a script in the
// workspace, in workspace-write, and checks on the real system that it
// did not happen: a device node, the host's name, namespaces, chroot,
// raw and packet sockets, /etc/shadow, another process's environment and
// memory map, its limits, its priority, a signal to it, tracing it, a
// unix socket outside the roots, a 2 GiB allocation and 400 processes.
func TestSandboxIsolation(t *testing.T) {
	g, dir, home := sandboxGate(t)
	// Debian's python3 (a pyenv shim on PATH would need the toolchain
	// grants this test does not exercise).
	python := needTool(t, "/usr/bin/python3", "python3")
	pid := outsideProcess(t)
	spid := strconv.Itoa(pid)
	hostname, _ := os.Hostname()
	limitsBefore, statBefore := procText(t, pid, "limits"), procText(t, pid, "stat")

	// A unix socket outside the roots (an ssh agent, a docker socket).
	sock := filepath.Join(home, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var reached atomic.Int32
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1); w.Write([]byte("AGENT\n")) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	marker := "31." + strconv.Itoa(os.Getpid()) // a sleep of this run's own
	// shows says, for the rows that have it, whether the result names the
	// refusal.
	shows := map[string]func(*execution.SandboxInfo) bool{
		"a setsid child outlives the run": func(sb *execution.SandboxInfo) bool {
			return slices.ContainsFunc(sb.Denied, func(d execution.SandboxDenial) bool {
				return d.Op == "process" && strings.Contains(d.Line, "killed at the end of the run")
			})
		},
		"/proc lists processes outside the run": func(sb *execution.SandboxInfo) bool { return slices.Contains(sb.Isolation, "pidns") },
		"device node":                           refusedCall("mknod"),
		"sethostname":                           refusedCall("sethostname"),
		"unshare":                               refusedCall("unshare of a namespace"),
		"chroot":                                refusedCall("chroot"),
		"raw and packet sockets":                refusedCall("socket("),
		"prlimit --pid":                         refusedCall("prlimit64"),
		"ptrace attach":                         refusedCall("ptrace"),
	}
	curl, _ := exec.LookPath("curl")
	strace, _ := exec.LookPath("strace")
	for _, tc := range []struct {
		name, cmd string
		need      string // a program the row needs ("" none)
		// escaped reports, after the run, whether the escape happened.
		escaped func(out string) bool
	}{
		{"device node", "mknod dev c 1 3; echo x > dev; ls -l dev", "", func(string) bool {
			fi, err := os.Lstat(filepath.Join(dir, "dev"))
			return err == nil && fi.Mode()&os.ModeDevice != 0
		}},
		{"sethostname", "hostname shellgate-escaped", "", func(string) bool { h, _ := os.Hostname(); return h != hostname }},
		{"unshare", "unshare -r true && echo ESCAPED; unshare -n true && echo ESCAPED; unshare -m true && echo ESCAPED", "", func(o string) bool { return strings.Contains(o, "ESCAPED") }},
		{"chroot", "chroot / /bin/true && echo ESCAPED", "", func(o string) bool { return strings.Contains(o, "ESCAPED") }},
		{"raw and packet sockets", python + ` -c "
import socket
for fam, typ in ((socket.AF_PACKET, socket.SOCK_RAW), (socket.AF_INET, socket.SOCK_RAW), (socket.AF_INET6, socket.SOCK_RAW)):
    try:
        socket.socket(fam, typ, 1); print('ESCAPED', fam)
    except OSError as e:
        print('refused', fam, e)
"`, "", func(o string) bool {
			// Python must have run and been refused three times.
			return strings.Contains(o, "ESCAPED") || strings.Count(o, "refused") != 3
		}},
		{"/etc/shadow", "cat /etc/shadow", "", func(o string) bool { return strings.Contains(o, "root:") }},
		{"another process's environ and maps", "cat /proc/" + spid + "/environ; cat /proc/" + spid + "/maps", "", func(o string) bool {
			return strings.Contains(o, "c4n4ry") || strings.Contains(o, "[stack]")
		}},
		{"prlimit --pid", "prlimit --pid " + spid + " --nofile=5:5", "prlimit", func(string) bool { return procText(t, pid, "limits") != limitsBefore }},
		{"renice", "renice -n 10 -p " + spid, "renice", func(string) bool {
			return strings.Fields(procText(t, pid, "stat"))[18] != strings.Fields(statBefore)[18]
		}},
		{"kill", "kill -TERM " + spid + " && echo ESCAPED", "", func(o string) bool {
			return strings.Contains(o, "ESCAPED") || syscall.Kill(pid, 0) != nil
		}},
		{"ptrace attach", strace + " -p " + spid + " -e trace=none -o /dev/null & sleep 0.5; kill %1 && echo ATTACHED", "strace", func(o string) bool {
			return !strings.Contains(o, "Operation not permitted")
		}},
		{"unix socket outside the roots", curl + " -sS --max-time 3 --unix-socket " + sock + " http://x/", "curl", func(o string) bool {
			return reached.Load() != 0 || strings.Contains(o, "AGENT")
		}},
		// (It waits until the child has a session of its own, so that the
		// run's end and not the stop of the shell's process group ends it.)
		{"a setsid child outlives the run", "setsid sleep " + marker + " </dev/null >/dev/null 2>&1 & p=$!; for i in $(seq 100000); do [ \"$(cut -d' ' -f6 /proc/$p/stat)\" = $p ] && break; done; echo started", "setsid", func(string) bool {
			ents, _ := os.ReadDir("/proc")
			for _, e := range ents {
				b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
				if strings.Contains(string(b), marker) {
					return true
				}
			}
			return false
		}},
		// A PID namespace: /proc lists the run's processes only, and an
		// outside process cannot be named.
		{"/proc lists processes outside the run", "ls /proc; cat /proc/" + spid + "/cmdline; echo; ls /proc/" + spid + "/", "", func(o string) bool {
			return slices.Contains(strings.Fields(o), spid) || strings.Contains(o, "sleep") || strings.Contains(o, "environ")
		}},
		{"2 GiB allocation", python + ` -c "b = bytearray(2 << 30); print('ESCAPED')"`, "", func(o string) bool {
			return strings.Contains(o, "ESCAPED") || !strings.Contains(o, "MemoryError")
		}},
		{"400 processes", python + ` -c "
import os, time
n = 0
for i in range(400):
    try:
        p = os.fork()
    except OSError:
        break
    if p == 0:
        time.sleep(2); os._exit(0)
    n += 1
print('forked', n)
"`, "", func(o string) bool { return !strings.Contains(o, "forked ") || strings.Contains(o, "forked 400") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.need != "" {
				if _, err := exec.LookPath(tc.need); err != nil {
					testenv.Missing(t, "%s is not installed", tc.need)
				}
			}
			// The escape is a script in the workspace: only the sandbox
			// stands between it and the system.
			if err := os.WriteFile(filepath.Join(dir, "escape.sh"), []byte(tc.cmd+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := g.Run(context.Background(), Request{Command: "bash escape.sh", Sandbox: execution.SandboxWorkspaceWrite, TimeoutMS: 60_000})
			if !res.Ran() {
				t.Fatalf("did not run: %s", res.StatusLine())
			}
			out := res.Output.String()
			if tc.escaped(out) {
				t.Errorf("escaped (isolation %v):\n%s", res.Sandbox.Isolation, out)
			} else {
				t.Logf("refused:\n%s", out)
			}
			if shows := shows[tc.name]; shows != nil && !shows(res.Sandbox) {
				t.Errorf("refused, but the result does not say so: isolation %v, denied %+v, note %q", res.Sandbox.Isolation, res.Sandbox.Denied, res.Sandbox.Note)
			}
		})
	}
}
