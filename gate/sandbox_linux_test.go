//go:build linux

package gate

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// sandboxGate is a gate with the allow-all policy, its workspace (cwd)
// and a temporary HOME outside it.
func sandboxGate(t *testing.T, opts ...Option) (g *Gate, dir, home string) {
	t.Helper()
	needLandlock(t)
	dir, home = t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	g = newGate(t, dir, append([]Option{WithoutDefaultPolicy(), WithPolicyModules(allowAll)}, opts...)...)
	return g, dir, home
}

func TestSandboxReadOnlyRefusesWrites(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  Request
	}{
		{"readonly mode", Request{Command: "touch x; echo after", Mode: policy.ModeReadonly}},
		{"explicit read-only", Request{Command: "touch x; echo after", Sandbox: execution.SandboxReadOnly}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, dir, _ := sandboxGate(t)
			res := g.Run(context.Background(), tc.req)
			if !res.Ran() {
				t.Fatalf("did not run: %s", res.StatusLine())
			}
			if exists(filepath.Join(dir, "x")) {
				t.Errorf("touch x wrote %s under read-only", filepath.Join(dir, "x"))
			}
			out := res.Output.String()
			if !strings.Contains(out, "\n"+execution.SandboxMarker("write", execution.SandboxReadOnly)+"\n") || !strings.Contains(out, "after\n") {
				t.Errorf("output lacks the marker line:\n%s", out)
			}
			sb := res.Sandbox
			if sb == nil || !sb.Enforced || sb.Mode != execution.SandboxReadOnly || sb.Mechanism != "landlock" || sb.ABI < 1 || sb.Network != "denied" {
				t.Fatalf("sandbox = %+v, want enforced read-only landlock with an ABI and no network", sb)
			}
			want := []execution.SandboxDenial{{Op: "write", Path: filepath.Join(dir, "x"), Line: "touch: cannot touch 'x': Permission denied"}}
			if diff := cmp.Diff(want, sb.Denied); diff != "" {
				t.Errorf("denied (-want +got):\n%s", diff)
			}
			t.Logf("Landlock ABI %d, network guard %s", sb.ABI, sb.NetworkGuard)
		})
	}
}

func TestSandboxReadOnlyCannotReadHome(t *testing.T) {
	g, dir, home := sandboxGate(t)
	secret := filepath.Join(home, "secret")
	if err := os.WriteFile(secret, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mine"), []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res := g.Run(context.Background(), Request{Command: "cat mine; cat " + secret, Sandbox: execution.SandboxReadOnly})
	out := res.Output.String()
	if !strings.HasPrefix(out, "mine\n") || strings.Contains(out, "s3cret") {
		t.Errorf("output:\n%s\nwant the workspace file and not the home file", out)
	}
	if !strings.Contains(out, execution.SandboxMarker("read", execution.SandboxReadOnly)) {
		t.Errorf("output lacks the read marker:\n%s", out)
	}
	if len(res.Sandbox.Denied) != 1 || res.Sandbox.Denied[0].Op != "read" || res.Sandbox.Denied[0].Path != secret {
		t.Errorf("denied = %+v, want one read of %s", res.Sandbox.Denied, secret)
	}
}

func TestSandboxWorkspaceWrite(t *testing.T) {
	g, dir, home := sandboxGate(t)
	res := g.Run(context.Background(), Request{
		Command: `touch in-root && mkdir -p sub/d && mv in-root sub/d/; touch "$HOME/outside"; echo t > "$TMPDIR/t" && cat "$TMPDIR/t"; echo "$TMPDIR"`,
	})
	if !res.Ran() {
		t.Fatalf("did not run: %s", res.StatusLine())
	}
	sb := res.Sandbox
	if sb == nil || sb.Mode != execution.SandboxWorkspaceWrite || sb.Reason != "granted" || !sb.Enforced {
		t.Fatalf("sandbox = %+v, want enforced workspace-write for a granted write", sb)
	}
	if !exists(filepath.Join(dir, "sub/d/in-root")) {
		t.Errorf("the write (and the move) inside the root did not happen")
	}
	if exists(filepath.Join(home, "outside")) {
		t.Errorf("workspace-write wrote in $HOME")
	}
	out := res.Output.String()
	lines := strings.Split(out, "\n")
	if len(lines) < 3 || lines[1] != "t" {
		t.Fatalf("output:\n%s\nwant the private TMPDIR to be writable", out)
	}
	// A private directory of the sandbox's, removed after the run or
	// (a kept slot's) emptied.
	tmp := lines[2]
	if !strings.HasPrefix(tmp, filepath.Join(os.TempDir(), "shellgate-sandbox-")+strconv.Itoa(os.Getuid())+"/") {
		t.Errorf("TMPDIR %q: want a directory in the sandbox's private directory", tmp)
	}
	if ents, err := os.ReadDir(tmp); err == nil && len(ents) > 0 {
		t.Errorf("TMPDIR %q holds %d entries after the run", tmp, len(ents))
	}
	if !strings.Contains(out, execution.SandboxMarker("write", execution.SandboxWorkspaceWrite)) {
		t.Errorf("output lacks the marker:\n%s", out)
	}
	want := []execution.SandboxDenial{{Op: "write", Path: filepath.Join(home, "outside"), Line: "touch: cannot touch '" + filepath.Join(home, "outside") + "': Permission denied"}}
	if diff := cmp.Diff(want, sb.Denied); diff != "" {
		t.Errorf("denied (-want +got):\n%s", diff)
	}
}

// loopback listens on 127.0.0.1 for TCP and UDP on one port and counts
// what reaches it.
type loopback struct {
	port     int
	tcp, udp atomic.Int32
}

func newLoopback(t *testing.T) *loopback {
	t.Helper()
	l := &loopback{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.port = ln.Addr().(*net.TCPAddr).Port
	pc, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(l.port))
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close(); pc.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.tcp.Add(1)
			c.Write([]byte("HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nhi\n"))
			c.Close()
		}
	}()
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			l.udp.Add(1)
		}
	}()
	return l
}

