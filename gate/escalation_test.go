package gate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/policy"
)

// countingApprover answers ok and records what it was shown.
type countingApprover struct {
	ok    bool
	calls int
	seen  []*Escalation
}

func (a *countingApprover) Approve(_ context.Context, d *Decision) (bool, error) {
	a.calls++
	a.seen = append(a.seen, d.Escalation)
	return a.ok, nil
}

func TestEscalationValidation(t *testing.T) {
	dir := t.TempDir()
	g := newGate(t, dir, WithoutDefaultPolicy(), WithPolicyModules(allowAll))
	deny := newGate(t, dir)
	tests := []struct {
		name     string
		g        *Gate
		req      Request
		wantCode Code
		wantMsg  string
	}{
		{"mode without justification", g, Request{Command: "true", Escalate: execution.SandboxWorkspaceWrite},
			CodeInvalidInput, "a sandbox escalation to workspace-write needs a justification: one sentence saying why this call needs it"},
		{"blank justification", g, Request{Command: "true", Escalate: execution.SandboxWorkspaceWrite, Justification: "  "},
			CodeInvalidInput, "a sandbox escalation to workspace-write needs a justification: one sentence saying why this call needs it"},
		{"justification without mode", g, Request{Command: "true", Justification: "I need it."},
			CodeInvalidInput, "a justification was given without a sandbox escalation: say which mode (workspace-write or full-access) this call needs"},
		{"unknown mode", g, Request{Command: "true", Escalate: "root", Justification: "I need it."},
			CodeInvalidInput, `unknown sandbox escalation "root" (want workspace-write or full-access)`},
		{"two lines", g, Request{Command: "true", Escalate: execution.SandboxFullAccess, Justification: "one\ntwo"},
			CodeInvalidInput, "the justification must be one sentence on one line"},
		{"mode and escalation", g, Request{Command: "true", Sandbox: execution.SandboxReadOnly, Escalate: execution.SandboxFullAccess, Justification: "I need it."},
			CodeInvalidInput, "give either a sandbox mode or an escalation, not both"},
		{"not wider: same", g, Request{Command: "true", Mode: policy.ModeReadonly, Escalate: execution.SandboxReadOnly, Justification: "I need it."},
			CodeInvalidInput, "the escalation to read-only is not wider than the mode this call runs in (read-only); nothing was asked and nothing ran"},
		{"not wider: narrower", g, Request{Command: "touch x", Escalate: execution.SandboxReadOnly, Justification: "I need it."},
			CodeInvalidInput, "the escalation to read-only is not wider than the mode this call runs in (workspace-write); nothing was asked and nothing ran"},
		{"denied stays denied", deny, Request{Command: "rm -rf /", Escalate: execution.SandboxFullAccess, Justification: "I need it."},
			CodeDenied, "the policy denies this command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &countingApprover{ok: true}
			tc.req.Approver = a
			res := tc.g.Run(context.Background(), tc.req)
			if diff := cmp.Diff([2]string{string(tc.wantCode), tc.wantMsg}, [2]string{string(res.Code), res.Message}); diff != "" {
				t.Errorf("code, message (-want +got):\n%s", diff)
			}
			if res.Ran() || a.calls != 0 {
				t.Errorf("ran = %v, approver asked %d times; want nothing run and nobody asked", res.Ran(), a.calls)
			}
		})
	}
}

func TestEscalationOneCallThroughAPerson(t *testing.T) {
	needLandlock(t)
	dir := t.TempDir()
	t.Setenv("HOME", t.TempDir())
	g := newGate(t, dir, WithoutDefaultPolicy(), WithPolicyModules(allowAll))
	ctx := context.Background()
	a := &countingApprover{ok: true}

	// Approved: this one call runs workspace-write.
	res := g.Run(ctx, Request{Command: "touch a", Mode: policy.ModeReadonly, Escalate: execution.SandboxWorkspaceWrite, Justification: "The test needs to create a file.", Approver: a})
	if res.Status != StatusOK || !exists(filepath.Join(dir, "a")) {
		t.Fatalf("approved escalation: %s; a exists: %v", res.StatusLine(), exists(filepath.Join(dir, "a")))
	}
	if diff := cmp.Diff([]*Escalation{{From: execution.SandboxReadOnly, To: execution.SandboxWorkspaceWrite, Justification: "The test needs to create a file."}}, a.seen); diff != "" {
		t.Errorf("the approver saw (-want +got):\n%s", diff)
	}
	sb := res.Sandbox
	if !res.Approved || sb.Mode != execution.SandboxWorkspaceWrite || !sb.Escalated || sb.From != execution.SandboxReadOnly || sb.Reason != "escalated" {
		t.Errorf("result sandbox = %+v, approved %v", sb, res.Approved)
	}

	// The next call, without an escalation, is read-only again.
	res = g.Run(ctx, Request{Command: "touch b", Mode: policy.ModeReadonly, Approver: a})
	if exists(filepath.Join(dir, "b")) || res.Sandbox.Mode != execution.SandboxReadOnly || !strings.Contains(res.Output.String(), execution.SandboxMarker("write", execution.SandboxReadOnly)) {
		t.Errorf("the approval carried to the next call: sandbox %+v, output %q", res.Sandbox, res.Output.String())
	}
	if a.calls != 1 {
		t.Errorf("approver asked %d times, want 1", a.calls)
	}

	// Refused: nothing runs, and the refusal is final for that command.
	no := &countingApprover{ok: false}
	res = g.Run(ctx, Request{Command: "touch c", Mode: policy.ModeReadonly, Escalate: execution.SandboxFullAccess, Justification: "Because.", Approver: no})
	if res.Code != CodeNotApproved || res.Ran() || no.calls != 1 {
		t.Fatalf("refused escalation: %s (ran %v, asked %d)", res.StatusLine(), res.Ran(), no.calls)
	}
	yes := &countingApprover{ok: true}
	res = g.Run(ctx, Request{Command: "touch c", Mode: policy.ModeReadonly, Escalate: execution.SandboxFullAccess, Justification: "Please.", Approver: yes})
	if res.Code != CodeNotApproved || res.Ran() || yes.calls != 0 || exists(filepath.Join(dir, "c")) {
		t.Fatalf("second escalation of a refused command: %s (asked %d); want a final refusal without asking", res.StatusLine(), yes.calls)
	}
	// No approver available: nothing runs.
	res = g.Run(ctx, Request{Command: "touch d", Mode: policy.ModeReadonly, Escalate: execution.SandboxWorkspaceWrite, Justification: "Because."})
	if res.Code != CodeNotApproved || res.Ran() {
		t.Fatalf("escalation without approver: %s", res.StatusLine())
	}
}

