package agents

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClaudeCodeAutoModeHookAsk checks what shellgate's no-person rule for
// Claude Code's auto mode rests on, with the real terminal UI: a
// PreToolUse hook (a plain script, not shellgate) that answers ask in
// auto mode. It reports whether Claude Code puts the question to the
// person, runs the command anyway, or refuses it.
//
// It checks Claude Code, not shellgate, and takes a minute: it runs with
// SHELLGATE_MODE_MATRIX=1.
func TestClaudeCodeAutoModeHookAsk(t *testing.T) {
	modeMatrixOnly(t)
	claude := agentBin(t, "claude", "@anthropic-ai/claude-code")
	s := newSandbox(t)
	hookCmd := `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"probe-hook-asks"}}'`
	s.write(filepath.Join(s.proj, ".claude", "settings.json"), `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":`+jsonString(hookCmd)+`}]}]}}`)
	srv := newAnthropicServer(t, "touch auto.marker")
	srv.perTurn = true
	m := claudeTerminal(t, s, claude, srv, "--permission-mode", "auto")
	m.waitFor("Claude Code's input box", agentRunTimeout, func(sc string) bool { return strings.Contains(sc, "? for shortcuts") || strings.Contains(sc, "❯") })
	claudePrompt(m, "Run the shell command the tool call gives.")
	deadline := time.Now().Add(3 * time.Minute)
	for {
		sc := m.screen()
		switch {
		case s.exists("auto.marker"):
			t.Fatalf("auto mode ran a command its hook asked about, without a question:\n%s", sc)
		case claudeAsks(sc):
			t.Logf("auto mode puts the hook's ask to the person:\n%s", sc)
			return
		case srv.toolResultCount() > 0:
			t.Logf("auto mode refused the hook's ask without a question; the model got %q:\n%s", srv.result(agentRun{}), sc)
			return
		case time.Now().After(deadline):
			t.Fatalf("nothing happened; the screen:\n%s", sc)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// modeMatrixOnly skips a test that checks the agents' own behaviour in
// every mode unless SHELLGATE_MODE_MATRIX is set: minutes of CI for what
// changes only with an agent's version.
func modeMatrixOnly(t *testing.T) {
	t.Helper()
	if os.Getenv("SHELLGATE_MODE_MATRIX") == "" {
		t.Skip("set SHELLGATE_MODE_MATRIX=1 to check the agents' own behaviour in every mode")
	}
}

func jsonString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestClaudeCodeHeadlessHookAsk: the same hook (a plain script that asks)
// in `claude -p`, in each mode shellgate treats as putting no question to
// a person: what Claude Code does with an ask nobody can answer.
// It fails when one runs the command. It runs with SHELLGATE_MODE_MATRIX=1.
func TestClaudeCodeHeadlessHookAsk(t *testing.T) {
	modeMatrixOnly(t)
	claude := agentBin(t, "claude", "@anthropic-ai/claude-code")
	hookCmd := `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"probe-hook-asks"}}'`
	for _, mode := range []string{"auto", "dontAsk", "bypassPermissions"} {
		s := newSandbox(t)
		s.write(filepath.Join(s.proj, ".claude", "settings.json"), `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":`+jsonString(hookCmd)+`}]}]}}`)
		srv := newAnthropicServer(t, "touch headless.marker")
		run := s.runAgent(claude, []string{"-p", "Run the shell command the tool call gives.", "--output-format", "json", "--permission-mode", mode}, claudeEnv(srv), nil)
		ran := s.exists("headless.marker")
		t.Logf("%s: %s", mode, outcome(ran, srv, run))
		if ran {
			t.Errorf("claude -p --permission-mode %s ran a command its hook asked about", mode)
		}
	}
}
