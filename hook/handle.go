package hook

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/classify/agentenv"
	"github.com/shellgate/shellgate/classify/shells"
)

// Flags are the options of a hook call: `shellgate hook <agent> [flags]` and
// `shellgate-hook <agent> [flags]` take the same ones, and the thin client
// forwards them to the resident engine.
type Flags struct {
	// AskAs is "", AskDeny or AskDefer (see Options).
	AskAs string `json:"ask_as,omitempty"`
	// Mode is "" (take it from the agent: plan mode is readonly) or
	// ModeReadonly (always readonly: a verifier agent).
	Mode string `json:"mode,omitempty"`
	// Policy lists extra Rego policy directories or files, absolute.
	Policy []string `json:"policy,omitempty"`
	// Config is a YAML config file, absolute, or "".
	Config string `json:"config,omitempty"`
	// Cwd is the hook process's working directory (ParseFlags fills it
	// in): the command's directory when the payload does not say.
	Cwd string `json:"cwd,omitempty"`
	// Shell is --shell: the shell the agent runs commands in ("bash",
	// "zsh", "sh"), overriding what the payload and the environment say.
	Shell string `json:"shell,omitempty"`
	// ClaudeShell and LoginShell are the hook process's CLAUDE_CODE_SHELL
	// and SHELL (ParseFlags fills them in): Claude Code runs commands in
	// CLAUDE_CODE_SHELL, else in the login shell when that is bash or zsh.
	ClaudeShell string `json:"claude_shell,omitempty"`
	LoginShell  string `json:"login_shell,omitempty"`
	// Env holds the values, in the hook process's environment (the
	// agent's), of the variables that change what a program reads
	// (package agentenv's names; "" for one not set), which ParseFlags
	// fills in: the engine that judges the command runs in an environment
	// of its own. A variable not listed is not known to the engine, which
	// then judges as if it were set.
	Env map[string]string `json:"env,omitempty"`
	// AgentEnv holds the hook process's values of the variables that say
	// where the agent keeps its settings (AgentEnvNames; ParseFlags fills
	// them in), so that the engine reads the rules the person gave this
	// agent (package agentrules), whatever its own environment.
	AgentEnv map[string]string `json:"agent_env,omitempty"`
}