// plainRunner runs without being able to confine (not a Confiner).
type plainRunner struct{ r execution.BashRunner }

func (p *plainRunner) Run(ctx context.Context, s execution.Spec) (execution.Outcome, error) {
	s.Sandbox = nil
	return p.r.Run(ctx, s)
}

func TestSandboxUnavailableFailsClosed(t *testing.T) {
	dir := t.TempDir()
	g := newGate(t, dir, WithRunner(&plainRunner{}), WithoutDefaultPolicy(), WithPolicyModules(allowAll))
	res := g.Run(context.Background(), Request{Command: "touch x", Sandbox: execution.SandboxReadOnly})
	if res.Code != CodeSandboxUnavailable || res.Ran() || exists(filepath.Join(dir, "x")) {
		t.Fatalf("read-only without confinement: %s; want SANDBOX_UNAVAILABLE and nothing run", res.StatusLine())
	}
	if res.Sandbox == nil || res.Sandbox.Enforced || !strings.Contains(res.Sandbox.Note, "cannot confine") {
		t.Errorf("sandbox = %+v, want a note that it cannot confine", res.Sandbox)
	}
	// A write runs, and the result says it was not confined.
	res = g.Run(context.Background(), Request{Command: "touch y"})
	if res.Status != StatusOK || res.Sandbox.Enforced || res.Sandbox.Mode != execution.SandboxWorkspaceWrite || !strings.HasPrefix(res.Sandbox.Note, "not confined: ") {
		t.Errorf("workspace-write without confinement: %s, sandbox %+v", res.StatusLine(), res.Sandbox)
	}
	// Turned off by name: read-only runs unconfined, and says so.
	cfg := policy.DefaultConfig()
	cfg.Sandbox = policy.SandboxOff
	off := newGate(t, dir, WithRunner(&plainRunner{}), WithConfig(cfg), WithoutDefaultPolicy(), WithPolicyModules(allowAll))
	res = off.Run(context.Background(), Request{Command: "touch z", Sandbox: execution.SandboxReadOnly})
	if res.Status != StatusOK || !exists(filepath.Join(dir, "z")) || res.Sandbox.Note != "confinement is turned off (sandbox: off)" {
		t.Errorf("sandbox off: %s, sandbox %+v", res.StatusLine(), res.Sandbox)
	}
}

func TestSandboxModeFollowsDecision(t *testing.T) {
	dir := t.TempDir()
	ask := newGate(t, dir, WithRunner(&plainRunner{}), WithoutDefaultPolicy(), WithPolicyModules(askAll))
	def := newGate(t, dir)
	cfg := policy.DefaultConfig()
	cfg.Sandbox = "full-access"
	conf := newGate(t, dir, WithConfig(cfg))
	tests := []struct {
		name     string
		g        *Gate
		req      Request
		approved bool
		want     execution.SandboxMode
		why      string
	}{
		{"reversible", def, Request{Command: "ls"}, false, execution.SandboxReadOnly, "reversible"},
		{"readonly mode", def, Request{Command: "ls", Mode: policy.ModeReadonly}, false, execution.SandboxReadOnly, "readonly-mode"},
		{"approved write", ask, Request{Command: "touch x"}, true, execution.SandboxWorkspaceWrite, "approved-write"},
		{"requested", def, Request{Command: "ls", Sandbox: execution.SandboxFullAccess}, false, execution.SandboxFullAccess, "requested"},
		{"config", conf, Request{Command: "ls"}, false, execution.SandboxFullAccess, "config"},
		{"config does not widen readonly mode", conf, Request{Command: "ls", Mode: policy.ModeReadonly}, false, execution.SandboxReadOnly, "readonly-mode"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := tc.g.decideIn(context.Background(), tc.req, tc.g.runEnv, true)
			if err != nil {
				t.Fatal(err)
			}
			m, why := tc.g.sandboxFor(tc.req, d, tc.approved)
			if m != tc.want || why != tc.why {
				t.Errorf("sandboxFor = %s (%s), want %s (%s)", m, why, tc.want, tc.why)
			}
		})
	}
}
