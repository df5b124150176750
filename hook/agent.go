package hook

import (
	"fmt"
	"strings"
)

// Agent names a coding agent whose hook protocol shellgate speaks.
type Agent string

// The agents shellgate speaks to.
const (
	// Claude is Claude Code: PreToolUse (tool "Bash") and
	// PostToolUse/PostToolUseFailure.
	Claude Agent = "claude"
	// Codex is OpenAI Codex: PreToolUse (tool "Bash") in .codex/hooks.json.
	// It cannot ask a person from a hook.
	Codex Agent = "codex"
	// Gemini is Gemini CLI: BeforeTool for the tool "run_shell_command".
	// A hook's "decision": "ask" makes it show its own confirmation.
	Gemini Agent = "gemini"
	// Cursor is Cursor: beforeShellExecution in .cursor/hooks.json.
	Cursor Agent = "cursor"
)

// Agents lists every supported agent, in the order the help shows them.
var Agents = []Agent{Claude, Codex, Gemini, Cursor}

// ParseAgent returns the agent called name (case-insensitive).
func ParseAgent(name string) (Agent, error) {
	for _, a := range Agents {
		if strings.EqualFold(name, string(a)) {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown agent %q (want one of %s)", name, agentList())
}

func agentList() string {
	s := make([]string, len(Agents))
	for i, a := range Agents {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

// CanAsk reports whether the agent's hook protocol can hand a decision to a
// person. Codex cannot: an ask must become a deny or a defer.
func (a Agent) CanAsk() bool { return a == Claude || a == Cursor || a == Gemini }

// AskAsApplies reports whether --ask-as changes what an ask becomes for the
// agent: for Codex, which cannot ask, and for Gemini CLI, whose own
// confirmation is the default. Claude Code and Cursor always ask.
func (a Agent) AskAsApplies() bool { return a == Codex || a == Gemini }
