//go:build linux

package sandboxes

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// escEnv is the world of one escape in one sandbox: a workspace that is a
// git repository (with an existing .vscode and .mcp.json), a home of its
// own with a canary ssh key, a unix socket server in that home (an ssh
// agent, a docker socket) and a process outside the sandbox with a
// canary in its environment.
type escEnv struct {
	ws, home, sock string
	pid            int
	reached        atomic.Int32
	limits, stat   string
	hostname       string
	// marker is the argument of this escape's setsid sleep.
	marker string
	env    []string
}

// canaryKey is the fake private key in the escape's home.
const canaryKey = "FAKE-PRIVATE-KEY-CANARY"

func newEscEnv(t *testing.T, dir, hostname string, n int) *escEnv {
	t.Helper()
	e := &escEnv{ws: filepath.Join(dir, "ws"), home: filepath.Join(dir, "home"), hostname: hostname}
	e.marker = fmt.Sprintf("31%d.%d", os.Getpid()%1000, n)
	for name, body := range map[string]string{
		"home/.ssh/id_rsa":         "-----BEGIN OPENSSH PRIVATE KEY-----\n" + canaryKey + "\n-----END OPENSSH PRIVATE KEY-----\n",
		"home/notes.txt":           "notes\n",
		"ws/README":                "r\n",
		"ws/.vscode/settings.json": "{}\n",
		"ws/.mcp.json":             "{}\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
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

	// The process outside, with nothing in its environment but the canary.
	sleep := exec.Command("sleep", "600")
	sleep.Env = []string{"PATH=/usr/bin:/bin", "OUTSIDE_CANARY=c4n4ry-" + strconv.Itoa(n)}
	sleep.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	e.pid = sleep.Process.Pid
	e.limits, e.stat = procText(e.pid, "limits"), procText(e.pid, "stat")

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

func procText(pid int, name string) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + name)
	return string(b)
}

func (e *escEnv) read(rel string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(e.ws, rel))
	return string(b), err == nil
}

