package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/hook"
)

func init() {
	register("install", "add shellgate as the shell-command hook of "+hook.AgentNames(), runInstall)
}

func runInstall(e *env) int {
	fs := newFlags(e, "install", "<"+strings.Join(agentNames(), "|")+"> [--project|--user] [--print] [--dir DIR] [--command CMD] [--ask-as deny|defer] [--mode readonly] [--policy DIR]... [--config FILE]")
	t := addHookTarget(fs, "write")
	command := fs.String("command", "", "hook command to install (default: shellgate-hook next to this binary, on PATH, or this binary's one-shot hook)")
	askAs := fs.String("ask-as", "", "added to the hook command: what an ask becomes for codex (default deny) and gemini (default its own confirmation): deny or defer")
	mode := fs.String("mode", "", "added to the hook command: readonly for a verifier agent")
	var policy repeated
	fs.Var(&policy, "policy", "added to the hook command: extra Rego policy directory or file (repeatable; $CLAUDE_PROJECT_DIR and the like are kept as written)")
	config := fs.String("config", "", "added to the hook command: YAML config file")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	if *askAs != "" {
		if _, err := hook.ParseAskAs(*askAs); err != nil {
			fmt.Fprintln(e.stderr, "shellgate install:", err)
			return exitUsage
		}
	}
	if *mode != "" && *mode != hook.ModeReadonly && *mode != hook.ModeDefault {
		fmt.Fprintf(e.stderr, "shellgate install: --mode %q: want readonly or default\n", *mode)
		return exitUsage
	}
	agent, o, status, ok := t.resolve(e, fs, "install", ops)
	if !ok {
		return status
	}
	cmd := *command
	if cmd == "" {
		cmd = defaultHookCommand(agent)
	}
	if *askAs != "" {
		cmd += " --ask-as " + *askAs
	}
	if *mode != "" {
		cmd += " --mode " + *mode
	}
	for _, p := range policy {
		cmd += " --policy " + shellQuote(p)
	}
	if *config != "" {
		cmd += " --config " + shellQuote(*config)
	}
	o.Command, o.AskAs = cmd, *askAs
	in, err := agent.Spec().Install(o)
	if errors.Is(err, hook.ErrAgentHome) {
		fmt.Fprintln(e.stderr, "shellgate install: NOT ACTIVE:", err)
		return exitNotActive
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate install:", err)
		return exitInternal
	}
	if o.DryRun {
		fmt.Fprintf(e.stderr, "# %s\n", in.Path)
		e.stdout.Write(in.Content)
		return printNotes(e, in.Notes)
	}
	switch {
	case !in.Changed:
		fmt.Fprintf(e.stdout, "shellgate is already the %s hook in %s\n", agent, in.Path)
	case in.Backup != "":
		fmt.Fprintf(e.stdout, "installed the %s hook in %s (previous file saved as %s)\n", agent, in.Path, in.Backup)
	default:
		fmt.Fprintf(e.stdout, "installed the %s hook in %s\n", agent, in.Path)
	}
	fmt.Fprintf(e.stdout, "hook command: %s\n", in.Command)
	return printNotes(e, in.Notes)
}

// exitNotActive is install's status when the agent will not run the hook
// it installed (or could not install), and why is on stderr.
const exitNotActive = 1

// printNotes prints what install has to say after writing the hook, each
// note where it belongs, and returns the exit status: exitInternal when
// what the agent does could not be established, exitNotActive when the
// agent will not run the hook.
func printNotes(e *env, notes []hook.Note) int {
	status := exitOK
	for _, n := range notes {
		switch n.Kind {
		case hook.NoteInfo:
			fmt.Fprintln(e.stdout, n.Text)
		case hook.NoteComment:
			fmt.Fprintln(e.stderr, n.Text)
		default:
			fmt.Fprintln(e.stderr, "shellgate install:", n.Text)
		}
		switch {
		case n.Kind == hook.NoteFailed:
			status = exitInternal
		case n.Kind == hook.NoteInactive && status == exitOK:
			status = exitNotActive
		}
	}
	return status
}

