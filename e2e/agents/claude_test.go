package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// claudeEnv points Claude Code at the test's model server and turns off
// everything that would talk to anything else.
func claudeEnv(srv *modelServer) []string {
	return []string{
		"ANTHROPIC_BASE_URL=" + srv.url,
		"ANTHROPIC_API_KEY=sk-ant-shellgate-e2e-dummy",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_BUG_COMMAND=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		// bypassPermissions is refused to root outside a sandbox; the
		// tests run in a throwaway HOME (CI runs as root).
		"IS_SANDBOX=1",
	}
}

// claudeResult is the part of `claude -p --output-format json` the tests
// read.
type claudeResult struct {
	Type    string `json:"type"`
	IsError bool   `json:"is_error"`
	Result  string `json:"result"`
}

// runClaude runs `claude -p` headless in the sandbox's project with the
// given permission mode ("" for the default) against srv.
func runClaude(t *testing.T, s *sandbox, claude string, srv *modelServer, mode string) agentRun {
	t.Helper()
	args := []string{"-p", "Run the shell command the tool call gives.", "--output-format", "json"}
	if mode != "" {
		args = append(args, "--permission-mode", mode)
	}
	run := s.runAgent(claude, args, claudeEnv(srv), nil)
	t.Logf("claude -p (%s) took %v", modeName(mode), run.took.Round(10e6))
	if run.err != nil {
		t.Fatalf("claude -p: %v\nstdout:\n%s\nstderr:\n%s", run.err, run.stdout, run.stderr)
	}
	var res claudeResult
	if err := json.Unmarshal([]byte(run.stdout), &res); err != nil || res.Type != "result" {
		t.Fatalf("claude -p printed no result (%v)\nstdout:\n%s\nstderr:\n%s", err, run.stdout, run.stderr)
	}
	if res.IsError {
		t.Fatalf("claude -p ended in an error: %s\nstderr:\n%s", res.Result, run.stderr)
	}
	return run
}

func modeName(mode string) string {
	if mode == "" {
		return "default"
	}
	return mode
}

