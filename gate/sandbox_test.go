package gate

import (
	"context"
	"testing"

	"github.com/shellgate/shellgate/policy"
)

// TestRemoteReadsEgress: a remote read the config's remote_reads allows
// is a decision that approves the network (shellgate run gives it egress);
// the same read without the config line is asked, and a read-only local
// command gets no network.
func TestRemoteReadsEgress(t *testing.T) {
	dir := t.TempDir()
	allowed := newGate(t, dir, WithConfig(&policy.Config{RemoteReads: []string{"gh"}}))
	plain := newGate(t, dir)
	for _, tc := range []struct {
		g      *Gate
		cmd    string
		action policy.Action
		egress bool
	}{
		{allowed, "gh pr list --json number", policy.Allow, true},
		{allowed, "gh api -X POST repos/o/r/issues", policy.Ask, false},
		{allowed, "ls", policy.Allow, false},
		{plain, "gh pr list --json number", policy.Ask, false},
	} {
		d, err := tc.g.decideIn(context.Background(), Request{Command: tc.cmd}, tc.g.runEnv, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Plan(false).Network; d.Action != tc.action || got != tc.egress {
			t.Errorf("%s: %s, egress %v; want %s, egress %v (%v)", tc.cmd, d.Action, got, tc.action, tc.egress, d.Reasons)
		}
	}
}
