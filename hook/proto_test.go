package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// shortDir makes a directory whose socket paths fit the unix limit.
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "sg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func startServer(t *testing.T, path string, s *Server) <-chan error {
	t.Helper()
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve(context.Background(), ln) }()
	return done
}

func TestEngineRoundTrip(t *testing.T) {
	path := filepath.Join(shortDir(t), "run", "engine.sock")
	d := &fixed{}
	s := &Server{Version: "v1", Handle: func(ctx context.Context, req Request) Answer {
		return Handle(ctx, req.Agent, []byte(req.Payload), req.Flags, d, explain)
	}}
	done := startServer(t, path, s)

	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %04o, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(path))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("socket dir mode %04o, want 0700", di.Mode().Perm())
	}
	if _, err := Listen(path); !errors.Is(err, ErrRunning) {
		t.Errorf("second Listen: %v, want ErrRunning", err)
	}

	ctx := context.Background()
	for _, tt := range []struct {
		agent Agent
		in    []byte
		flags Flags
		want  string
	}{
		{Cursor, payload(cursorPre, "ls"), Flags{}, `{"permission":"allow"}` + "\n"},
		{Codex, payload(codexPre, "npm i"), Flags{AskAs: AskDefer}, "{}\n"},
		{Claude, []byte("{"), Flags{}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate could not decide, so the command is denied: hook payload is not a JSON object: unexpected EOF"}}` + "\n"},
	} {
		resp, err := AskEngine(ctx, path, Request{Version: "v1", Op: OpHook, Agent: tt.agent, Flags: tt.flags, Payload: string(tt.in)}, 2*time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tt.agent, err)
		}
		if diff := cmp.Diff(tt.want, string(resp.Answer.Stdout)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.agent, diff)
		}
	}
	if _, err := AskEngine(ctx, path, Request{Version: "v1", Op: OpHook, Agent: "vim"}, time.Second); err == nil || !strings.Contains(err.Error(), "unknown agent") {
		t.Errorf("unknown agent: %v", err)
	}
	if _, err := AskEngine(ctx, path, Request{Version: "v1", Op: OpPing}, time.Second); err != nil {
		t.Errorf("ping: %v", err)
	}

	// A client of another version makes the engine step down.
	_, err = AskEngine(ctx, path, Request{Version: "v2", Op: OpPing}, time.Second)
	if !errors.Is(err, ErrVersion) {
		t.Errorf("version mismatch: %v, want ErrVersion", err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("engine did not exit after a version mismatch")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
	// The lock is released: a new engine can start.
	ln, err := Listen(path)
	if err != nil {
		t.Fatalf("Listen after exit: %v", err)
	}
	ln.Close()
}

func TestEngineIdleExit(t *testing.T) {
	path := filepath.Join(shortDir(t), "engine.sock")
	done := startServer(t, path, &Server{Version: "v1", Idle: 150 * time.Millisecond,
		Handle: func(context.Context, Request) Answer { return Answer{} }})
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("engine did not exit when idle")
	}
}

func TestEngineHandlerPanic(t *testing.T) {
	path := filepath.Join(shortDir(t), "engine.sock")
	startServer(t, path, &Server{Version: "v1",
		Handle: func(context.Context, Request) Answer { panic("boom") }})
	_, err := AskEngine(context.Background(), path, Request{Version: "v1", Op: OpHook, Agent: Claude}, time.Second)
	if err == nil || !strings.Contains(err.Error(), "internal error: boom") {
		t.Errorf("got %v", err)
	}
}

func TestUnsafeSocketDir(t *testing.T) {
	dir := filepath.Join(shortDir(t), "open")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	path := filepath.Join(dir, "engine.sock")
	if _, err := Listen(path); err == nil || !strings.Contains(err.Error(), "want 0700") {
		t.Errorf("Listen in a 0755 dir: %v", err)
	}
	if _, err := AskEngine(context.Background(), path, Request{}, time.Second); err == nil || !strings.Contains(err.Error(), "want 0700") {
		t.Errorf("AskEngine in a 0755 dir: %v", err)
	}
}

func TestAskNoEngine(t *testing.T) {
	path := filepath.Join(shortDir(t), "engine.sock")
	start := time.Now()
	// A missing engine fails at once, not at the end of the dial timeout.
	if _, err := AskEngine(context.Background(), path, Request{Version: "v1", Op: OpPing}, time.Minute); err == nil {
		t.Fatal("no error without an engine")
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("a missing engine took %v to notice", d)
	}
}

