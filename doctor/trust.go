package doctor

import (
	"fmt"
	"strings"

	"github.com/shellgate/shellgate/policy"
)

// projectTrustCheck says which project files are not trusted (policy.Resolve):
// until the user trusts them, their widening parts (grants, roots, allow
// rules) are ignored and only what tightens the gate applies. The gate is
// active either way, so the check is advisory; a policy directory that
// cannot be read is not.
func projectTrustCheck(cfg *policy.Config) (Check, bool) {
	if cfg == nil || cfg.Source != policy.SourceProject {
		return Check{}, false
	}
	r, err := policy.Resolve(cfg)
	if err != nil {
		return Check{Name: "project-trust", Message: fmt.Sprintf("%v: every command is denied", err), Fix: "ls -l " + shellQuote(cfg.Path)}, true
	}
	if r.StoreError != nil {
		return Check{Name: "project-trust", Advisory: true,
			Message: fmt.Sprintf("the trust store %s cannot be used (%v): nothing in the project is trusted", r.StorePath, r.StoreError),
			Fix:     "shellgate trust --list   # says why; fix or remove " + shellQuote(r.StorePath)}, true
	}
	if len(r.Untrusted) == 0 {
		return Check{Name: "project-trust", OK: true, Message: "nothing of " + cfg.Path + " is ignored (it is trusted, or it only tightens)"}, true
	}
	var parts []string
	for _, u := range r.Untrusted {
		parts = append(parts, fmt.Sprintf("%s (ignored: %s)", u.Path, strings.Join(u.Ignored, "; ")))
	}
	return Check{Name: "project-trust", Advisory: true,
		Message: "not trusted, so only what tightens the gate applies: " + strings.Join(parts, ", "),
		Fix:     r.Untrusted[0].TrustCommand()}, true
}
