package agents

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claudeTerminal starts Claude Code's terminal UI in tmux, in the
// sandbox's project against srv, with the first-run questions (theme,
// folder trust, the API key) answered in ~/.claude.json as a person who
// has used it before has them.
func claudeTerminal(t *testing.T, s *sandbox, claude string, srv *modelServer, args ...string) *tmuxSession {
	t.Helper()
	tmux, err := exec.LookPath("tmux")
	requireTool(t, err == nil, "tmux (drives Claude Code's terminal) not found on PATH")
	key := "sk-ant-shellgate-e2e-dummy"
	state := map[string]any{
		"hasCompletedOnboarding": true,
		"theme":                  "dark",
		"numStartups":            5,
		"customApiKeyResponses":  map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}},
		"projects": map[string]any{s.proj: map[string]any{
			"hasTrustDialogAccepted":        true,
			"hasCompletedProjectOnboarding": true,
		}},
	}
	b, _ := json.Marshal(state)
	s.write(filepath.Join(s.home, ".claude.json"), string(b))
	env := append(append([]string{}, s.env...), claudeEnv(srv)...)
	return startTerminal(t, s, tmux, 160, env, claude, args...)
}

// claudePrompt types a prompt into Claude Code's input box and sends it.
func claudePrompt(m *tmuxSession, text string) {
	m.t.Helper()
	m.run("send-keys", "-t", "agent", "-l", text)
	m.waitFor("the typed prompt", time.Minute, func(sc string) bool { return strings.Contains(sc, text) })
	m.run("send-keys", "-t", "agent", "C-m")
}

// claudeAsks reports whether the screen shows Claude Code's permission
// question for a shell command.
func claudeAsks(sc string) bool {
	return strings.Contains(sc, "Do you want to proceed?") || strings.Contains(sc, "don't ask again")
}

// TestClaudeCodeApprovalSticks drives Claude Code's terminal UI with
// shellgate installed: shellgate asks before touch (Claude Code 2.1.332
// offers Yes and No only for a hook's ask, no "don't ask again"); the
// person answers Yes, then allows the command for good in Claude Code's
// own /permissions, which saves the rule in the project's
// .claude/settings.local.json (untracked by git: the person's own); the
// next identical command runs without a question.
func TestClaudeCodeApprovalSticks(t *testing.T) {
	claude := agentBin(t, "claude", "@anthropic-ai/claude-code")
	s := newSandbox(t)
	s.install("claude")
	const cmd = "touch approved.marker"
	srv := newAnthropicServer(t, cmd)
	srv.perTurn = true
	m := claudeTerminal(t, s, claude, srv, "--permission-mode", "default")

	m.waitFor("Claude Code's input box", agentRunTimeout, func(sc string) bool {
		return strings.Contains(sc, "? for shortcuts") || strings.Contains(sc, "│ >") || strings.Contains(sc, "❯")
	})
	claudePrompt(m, "Run the shell command the tool call gives.")
	sc := m.waitFor("Claude Code's permission question", 3*time.Minute, claudeAsks)
	t.Logf("the question:\n%s", sc)
	if s.exists("approved.marker") {
		t.Fatalf("the command ran before anyone approved it:\n%s", sc)
	}
	// Claude Code 2.1.332 offers no "don't ask again" for a hook's ask:
	// the person answers Yes for this once.
	m.run("send-keys", "-t", "agent", "1")
	waitFile(t, m, filepath.Join(s.proj, "approved.marker"), "the approved command to run")
	m.waitFor("the first turn to end", 3*time.Minute, func(sc string) bool { return srv.toolResultCount() > 0 && !claudeAsks(sc) })
	if err := os.Remove(filepath.Join(s.proj, "approved.marker")); err != nil {
		t.Fatal(err)
	}

	// The person allows it for good, in Claude Code's own /permissions:
	// Allow, "Add a new rule…", the rule, "Project settings (local)".
	claudePrompt(m, "/permissions")
	m.waitFor("the permissions dialog", time.Minute, func(sc string) bool { return strings.Contains(sc, "Add a new rule") })
	m.run("send-keys", "-t", "agent", "Down")
	m.waitFor("the rule list's focus", time.Minute, func(sc string) bool { return strings.Contains(sc, "Enter to select") })
	m.run("send-keys", "-t", "agent", "C-m")
	m.waitFor("the rule input", time.Minute, func(sc string) bool { return strings.Contains(sc, "Add allow permission rule") })
	m.run("send-keys", "-t", "agent", "-l", "Bash("+cmd+")")
	m.waitFor("the typed rule", time.Minute, func(sc string) bool { return strings.Contains(sc, "Bash("+cmd+")") })
	m.run("send-keys", "-t", "agent", "C-m")
	m.waitFor("the question where to save it", time.Minute, func(sc string) bool { return strings.Contains(sc, "Where should this rule be saved?") })
	m.run("send-keys", "-t", "agent", "C-m") // 1. Project settings (local)
	local := filepath.Join(s.proj, ".claude", "settings.local.json")
	waitFile(t, m, local, "Claude Code to save the rule")
	b, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s:\n%s", local, b)
	if !strings.Contains(string(b), "Bash("+cmd+")") {
		t.Fatalf("the rule is not in %s:\n%s", local, b)
	}
	for i := 0; i < 3 && !strings.Contains(m.screen(), "? for shortcuts"); i++ {
		m.run("send-keys", "-t", "agent", "Escape")
		time.Sleep(time.Second)
	}

	// The same command again: it runs, and no question is put.
	claudePrompt(m, "Run it once more.")
	deadline := time.Now().Add(3 * time.Minute)
	for !s.exists("approved.marker") {
		sc := m.screen()
		if claudeAsks(sc) {
			t.Fatalf("Claude Code asked again about a command the person allowed with \"don't ask again\":\n%s", sc)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the allowed command did not run again; the screen:\n%s", sc)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if got := srv.result(agentRun{}); strings.Contains(got, "shellgate") {
		t.Errorf("the second run's result mentions shellgate: %q", got)
	}
}

// waitFile waits until path exists, failing with the screen after three
// minutes.
func waitFile(t *testing.T, m *tmuxSession, path, what string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if _, err := os.Lstat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited for %s; the screen:\n%s", what, m.screen())
		}
		time.Sleep(300 * time.Millisecond)
	}
}