func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "p", "a.rego")
	os.MkdirAll(filepath.Dir(f), 0o755)
	os.WriteFile(f, []byte("package x"), 0o644)
	a := Fingerprint(dir, filepath.Join(dir, "missing.yaml"))
	if b := Fingerprint(dir, filepath.Join(dir, "missing.yaml")); a != b {
		t.Errorf("fingerprint not stable")
	}
	os.WriteFile(f, []byte("package xy"), 0o644)
	if b := Fingerprint(dir, filepath.Join(dir, "missing.yaml")); a == b {
		t.Errorf("a changed file did not change the fingerprint")
	}
	c := Fingerprint(dir, filepath.Join(dir, "missing.yaml"))
	os.WriteFile(filepath.Join(dir, "missing.yaml"), nil, 0o644)
	if d := Fingerprint(dir, filepath.Join(dir, "missing.yaml")); c == d {
		t.Errorf("a new file did not change the fingerprint")
	}
}

func TestAskEngineSlowAnswer(t *testing.T) {
	path := filepath.Join(shortDir(t), "engine.sock")
	release := make(chan struct{})
	defer close(release)
	startServer(t, path, &Server{Version: "v1", Handle: func(context.Context, Request) Answer {
		<-release
		return Answer{}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := AskEngine(ctx, path, Request{Version: "v1", Op: OpHook, Agent: Claude}, time.Second)
	if err == nil {
		t.Fatal("no error from an engine that does not answer")
	}
	if d := time.Since(start); d > 20*time.Second { // the handler never answers
		t.Errorf("gave up after %v, want about 300ms", d)
	}
}

func TestEngineConcurrentClients(t *testing.T) {
	path := filepath.Join(shortDir(t), "engine.sock")
	d := DeciderFunc(func(_ context.Context, q Query) (Verdict, error) {
		if strings.HasPrefix(q.Command, "ls") {
			return Verdict{Action: Allow}, nil
		}
		return Verdict{Action: Deny, Reasons: []Reason{{Code: "x", Message: q.Command}}}, nil
	})
	startServer(t, path, &Server{Version: "v1", Handle: func(ctx context.Context, req Request) Answer {
		return Handle(ctx, req.Agent, []byte(req.Payload), req.Flags, d, nil)
	}})
	errs := make(chan error, 32)
	for i := 0; i < 32; i++ {
		go func() {
			cmd := fmt.Sprintf("rm file%d", i)
			want := fmt.Sprintf(`{"permission":"deny","user_message":"shellgate: denied: x: %s","agent_message":"shellgate: denied: x: %s"}`, cmd, cmd)
			if i%2 == 0 {
				cmd, want = fmt.Sprintf("ls dir%d", i), `{"permission":"allow"}`
			}
			resp, err := AskEngine(context.Background(), path, Request{Version: "v1", Op: OpHook, Agent: Cursor, Payload: string(payload(cursorPre, cmd))}, 2*time.Second)
			if err != nil {
				errs <- err
				return
			}
			var got, w map[string]any
			json.Unmarshal(resp.Answer.Stdout, &got)
			json.Unmarshal([]byte(want), &w)
			if diff := cmp.Diff(w, got); diff != "" {
				errs <- fmt.Errorf("%s (-want +got):\n%s", cmd, diff)
				return
			}
			errs <- nil
		}()
	}
	for i := 0; i < 32; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestTakeOver: an engine that holds the socket but never answers (here a
// listener nobody accepts on, as a stopped process's) is taken over; one
// that answers is not; the old one, once it serves again, finds its socket
// lost, answers nothing and leaves the new socket alone.
func TestTakeOver(t *testing.T) {
	path := filepath.Join(shortDir(t), "engine.sock")
	hung, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := hung.Lost(); err != nil {
		t.Fatalf("a fresh listener is lost: %v", err)
	}
	ln, err := TakeOver(path, "v1", 200*time.Millisecond)
	if err != nil {
		t.Fatalf("TakeOver from a silent engine: %v", err)
	}
	if !strings.Contains(ln.TookOver, "did not answer a ping within 200ms") {
		t.Errorf("TookOver = %q", ln.TookOver)
	}
	if err := hung.Lost(); err == nil || !strings.Contains(err.Error(), "replaced by another engine's") {
		t.Errorf("the old listener is not lost: %v", err)
	}
	if err := ln.Lost(); err != nil {
		t.Errorf("the new listener is lost: %v", err)
	}
	answer := func(s string) func(context.Context, Request) Answer {
		return func(context.Context, Request) Answer { return Answer{Stdout: []byte(s)} }
	}
	done := make(chan error, 1)
	go func() { done <- (&Server{Version: "v1", Handle: answer("new")}).Serve(context.Background(), ln) }()
	ask := func() string {
		t.Helper()
		resp, err := AskEngine(context.Background(), path, Request{Version: "v1", Op: OpHook, Agent: Claude}, time.Second)
		if err != nil {
			t.Fatalf("ask: %v", err)
		}
		return string(resp.Answer.Stdout)
	}
	if got := ask(); got != "new" {
		t.Errorf("answered by %q, want the new engine", got)
	}

	// The old engine wakes: it exits at once, without answering, and
	// without removing the new socket.
	var logs strings.Builder
	oldDone := make(chan error, 1)
	go func() {
		oldDone <- (&Server{Version: "v1", Handle: answer("old"), Logf: func(f string, a ...any) { fmt.Fprintf(&logs, f+"\n", a...) }}).Serve(context.Background(), hung)
	}()
	select {
	case err := <-oldDone:
		if err != nil {
			t.Errorf("old Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the old engine kept serving a socket it lost")
	}
	if !strings.Contains(logs.String(), "lost the socket") {
		t.Errorf("old engine log: %q", logs.String())
	}
	if got := ask(); got != "new" {
		t.Errorf("after the old engine left: answered by %q", got)
	}

	// A live engine keeps its socket, whatever its version.
	if _, err := TakeOver(path, "v1", time.Second); !errors.Is(err, ErrRunning) {
		t.Errorf("TakeOver from a live engine: %v, want ErrRunning", err)
	}
	if _, err := TakeOver(path, "v2", time.Second); !errors.Is(err, ErrSteppingDown) {
		t.Errorf("TakeOver from a live engine of another version: %v, want ErrSteppingDown", err)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the engine did not step down for another version")
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket was left behind: %v", err)
	}
}

// TestTakeOverOneAtATime: while one engine takes over, another does not.
func TestTakeOverOneAtATime(t *testing.T) {
	path := filepath.Join(shortDir(t), "engine.sock")
	hung, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	tk, err := lockFile(path + ".takeover")
	if err != nil {
		t.Fatal(err)
	}
	defer unlockFile(tk)
	if _, err := TakeOver(path, "v1", 100*time.Millisecond); !errors.Is(err, ErrRunning) {
		t.Errorf("TakeOver during another's: %v, want ErrRunning", err)
	}
	if err := hung.Lost(); err != nil {
		t.Errorf("the holder lost its socket: %v", err)
	}
}

// TestAskEngineAcked: an engine asked for an acknowledgement sends it as
// soon as it starts deciding, before a slow answer; a plain ask gets none.
func TestAskEngineAcked(t *testing.T) {
	path := filepath.Join(shortDir(t), "engine.sock")
	release := make(chan struct{})
	startServer(t, path, &Server{Version: "v1", Handle: func(context.Context, Request) Answer {
		<-release
		return Answer{Stdout: []byte("{}\n")}
	}})
	acked := make(chan struct{})
	done := make(chan error, 1)
	var resp Response
	go func() {
		var err error
		resp, err = AskEngineAcked(context.Background(), path, Request{Version: "v1", Op: OpHook, Agent: Cursor}, time.Second, func() { close(acked) })
		done <- err
	}()
	select {
	case <-acked:
	case err := <-done:
		t.Fatalf("answered before the acknowledgement: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no acknowledgement")
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if string(resp.Answer.Stdout) != "{}\n" || resp.Ack {
		t.Errorf("answer %+v", resp)
	}
	// A plain ask reads the answer only.
	resp, err := AskEngine(context.Background(), path, Request{Version: "v1", Op: OpHook, Agent: Cursor}, time.Second)
	if err != nil || string(resp.Answer.Stdout) != "{}\n" {
		t.Errorf("plain ask: %+v, %v", resp, err)
	}
}
