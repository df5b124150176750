package gate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/internal/testenv"
	"github.com/shellgate/shellgate/policy"
)

// TestDecideInTheAgentsEnv: rg reads hidden names when the environment it
// runs in names an rg config that says so (RIPGREP_CONFIG_PATH). Decide
// judges in the environment the request says, else the gate's host
// environment, else (WithEnvFromRequests) in one it does not know; Run in
// the environment its runner gives the command, which the real rg then
// runs with.
func TestDecideInTheAgentsEnv(t *testing.T) {
	rg := testenv.LookPath(t, "rg")
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	for name, body := range map[string]string{"ws/.git/HEAD": "ref: refs/heads/main\n", "ws/src/.env": "TOKEN=secret\n",
		"ws/src/main.go": "package main // TOKEN\n", "rgrc": "--hidden\n"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", filepath.Join(dir, "home"))
	rgrc := filepath.Join(dir, "rgrc")
	host := func(config string) []string {
		return []string{"PATH=" + filepath.Dir(rg) + ":/usr/bin:/bin", "HOME=" + filepath.Join(dir, "home"), "RIPGREP_CONFIG_PATH=" + config}
	}
	const cmd = "rg TOKEN src"
	// A request that knows rg's config also says XDG_CONFIG_HOME (rg reads
	// git's global ignore file below it), as the hook client does
	// (agentenv.Values sends every variable the catalog names).
	tests := []struct {
		name string
		opts []Option
		env  map[string]string // the request's
		want policy.Action
	}{
		{"the host has no config", []Option{WithEnv(host(""), nil, nil)}, nil, policy.Allow},
		{"the host's config shows hidden files", []Option{WithEnv(host(rgrc), nil, nil)}, nil, policy.Ask},
		{"the request's environment wins", []Option{WithEnv(host(rgrc), nil, nil)}, map[string]string{"RIPGREP_CONFIG_PATH": "", "XDG_CONFIG_HOME": ""}, policy.Allow},
		{"the request's config", []Option{WithEnv(host(""), nil, nil)}, map[string]string{"RIPGREP_CONFIG_PATH": rgrc}, policy.Ask},
		{"a request that says nothing of it", []Option{WithEnv(host(""), nil, nil)}, map[string]string{}, policy.Ask},
		{"env from requests, none given", []Option{WithEnv(host(""), nil, nil), WithEnvFromRequests()}, nil, policy.Ask},
		{"env from requests, not set", []Option{WithEnv(host(rgrc), nil, nil), WithEnvFromRequests()}, map[string]string{"RIPGREP_CONFIG_PATH": "", "XDG_CONFIG_HOME": ""}, policy.Allow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate(t, ws, tc.opts...)
			d, err := g.Decide(context.Background(), Request{Command: cmd, Shell: "bash", Env: tc.env})
			if err != nil {
				t.Fatal(err)
			}
			if d.Action != tc.want {
				t.Errorf("%s %v, want %s", d.Action, d.Codes(), tc.want)
			}
		})
	}

	// Run judges in the runner's environment, whatever the request says:
	// an allow list that drops the variable makes rg skip .env, and the
	// real rg does; one that keeps it is asked, and nothing runs.
	runs := []struct {
		name   string
		allow  []string
		status Status
		secret bool
	}{
		{"the runner drops the config", []string{"PATH", "HOME"}, StatusOK, false},
		{"the runner keeps the config", nil, StatusError, false},
	}
	for _, tc := range runs {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate(t, ws, WithEnv(host(rgrc), tc.allow, nil))
			res := g.Run(context.Background(), Request{Command: cmd, Sandbox: execution.SandboxFullAccess, Env: map[string]string{"RIPGREP_CONFIG_PATH": ""}})
			if res.Status != tc.status {
				t.Fatalf("status %s (%s), want %s", res.Status, res.Message, tc.status)
			}
			if tc.status == StatusError && res.Code != CodeNotApproved {
				t.Errorf("code %s, want %s", res.Code, CodeNotApproved)
			}
			out := ""
			if res.Output != nil {
				out = res.Output.Head + res.Output.Tail
			}
			if got := strings.Contains(out, "secret"); got != tc.secret || tc.status == StatusOK && !strings.Contains(out, "main.go") {
				t.Errorf("output %q", out)
			}
		})
	}
}