// AgentEnvNames are the variables Flags.AgentEnv carries: the home
// directory and the agents' own settings directories.
var AgentEnvNames = []string{"HOME", "CLAUDE_CONFIG_DIR", "CLAUDE_PROJECT_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// ParseFlags parses the flags of a hook call (flags may follow operands) and
// returns them with the operands. Relative paths are made absolute against
// the process's working directory, so that an engine in another directory
// reads the same files. Usage errors are written to errw.
func ParseFlags(args []string, errw io.Writer) (Flags, []string, error) {
	var f Flags
	var policy multiFlag
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	fs.SetOutput(errw)
	fs.StringVar(&f.AskAs, "ask-as", "", "what an ask becomes for codex (default deny) and gemini (default its own confirmation): deny, or defer to the agent's own approval settings")
	fs.StringVar(&f.Mode, "mode", "", "readonly: only reversible, station-clean commands are allowed, everything else is denied")
	fs.Var(&policy, "policy", "extra Rego policy directory or file (repeatable)")
	fs.StringVar(&f.Config, "config", "", "YAML config file")
	fs.StringVar(&f.Shell, "shell", "", "the shell the agent runs commands in: bash, zsh or sh (default: from the payload or the environment, else judge as both bash and zsh)")
	var ops []string
	for {
		if err := fs.Parse(args); err != nil {
			return f, nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			ops = append(ops, rest[1:]...)
			break
		}
		ops = append(ops, rest[0])
		args = rest[1:]
	}
	var err error
	if f.AskAs, err = ParseAskAs(f.AskAs); err != nil {
		return f, nil, err
	}
	switch f.Mode {
	case "", ModeDefault:
		f.Mode = ""
	case ModeReadonly:
	default:
		return f, nil, fmt.Errorf("--mode %q: want readonly or default", f.Mode)
	}
	for _, p := range policy {
		abs, err := filepath.Abs(p)
		if err != nil {
			return f, nil, fmt.Errorf("--policy %s: %v", p, err)
		}
		f.Policy = append(f.Policy, abs)
	}
	if f.Config != "" {
		if f.Config, err = filepath.Abs(f.Config); err != nil {
			return f, nil, fmt.Errorf("--config: %v", err)
		}
	}
	if f.Shell != "" {
		d := shellName(f.Shell)
		if d == "" {
			return f, nil, fmt.Errorf("--shell %q: want bash, zsh or sh", f.Shell)
		}
		f.Shell = d
	}
	f.Cwd, _ = os.Getwd()
	f.ClaudeShell, f.LoginShell = os.Getenv("CLAUDE_CODE_SHELL"), os.Getenv("SHELL")
	f.Env = agentenv.Values()
	f.AgentEnv = map[string]string{}
	for _, n := range AgentEnvNames {
		if v, ok := os.LookupEnv(n); ok {
			f.AgentEnv[n] = v
		}
	}
	return f, ops, nil
}

// ShellFor is the shell agent runs p's command in, as far as it is known:
// the payload's own shell field, else --shell, else (Claude Code)
// CLAUDE_CODE_SHELL, else a bash or zsh login shell, (Gemini CLI) bash;
// "" when not known
// (the command is then judged as both bash and zsh). A value that names
// no shell shellgate knows is not known either.
func ShellFor(agent Agent, p Payload, f Flags) string {
	for _, s := range []string{p.Shell, f.Shell} {
		if s != "" {
			return s // the gate refuses a name it does not know
		}
	}
	if s := agent.Spec(); s != nil && s.shell != nil {
		return s.shell(f)
	}
	return ""
}

// shellName is the dialect a shell name or path names ("/bin/zsh" is zsh,
// a login shell's "-zsh" too, dash is sh), or "" for any other: the
// catalog's shells, through package shells (its table), since the thin
// client links no parser and loads no catalog.
func shellName(s string) string { return shells.Dialect(s) }

// Args renders f back as command-line flags (for the one-shot fallback).
func (f Flags) Args() []string {
	var a []string
	if f.AskAs != "" {
		a = append(a, "--ask-as", f.AskAs)
	}
	if f.Mode != "" {
		a = append(a, "--mode", f.Mode)
	}
	for _, p := range f.Policy {
		a = append(a, "--policy", p)
	}
	if f.Config != "" {
		a = append(a, "--config", f.Config)
	}
	if f.Shell != "" {
		a = append(a, "--shell", f.Shell)
	}
	return a
}

// query is what a Decider (or an Explainer) is asked about p's command.
func query(agent Agent, p Payload, f Flags) Query {
	q := Query{Command: p.Command, Cwd: p.Cwd, Mode: p.Mode, Shell: ShellFor(agent, p, f), Env: f.Env}
	if q.Cwd == "" {
		q.Cwd = f.Cwd
	} else if !filepath.IsAbs(q.Cwd) && f.Cwd != "" {
		// A relative cwd is relative to the hook process's directory,
		// wherever the engine that decides runs.
		q.Cwd = filepath.Join(f.Cwd, q.Cwd)
	}
	if f.Mode == ModeReadonly {
		q.Mode = ModeReadonly
	}
	return q
}

// Handle answers one hook call: it parses input as agent's payload, asks d
// for a verdict on a shell command about to run, asks explain for the
// meaning of an exit code after one ran, and renders the answer. It never
// panics and never fails open: any error, including a panic in d, becomes
// a deny with the reason.
func Handle(ctx context.Context, agent Agent, input []byte, f Flags, d Decider, explain Explainer) (ans Answer) {
	var p Payload
	defer func() {
		if r := recover(); r != nil {
			if p.Event == EventPost {
				ans = NoOpinion(agent)
				return
			}
			ans = DenyError(agent, p.EventName, fmt.Errorf("internal error: %v", r))
		}
	}()
	p, err := Parse(agent, input)
	if err != nil {
		if p.Event == EventPost {
			// A post-run hook cannot block anything; it just adds nothing.
			return NoOpinion(agent)
		}
		return DenyError(agent, p.EventName, err)
	}
	switch p.Event {
	case EventOther:
		return NoOpinion(agent)
	case EventPost:
		if explain == nil || !p.HasExitCode {
			return NoOpinion(agent)
		}
		return RenderPost(p, explain(query(agent, p, f), p.ExitCode))
	}
	if d == nil {
		return DenyError(agent, p.EventName, errors.New("no decider"))
	}
	q := query(agent, p, f)
	// The agent's own settings may hold the person's approvals.
	q.Agent, q.AgentEnv = string(agent), f.AgentEnv
	v, err := d.Decide(ctx, q)
	if err != nil {
		return DenyError(agent, p.EventName, err)
	}
	return Render(p, v, Options{AskAs: f.AskAs})
}
