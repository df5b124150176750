package main

import (
	"fmt"
	"os"

	"github.com/shellgate/shellgate/hook"
)

// installNotes says, after install, what the agent really does with the
// hook: whether a hook that cannot run blocks, what an ask becomes, and
// anything the agent needs before it runs the hook at all.
func installNotes(e *env, agent hook.Agent, scope hook.Scope, proj, askAs string) {
	switch agent {
	case hook.Claude:
		fmt.Fprintf(e.stdout, "fail-closed: Claude Code blocks the command when the hook cannot run, times out or fails (\"onFailure\": %q; Claude Code 2.1.295 or later, older versions run the command)\n", hook.ClaudeOnFailure)
	case hook.Gemini:
		fmt.Fprintln(e.stdout, "fail-closed: Gemini CLI blocks the command when the hook cannot start or fails (any exit code but 0 and 1); a hook that times out would let it run, so the timeout is 120 s, far above the hook's own 25 s limit")
		switch askAs {
		case "":
			fmt.Fprintln(e.stdout, "ask: Gemini CLI shows its own confirmation with shellgate's reasons; a headless `gemini -p` that lets shell commands run (--yolo) waits for it for ever: install with --ask-as deny for unattended runs")
		case hook.AskDeny:
			fmt.Fprintln(e.stdout, "ask: denied, with the reason a person must approve (--ask-as deny)")
		case hook.AskDefer:
			fmt.Fprintln(e.stdout, "ask: no decision: Gemini CLI's own approval settings decide (--ask-as defer)")
		}
		fmt.Fprintln(e.stdout, "note: a command shellgate allows may still be confirmed by Gemini CLI's own policy (its approval mode and policy rules)")
		home, err := os.UserHomeDir()
		if err != nil {
			return
		}
		if scope == hook.ScopeUser {
			fmt.Fprintf(e.stdout, "note: Gemini CLI runs no hooks in a folder it does not trust (%s); there it asks before shell commands itself\n", hook.GeminiTrustedFoldersFile(home))
			return
		}
		t, err := hook.GeminiFolderTrust(home, proj)
		switch {
		case err != nil:
			fmt.Fprintf(e.stderr, "shellgate install: could not read Gemini CLI's folder trust: %v\n", err)
		case t.Trusted:
			fmt.Fprintf(e.stdout, "active: Gemini CLI trusts %s, so it runs the hook (%s)\n", proj, t.Why)
		default:
			fmt.Fprintf(e.stderr, "shellgate install: NOT ACTIVE YET: Gemini CLI runs no hooks in a folder it does not trust, and it does not trust %s (%s).\n"+
				"  Trust the folder when Gemini CLI asks on its first start there (or with its /permissions command); until then it asks before shell commands itself.\n", proj, t.Why)
		}
	}
}
