package serve

import (
	"context"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/rego"
)

// BundleDecider answers hook calls with a gate.Decider on a policy
// bundle (gate.NewSourceDecider on a fleet.Engine: shellgate serve
// --opa-config, or the one-shot hook with SHELLGATE_OPA_CONFIG), which logs
// every decision. Flags are the hook's own: a hook that names its own
// config or policy is denied, since under a bundle local policy cannot
// replace it.
type BundleDecider struct {
	Decider *gate.Decider
	Flags   hook.Flags
}

// Decide implements hook.Decider, within CheckTimeout. A cwd that is not
// absolute is the policy's to judge (cwd-unknown): its reads cannot be
// judged, so the input has no station.
func (b BundleDecider) Decide(ctx context.Context, q hook.Query) (hook.Verdict, error) {
	if b.Flags.Config != "" || len(b.Flags.Policy) > 0 {
		d := policy.Decision{Action: policy.Deny, Reasons: []policy.Reason{{
			Code:    rego.PolicyBundleUnavailable,
			Message: "the engine decides with the team's policy bundle (serve --opa-config); the hook's --config and --policy cannot replace it: remove them from the hook command",
			Span:    &classify.Span{Start: 0, End: len(q.Command)}, Segment: -1,
		}}}
		return Verdict(&gate.Decision{Decision: d, Command: q.Command, Cwd: q.Cwd}), nil
	}
	if err := gate.ValidateCommand(q.Command); err != nil {
		return hook.Verdict{}, err // the hook denies what cannot be decided
	}
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	req, err := QueryRequest(q)
	if err != nil {
		return hook.Verdict{}, err
	}
	in, _, err := b.Decider.Input(req)
	if err != nil && in.Report == nil {
		return hook.Verdict{}, err
	}
	d, _, err := b.Decider.Decide(ctx, in)
	if err != nil {
		return hook.Verdict{}, err
	}
	return Verdict(&gate.Decision{Decision: d, Command: q.Command, Cwd: q.Cwd}), nil
}

// QueryRequest reads a hook query as the request it asks about: its mode
// (GateMode) and shell checked, its cwd as the agent gave it (one that is
// not absolute is not resolved: nobody said where it is), in the
// environment the query describes, else this process's (a hook run in
// process: the agent's).
func QueryRequest(q hook.Query) (policy.Request, error) {
	req, err := policy.ParseRequest(q.Command, q.Cwd, GateMode(q.Mode), q.Shell, "")
	req.Env = readstation.ProcessEnv
	if q.Env != nil {
		req.Env = readstation.EnvMap(q.Env)
	}
	return req, err
}
