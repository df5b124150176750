package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/internal/testenv"
)

// agentEnvWorkspace is a workspace whose src/.env holds a token that rg
// reads only when hidden names are shown, and an rg config (outside it)
// that shows them; the real rg confirms both.
func agentEnvWorkspace(t *testing.T) (ws, rgrc string) {
	t.Helper()
	ws = workspace(t)
	if err := os.MkdirAll(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"src/.env": "TOKEN=secret\n", "src/main.go": "package main // TOKEN\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rgrc = filepath.Join(filepath.Dir(ws), "rgrc")
	if err := os.WriteFile(rgrc, []byte("--hidden\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rg := testenv.LookPath(t, "rg")
	for _, tc := range []struct {
		config string
		secret bool
	}{{"", false}, {rgrc, true}} {
		cmd := exec.Command(rg, "TOKEN", "src")
		cmd.Dir = ws
		cmd.Env = []string{"HOME=" + filepath.Dir(ws), "RIPGREP_CONFIG_PATH=" + tc.config}
		out, _ := cmd.CombinedOutput()
		if got := strings.Contains(string(out), "secret"); got != tc.secret {
			t.Fatalf("rg with RIPGREP_CONFIG_PATH=%q printed the secret: %t, want %t:\n%s", tc.config, got, tc.secret, out)
		}
	}
	return ws, rgrc
}

// TestAgentEnvOverTheSocket: a resident engine judges rg in the agent's
// environment as the client sends it, never in its own. The engine runs
// with RIPGREP_CONFIG_PATH unset; an agent whose rg config says --hidden
// gets rg's read of src/.env judged, and a client that sends nothing of
// its environment is judged as if it might.
func TestAgentEnvOverTheSocket(t *testing.T) {
	ws, rgrc := agentEnvWorkspace(t)
	t.Setenv("RIPGREP_CONFIG_PATH", "") // the engine's own environment
	path := socketPath(t)
	ln, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, Options{Handle: NewEngine().Handle}) }()
	defer func() {
		cancel()
		<-done
	}()
	const allow, ask = `"permissionDecision":"allow"`, `"permissionDecision":"ask"`
	// The client's Flags.Env that knows rg's config says XDG_CONFIG_HOME
	// too (rg reads git's global ignore file below it), as the hook client
	// does (agentenv.Values).
	tests := []struct {
		name string
		env  map[string]string // the client's Flags.Env
		want string
	}{
		{"the agent has no rg config", map[string]string{"RIPGREP_CONFIG_PATH": "", "XDG_CONFIG_HOME": ""}, allow},
		{"the agent's rg config shows hidden files", map[string]string{"RIPGREP_CONFIG_PATH": rgrc}, ask},
		{"the client says nothing of it", map[string]string{"OTHER": "1"}, ask},
		{"the client sends no environment", nil, ask},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := hook.AskEngine(context.Background(), path, hook.Request{
				Version: hook.BuildVersion(), Op: hook.OpHook, Agent: hook.Claude,
				Flags: hook.Flags{Cwd: ws, Env: tc.env}, Payload: claudePayload(t, ws, "rg TOKEN src"),
			}, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if out := string(resp.Answer.Stdout); !strings.Contains(out, tc.want) || tc.want == ask && !strings.Contains(out, "read-denied-in-tree") {
				t.Errorf("%s, want %s (read-denied-in-tree when asked)", out, tc.want)
			}
		})
	}
}

// TestAgentEnvInProcess: the one-shot hook runs in the agent's
// environment, and takes the variables from it (hook.ParseFlags); an
// engine whose own environment says --hidden does not judge an agent's
// command by it.
func TestAgentEnvInProcess(t *testing.T) {
	ws, rgrc := agentEnvWorkspace(t)
	tests := []struct {
		name, agent, engine string // RIPGREP_CONFIG_PATH in the hook's and in the engine's environment
		want                string
	}{
		{"neither", "", "", hook.Allow},
		{"the agent's", rgrc, "", hook.Ask},
		{"the engine's only", "", rgrc, hook.Allow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("RIPGREP_CONFIG_PATH", tc.agent)
			flags, _, err := hook.ParseFlags(nil, new(strings.Builder))
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("RIPGREP_CONFIG_PATH", tc.engine)
			v, err := NewGates(flags).Decide(context.Background(), hook.Query{Command: "rg TOKEN src", Cwd: ws, Mode: hook.ModeDefault, Env: flags.Env})
			if err != nil {
				t.Fatal(err)
			}
			if v.Action != tc.want {
				t.Errorf("%s %+v, want %s", v.Action, v.Reasons, tc.want)
			}
		})
	}
}
