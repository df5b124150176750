package serve

import (
	"context"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/rego/fleet"
)

// BundleDecider answers hook calls with the policy bundle in force of a
// fleet.Engine (shellgate serve --opa-config, or the one-shot hook with
// SHELLGATE_OPA_CONFIG), logging every decision. Flags are the hook's own:
// a hook that names its own config or policy is denied, since under a
// bundle local policy cannot replace it.
type BundleDecider struct {
	Engine *fleet.Engine
	Flags  hook.Flags
}

// Decide implements hook.Decider, within CheckTimeout. A cwd that is not
// absolute is the policy's to judge (cwd-unknown): its reads cannot be
// judged, so the input has no station.
func (b BundleDecider) Decide(ctx context.Context, q hook.Query) (hook.Verdict, error) {
	var d policy.Decision
	span := &classify.Span{Start: 0, End: len(q.Command)}
	if b.Flags.Config != "" || len(b.Flags.Policy) > 0 {
		d = policy.Decision{Action: policy.Deny, Reasons: []policy.Reason{{
			Code:    fleet.PolicyBundleUnavailable,
			Message: "the engine decides with the team's policy bundle (serve --opa-config); the hook's --config and --policy cannot replace it: remove them from the hook command",
			Span:    span, Segment: -1,
		}}}
		return Verdict(&gate.Decision{Decision: d, Command: q.Command, Cwd: q.Cwd}), nil
	}
	if err := gate.ValidateCommand(q.Command); err != nil {
		return hook.Verdict{}, err // the hook denies what cannot be decided
	}
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	shell, err := classify.ParseDialect(q.Shell)
	if err != nil {
		return hook.Verdict{}, err
	}
	var env readstation.Env = readstation.ProcessEnv // a hook run in process: the agent's
	if q.Env != nil {
		env = readstation.EnvMap(q.Env)
	}
	in, _, err := b.Engine.InputEnv(q.Command, q.Cwd, GateMode(q.Mode), shell, env)
	if err != nil && in.Report == nil {
		return hook.Verdict{}, err
	}
	if d, err = b.Engine.Decide(ctx, in); err != nil {
		return hook.Verdict{}, err
	}
	return Verdict(&gate.Decision{Decision: d, Command: q.Command, Cwd: q.Cwd}), nil
}
