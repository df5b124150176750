package agents

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// modeCase is one command of the mode matrix and how to tell it ran.
type modeCase struct {
	name string
	cmd  string
	// noHook removes the hook's binaries first (an installed hook that
	// cannot run).
	noHook bool
	ran    func(s *sandbox, srv *modelServer, hits *atomic.Int32) bool
}

func modeCases(probe string) []modeCase {
	return []modeCase{
		// The listing in a tool result: an agent may put the folder's
		// names in its first request by itself (Gemini CLI does).
		{name: "read-only", cmd: "ls", ran: func(s *sandbox, srv *modelServer, _ *atomic.Int32) bool {
			srv.mu.Lock()
			defer srv.mu.Unlock()
			for _, r := range srv.results {
				if strings.Contains(r, s.token) {
					return true
				}
			}
			return false
		}},
		{name: "write", cmd: "touch mode.marker", ran: func(s *sandbox, _ *modelServer, _ *atomic.Int32) bool { return s.exists("mode.marker") }},
		{name: "secret read", cmd: "cat ~/.ssh/id_rsa", ran: func(s *sandbox, srv *modelServer, _ *atomic.Int32) bool { return srv.saw(s.secret) }},
		{name: "network", cmd: "curl -s " + probe, ran: func(_ *sandbox, _ *modelServer, hits *atomic.Int32) bool { return hits.Load() > 0 }},
		{name: "hook missing", cmd: "touch nohook.marker", noHook: true, ran: func(s *sandbox, _ *modelServer, _ *atomic.Int32) bool { return s.exists("nohook.marker") }},
	}
}

// outcome says what happened to a command: "ran", or "refused: " and
// what the model was told, or that nobody answered.
func outcome(ran bool, srv *modelServer, run agentRun) string {
	if ran {
		return "ran"
	}
	srv.mu.Lock()
	results := append([]string(nil), srv.results...)
	calls := srv.toolCalls
	srv.mu.Unlock()
	switch {
	case calls == 0:
		return "no shell call: the agent offered the model no shell tool"
	case len(results) == 0 && run.stopped:
		return "waited for a person (stopped by the test)"
	case len(results) == 0:
		return "not run, no result"
	}
	r := strings.Join(strings.Fields(results[len(results)-1]), " ")
	if len(r) > 110 {
		r = r[:110] + "…"
	}
	return "refused: " + r
}

// TestModeMatrix runs every permission mode of Claude Code and Gemini CLI
// on a read-only command, a write, a secret read, a network call and a
// write with the hook's binaries gone, with shellgate installed, and
// prints what really ran. It fails when a command shellgate asks about or
// denies ran. It takes minutes: set SHELLGATE_MODE_MATRIX=1 to run it.
func TestModeMatrix(t *testing.T) {
	modeMatrixOnly(t)
	var hits atomic.Int32
	probe := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(probe.Close)
	var rows []string
	add := func(agent, mode string, c modeCase, got string) {
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | `%s` | %s |", agent, mode, c.name, c.cmd, got))
		if got == "ran" && c.name != "read-only" {
			t.Errorf("%s %s: %s %q ran", agent, mode, c.name, c.cmd)
		}
	}
	claude := agentBin(t, "claude", "@anthropic-ai/claude-code")
	for _, mode := range []string{"default", "plan", "acceptEdits", "auto", "dontAsk", "bypassPermissions"} {
		for _, c := range modeCases(probe.URL + "/probe") {
			hits.Store(0)
			s := newSandbox(t)
			s.install("claude")
			if c.noHook {
				s.removeBinaries()
			}
			srv := newAnthropicServer(t, c.cmd)
			run := s.runAgent(claude, []string{"-p", "Run the shell command the tool call gives.", "--output-format", "json", "--permission-mode", mode}, claudeEnv(srv), nil)
			add("Claude Code 2.1.332", mode, c, outcome(c.ran(s, srv, &hits), srv, run))
		}
	}
	gemini := agentBin(t, "gemini", "@google/gemini-cli")
	for _, mode := range []string{"default", "auto_edit", "yolo", "plan"} {
		for _, c := range modeCases(probe.URL + "/probe") {
			hits.Store(0)
			s := geminiSandbox(t)
			s.install("gemini")
			if c.noHook {
				s.removeBinaries()
			}
			srv := newGeminiServer(t, c.cmd)
			run := s.runAgent(gemini, []string{"-p", "Run the shell command the tool call gives.", "--output-format", "json", "--approval-mode", mode, "-m", "gemini-2.5-flash"}, geminiEnv(srv),
				func(stderr string) bool { return strings.Contains(stderr, "shellgate: a person must approve") })
			add("Gemini CLI 0.61", mode, c, outcome(c.ran(s, srv, &hits), srv, run))
		}
	}
	t.Logf("\n| agent | mode | case | command | what happened |\n|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}
