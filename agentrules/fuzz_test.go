package agentrules

import (
	"testing"
	"unicode/utf8"

	"github.com/shellgate/shellgate/classify"
)

// FuzzParseRules feeds one text to every parser (a Claude Code rule and
// settings file, a Codex rules file, Gemini CLI's settings and policy
// files) and the rules it yields to Approve: nothing panics or hangs, an
// approved segment is one of the command's, and a command whose segments
// no allow rule matches gets nothing.
func FuzzParseRules(f *testing.F) {
	for _, s := range []string{
		"Bash(npm test)", "Bash(npm run:*)", "Bash(git * main)", `Bash(echo \*)`, "Bash", "Bash(:*)", `Bash(a\(b\))`,
		`{"permissions": {"allow": ["Bash(make:*)"], "deny": ["Bash(rm:*)"]}}`,
		`prefix_rule(pattern=["npm", "test"], decision="allow")`,
		`prefix_rule(pattern=["git", ["status", "diff"]])`,
		"def f():\n  return f()\nf()",
		`{"tools": {"allowed": ["run_shell_command(npm test)"]}}`,
		"[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"make\"\ndecision = \"allow\"\n",
	} {
		f.Add(s, "npm test && make; git push origin main")
	}
	f.Fuzz(func(t *testing.T, text, command string) {
		if len(text) > 4096 || len(command) > 4096 {
			return
		}
		rs := &Rules{}
		if r, ok, err := ParseClaudeRule(text); err == nil && ok {
			r.Action = ActionAllow
			rs.Allow = append(rs.Allow, r)
		}
		for _, p := range []func(string, []byte) ([]Rule, error){parseClaude, parseCodex, parseGeminiSettings, parseGeminiPolicy} {
			rules, err := p("fuzz", []byte(text))
			if err != nil {
				continue
			}
			for _, r := range rules {
				if r.Action == ActionAllow {
					rs.Allow = append(rs.Allow, r)
				} else if r.Action == ActionBlock {
					rs.Block = append(rs.Block, r)
				} else {
					t.Fatalf("rule %q has action %q", r.Text, r.Action)
				}
			}
		}
		if !utf8.ValidString(command) {
			return
		}
		rep := classify.Classify(command)
		m := rs.Approve(command, rep)
		for i, a := range m {
			if i < 0 || i >= len(rep.Segments) {
				t.Fatalf("approved segment %d of %d", i, len(rep.Segments))
			}
			if a.Rule == "" {
				t.Fatalf("segment %d approved by a rule with no text", i)
			}
		}
		if m2 := rs.Approve(command, rep); len(m2) != len(m) {
			t.Fatalf("not deterministic: %d then %d approvals", len(m), len(m2))
		}
	})
}