// TestClaudeCode drives the real Claude Code with shellgate installed by
// `shellgate install claude`.
func TestClaudeCode(t *testing.T) {
	claude := agentBin(t, "claude", "@anthropic-ai/claude-code")
	t.Logf("Claude Code %s", newSandbox(t).agentVersion(claude))

	t.Run("install writes the fail-closed setting", func(t *testing.T) {
		s := newSandbox(t)
		out := s.install("claude")
		if !strings.Contains(out, "\nfail-closed: ") {
			t.Errorf("install does not say the hook is fail-closed:\n%s", out)
		}
		b, err := os.ReadFile(filepath.Join(s.proj, ".claude", "settings.json"))
		if err != nil {
			t.Fatal(err)
		}
		var st struct {
			Hooks map[string][]struct {
				Matcher string           `json:"matcher"`
				Hooks   []map[string]any `json:"hooks"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		pre := st.Hooks["PreToolUse"]
		if len(pre) != 1 || len(pre[0].Hooks) != 1 || pre[0].Hooks[0]["onFailure"] != "block" {
			t.Errorf("PreToolUse entry without onFailure block:\n%s", b)
		}
	})

	t.Run("an allowed ls runs", func(t *testing.T) {
		s := newSandbox(t)
		s.install("claude")
		srv := newAnthropicServer(t, "ls")
		run := runClaude(t, s, claude, srv, "")
		if got := srv.result(run); !strings.Contains(got, s.token) {
			t.Errorf("the ls result the model got does not list %s: %q", s.token, got)
		}
	})

	t.Run("shellgate's allow runs what Claude Code would ask about", func(t *testing.T) {
		// touch is not read-only: Claude Code asks before it, and a
		// headless run cannot ask. A user grant makes shellgate allow it.
		s := newSandbox(t)
		s.write(filepath.Join(s.home, ".config", "shellgate", "config.yaml"), "grants:\n  - touch granted.marker\n")
		if out := s.shellgate("check", "touch granted.marker"); !strings.HasPrefix(out, "allow") {
			t.Fatalf("the grant does not allow: %s", out)
		}
		srv := newAnthropicServer(t, "touch granted.marker")
		// Without the hook, Claude Code does not run it...
		runClaude(t, s, claude, srv, "")
		if s.exists("granted.marker") {
			t.Fatalf("Claude Code ran touch headless without any hook; the test proves nothing")
		}
		// ... with it, shellgate's allow lets it run.
		s.install("claude")
		srv = newAnthropicServer(t, "touch granted.marker")
		run := runClaude(t, s, claude, srv, "")
		if !s.exists("granted.marker") {
			t.Errorf("the granted touch did not run; the model got: %q", srv.result(run))
		}
	})

	t.Run("a denied read never reaches the model", func(t *testing.T) {
		s := newSandbox(t)
		s.install("claude")
		srv := newAnthropicServer(t, "cat ~/.ssh/id_rsa")
		// bypassPermissions: Claude Code itself would run it; only the
		// hook stands in the way.
		run := runClaude(t, s, claude, srv, "bypassPermissions")
		got := srv.result(run)
		if srv.saw(s.secret) {
			t.Errorf("the decoy key reached the model server; tool result %q", got)
		}
		if !strings.Contains(got, "shellgate: denied") || !strings.Contains(got, "read-denied") {
			t.Errorf("the model was not told shellgate's reason: %q", got)
		}
	})

	t.Run("an asked command does not run headless", func(t *testing.T) {
		s := newSandbox(t)
		s.install("claude")
		srv := newAnthropicServer(t, "touch asked.marker")
		run := runClaude(t, s, claude, srv, "")
		got := srv.result(run)
		if s.exists("asked.marker") {
			t.Errorf("the asked touch ran headless; the model got %q", got)
		}
		if !strings.Contains(got, "shellgate: a person must approve") {
			t.Errorf("the model was not told shellgate's reason: %q", got)
		}
	})

	t.Run("a command the person allowed in Claude Code's settings runs headless", func(t *testing.T) {
		// The person's own rule (user settings): shellgate's ask becomes
		// an allow, for that command only.
		s := newSandbox(t)
		s.write(filepath.Join(s.home, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(touch allowed.marker)"]}}`)
		s.install("claude")
		srv := newAnthropicServer(t, "touch allowed.marker")
		run := runClaude(t, s, claude, srv, "")
		if !s.exists("allowed.marker") {
			t.Errorf("the allowlisted touch did not run headless; the model got %q", srv.result(run))
		}
		// The rule approves its own segment, not what is chained to it.
		srv = newAnthropicServer(t, "touch allowed.marker; touch chained.marker")
		run = runClaude(t, s, claude, srv, "")
		if got := srv.result(run); s.exists("chained.marker") || !strings.Contains(got, "shellgate: a person must approve") {
			t.Errorf("a command chained to the allowlisted one was not refused; the model got %q", got)
		}
	})

	// A permission mode that puts no question to a person: shellgate
	// denies what it would ask, and says why.
	for _, mode := range []string{"bypassPermissions", "dontAsk", "auto"} {
		t.Run("an ask is a deny in "+mode, func(t *testing.T) {
			s := newSandbox(t)
			s.install("claude")
			srv := newAnthropicServer(t, "touch asked.marker")
			run := runClaude(t, s, claude, srv, mode)
			got := srv.result(run)
			if s.exists("asked.marker") {
				t.Errorf("the asked touch ran in %s; the model got %q", mode, got)
			}
			if !strings.Contains(got, "shellgate: denied: no-person") {
				t.Errorf("the model was not told shellgate's reason: %q", got)
			}
		})
	}

	t.Run("a hook that cannot run blocks", func(t *testing.T) {
		s := newSandbox(t)
		s.install("claude")
		s.removeBinaries()
		srv := newAnthropicServer(t, "touch failclosed.marker")
		run := runClaude(t, s, claude, srv, "bypassPermissions")
		got := srv.result(run)
		if s.exists("failclosed.marker") {
			t.Errorf("the command ran although the hook could not: %q", got)
		}
		if !strings.Contains(got, "onFailure") {
			t.Errorf("the block does not come from onFailure: %q", got)
		}
	})

	t.Run("without onFailure a hook that cannot run lets the command run", func(t *testing.T) {
		// What the setting guards against: Claude Code's default.
		s := newSandbox(t)
		s.install("claude")
		path := filepath.Join(s.proj, ".claude", "settings.json")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		without := strings.Replace(string(b), `,
            "onFailure": "block"`, "", 1)
		if without == string(b) {
			t.Fatalf("no onFailure to remove in:\n%s", b)
		}
		s.write(path, without)
		s.removeBinaries()
		srv := newAnthropicServer(t, "touch failopen.marker")
		run := runClaude(t, s, claude, srv, "bypassPermissions")
		if !s.exists("failopen.marker") {
			t.Errorf("Claude Code no longer runs a command whose hook cannot run (fail-open default); the model got %q", srv.result(run))
		}
	})
}
