//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellgate/shellgate/hook"
)

// hungPath is the diagnostic of a call that the one-shot answered because
// the engine was connected but silent (stopped, hung): either the hedge won
// or the engine's deadline passed first.
var hungPath = regexp.MustCompile(`no engine answered: (it had not answered after [0-9.]+m?s|the engine did not answer within 250ms .*); answered by the one-shot .*/shellgate hook claude`)

// startStoppedEngine starts a real engine on s's socket, waits until it
// answers, and stops it with SIGSTOP. The engine is continued and killed at
// the end of the test, whatever happened.
func startStoppedEngine(tb testing.TB, s *sandbox, full, version string) (eng *exec.Cmd, exited <-chan struct{}) {
	tb.Helper()
	eng = exec.Command(full, "serve", "--socket", s.socket, "--log", filepath.Join(filepath.Dir(s.socket), "engine.log"))
	eng.Env = s.env
	if err := eng.Start(); err != nil {
		tb.Fatal(err)
	}
	done := make(chan struct{})
	go func() { eng.Wait(); close(done) }()
	tb.Cleanup(func() {
		eng.Process.Signal(syscall.SIGCONT)
		eng.Process.Kill()
		<-done
	})
	s.waitEngine(tb, version)
	if resp, err := hook.Ping(s.socket, version, 5*time.Second); err != nil || resp.Pid != eng.Process.Pid {
		tb.Fatalf("ping: pid %d, %v; want the engine %d", resp.Pid, err, eng.Process.Pid)
	}
	if err := eng.Process.Signal(syscall.SIGSTOP); err != nil {
		tb.Fatal(err)
	}
	return eng, done
}

// TestHungEngine: an engine stopped with SIGSTOP still holds its socket
// (connections are accepted by the kernel, never answered). The thin client
// must answer correctly through the one-shot path, without waiting out a
// long timeout; a new engine takes the socket over and answers the next
// calls; and the stopped engine, once continued, answers nothing and exits.
func TestHungEngine(t *testing.T) {
	full, thin := binaries(t)
	s := newSandbox(t)
	version := versionOf(t, thin)
	logPath := filepath.Join(filepath.Dir(s.socket), "engine.log")

	c := e2eCases[0]
	in := []byte(strings.ReplaceAll(c.in, "%CWD%", s.proj))
	want, _, code := s.exec(t, in, full, "hook", c.agent)
	if code != 0 || !strings.Contains(want, "permissionDecision") {
		t.Fatalf("one-shot: exit %d, %q", code, want)
	}
	deny := []byte(strings.ReplaceAll(e2eCases[1].in, "%CWD%", s.proj))
	wantDeny, _, _ := s.exec(t, deny, full, "hook", "claude")

	old, oldExited := startStoppedEngine(t, s, full, version)
	oldPid := old.Process.Pid

	// The hung engine: the one-shot answers, and the diagnostic says so.
	out, stderr, code := s.exec(t, in, thin, c.agent)
	if code != 0 || out != want {
		t.Fatalf("with a hung engine: exit %d, got %q, want %q\n%s", code, out, want, stderr)
	}
	if !hungPath.MatchString(stderr) {
		t.Errorf("the answer did not come through the one-shot path for a hung engine:\n%s", stderr)
	}

	// A new engine (started by that call) takes the socket over.
	var newPid int
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := hook.Ping(s.socket, version, time.Second)
		if err == nil && resp.Pid != oldPid {
			newPid = resp.Pid
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			t.Fatalf("no new engine took over (last ping: pid %d, %v)\nlog:\n%s", resp.Pid, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Its first decision compiles the policy, which may take longer than
	// the hedge (the one-shot then answers); after that it answers.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, stderr, _ = s.exec(t, in, thin, "claude")
		if out != want {
			t.Fatalf("after the take-over: got %q, want %q\n%s", out, want, stderr)
		}
		if !strings.Contains(stderr, "no engine answered") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new engine does not answer: %s", stderr)
		}
	}
	for _, tc := range []struct {
		in   []byte
		want string
	}{{in, want}, {deny, wantDeny}} {
		out, stderr, _ = s.exec(t, tc.in, thin, "claude")
		if strings.Contains(stderr, "no engine answered") {
			t.Errorf("the new engine did not answer: %s", stderr)
		}
		if out != tc.want {
			t.Errorf("through the new engine: got %q, want %q", out, tc.want)
		}
	}

	// The old engine wakes: it finds its socket taken, answers nothing and
	// exits; the new one keeps serving.
	if err := old.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-oldExited:
	case <-time.After(30 * time.Second):
		t.Fatalf("the old engine did not exit after SIGCONT")
	}
	for i := 0; i < 3; i++ {
		resp, err := hook.Ping(s.socket, version, 5*time.Second)
		if err != nil || resp.Pid != newPid {
			t.Errorf("after the old engine woke: ping answered by pid %d (%v), want the new engine %d", resp.Pid, err, newPid)
		}
	}
	out, stderr, _ = s.exec(t, in, thin, "claude")
	if out != want || strings.Contains(stderr, "no engine answered") {
		t.Errorf("after the old engine woke: got %q\n%s", out, stderr)
	}
	log, _ := os.ReadFile(logPath)
	for _, re := range []string{
		`shellgate serve\[` + strconv.Itoa(newPid) + `\]: .* took the socket over from an engine that holds it but did not answer a ping within 500ms`,
		`shellgate serve\[` + strconv.Itoa(oldPid) + `\]: .* lost the socket: the (socket|lock) .* was replaced by another engine's: exiting`,
	} {
		if !regexp.MustCompile(re).Match(log) {
			t.Errorf("the engine log has no line %s:\n%s", re, log)
		}
	}
}

// holdLocks takes the engine's lock files of s's socket, so that no engine
// can serve or take over while the benchmark runs: the engines that each
// call starts leave at once.
func holdLocks(b *testing.B, s *sandbox, names ...string) {
	if err := os.MkdirAll(filepath.Dir(s.socket), 0o700); err != nil {
		b.Fatal(err)
	}
	for _, n := range names {
		f, err := os.OpenFile(s.socket+n, os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHookThinClientHungEngine: shellgate-hook with an engine stopped
// by SIGSTOP, which keeps accepting connections in the kernel and never
// answers. The engines each call starts are kept from taking over (the
// benchmark holds the take-over lock), so every call pays the hung-engine
// path: the hedge, then the one-shot answer.
func BenchmarkHookThinClientHungEngine(b *testing.B) {
	full, thin := binaries(b)
	s := newSandbox(b)
	startStoppedEngine(b, s, full, versionOf(b, thin))
	holdLocks(b, s, ".takeover")
	benchProcess(b, s, hungPath, thin, "claude")
}

// noEnginePath is the diagnostic of a call with no engine at all.
var noEnginePath = regexp.MustCompile(`no engine answered: .*no such file or directory; answered by the one-shot .*/shellgate hook claude`)

// BenchmarkHookThinClientNoEngine: shellgate-hook with no engine: the
// connection fails at once and the one-shot answers. The engines each call
// starts are kept from serving (the benchmark holds both locks).
func BenchmarkHookThinClientNoEngine(b *testing.B) {
	_, thin := binaries(b)
	s := newSandbox(b)
	holdLocks(b, s, ".lock", ".takeover")
	benchProcess(b, s, noEnginePath, thin, "claude")
}