// setsidAlive reports whether this escape's setsid sleep is alive after
// the run, waiting up to 3 s for a sandbox's namespace to be torn down,
// and kills what it finds.
func (e *escEnv) setsidAlive() bool {
	find := func() []int {
		var pids []int
		ents, _ := os.ReadDir("/proc")
		for _, d := range ents {
			pid, err := strconv.Atoi(d.Name())
			if err != nil {
				continue
			}
			b, _ := os.ReadFile("/proc/" + d.Name() + "/cmdline")
			if strings.Contains(string(b), "sleep\x00"+e.marker) {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		pids := find()
		if len(pids) == 0 {
			return false
		}
		if time.Now().After(deadline) {
			for _, p := range pids {
				syscall.Kill(p, syscall.SIGKILL)
			}
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// escape is one escape of issue 26: files written into the workspace
// (esc.sh among them), the command line that runs them, and the check on
// the real system after the run.
type escape struct {
	name  string
	need  string // a program the row drives ("" none)
	files func(e *escEnv) map[string]string
	// cmd is the command line (default "sh esc.sh").
	cmd string
	// escaped says whether it happened, and what.
	escaped func(e *escEnv, out string) (bool, string)
	// held says what the check saw when it did not happen ("": the
	// output's line that says why).
	held string
}

// python is Debian's python3 (a pyenv shim would need the toolchain
// grants the escapes do not exercise).
const python = "/usr/bin/python3"

func script(s string) func(*escEnv) map[string]string {
	return func(*escEnv) map[string]string { return map[string]string{"esc.sh": s + "\n"} }
}

func contains(sub, what string) func(*escEnv, string) (bool, string) {
	return func(_ *escEnv, out string) (bool, string) { return strings.Contains(out, sub), what }
}

var escapes = []escape{
	{name: "device node: mknod in the workspace, write through it", files: script("mknod dev c 1 3 && echo x > dev && ls -l dev"),
		escaped: func(e *escEnv, _ string) (bool, string) {
			fi, err := os.Lstat(filepath.Join(e.ws, "dev"))
			return err == nil && fi.Mode()&os.ModeDevice != 0, "a character device was made in the workspace"
		}},
	{name: "`ls -a ~` (approved), then a script reads ~/.ssh/id_rsa", cmd: "ls -a ~ && sh esc.sh", files: script(`cat "$HOME/.ssh/id_rsa"`),
		escaped: contains(canaryKey, "the key was printed")},
	{name: "a script reads ~/.ssh/id_rsa (no listing)", files: script(`cat "$HOME/.ssh/id_rsa"`),
		escaped: contains(canaryKey, "the key was printed")},
	{name: "plant .git/hooks/pre-commit", files: script(`echo 'touch /tmp/pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`),
		escaped: func(e *escEnv, _ string) (bool, string) {
			s, ok := e.read(".git/hooks/pre-commit")
			return ok && strings.Contains(s, "pwned"), "the hook is there after the run"
		}},
	{name: "set core.fsmonitor in .git/config", files: script(`git config core.fsmonitor 'touch pwned' || printf '[core]\n\tfsmonitor = touch pwned\n' >> .git/config`),
		escaped: func(e *escEnv, _ string) (bool, string) {
			s, _ := e.read(".git/config")
			return strings.Contains(s, "fsmonitor"), "core.fsmonitor is in .git/config after the run"
		}},
	{name: "plant .envrc", files: script(`echo 'touch pwned' > .envrc`),
		escaped: func(e *escEnv, _ string) (bool, string) {
			s, ok := e.read(".envrc")
			return ok && strings.Contains(s, "pwned"), ".envrc is there after the run"
		}},
	{name: "plant .vscode/tasks.json (existing .vscode)", files: script(`echo '{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json`),
		escaped: func(e *escEnv, _ string) (bool, string) {
			s, ok := e.read(".vscode/tasks.json")
			return ok && strings.Contains(s, "folderOpen"), ".vscode/tasks.json is there after the run"
		}},
	{name: "rewrite .mcp.json", files: script(`echo '{"mcpServers":{"x":{"command":"touch"}}}' > .mcp.json`),
		escaped: func(e *escEnv, _ string) (bool, string) {
			s, _ := e.read(".mcp.json")
			return strings.Contains(s, "mcpServers"), ".mcp.json was rewritten"
		}},
	{name: "/proc/PID/environ and maps of a process outside",
		files: func(e *escEnv) map[string]string {
			p := strconv.Itoa(e.pid)
			return map[string]string{"esc.sh": "grep -a -o 'c4n4ry-[0-9]*' /proc/" + p + "/environ; grep -q stack /proc/" + p + "/maps && echo MAPS-READ\n"}
		},
		escaped: func(_ *escEnv, out string) (bool, string) {
			var got []string
			if strings.Contains(out, "c4n4ry-") {
				got = append(got, "environ")
			}
			if strings.Contains(out, "MAPS-READ") {
				got = append(got, "maps")
			}
			return len(got) > 0, "read its " + strings.Join(got, " and ")
		}},
	{name: "prlimit --pid on a process outside", need: "prlimit",
		files: func(e *escEnv) map[string]string {
			return map[string]string{"esc.sh": "prlimit --pid " + strconv.Itoa(e.pid) + " --nofile=5:5\n"}
		},
		escaped: func(e *escEnv, _ string) (bool, string) {
			return procText(e.pid, "limits") != e.limits, "its open-files limit changed"
		}},
	{name: "renice a process outside", need: "renice",
		files: func(e *escEnv) map[string]string {
			return map[string]string{"esc.sh": "renice -n 10 -p " + strconv.Itoa(e.pid) + "\n"}
		},
		escaped: func(e *escEnv, _ string) (bool, string) {
			after := strings.Fields(procText(e.pid, "stat"))
			before := strings.Fields(e.stat)
			return len(after) > 18 && len(before) > 18 && after[18] != before[18], "its nice value changed"
		}},
	{name: "kill a process outside",
		files: func(e *escEnv) map[string]string {
			return map[string]string{"esc.sh": "kill -TERM " + strconv.Itoa(e.pid) + " && echo KILLED\n"}
		},
		escaped: func(e *escEnv, out string) (bool, string) {
			gone := procText(e.pid, "stat") == "" || strings.Fields(procText(e.pid, "stat"))[2] == "Z"
			return gone || strings.Contains(out, "KILLED"), "it was killed"
		}},
	{name: "ptrace (strace -p) a process outside", need: "strace",
		files: func(e *escEnv) map[string]string {
			return map[string]string{"esc.sh": "timeout 2 strace -p " + strconv.Itoa(e.pid) + " -e trace=none -o /dev/null; echo strace-exit=$?\n"}
		},
		escaped: func(_ *escEnv, out string) (bool, string) {
			// timeout's 124: strace stayed attached until it was stopped.
			return strings.Contains(out, "strace-exit=124") || strings.Contains(out, "strace-exit=0"), "strace attached"
		}},
	{name: "connect to a unix socket outside (~/agent.sock)", need: "curl",
		files: func(e *escEnv) map[string]string {
			return map[string]string{"esc.sh": "curl -sS --max-time 3 --unix-socket " + e.sock + " http://x/\n"}
		},
		escaped: func(e *escEnv, out string) (bool, string) {
			return e.reached.Load() != 0 || strings.Contains(out, "AGENT-REACHED"), "the server outside answered"
		}},
	{name: "a setsid child outlives the run", need: "setsid",
		files: func(e *escEnv) map[string]string {
			return map[string]string{"esc.sh": "setsid sleep " + e.marker + " </dev/null >/dev/null 2>&1 & echo started\n"}
		},
		escaped: func(e *escEnv, _ string) (bool, string) {
			return e.setsidAlive(), "the child was alive 3 s after the run"
		}, held: "the child was gone when the run ended"},
	{name: "sethostname", need: "hostname", files: script("hostname shellgate-escaped"),
		escaped: func(e *escEnv, _ string) (bool, string) {
			h, _ := os.Hostname()
			if h != e.hostname {
				syscall.Sethostname([]byte(e.hostname))
				return true, "the host's name changed (restored)"
			}
			return false, ""
		}},
	{name: "chroot", files: script("chroot / /bin/true && echo CHROOTED"), escaped: contains("CHROOTED", "chroot / succeeded")},
	{name: "unshare (user, net, mount namespaces)", need: "unshare",
		files: script("unshare -r true && echo USERNS; unshare -n true && echo NETNS; unshare -m true && echo MNTNS"),
		escaped: func(_ *escEnv, out string) (bool, string) {
			var got []string
			for _, ns := range []string{"USERNS", "NETNS", "MNTNS"} {
				if strings.Contains(out, ns) {
					got = append(got, strings.ToLower(strings.TrimSuffix(ns, "NS")))
				}
			}
			return len(got) > 0, "unshare " + strings.Join(got, ", ") + " worked"
		}},
	{name: "raw and packet sockets", need: python,
		files: func(*escEnv) map[string]string {
			return map[string]string{"esc.sh": python + " esc.py\n", "esc.py": `import socket
for name, fam, typ in (("packet", socket.AF_PACKET, socket.SOCK_RAW), ("raw4", socket.AF_INET, socket.SOCK_RAW), ("raw6", socket.AF_INET6, socket.SOCK_RAW)):
    try:
        socket.socket(fam, typ, 1); print("OPENED", name)
    except OSError as e:
        print("refused", name, e)
`}
		},
		escaped: func(_ *escEnv, out string) (bool, string) {
			var got []string
			for _, l := range strings.Split(out, "\n") {
				if n, ok := strings.CutPrefix(l, "OPENED "); ok {
					got = append(got, n)
				}
			}
			return len(got) > 0, "opened " + strings.Join(got, ", ")
		}},
	// Five bytes only: the hashes are never printed.
	{name: "read /etc/shadow", files: script("head -c 5 /etc/shadow; echo"), escaped: contains("root:", "its first line was read")},
	{name: "2 GiB allocation", need: python, files: script(python + ` -c "b = bytearray(2 << 30); print('ALLOCATED')"`),
		escaped: contains("ALLOCATED", "2 GiB were allocated")},
	{name: "400 processes", need: python,
		files: func(*escEnv) map[string]string {
			return map[string]string{"esc.sh": python + " esc.py\n", "esc.py": `import os, time
n = 0
err = ""
for i in range(400):
    try:
        p = os.fork()
    except OSError as e:
        err = str(e)
        break
    if p == 0:
        time.sleep(2); os._exit(0)
    n += 1
print("forked", n, err)
`}
		},
		escaped: contains("forked 400", "400 processes were forked")},
}

// compareEscapes runs each escape in each sandbox, each in a world of its
// own, and checks what happened.
func compareEscapes(t *testing.T, all []sandbox, base, hostname string) []row {
	var rows []row
	n := 0
	for _, esc := range escapes {
		r := row{name: esc.name}
		for _, sb := range all {
			n++
			if esc.need != "" {
				if _, err := exec.LookPath(esc.need); err != nil {
					r.cells = append(r.cells, verdict{"not run", esc.need + " is not installed"})
					continue
				}
			}
			e := newEscEnv(t, filepath.Join(base, fmt.Sprintf("esc-%d", n)), hostname, n)
			for name, body := range esc.files(e) {
				if err := os.WriteFile(filepath.Join(e.ws, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cmd := esc.cmd
			if cmd == "" {
				cmd = "sh esc.sh"
			}
			o := run(sb, e.ws, e.env, cmd, 2*time.Minute)
			escaped, what := esc.escaped(e, o.out)
			v := escapeVerdict(o, escaped, what, esc.held, map[string]string{e.ws: "$WS", e.home: "~"})
			t.Logf("escape %q in %s: %s\n%s", esc.name, sb.name, v, o.out)
			r.cells = append(r.cells, v)
		}
		rows = append(rows, r)
	}
	return rows
}
