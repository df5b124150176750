package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/hook"
)

func init() {
	register("install", "add shellgate as the shell-command hook of claude, codex, gemini or cursor", runInstall)
}

func runInstall(e *env) int {
	fs := newFlags(e, "install", "<claude|codex|gemini|cursor> [--project|--user] [--print] [--dir DIR] [--command CMD] [--ask-as deny|defer] [--mode readonly] [--policy DIR]... [--config FILE]")
	user := fs.Bool("user", false, "write the user's settings file (~/.claude/settings.json, ...)")
	project := fs.Bool("project", false, "write the project's settings file (the default)")
	print := fs.Bool("print", false, "print the settings file as it would be, and write nothing")
	dir := fs.String("dir", "", "project directory (default: the current directory)")
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
	if len(ops) != 1 {
		fs.Usage()
		return exitUsage
	}
	agent, err := hook.ParseAgent(ops[0])
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate install:", err)
		return exitUsage
	}
	if *user && *project {
		fmt.Fprintln(e.stderr, "shellgate install: --user and --project exclude each other")
		return exitUsage
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
	scope := hook.ScopeProject
	var home string
	if *user {
		scope = hook.ScopeUser
		if home, err = os.UserHomeDir(); err != nil {
			fmt.Fprintln(e.stderr, "shellgate install:", err)
			return exitInternal
		}
	}
	proj := *dir
	if proj == "" {
		if proj, err = os.Getwd(); err != nil {
			fmt.Fprintln(e.stderr, "shellgate install:", err)
			return exitInternal
		}
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
	path := hook.SettingsPath(agent, scope, proj, home)
	var codexHome string
	if agent == hook.Codex {
		// Codex runs a hook command that cannot start as if there were no
		// hook: the command itself must deny then.
		cmd = hook.CodexFailClosed(cmd)
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		if codexHome, err = hook.CodexHome(home); err != nil {
			fmt.Fprintln(e.stderr, "shellgate install:", err)
			return exitInternal
		}
		if scope == hook.ScopeUser {
			path = filepath.Join(codexHome, "hooks.json")
		} else if real, err := filepath.EvalSymlinks(proj); err == nil {
			// Codex keys its trust by the hooks file's path as it finds
			// it from its working directory: the real path.
			if real, err = filepath.Abs(real); err == nil {
				path = hook.SettingsPath(agent, scope, real, home)
			}
		}
	}
	r, err := hook.Install(agent, path, cmd, *print)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate install:", err)
		return exitInternal
	}
	if *print {
		fmt.Fprintf(e.stderr, "# %s\n", path)
		e.stdout.Write(r.Content)
		if agent == hook.Codex {
			key, hash, err := hook.CodexTrustEntry(path, r.Content)
			if err != nil {
				fmt.Fprintln(e.stderr, "shellgate install:", err)
				return exitInternal
			}
			fmt.Fprintf(e.stderr, "# and, in %s, the trust entry Codex needs to run it:\n", filepath.Join(codexHome, "config.toml"))
			for _, l := range strings.Split(strings.TrimSuffix(hook.CodexTrustTOML(key, hash), "\n"), "\n") {
				fmt.Fprintf(e.stderr, "# %s\n", l)
			}
		}
		return exitOK
	}
	switch {
	case !r.Changed:
		fmt.Fprintf(e.stdout, "shellgate is already the %s hook in %s\n", agent, path)
	case r.Backup != "":
		fmt.Fprintf(e.stdout, "installed the %s hook in %s (previous file saved as %s)\n", agent, path, r.Backup)
	default:
		fmt.Fprintf(e.stdout, "installed the %s hook in %s\n", agent, path)
	}
	fmt.Fprintf(e.stdout, "hook command: %s\n", cmd)
	if agent == hook.Codex {
		return codexActivate(e, codexHome, path)
	}
	installNotes(e, agent, scope, proj, *askAs)
	return exitOK
}

// codexActivate trusts the installed hook in the user's Codex config, the
// way Codex's own hook review does (Codex runs no hook it has not been told
// to trust), then says whether Codex will run it, and if not, exactly what
// is missing.
func codexActivate(e *env, codexHome, hooksFile string) int {
	t, err := hook.TrustCodexHook(codexHome, hooksFile, false)
	if err != nil {
		fmt.Fprintf(e.stderr, "shellgate install: NOT ACTIVE: Codex does not run a hook it has not been told to trust, and the trust entry could not be written: %v\n", err)
		return exitInternal
	}
	switch {
	case !t.Changed:
		fmt.Fprintf(e.stdout, "Codex already trusts the hook in %s\n", t.ConfigFile)
	case t.Backup != "":
		fmt.Fprintf(e.stdout, "trusted the hook in %s (previous file saved as %s)\n", t.ConfigFile, t.Backup)
	default:
		fmt.Fprintf(e.stdout, "trusted the hook in %s\n", t.ConfigFile)
	}
	st, err := hook.CodexHookTrust(codexHome, hooksFile)
	if err != nil {
		fmt.Fprintf(e.stderr, "shellgate install: NOT ACTIVE: the Codex hook state could not be read: %v\n", err)
		return exitInternal
	}
	if !st.Active {
		fmt.Fprintf(e.stderr, "shellgate install: NOT ACTIVE: Codex will run commands without shellgate until this is fixed:\n")
		printProblems(e, st.Problems)
		return exitOK
	}
	fmt.Fprintf(e.stdout, "active: Codex runs shellgate before every shell command (%s)\n", st.Key)
	if !st.FailClosed {
		fmt.Fprintln(e.stderr, "shellgate install: WARNING: not fail-closed: Codex runs every command when its hook cannot run, and this hook command has no fallback:")
		printProblems(e, st.Problems)
		return exitOK
	}
	fmt.Fprintln(e.stdout, "fail-closed: when shellgate-hook cannot run, the hook command denies by itself (Codex would run the command)")
	return exitOK
}

// printProblems lists problems on stderr, each indented as one item.
func printProblems(e *env, problems []string) {
	for _, p := range problems {
		lines := strings.Split(p, "\n")
		for i, l := range lines {
			switch {
			case i == 0:
				fmt.Fprintf(e.stderr, "  - %s\n", l)
			case l == "":
				fmt.Fprintln(e.stderr)
			default:
				fmt.Fprintf(e.stderr, "    %s\n", l)
			}
		}
	}
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