// scopeDefaults are the agents install writes the user's settings for by
// default, and those it writes the project's for.
func scopeDefaults() (user, project string) {
	var u, p []string
	for _, s := range hook.Specs() {
		if s.DefaultUser {
			u = append(u, string(s.Name))
		} else {
			p = append(p, string(s.Name))
		}
	}
	return strings.Join(u, ", "), strings.Join(p, ", ")
}

// agentNames are the agents' names.
func agentNames() []string {
	var s []string
	for _, a := range hook.Agents {
		s = append(s, string(a))
	}
	return s
}

// defaultHookCommand is the command an agent runs: the thin client next to
// this binary (absolute, so the agent's PATH does not matter), else the one
// on PATH, else this binary's one-shot hook.
func defaultHookCommand(agent hook.Agent) string {
	self := hook.Executable()
	if self != "" {
		p := filepath.Join(filepath.Dir(self), "shellgate-hook")
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return shellQuote(p) + " " + string(agent)
		}
	}
	if _, err := exec.LookPath("shellgate-hook"); err == nil {
		return "shellgate-hook " + string(agent)
	}
	if self == "" {
		self = "shellgate"
	}
	return shellQuote(self) + " hook " + string(agent)
}

// shellQuote quotes s for sh when it holds anything but plain characters.
// A value that starts with $VAR (like $CLAUDE_PROJECT_DIR) is double-quoted
// so that the agent's shell expands it.
func shellQuote(s string) string {
	if strings.HasPrefix(s, "$") {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`").Replace(s) + `"`
	}
	special := func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}
	if s != "" && strings.IndexFunc(s, special) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookTarget are the flags install and uninstall share: which agent's
// settings file, for the user or the project.
type hookTarget struct {
	user, project, print *bool
	dir                  *string
}

// addHookTarget defines the shared flags; verb is what the command does
// to the settings file ("write", "edit").
func addHookTarget(fs *flag.FlagSet, verb string) hookTarget {
	userDefault, projectDefault := scopeDefaults()
	return hookTarget{
		user:    fs.Bool("user", false, verb+" the user's settings file (~/.claude/settings.json, ...; the default for "+userDefault+", which runs a project's hooks only in a project the user trusted)"),
		project: fs.Bool("project", false, verb+" the project's settings file (the default for "+projectDefault+")"),
		print:   fs.Bool("print", false, "print the settings file as it would be, and write nothing"),
		dir:     fs.String("dir", "", "project directory (default: the current directory)"),
	}
}

// resolve reads the one operand (the agent) and the shared flags into
// the agent and the options' scope, directories and dry run; on a usage
// or environment error it says so on stderr and returns ok false with the
// exit status.
func (t hookTarget) resolve(e *env, fs *flag.FlagSet, name string, ops []string) (hook.Agent, hook.InstallOptions, int, bool) {
	var o hook.InstallOptions
	if len(ops) != 1 {
		fs.Usage()
		return "", o, exitUsage, false
	}
	agent, err := hook.ParseAgent(ops[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "shellgate %s: %v\n", name, err)
		return "", o, exitUsage, false
	}
	if *t.user && *t.project {
		fmt.Fprintf(e.stderr, "shellgate %s: --user and --project exclude each other\n", name)
		return "", o, exitUsage, false
	}
	o.Scope, o.ProjectDir, o.DryRun = hook.ScopeProject, *t.dir, *t.print
	o.Home, err = os.UserHomeDir()
	if *t.user || (!*t.project && agent.Spec().DefaultUser) {
		o.Scope = hook.ScopeUser
		if err != nil {
			fmt.Fprintf(e.stderr, "shellgate %s: %v\n", name, err)
			return "", o, exitInternal, false
		}
	}
	if o.ProjectDir == "" {
		if o.ProjectDir, err = os.Getwd(); err != nil {
			fmt.Fprintf(e.stderr, "shellgate %s: %v\n", name, err)
			return "", o, exitInternal, false
		}
	}
	return agent, o, exitOK, true
}
