package hook

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrAgentHome is wrapped by the error of an install that cannot find the
// agent's own directory as the agent would (a CODEX_HOME that does not
// exist): nothing was installed, and the message says what to do.
var ErrAgentHome = errors.New("the agent's directory cannot be used")

// agentHomeError is an error that is ErrAgentHome, with its own message.
type agentHomeError string

func (e agentHomeError) Error() string        { return string(e) }
func (e agentHomeError) Is(target error) bool { return target == ErrAgentHome }

func agentHomeErrorf(format string, args ...any) error {
	return agentHomeError(fmt.Sprintf(format, args...))
}

// InstallOptions say where AgentSpec.Install writes the hook, and what.
type InstallOptions struct {
	// Scope is ScopeProject (ProjectDir's settings) or ScopeUser (Home's).
	Scope Scope
	// ProjectDir is the project directory; Home the user's home ("" when
	// not known: an agent whose user settings are needed then fails).
	ProjectDir, Home string
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
	// Command is the hook command, with its flags.
	Command string
	// AskAs is the --ask-as the command carries ("", AskDeny, AskDefer).
	AskAs string
	// DryRun computes the result and writes nothing.
	DryRun bool
}

// Installation says what AgentSpec.Install did.
type Installation struct {
	InstallResult
	// Command is the hook command as written (an agent may add to it:
	// Codex's fail-closed fallback).
	Command string
	// Notes say what the agent does with the hook: whether one that
	// cannot run blocks, what an ask becomes, whether the agent will run
	// it at all. With DryRun, what else would be written.
	Notes []Note
}

// NoteKind says where a Note goes and what it means for the install.
type NoteKind int

// Kinds of Note.
const (
	// NoteInfo is for the standard output.
	NoteInfo NoteKind = iota
	// NoteComment is for the standard error, as it is.
	NoteComment
	// NoteWarn is a warning: the hook is active, but not as it should be.
	NoteWarn
	// NoteInactive says the agent will not run the hook (yet), and why.
	NoteInactive
	// NoteFailed says what the agent does with the hook could not be
	// established, or a change it needs could not be made.
	NoteFailed
)

// Note is one thing install tells the person after writing the hook.
type Note struct {
	// Kind says where the note goes and what it means.
	Kind NoteKind
	// Text is the note, without a final newline; it may span lines.
	Text string
}

// Install writes the agent's hook (see Install, the function) into its
// settings file in o.Scope, with whatever else the agent needs to run it,
// and says what the agent will do with it.
func (s *AgentSpec) Install(o InstallOptions) (Installation, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if s.install != nil {
		return s.install(s, o)
	}
	in := Installation{Command: o.Command}
	path, err := s.installPath(o)
	if err != nil {
		return in, err
	}
	r, err := Install(s.Name, path, o.Command, o.DryRun)
	in.InstallResult = r
	if err != nil {
		return in, err
	}
	if !o.DryRun && s.notes != nil {
		in.Notes = s.notes(o)
	}
	return in, nil
}

// installPath is the settings file install and uninstall edit.
func (s *AgentSpec) installPath(o InstallOptions) (string, error) {
	if s.path != nil {
		return s.path(s, o)
	}
	return s.SettingsPath(o.Scope, o.ProjectDir, o.Home, o.Getenv), nil
}

// Uninstall removes the shellgate hook entries from the agent's settings
// file in o.Scope (see Uninstall, the function); o.Command is not used.
// What else install wrote for the agent stays (Codex's trust entry, which
// names a hook that is gone).
func (s *AgentSpec) Uninstall(o InstallOptions) (InstallResult, error) {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	path, err := s.installPath(o)
	if err != nil {
		return InstallResult{}, err
	}
	return Uninstall(s.Name, path, o.DryRun)
}

// listProblems is head followed by problems, one item each, the lines
// after an item's first indented under it.
func listProblems(head string, problems []string) string {
	var b strings.Builder
	b.WriteString(head)
	for _, p := range problems {
		for i, l := range strings.Split(p, "\n") {
			b.WriteByte('\n')
			switch {
			case i == 0:
				b.WriteString("  - " + l)
			case l == "":
			default:
				b.WriteString("    " + l)
			}
		}
	}
	return b.String()
}
