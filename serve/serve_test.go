package serve

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shellgate/shellgate/hook"
)

// socketPath is an engine socket in a fresh user-only directory with a
// short path (a unix socket path is at most ~100 bytes).
func socketPath(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "run", "engine.sock")
}

func claudePayload(t *testing.T, cwd, cmd string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"session_id": "s", "transcript_path": "/t.jsonl", "cwd": cwd, "permission_mode": "default",
		"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "tool_use_id": "toolu_1",
	})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestServe: an engine listens, answers hook calls over the socket with
// warm gates, keeps its socket from a second engine, and stops with its
// context.
func TestServe(t *testing.T) {
	ws := workspace(t)
	path := socketPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var logged atomic.Int32
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ln, Options{Handle: NewEngine().Handle, Logf: func(string, ...any) { logged.Add(1) }})
	}()
	for _, tc := range []struct{ cmd, want string }{
		{"cat notes.txt", `"permissionDecision":"allow"`},
		{"touch x", `"permissionDecision":"ask"`},
		{"cat ~/.ssh/id_rsa", `"permissionDecision":"deny"`},
	} {
		resp, err := hook.AskEngine(context.Background(), path, hook.Request{
			Version: hook.BuildVersion(), Op: hook.OpHook, Agent: hook.Claude,
			Flags: hook.Flags{Cwd: ws}, Payload: claudePayload(t, ws, tc.cmd),
		}, time.Second)
		if err != nil {
			t.Fatalf("%s: %v", tc.cmd, err)
		}
		if !strings.Contains(string(resp.Answer.Stdout), tc.want) {
			t.Errorf("%s: %s, want %s", tc.cmd, resp.Answer.Stdout, tc.want)
		}
	}
	if _, err := Listen(path); !errors.Is(err, hook.ErrRunning) {
		t.Errorf("a second engine on the socket: %v, want ErrRunning", err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not stop with its context")
	}
	if logged.Load() == 0 {
		t.Error("nothing was logged")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the socket is left after Serve: %v", err)
	}
}

// TestServeIdle: an engine with nothing to do stops after Idle.
func TestServeIdle(t *testing.T) {
	ln, err := Listen(socketPath(t))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), ln, Options{Handle: NewEngine().Handle, Idle: 100 * time.Millisecond})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an idle engine did not stop")
	}
}

// deciderFunc adapts a function to hook.Decider.
type deciderFunc func(context.Context, hook.Query) (hook.Verdict, error)

func (f deciderFunc) Decide(ctx context.Context, q hook.Query) (hook.Verdict, error) {
	return f(ctx, q)
}

// TestEngineDecider: an engine's Decider (a policy bundle's) decides every
// call, with the call's flags; without one, the gates of the flags do, and
// a config that fails to load is a deny.
func TestEngineDecider(t *testing.T) {
	ws := workspace(t)
	var flags []hook.Flags
	en := NewEngine()
	en.Decider = func(f hook.Flags) hook.Decider {
		flags = append(flags, f)
		return deciderFunc(func(context.Context, hook.Query) (hook.Verdict, error) {
			return hook.Verdict{Action: "deny", Reasons: []hook.Reason{{Code: "org-rule", Message: "the team says no"}}}, nil
		})
	}
	f := hook.Flags{Cwd: ws, Policy: []string{"/p"}}
	ans := en.Handle(context.Background(), hook.Request{Agent: hook.Claude, Flags: f, Payload: claudePayload(t, ws, "ls")})
	if !strings.Contains(string(ans.Stdout), "org-rule") || len(flags) != 1 || flags[0].Policy[0] != "/p" {
		t.Fatalf("with a Decider: %s (flags %+v)", ans.Stdout, flags)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("mode: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ans = NewEngine().Handle(context.Background(), hook.Request{Agent: hook.Claude, Flags: hook.Flags{Cwd: ws, Config: bad}, Payload: claudePayload(t, ws, "ls")})
	if !strings.Contains(string(ans.Stdout), `"permissionDecision":"deny"`) {
		t.Fatalf("a broken config: %s, want deny", ans.Stdout)
	}
}

func TestExplainExit(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		code int
		want string
	}{
		{"grep -q x f", 1, "exit 1 from grep means "},
		{"grep -q x f", 0, ""},
		{"grep -q x f", 2, "exit 2 from grep: "},
	} {
		if got := ExplainExit(hook.Query{Command: tc.cmd}, tc.code); (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("ExplainExit(%q, %d) = %q, want %q…", tc.cmd, tc.code, got, tc.want)
		}
	}
}

func TestGateMode(t *testing.T) {
	for in, want := range map[string]string{"readonly": "readonly", "default": "", "": "", "yolo": ""} {
		if got := GateMode(in); got != want {
			t.Errorf("GateMode(%q) = %q, want %q", in, got, want)
		}
	}
}
