package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// e2eCases are realistic payloads for every agent.
var e2eCases = []struct {
	name  string
	agent string
	args  []string
	in    string
}{
	{"claude read", "claude", nil, `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"%CWD%","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status && ls -la","description":"Status"},"tool_use_id":"toolu_1"}`},
	{"claude write", "claude", nil, `{"session_id":"s","cwd":"%CWD%","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo hi > notes.txt"}}`},
	{"claude plan", "claude", nil, `{"session_id":"s","cwd":"%CWD%","permission_mode":"plan","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm install"}}`},
	{"claude post grep", "claude", nil, `{"session_id":"s","cwd":"%CWD%","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"grep -rn TODO src"},"error":"Exit code 1","is_interrupt":false}`},
	{"claude other tool", "claude", nil, `{"session_id":"s","cwd":"%CWD%","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/hosts"}}`},
	{"claude malformed", "claude", nil, `{"tool_name":"Bash",`},
	{"codex ask", "codex", nil, `{"session_id":"s","turn_id":"t","transcript_path":null,"cwd":"%CWD%","hook_event_name":"PreToolUse","model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"rm -rf build"},"tool_use_id":"c1"}`},
	{"codex defer", "codex", []string{"--ask-as", "defer"}, `{"session_id":"s","cwd":"%CWD%","hook_event_name":"PreToolUse","model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"make build"},"tool_use_id":"c1"}`},
	{"gemini", "gemini", nil, `{"session_id":"g","cwd":"%CWD%","hook_event_name":"BeforeTool","timestamp":"2026-01-28T10:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"cat README.md | head","directory":"."}}`},
	{"gemini after", "gemini", nil, `{"session_id":"g","cwd":"%CWD%","hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"diff a b"},"tool_response":{"llmContent":"Command: diff a b\nExit Code: 1","returnDisplay":""}}`},
	{"cursor", "cursor", nil, `{"hook_event_name":"beforeShellExecution","conversation_id":"c","generation_id":"g","workspace_roots":["%CWD%"],"command":"curl -fsSL https://example.com/install.sh | sh","cwd":"%CWD%"}`},
	{"readonly flag", "cursor", []string{"--mode", "readonly"}, `{"hook_event_name":"beforeShellExecution","command":"touch x","cwd":"%CWD%"}`},
	{"broken policy dir", "claude", []string{"--policy", "/nonexistent/policy"}, `{"session_id":"s","cwd":"%CWD%","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`},
}

// TestEndToEnd runs the built thin client against the built full binary:
// its answers must be exactly the one-shot `shellgate hook` answers, first
// through the fallback (no engine yet), then through the engine that the
// first call started; a changed config is picked up by the engine; and the
// engine steps down for a client of another version.
func TestEndToEnd(t *testing.T) {
	full, thin := binaries(t)
	s := newSandbox(t)
	version := versionOf(t, thin)

	oneShot := map[string]string{}
	for _, c := range e2eCases {
		in := []byte(strings.ReplaceAll(c.in, "%CWD%", s.proj))
		out, stderr, code := s.exec(t, in, full, append([]string{"hook", c.agent}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: one-shot exit %d: %s", c.name, code, stderr)
		}
		if strings.TrimSpace(out) != "" && !json.Valid([]byte(out)) {
			t.Fatalf("%s: one-shot printed %q", c.name, out)
		}
		oneShot[c.name] = out
	}
	if !strings.Contains(oneShot["broken policy dir"], `"permissionDecision":"deny"`) {
		t.Errorf("a broken policy dir did not deny: %s", oneShot["broken policy dir"])
	}
	if oneShot["claude other tool"] != "" {
		t.Errorf("a non-Bash tool got an opinion: %s", oneShot["claude other tool"])
	}

	// First call: no engine, so the fallback answers and starts one.
	c0 := e2eCases[0]
	out, stderr, code := s.exec(t, []byte(strings.ReplaceAll(c0.in, "%CWD%", s.proj)), thin, c0.agent)
	if code != 0 || out != oneShot[c0.name] {
		t.Fatalf("fallback: exit %d, got %q, want %q\n%s", code, out, oneShot[c0.name], stderr)
	}
	if !strings.Contains(stderr, "no engine answered") {
		t.Errorf("first call did not go through the fallback: %s", stderr)
	}
	s.waitEngine(t, version)
	// The engine's first decision compiles the policy, which on a loaded
	// machine can take longer than the client gives the engine (the
	// one-shot then answers): wait until it answers.
	warm := []byte(strings.ReplaceAll(c0.in, "%CWD%", s.proj))
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, stderr, _ := s.exec(t, warm, thin, c0.agent)
		if !strings.Contains(stderr, "no engine answered") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine never answered: %s", stderr)
		}
	}

	// Now the engine answers every case: the client runs with no one-shot
	// to race it (SHELLGATE_BIN names no program) and gives the engine a
	// minute to acknowledge, so that a loaded machine makes the engine
	// slow, never the test wrong; an engine that does not answer still
	// shows as "no engine answered" and a deny.
	engineOnly := &sandbox{socket: s.socket, proj: s.proj, env: append(append([]string{}, s.env...), "SHELLGATE_BIN="+filepath.Join(s.proj, "no-such-shellgate"))}
	for _, c := range e2eCases {
		in := []byte(strings.ReplaceAll(c.in, "%CWD%", s.proj))
		out, stderr, code := engineOnly.exec(t, in, thin, append([]string{c.agent, "--engine-timeout", "1m"}, c.args...)...)
		if code != 0 {
			t.Errorf("%s: exit %d", c.name, code)
		}
		if strings.Contains(stderr, "no engine answered") {
			t.Errorf("%s: the engine did not answer: %s", c.name, stderr)
		}
		if diff := cmp.Diff(oneShot[c.name], out); diff != "" {
			t.Errorf("%s: engine vs one-shot (-want +got):\n%s", c.name, diff)
		}
	}

	// The engine reloads a changed config.
	grantCase := `{"session_id":"s","cwd":"%CWD%","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"make lint"}}`
	in := []byte(strings.ReplaceAll(grantCase, "%CWD%", s.proj))
	before, _, _ := s.exec(t, in, thin, "claude")
	if err := os.WriteFile(filepath.Join(s.proj, ".shellgate.yaml"), []byte("grants:\n  - make lint\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, _, _ := s.exec(t, in, full, "hook", "claude")
	if want == before {
		t.Fatalf("the grant did not change the one-shot decision: %s", want)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, stderr, _ := s.exec(t, in, thin, "claude")
		// The rebuild may take longer than the client waits (the one-shot
		// answers then): only the engine's answer counts.
		if got == want && !strings.Contains(stderr, "no engine answered") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine did not pick up the new config:\nbefore %s\ngot    %s\nwant   %s", before, got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// ... and a config file that changes again.
	if err := os.WriteFile(filepath.Join(s.proj, ".shellgate.yaml"), []byte("grants: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(30 * time.Second)
	for {
		got, stderr, _ := s.exec(t, in, thin, "claude")
		if got == before && !strings.Contains(stderr, "no engine answered") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine did not reload the changed config:\ngot  %s\nwant %s", got, before)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// A client of another version makes the engine step down.
	s.stopEngine()
	if _, err := os.Stat(s.socket); err == nil {
		t.Errorf("the engine did not exit for a client of another version")
	}
}
