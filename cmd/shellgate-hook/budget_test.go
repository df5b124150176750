package main

import (
	"testing"
	"time"

	"github.com/shellgate/shellgate/hook"
)

// TestBudgetUnderAgentTimeouts keeps the client's whole budget far under
// every hook timeout that install writes: Gemini CLI (and Codex) let the
// command run when they kill a hook at its timeout.
func TestBudgetUnderAgentTimeouts(t *testing.T) {
	for _, tt := range []struct {
		agent   string
		timeout time.Duration
		factor  time.Duration
	}{
		{"gemini", time.Duration(hook.GeminiTimeout) * time.Millisecond, 4},
		{"claude", time.Duration(hook.ClaudeTimeout) * time.Second, 1},
	} {
		if tt.factor*totalBudget >= tt.timeout {
			t.Errorf("%s: the client's budget %v is not far enough under the installed timeout %v (want at most 1/%d of it)", tt.agent, totalBudget, tt.timeout, tt.factor)
		}
	}
}
