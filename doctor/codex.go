package doctor

import (
	"fmt"

	"github.com/shellgate/shellgate/hook"
)

// codexChecks: Codex runs a hook only when the user's Codex config trusts
// that exact hook (pinned by its hash), hooks are on, and for a project's
// hooks file the project is trusted; and Codex runs the command when a hook
// cannot run, unless the hook command denies by itself (see
// hook.CodexHookTrust, which reads that state as Codex does).
func codexChecks(codexHome, hooksFile, install string) []Check {
	st, err := hook.CodexHookTrust(codexHome, hooksFile)
	if err != nil {
		return []Check{{Name: "trust", Message: fmt.Sprintf("Codex's trust in the hook cannot be established: %v", err),
			Fix: "fix " + st.ConfigFile + " by hand, then run: " + install}}
	}
	var out []Check
	if st.FailClosed {
		out = append(out, Check{Name: "fail-closed", OK: true, Message: "the hook command denies by itself when shellgate-hook cannot run"})
	} else {
		out = append(out, Check{Name: "fail-closed", Message: "the hook command has no fallback: if shellgate-hook cannot run, Codex runs the command", Fix: install})
	}
	switch st.Status {
	case hook.CodexTrusted:
		out = append(out, Check{Name: "trust", OK: true, Message: fmt.Sprintf("%s trusts the hook as installed", st.ConfigFile)})
	case hook.CodexDisabled:
		out = append(out, Check{Name: "trust", Message: fmt.Sprintf("%s disables the hook (enabled = false under [hooks.state.%q])", st.ConfigFile, st.Key),
			Fix: fmt.Sprintf("delete the line enabled = false under [hooks.state.%q] in %s", st.Key, st.ConfigFile)})
	default:
		out = append(out, Check{Name: "trust", Message: fmt.Sprintf("Codex does not run the hook until you trust it (%s in %s)", st.Status, st.ConfigFile), Fix: install})
	}
	if st.ProjectDir != "" {
		if st.ProjectTrust == hook.CodexProjectTrusted {
			out = append(out, Check{Name: "project", OK: true, Message: st.ProjectDir + " is a trusted Codex project"})
		} else {
			out = append(out, Check{Name: "project", Message: fmt.Sprintf("%s is not a trusted Codex project (%s), so Codex ignores its .codex folder", st.ProjectDir, st.ProjectTrust),
				Fix: fmt.Sprintf("codex   # in %s, and trust the folder when asked; or: shellgate install codex --user", st.ProjectDir)})
		}
	}
	if st.HooksFeatureOff {
		out = append(out, Check{Name: "enabled", Message: st.ConfigFile + " turns Codex hooks off ([features] hooks = false)",
			Fix: "delete hooks = false under [features] in " + st.ConfigFile})
	} else {
		out = append(out, Check{Name: "enabled", OK: true, Message: "Codex hooks are on"})
	}
	return out
}
