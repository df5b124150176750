package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEndToEndTrust drives the built thin client and the real resident
// engine: a repository's own grant does not apply until the user trusts
// it, applies at the very next call once trusted, and stops applying at
// the very next call after an edit; a config made stricter denies at the
// very next call. No call waits: the engine checks its inputs on every
// decision.
func TestEndToEndTrust(t *testing.T) {
	full, thin := binaries(t)
	s := newSandbox(t)
	version := versionOf(t, thin)
	cfg := filepath.Join(s.proj, ".shellgate.yaml")
	write := func(p, content string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A grant with no wildcard over code: a project's grant, even trusted,
	// never allows code through one (python3 ** on python3 -c CODE).
	write(cfg, "grants: [\"python3 -m pytest **\"]\n")
	write(filepath.Join(s.proj, "notes.txt"), "n\n")
	payload := func(cmd string) []byte {
		b, _ := json.Marshal(map[string]any{
			"session_id": "s", "cwd": s.proj, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": cmd},
		})
		return b
	}
	type answer struct {
		Out struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	ask := func(cmd string) answer {
		t.Helper()
		// This test is about what the engine decides, not how fast: a
		// generous --engine-timeout keeps a loaded machine from sending
		// the call to the one-shot path (hung_test.go covers that path).
		out, stderr, code := s.exec(t, payload(cmd), thin, "--engine-timeout", "20s", "claude")
		if code != 0 || strings.Contains(stderr, "no engine answered") {
			t.Fatalf("%s: exit %d, the engine did not answer: %s", cmd, code, stderr)
		}
		var a answer
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatalf("%s: %q: %v", cmd, out, err)
		}
		return a
	}
	// Start the engine (the first call falls back to the one-shot path).
	s.exec(t, payload("ls"), thin, "claude")
	s.waitEngine(t, version)

	py := `python3 -m pytest -x tests`
	check := func(state, want string, untrusted bool) {
		t.Helper()
		a := ask(py)
		if a.Out.Decision != want || strings.Contains(a.Out.Reason, "project-config-untrusted") != untrusted {
			t.Errorf("%s: %s → %s %q, want %s (project-config-untrusted: %v)", state, py, a.Out.Decision, a.Out.Reason, want, untrusted)
		}
	}
	check("untrusted", "ask", true)
	if out, stderr, code := s.exec(t, nil, full, "trust"); code != 0 {
		t.Fatalf("shellgate trust: exit %d\n%s%s", code, out, stderr)
	}
	check("trusted", "allow", false)
	write(cfg, "grants: [\"python3 -m pytest **\"]\n# edited\n")
	check("edited", "ask", true)

	// Stricter: the very next decision denies.
	if a := ask("cat notes.txt"); a.Out.Decision != "allow" {
		t.Fatalf("cat notes.txt before: %+v", a)
	}
	write(cfg, "deny_reads: [notes.txt]\n")
	if a := ask("cat notes.txt"); a.Out.Decision != "deny" {
		t.Errorf("cat notes.txt right after the config was made stricter: %+v, want deny", a)
	}
}
