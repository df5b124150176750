package serve

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/hook"
)

// TestAgentApprovals: a rule the person keeps in the agent's own settings
// turns shellgate's ask into an allow that names it (agent-approved), for
// that segment only; what shellgate denies stays denied; the same command
// from another agent, or in readonly mode, is not approved.
func TestAgentApprovals(t *testing.T) {
	ws := workspace(t)
	home := filepath.Dir(ws)
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".state"))
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(touch ok.marker)", "Bash(cat:*)", "Bash(tar:*)"]}}`)
	write(filepath.Join(home, ".codex", "rules", "default.rules"), `prefix_rule(pattern=["touch", "ok.marker"], decision="allow")`+"\n")
	write(filepath.Join(home, ".gemini", "settings.json"), `{"tools": {"allowed": ["run_shell_command(touch ok.marker)"]}}`)
	// A project's own settings do not count until trusted.
	write(filepath.Join(ws, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(mkdir:*)"]}}`)
	env := map[string]string{"HOME": home}
	type result struct {
		Action string
		Codes  []string
	}
	for _, tc := range []struct {
		agent, mode, command string
		want                 result
	}{
		{"claude", "", "touch ok.marker", result{"allow", []string{"agent-approved"}}},
		{"codex", "", "touch ok.marker", result{"allow", []string{"agent-approved"}}},
		{"gemini", "", "touch ok.marker", result{"allow", []string{"agent-approved"}}},
		{"", "", "touch ok.marker", result{"ask", []string{"not-read-only"}}},
		{"claude", hook.ModeReadonly, "touch ok.marker", result{"deny", []string{"not-read-only"}}},
		{"claude", "", "touch ok.marker; touch other", result{"ask", []string{"not-read-only"}}}, // about touch other only
		{"claude", "", "touch ok.marker > out.txt", result{"ask", []string{"redirect-write"}}},
		{"claude", "", "cat ~/.ssh/id_rsa", result{"deny", []string{"read-denied"}}},
		{"claude", "", "tar -xf x.tar -C /srv", result{"deny", []string{"write-outside-roots"}}},
		{"claude", "", "mkdir sub", result{"ask", []string{"not-read-only"}}},
	} {
		g := NewGates(hook.Flags{})
		v, err := g.Decide(context.Background(), hook.Query{Command: tc.command, Cwd: ws, Mode: tc.mode, Agent: tc.agent, AgentEnv: env})
		if err != nil {
			t.Fatalf("%s %q: %v", tc.agent, tc.command, err)
		}
		got := result{Action: v.Action}
		for _, r := range v.Reasons {
			got.Codes = append(got.Codes, r.Code)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (%s) %q (-want +got):\n%s\n%+v", tc.agent, tc.mode, tc.command, diff, v.Reasons)
		}
		if tc.command == "touch ok.marker; touch other" && len(v.Reasons) > 0 && (v.Reasons[0].Span == nil || v.Reasons[0].Span[0] != 17) {
			t.Errorf("the remaining ask is not about the second touch: %+v", v.Reasons[0])
		}
		if tc.want.Action == "allow" && tc.agent == "claude" {
			want := "touch is allowed by Claude Code's rule Bash(touch ok.marker) in " + filepath.Join(home, ".claude", "settings.json")
			if v.Reasons[0].Message != want {
				t.Errorf("message %q, want %q", v.Reasons[0].Message, want)
			}
		}
	}
}
