package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shellgate/shellgate/hook"
)

func init() {
	register("uninstall", "remove shellgate's hook from the settings of "+hook.AgentNames(), runUninstall)
}

func runUninstall(e *env) int {
	fs := newFlags(e, "uninstall", "<"+strings.Join(agentNames(), "|")+"> [--project|--user] [--print] [--dir DIR]")
	t := addHookTarget(fs, "edit")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	agent, o, status, ok := t.resolve(e, fs, "uninstall", ops)
	if !ok {
		return status
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
	if o.DryRun {
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
