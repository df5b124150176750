package main

import (
	"testing"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
)

// TestHookVocabulary holds the hook protocol's actions and modes to the
// policy's: the hook package declares them on its own because the thin
// client links only the standard library, and a drift would make the
// client read an engine's answer as something else.
func TestHookVocabulary(t *testing.T) {
	for _, c := range []struct{ hook, policy string }{
		{hook.Allow, string(policy.Allow)},
		{hook.Ask, string(policy.Ask)},
		{hook.Deny, string(policy.Deny)},
		{hook.ModeDefault, policy.ModeDefault},
		{hook.ModeReadonly, policy.ModeReadonly},
	} {
		if c.hook != c.policy {
			t.Errorf("hook says %q where the policy says %q", c.hook, c.policy)
		}
	}
}