func TestSandboxDeniesNetwork(t *testing.T) {
	curl := needTool(t, "curl")
	g, _, _ := sandboxGate(t)
	l := newLoopback(t)
	port := strconv.Itoa(l.port)
	cmd := curl + " -sS --max-time 3 http://127.0.0.1:" + port + "/; echo x > /dev/tcp/127.0.0.1/" + port + "; echo x > /dev/udp/127.0.0.1/" + port + "; true"
	for _, mode := range []execution.SandboxMode{execution.SandboxReadOnly, execution.SandboxWorkspaceWrite} {
		res := g.Run(context.Background(), Request{Command: cmd, Sandbox: mode})
		if !res.Ran() {
			t.Fatalf("%s: did not run: %s", mode, res.StatusLine())
		}
		if res.Sandbox.Network != "denied" {
			t.Errorf("%s: network = %q, want denied", mode, res.Sandbox.Network)
		}
		if !strings.Contains(res.Output.String(), execution.SandboxMarker("network", mode)) {
			t.Errorf("%s: output lacks the network marker:\n%s", mode, res.Output.String())
		}
	}
	time.Sleep(100 * time.Millisecond) // a datagram in flight would arrive
	n, u := l.tcp.Load(), l.udp.Load()
	if guard := testRunner.SandboxSupport().NetworkGuard; guard == "landlock-tcp" {
		// No namespace here: only TCP is guarded, and the result says so.
		t.Logf("network guard %s: UDP is not guarded (%d datagrams)", guard, u)
		u = 0
	}
	if n != 0 || u != 0 {
		t.Fatalf("the loopback listener saw %d connections and %d datagrams from unapproved commands", n, u)
	}
	// The same command with the network allowed reaches it: the test can fail.
	res := g.Run(context.Background(), Request{Command: cmd, Sandbox: execution.SandboxFullAccess})
	if !strings.Contains(res.Output.String(), "hi") {
		t.Errorf("full-access: output %q, want the listener's answer", res.Output.String())
	}
	time.Sleep(100 * time.Millisecond)
	if n, u := l.tcp.Load(), l.udp.Load(); n < 2 || u < 1 {
		t.Errorf("full-access: the listener saw %d connections and %d datagrams, want 2 and 1", n, u)
	}
}

