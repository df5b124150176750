package hook

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Agent names a coding agent whose hook protocol shellgate speaks: the
// name on the command line (`shellgate-hook claude`) and in the engine
// protocol. What shellgate knows of the agent is its AgentSpec
// ([Agent.Spec]).
type Agent string

// AgentSpec is one agent shellgate speaks to, as a value: the payload its
// hook sends, the answer it reads, where its hook is installed and how,
// what install and doctor say about it, and what its end-to-end tests
// drive. Each agent is one file of this package that registers its
// AgentSpec from an init function; Validate checks the registry, and a
// test runs it. The exported fields are data; the agent's behaviour (its
// answer format, install and doctor checks) is set by its file.
type AgentSpec struct {
	// Name is the agent's name (lower case).
	Name Agent
	// Title is the agent's name for a person ("Claude Code").
	Title string
	// Order places the agent in lists (help, doctor, Agents): lower first.
	Order int

	// ShellTool is the name of the agent's shell tool in its payloads
	// ("Bash"), or "" when its shell hook names no tool (Cursor). A payload
	// for another tool is passed with no opinion unless its tool_input
	// carries a command.
	ShellTool string
	// CommandTools are the agent's other tools whose calls carry a
	// command to run (Qwen Code's monitor, which runs one in the
	// background): Install's matcher names them after ShellTool, so that
	// their calls are judged too.
	CommandTools []string
	// PreEvents are the hook event names of a shell command about to run
	// (a payload that names no event is one too); PostEvents of one that
	// has run.
	PreEvents, PostEvents []string
	// CommandAtTop is set when the command is the payload's top-level
	// "command" (Cursor), not tool_input.command.
	CommandAtTop bool
	// ToolInputDir is set when tool_input.directory (or dir_path) is the
	// command's directory, relative to the payload's cwd (Gemini CLI).
	ToolInputDir bool
	// AskingModes, when not nil, are the values of the payload's
	// permission_mode in which the agent puts a hook's ask to a person; in
	// any other mode nobody is asked, and an ask is rendered as a deny.
	AskingModes []string
	// CanAsk reports whether the agent's hook protocol can hand a
	// decision to a person.
	CanAsk bool
	// AskAsApplies reports whether --ask-as changes what an ask becomes
	// (for an agent that cannot ask, or whose own confirmation is the
	// default).
	AskAsApplies bool
	// EmptyNoOpinion is set when the agent reads an empty output as "no
	// decision"; the others are answered {}.
	EmptyNoOpinion bool

	// Dir and File place the settings file that holds the hook:
	// <project>/Dir/File for ScopeProject, <home>/Dir/File for ScopeUser.
	Dir, File string
	// UserFile, when set, is the user's settings file's name instead of
	// File (GitHub Copilot CLI: .github/hooks/shellgate.json in a project,
	// ~/.copilot/settings.json for the user).
	UserFile string
	// CommandKey is the key of a hook handler's command when it is not
	// "command" (GitHub Copilot CLI: "bash").
	CommandKey string
	// DefaultUser is set when install writes the user's settings file
	// unless told to write the project's: the agent runs a project's hooks
	// only once the user has trusted the project (Codex).
	DefaultUser bool
	// Flat is set when the settings file lists hook entries under each
	// event directly, without matcher groups (Cursor).
	Flat bool
	// Comments is set when the agent reads its settings file as JSON with
	// // and /* */ comments (Gemini CLI).
	Comments bool
	// ProjectDirVar is the variable the agent sets to the project's
	// directory when it runs a hook ("CLAUDE_PROJECT_DIR"), or "".
	ProjectDirVar string

	// Program and Package are the agent's command and its npm package,
	// pinned, as .ci/run installs them for the end-to-end tests ("" when
	// the agent cannot be installed here).
	Program, Package string

	// payload, when set, rewrites the agent's payload into the fields
	// Parse reads (hook_event_name, tool_name, tool_input, cwd,
	// permission_mode), for an agent whose payload names them otherwise
	// (GitHub Copilot CLI's toolName and toolArgs). An error is a deny.
	payload func(data []byte) ([]byte, error)
	// hooks are the entries Install writes; the first gates a shell
	// command about to run.
	hooks []hookSpec
	// defaults are top-level key, value pairs Merge adds when absent.
	defaults []any
	// render renders a decision (allow, ask or deny) with its reason.
	render func(p Payload, action, reason string) Answer
	// renderPost renders the meaning of an exit code after a command ran
	// (nil: the agent has no post-run hook).
	renderPost func(p Payload, context string) Answer
	// shell is the shell the agent runs commands in when neither the
	// payload nor --shell says (nil: not known).
	shell func(f Flags) string
	// userDir is the directory of the user's settings file, when it is
	// not <home>/Dir (nil: it is).
	userDir func(home string, getenv func(string) string) (string, error)
	// path is the settings file install and uninstall edit (nil:
	// SettingsPath).
	path func(s *AgentSpec, o InstallOptions) (string, error)
	// install replaces the generic installation (nil: the generic one).
	install func(s *AgentSpec, o InstallOptions) (Installation, error)
	// notes says, after an install that wrote or found the hook, what the
	// agent does with it (nil: nothing to say).
	notes func(o InstallOptions) []Note
	// doctor are the agent's own checks of an installed hook.
	doctor func(env DoctorEnv) []Check
}

