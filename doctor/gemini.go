package doctor

import (
	"fmt"

	"github.com/shellgate/shellgate/hook"
)

// geminiFolderTrust: Gemini CLI runs hooks from its settings (the project's
// and the user's) only in a folder it trusts. GEMINI_CLI_TRUST_WORKSPACE=true
// trusts every folder, =false (or GEMINI_RESTRICTED_MODE=true) none; else
// hook.GeminiFolderTrust reads the user's settings and trusted folders as
// Gemini CLI 0.61 does (checkPathTrust, processHooksFromConfig).
func (o *Options) geminiFolderTrust() Check {
	fix := fmt.Sprintf("gemini   # in %s, and trust the folder when asked (or with /permissions)", o.Dir)
	if o.getenv("GEMINI_RESTRICTED_MODE") == "true" || o.getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false" {
		return Check{Name: "trust", Message: "the environment makes no folder trusted (GEMINI_RESTRICTED_MODE or GEMINI_CLI_TRUST_WORKSPACE=false): Gemini CLI runs no hook", Fix: "unset GEMINI_RESTRICTED_MODE GEMINI_CLI_TRUST_WORKSPACE"}
	}
	if o.getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true" {
		return Check{Name: "trust", OK: true, Message: "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder"}
	}
	if o.Home == "" {
		return Check{Name: "trust", Message: "no home directory: Gemini CLI's trusted folders cannot be read", Fix: "export HOME=..."}
	}
	t, err := hook.GeminiFolderTrust(o.Home, o.Dir)
	if err != nil {
		return Check{Name: "trust", Message: fmt.Sprintf("Gemini CLI's trusted folders cannot be read (%v): Gemini CLI refuses to start on a file it cannot parse", err), Fix: "fix " + t.File + " by hand"}
	}
	if t.Trusted {
		return Check{Name: "trust", OK: true, Message: fmt.Sprintf("Gemini CLI trusts %s (%s)", o.Dir, t.Why)}
	}
	return Check{Name: "trust", Message: fmt.Sprintf("Gemini CLI does not trust %s (%s), so it runs no hook there", o.Dir, t.Why), Fix: fix}
}