func mustBash(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSandboxApprovedEgress: a command a person approved that uses the
// network gets it; the same approval of a command that does not is no
// egress.
func TestSandboxApprovedEgress(t *testing.T) {
	curl := needTool(t, "curl")
	needLandlock(t)
	dir := t.TempDir()
	g := newGate(t, dir, WithoutDefaultPolicy(), WithPolicyModules(askAll))
	l := newLoopback(t)
	res := g.Run(context.Background(), Request{Command: curl + " -sS --max-time 3 http://127.0.0.1:" + strconv.Itoa(l.port) + "/", Approver: approve(true)})
	if res.Sandbox == nil || res.Sandbox.Network != "allowed" || res.Sandbox.Mode != execution.SandboxWorkspaceWrite || !strings.Contains(res.Output.String(), "hi") {
		t.Fatalf("approved curl: sandbox %+v, output %q; want workspace-write with the network", res.Sandbox, res.Output.String())
	}
	res = g.Run(context.Background(), Request{Command: "echo x > /dev/tcp/127.0.0.1/" + strconv.Itoa(l.port), Approver: approve(true)})
	if res.Sandbox == nil || res.Sandbox.Network != "denied" {
		t.Fatalf("approved write: sandbox %+v; want no network", res.Sandbox)
	}
	if n := l.tcp.Load(); n != 1 {
		t.Errorf("listener saw %d connections, want 1 (the approved curl)", n)
	}
}

// TestSandboxApprovedReads: a read outside the roots that a person
// approved is readable in the sandbox; one the decision never saw is not.
func TestSandboxApprovedReads(t *testing.T) {
	needLandlock(t)
	dir, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	for _, f := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte(f+"-content\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := newGate(t, dir)
	res := g.Run(context.Background(), Request{Command: `cat ~/a; f=b; cat ~/$f`, Approver: approve(true)})
	if !res.Ran() {
		t.Fatalf("did not run: %s", res.StatusLine())
	}
	out := res.Output.String()
	if !strings.HasPrefix(out, "a-content\n") || strings.Contains(out, "b-content") || !strings.Contains(out, execution.SandboxMarker("read", execution.SandboxWorkspaceWrite)) {
		t.Errorf("output:\n%s\nwant ~/a read, ~/b refused with the marker", out)
	}
}

// TestSandboxGitWorktree: a worktree's git directory lives outside it
// (its .git file points there); the sandbox treats it as part of the
// workspace, and git's user config stays readable.
func TestSandboxGitWorktree(t *testing.T) {
	git := needTool(t, "git")
	needLandlock(t)
	base, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = T\n\temail = t@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
	for _, args := range [][]string{
		{"init", "-q", "-b", "trunk", main},
		{"-C", main, "commit", "-q", "--allow-empty", "-m", "first"},
		{"-C", main, "worktree", "add", "-q", wt},
	} {
		cmd := exec.Command(git, args...)
		cmd.Env = append(os.Environ(), "HOME="+home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	g := newGate(t, wt)
	res := g.Run(context.Background(), Request{Command: "git log --format=%s%n%an"})
	if res.Status != StatusOK || res.Sandbox.Mode != execution.SandboxReadOnly || res.Output.String() != "first\nT\n" {
		t.Fatalf("git log in a worktree, read-only: %s\n%s", res.StatusLine(), res.Output.String())
	}
	res = g.Run(context.Background(), Request{Command: "git commit -q --allow-empty -m second", Approver: approve(true)})
	if res.Status != StatusOK || res.Sandbox.Mode != execution.SandboxWorkspaceWrite {
		t.Fatalf("git commit in a worktree, workspace-write: %s\n%s", res.StatusLine(), res.Output.String())
	}
	if strings.Contains(res.Output.String(), "[sandbox:") {
		t.Errorf("output: %s", res.Output.String())
	}
}

// TestSandboxGitFileWidensNothing: a workspace's .git file is written by
// whoever wrote the workspace. One that names a directory elsewhere (a
// fake git directory in home, beside a secret) must not make that
// directory a sandbox root, while a real worktree's and a real
// submodule's git directories (which point back at the workspace) stay
// roots: git commit works in both.
func TestSandboxGitFileWidensNothing(t *testing.T) {
	git := needTool(t, "git")
	needLandlock(t)
	base, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = T\n\temail = t@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitEnv := append(os.Environ(), "HOME="+home)
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Env = gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// The planted pointer: home/stash looks like a git directory and holds
	// a key; the workspace's .git file names it.
	stash := filepath.Join(home, "stash")
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(stash, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"HEAD": "ref: refs/heads/main\n", "key": "SECRET-KEY\n"} {
		if err := os.WriteFile(filepath.Join(stash, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hostile := filepath.Join(base, "hostile")
	if err := os.MkdirAll(hostile, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hostile, ".git"), []byte("gitdir: "+stash+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := gitDirs(hostile, readstation.Boundary{}); len(got) != 0 {
		t.Errorf("gitDirs(hostile) = %q, want none", got)
	}
	// A script the gate cannot see into, approved by a person: only the
	// sandbox stands between it and home.
	script := "cat " + filepath.Join(stash, "key") + "; echo planted > " + filepath.Join(stash, "hooks") + "\n"
	if err := os.WriteFile(filepath.Join(hostile, "run.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	g := newGate(t, hostile)
	res := g.Run(context.Background(), Request{Command: "sh run.sh", Approver: approve(true)})
	if !res.Ran() {
		t.Fatalf("sh run.sh did not run: %s", res.StatusLine())
	}
	if strings.Contains(res.Output.String(), "SECRET-KEY") || exists(filepath.Join(stash, "hooks")) {
		t.Errorf("a .git file widened the sandbox to %s: %s\n%s", stash, res.StatusLine(), res.Output.String())
	}

	// A real submodule: its git directory is under the superproject's
	// .git/modules, and git commit inside it still works.
	lib, super := filepath.Join(base, "lib"), filepath.Join(base, "super")
	run("init", "-q", "-b", "main", lib)
	run("-C", lib, "commit", "-q", "--allow-empty", "-m", "lib")
	run("init", "-q", "-b", "main", super)
	run("-C", super, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	sub := filepath.Join(super, "lib")
	got := gitDirs(sub, readstation.Boundary{})
	want, _ := filepath.EvalSymlinks(filepath.Join(super, ".git", "modules", "lib"))
	if len(got) != 1 || got[0] != want {
		t.Errorf("gitDirs(submodule) = %q, want [%s]", got, want)
	}
	gs := newGate(t, sub)
	res = gs.Run(context.Background(), Request{Command: "git commit -q --allow-empty -m second", Approver: approve(true)})
	if res.Status != StatusOK || strings.Contains(res.Output.String(), "[sandbox:") {
		t.Fatalf("git commit in a submodule, workspace-write: %s\n%s", res.StatusLine(), res.Output.String())
	}
}

// TestSandboxApprovedListing: a person approved `ls ~`; the command may
// list the home directory, but that approval does not make the files in
// it readable for the whole command (issue 26: the ssh key was read).
// A file approved by name stays readable.
func TestSandboxApprovedListing(t *testing.T) {
	needLandlock(t)
	dir, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{".ssh/id_ed25519": "PRIVATE-KEY\n", "notes.txt": "notes\n"} {
		if err := os.WriteFile(filepath.Join(home, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte("cat \"$HOME/.ssh/id_ed25519\" \"$HOME/notes.txt\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := newGate(t, dir, WithoutDefaultPolicy(), WithPolicyModules(askAll))
	res := g.Run(context.Background(), Request{Command: "ls -a ~ && sh run.sh", Approver: approve(true)})
	if !res.Ran() {
		t.Fatalf("did not run: %s", res.StatusLine())
	}
	out := res.Output.String()
	if !strings.Contains(out, "notes.txt") || !strings.Contains(out, ".ssh") {
		t.Errorf("the approved listing did not list the home directory:\n%s", out)
	}
	if strings.Contains(out, "PRIVATE-KEY") || strings.Contains(out, "notes\n") {
		t.Errorf("an approved listing made the files beneath readable:\n%s", out)
	}
	if !strings.Contains(out, execution.SandboxMarker("read", execution.SandboxWorkspaceWrite)) {
		t.Errorf("output lacks the read marker:\n%s", out)
	}
	// Named by the command, the file is approved and readable.
	res = g.Run(context.Background(), Request{Command: "cat ~/notes.txt", Approver: approve(true)})
	if res.Output.String() != "notes\n" {
		t.Errorf("an approved file read: %s\n%s", res.StatusLine(), res.Output.String())
	}
}

// TestSandboxGoEnvFile: what `go env -w` wrote (Go's env file under
// $XDG_CONFIG_HOME/go, or $GOENV) stays readable in the sandbox, so that a
// confined go command is set up as the user's (Go ignores an unreadable
// env file without a word: before, workspace-write's go saw no GOFLAGS).
func TestSandboxGoEnvFile(t *testing.T) {
	goBin := needTool(t, "go")
	needLandlock(t)
	ws, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GOFLAGS", "")
	t.Setenv("GOENV", "")
	t.Setenv("PATH", filepath.Dir(goBin)+":/usr/bin:/bin")
	envFile := filepath.Join(home, ".config", "go", "env")
	if err := os.MkdirAll(filepath.Dir(envFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(envFile, []byte("GOFLAGS=-tags=fromgoenv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sandbox := range []string{"read-only", "workspace-write"} {
		g := newGate(t, ws)
		req := Request{Command: "go env GOFLAGS"}
		if sandbox == "workspace-write" {
			req = Request{Command: "go env GOFLAGS > out.txt && cat out.txt", Approver: approve(true)}
		}
		res := g.Run(context.Background(), req)
		if res.Status != StatusOK || string(res.Sandbox.Mode) != sandbox {
			t.Fatalf("%s: %s\n%s", sandbox, res.StatusLine(), res.Output.String())
		}
		if got := strings.TrimSpace(res.Output.String()); got != "-tags=fromgoenv" {
			t.Errorf("%s: go env GOFLAGS = %q, want the env file's -tags=fromgoenv", sandbox, got)
		}
	}
}
