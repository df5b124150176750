package hook

import "context"

// Actions a Verdict carries; they match the policy's actions.
const (
	Allow = "allow"
	Ask   = "ask"
	Deny  = "deny"
)

// Modes a Query carries; they match the gate's modes.
const (
	// ModeDefault asks a person for anything not proven safe.
	ModeDefault = "default"
	// ModeReadonly runs only reversible, station-clean commands and denies
	// everything else (a verifier agent, or Claude Code in plan mode).
	ModeReadonly = "readonly"
)

// Query is what a hook asks the Decider: one command, where it runs and in
// which mode.
type Query struct {
	Command string `json:"command"`
	// Cwd is the directory the command runs in ("" when the agent did not
	// say; the Decider must then not assume one).
	Cwd string `json:"cwd,omitempty"`
	// Mode is ModeDefault or ModeReadonly.
	Mode string `json:"mode"`
	// Shell is the shell the agent runs the command in, "" when not known
	// (see ShellFor).
	Shell string `json:"shell,omitempty"`
	// Env is what is known of the agent's environment (Flags.Env): the
	// values of the variables it lists, "" for one not set. Nil: the
	// Decider's own environment is the agent's (a hook run in process).
	Env map[string]string `json:"env,omitempty"`
	// Agent is the agent whose hook asks ("claude", "codex", "gemini"),
	// and AgentEnv where it keeps its settings (Flags.AgentEnv): the
	// Decider may count what the person allowed in them (package
	// agentrules). Empty: no agent's rules count.
	Agent    string            `json:"agent,omitempty"`
	AgentEnv map[string]string `json:"agent_env,omitempty"`
}

// Reason says why a command got its action. Code is a stable lower-case
// identifier (redirect-write, find-exec); Message is for a person; Span, when
// set, is the [start, end) byte range of the command it is about.
type Reason struct {
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Span    *[2]int `json:"span,omitempty"`
}

// Verdict is a Decider's answer.
type Verdict struct {
	// Action is Allow, Ask or Deny. Anything else is treated as Deny.
	Action  string   `json:"action"`
	Reasons []Reason `json:"reasons,omitempty"`
}

// Decider decides whether a command may run. The gate is the real one; the
// package depends only on this interface so that it stays free of OPA.
type Decider interface {
	Decide(ctx context.Context, q Query) (Verdict, error)
}

// DeciderFunc adapts a function to the Decider interface.
type DeciderFunc func(ctx context.Context, q Query) (Verdict, error)

// Decide calls f.
func (f DeciderFunc) Decide(ctx context.Context, q Query) (Verdict, error) { return f(ctx, q) }

// Explainer says what an exit code means for the command that produced it
// ("exit 1 from grep means no matches, not an error"), which q describes as
// a Decider sees it: its cwd (whose config names the catalog) and the shell
// the agent ran it in (whose language it is read in). It returns "" when it
// has nothing to add.
type Explainer func(q Query, code int) string
