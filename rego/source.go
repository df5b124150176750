package rego

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
)

// Bundle is what a policy source gives the one pipeline in place of the
// local config and policy directories: a policy bundle's modules (with its
// own copy of the default policy), its config and catalog.
type Bundle struct {
	// Revision names the bundles in force ("name@revision", ...).
	Revision string
	// Modules are the bundle's modules, path to source: they define
	// data.shellgate.decision themselves (WithoutDefaultPolicy).
	Modules map[string]string
	// Config and Catalog are the bundle's (Config never nil; Catalog nil
	// is the embedded one).
	Config  *policy.Config
	Catalog *classify.Catalog
	// Engine is Modules compiled (WithModules, WithoutDefaultPolicy), as
	// the source did to accept the bundle; nil compiles them again.
	Engine *Engine
}

// Source is a policy source: a policy bundle in force, and the decision
// log of the decisions made with it (package rego/fleet's Engine). The
// pipeline (package gate) builds its policy from whichever bundle is in
// force at each decision.
type Source interface {
	// Bundle returns the bundle in force; nil, with why, while there is
	// none (every decision is then denied with code
	// PolicyBundleUnavailable and that message).
	Bundle() (b *Bundle, unavailable string)
	// Log hands a decision made on in with b (nil: with none in force)
	// to the decision log.
	Log(ctx context.Context, b *Bundle, in policy.Input, d policy.Decision)
}

// PolicyBundleUnavailable is the code of the deny every decision gets
// while a policy source has no bundle in force.
const PolicyBundleUnavailable = "policy-bundle-unavailable"

// UnavailableModules is the policy of a source with no bundle in force:
// it denies every command with code PolicyBundleUnavailable and the
// message why (compile it WithoutDefaultPolicy).
func UnavailableModules(why string) map[string]string {
	msg, _ := json.Marshal(why) // a string always marshals
	return map[string]string{"policy-bundle-unavailable.rego": fmt.Sprintf(`package shellgate

import rego.v1

decision := {"action": "deny", "reasons": [{"code": %q, "message": %s, "rule": %q}]}
`, PolicyBundleUnavailable, msg, PolicyBundleUnavailable)}
}