// registry holds every registered agent, by Order.
var registry []*AgentSpec

// Agents lists every supported agent, in the order the help shows them
// (each AgentSpec's Order). It is filled in by the agents' files, before
// any code outside this package runs.
var Agents []Agent

// register adds s to the registry; each agent's file calls it from an
// init function. Validate, run by a test, checks what it registered.
func register(s *AgentSpec) {
	i, _ := slices.BinarySearchFunc(registry, s, func(a, b *AgentSpec) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return strings.Compare(string(a.Name), string(b.Name))
	})
	registry = slices.Insert(registry, i, s)
	Agents = Agents[:0:0]
	for _, r := range registry {
		Agents = append(Agents, r.Name)
	}
}

// Specs returns the registered agents, in Agents' order.
func Specs() []*AgentSpec { return slices.Clone(registry) }

// Spec returns the agent's AgentSpec, or nil for an agent not registered.
func (a Agent) Spec() *AgentSpec {
	for _, s := range registry {
		if s.Name == a {
			return s
		}
	}
	return nil
}

// ParseAgent returns the agent called name (case-insensitive).
func ParseAgent(name string) (Agent, error) {
	for _, a := range Agents {
		if strings.EqualFold(name, string(a)) {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown agent %q (want one of %s)", name, agentList(", "))
}

// agentList joins the agents' names with sep.
func agentList(sep string) string {
	s := make([]string, len(Agents))
	for i, a := range Agents {
		s[i] = string(a)
	}
	return strings.Join(s, sep)
}

// AgentNames is the agents' names for a sentence: "a, b, c or d".
func AgentNames() string {
	if len(Agents) < 2 {
		return agentList("")
	}
	last := len(Agents) - 1
	s := make([]string, last)
	for i, a := range Agents[:last] {
		s[i] = string(a)
	}
	return strings.Join(s, ", ") + " or " + string(Agents[last])
}

// CanAsk reports whether the agent's hook protocol can hand a decision to a
// person. Codex cannot: an ask must become a deny or a defer.
func (a Agent) CanAsk() bool { s := a.Spec(); return s != nil && s.CanAsk }

// AskAsApplies reports whether --ask-as changes what an ask becomes for the
// agent: for Codex, which cannot ask, and for Gemini CLI, whose own
// confirmation is the default. Claude Code and Cursor always ask.
func (a Agent) AskAsApplies() bool { s := a.Spec(); return s != nil && s.AskAsApplies }

// HandlerCommandKey is the key of the command in one of the agent's hook
// handlers: CommandKey, else "command".
func (s *AgentSpec) HandlerCommandKey() string {
	if s == nil || s.CommandKey == "" {
		return "command"
	}
	return s.CommandKey
}

// ShellMatcher is the matcher of the agent's hook entries: ShellTool, and
// its CommandTools after it, joined by "|".
func (s *AgentSpec) ShellMatcher() string {
	return strings.Join(append([]string{s.ShellTool}, s.CommandTools...), "|")
}

// HookEvent is the event under which Install writes the hook that gates a
// shell command about to run ("PreToolUse").
func (s *AgentSpec) HookEvent() string {
	if len(s.hooks) == 0 {
		return ""
	}
	return s.hooks[0].event
}

var agentNameRE = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// Validate checks a list of agents the way go/analysis checks its
// analyzers: every name is well formed and unique (case-insensitively, as
// ParseAgent reads it), as is every Order and settings directory, and
// every agent sets what a hook call, an install and a doctor run need,
// consistently. It returns every problem found, joined.
func Validate(specs []*AgentSpec) error {
	var errs []error
	bad := func(s *AgentSpec, format string, args ...any) {
		errs = append(errs, fmt.Errorf("agent %q: %s", s.Name, fmt.Sprintf(format, args...)))
	}
	names := map[string]bool{}
	orders := map[int]Agent{}
	dirs := map[string]Agent{}
	for _, s := range specs {
		if s == nil {
			errs = append(errs, errors.New("a nil agent"))
			continue
		}
		if !agentNameRE.MatchString(string(s.Name)) {
			bad(s, "the name is not lower-case letters, digits and dashes")
		}
		if names[strings.ToLower(string(s.Name))] {
			bad(s, "registered twice")
		}
		names[strings.ToLower(string(s.Name))] = true
		if o, ok := orders[s.Order]; ok && s.Order != 0 {
			bad(s, "Order %d is %s's too", s.Order, o)
		}
		orders[s.Order] = s.Name
		if s.Order <= 0 {
			bad(s, "no Order")
		}
		if s.Title == "" {
			bad(s, "no Title")
		}
		if len(s.PreEvents) == 0 {
			bad(s, "no PreEvents")
		}
		for _, e := range append(slices.Clone(s.PreEvents), s.PostEvents...) {
			if e == "" {
				bad(s, "an empty event name (a payload without one is a PreEvent already)")
			}
		}
		for _, e := range s.PostEvents {
			if slices.Contains(s.PreEvents, e) {
				bad(s, "%s is both a pre and a post event", e)
			}
		}
		if (len(s.PostEvents) > 0) != (s.renderPost != nil) {
			bad(s, "PostEvents and a post-run renderer go together")
		}
		if s.CommandAtTop && s.ToolInputDir {
			bad(s, "CommandAtTop with ToolInputDir: the payload has no tool_input")
		}
		if s.AskingModes != nil && !slices.Contains(s.AskingModes, "") {
			bad(s, `AskingModes lacks "" (a payload that names no mode)`)
		}
		if !s.CanAsk && !s.AskAsApplies {
			bad(s, "it cannot ask, so --ask-as must apply (what an ask becomes)")
		}
		if s.Dir == "" || s.File == "" {
			bad(s, "no settings Dir or File")
		}
		if d := s.Dir + "/" + s.File; dirs[d] != "" {
			bad(s, "settings file %s is %s's too", d, dirs[d])
		} else {
			dirs[d] = s.Name
		}
		if s.Package != "" && s.Program == "" {
			bad(s, "a Package without a Program")
		}
		if len(s.hooks) == 0 {
			bad(s, "no hook entries to install")
		}
		for i, h := range s.hooks {
			if h.entry == nil || h.event == "" {
				bad(s, "hook entry %d has no event or no entry", i)
			}
			if (h.matcher == "") != s.Flat {
				bad(s, "hook entry %d: a matcher, unless Flat", i)
			}
			if !slices.Contains(s.PreEvents, h.event) && !slices.Contains(s.PostEvents, h.event) {
				bad(s, "hook entry %d is for %s, which the payload parser does not read", i, h.event)
			}
			if h.matcher != "" && h.matcher != s.ShellMatcher() {
				bad(s, "hook entry %d matches %q, not the shell tool %q", i, h.matcher, s.ShellMatcher())
			}
		}
		if len(s.hooks) > 0 && !slices.Contains(s.PreEvents, s.hooks[0].event) {
			bad(s, "the first hook entry must gate a shell command about to run")
		}
		if s.render == nil {
			bad(s, "no answer renderer")
		}
		if s.doctor == nil {
			bad(s, "no doctor checks")
		}
	}
	return errors.Join(errs...)
}
