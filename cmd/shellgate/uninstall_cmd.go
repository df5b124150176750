package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/shellgate/shellgate/hook"
)

func init() {
	register("uninstall", "remove shellgate's hook from the settings of "+hook.AgentNames(), runUninstall)
}

func runUninstall(e *env) int {
	fs := newFlags(e, "uninstall", "<"+strings.Join(agentNames(), "|")+"> [--project|--user] [--print] [--dir DIR]")
	userDefault, projectDefault := scopeDefaults()
	user := fs.Bool("user", false, "edit the user's settings file (the default for "+userDefault+")")
	project := fs.Bool("project", false, "edit the project's settings file (the default for "+projectDefault+")")
	print := fs.Bool("print", false, "print the settings file as it would be, and write nothing")
	dir := fs.String("dir", "", "project directory (default: the current directory)")
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
		fmt.Fprintln(e.stderr, "shellgate uninstall:", err)
		return exitUsage
	}
	if *user && *project {
		fmt.Fprintln(e.stderr, "shellgate uninstall: --user and --project exclude each other")
		return exitUsage
	}
	o := hook.InstallOptions{ProjectDir: *dir, DryRun: *print}
	o.Home, err = os.UserHomeDir()
	if *user || (!*project && agent.Spec().DefaultUser) {
		o.Scope = hook.ScopeUser
		if err != nil {
			fmt.Fprintln(e.stderr, "shellgate uninstall:", err)
			return exitInternal
		}
	}
	if o.ProjectDir == "" {
		if o.ProjectDir, err = os.Getwd(); err != nil {
			fmt.Fprintln(e.stderr, "shellgate uninstall:", err)
			return exitInternal
		}
	}
	r, err := agent.Spec().Uninstall(o)
	if errors.Is(err, hook.ErrAgentHome) {
		fmt.Fprintln(e.stderr, "shellgate uninstall:", err)
		return exitNotActive
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate uninstall:", err)
		return exitInternal
	}
	if *print {
		fmt.Fprintf(e.stderr, "# %s\n", r.Path)
		e.stdout.Write(r.Content)
		return exitOK
	}
	switch {
	case !r.Changed:
		fmt.Fprintf(e.stdout, "no shellgate hook for %s in %s\n", agent, r.Path)
	default:
		fmt.Fprintf(e.stdout, "removed the %s hook from %s (previous file saved as %s)\n", agent, r.Path, r.Backup)
	}
	return exitOK
}
