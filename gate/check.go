package gate

import (
	"context"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/rego"
)

// CheckResult is the answer of shellgate check for one command: its JSON
// is the contract of check --json and of every check --batch line (fields
// are only ever added, with omitempty).
type CheckResult struct {
	Command    string          `json:"command"`
	Action     policy.Action   `json:"action"`
	Reasons    []policy.Reason `json:"reasons"`
	Reversible bool            `json:"reversible"`
	Mode       string          `json:"mode"`
	Cwd        string          `json:"cwd"`
	// Dialect is the shell the report read the command as ("bash+zsh"
	// when not known).
	Dialect         string               `json:"shell,omitempty"`
	SuggestedGrants []policy.Grant       `json:"suggested_grants,omitempty"`
	NoGrants        []policy.NoGrant     `json:"no_grants,omitempty"`
	Station         *readstation.Station `json:"station,omitempty"`
	// Error says why the read station could not run (a batch line's
	// answer carries it; a single check reports it on its own).
	Error string `json:"error,omitempty"`
}

// NewCheckResult assembles the answer from what the policy saw (in), the
// station's judgment (nil when it did not run) and the decision.
func NewCheckResult(in policy.Input, st *readstation.Station, dec policy.Decision) CheckResult {
	r := CheckResult{
		Command: in.Command, Action: dec.Action, Reasons: dec.Reasons,
		Mode: in.Mode, Cwd: in.Cwd,
		SuggestedGrants: dec.SuggestedGrants, NoGrants: dec.NoGrants, Station: st,
	}
	if in.Report != nil {
		r.Reversible, r.Dialect = in.Report.Reversible, in.Report.Dialect
	}
	return r
}

// CheckResult is the gate's decision as check's answer.
func (d *Decision) CheckResult() CheckResult {
	r := CheckResult{
		Command: d.Command, Action: d.Action, Reasons: d.Reasons, Reversible: d.Reversible,
		Mode: d.Mode, Cwd: d.Cwd, SuggestedGrants: d.SuggestedGrants, NoGrants: d.NoGrants, Station: d.Station,
		Error: d.StationError,
	}
	if d.Report != nil {
		r.Dialect = d.Report.Dialect
	}
	return r
}

// Checker decides one request as shellgate check does: classification,
// the read station and the policy, for a run in its cwd (absolute) in its
// mode ("" the configured one) read in its shell's language
// (DialectUnknown: the config's, else both bash and zsh). A station that
// cannot run is the answer's Error; the error returned is for a cancelled
// context. A Pipeline, its Batch and a Decider are Checkers.
type Checker interface {
	Check(ctx context.Context, req policy.Request) (CheckResult, error)
}

// Check decides req (see Checker).
func (p *Pipeline) Check(ctx context.Context, req policy.Request) (CheckResult, error) {
	return check(ctx, p.Decide, p.Input, req)
}

// Check decides req (see Checker), with the boundary of its cwd built once
// per batch.
func (b *Batch) Check(ctx context.Context, req policy.Request) (CheckResult, error) {
	return check(ctx, b.p.Decide, b.Input, req)
}

type (
	inputFunc  func(policy.Request) (policy.Input, *readstation.Station, error)
	decideFunc func(context.Context, policy.Input) (policy.Decision, *policy.Facts, error)
)

func check(ctx context.Context, decide decideFunc, input inputFunc, req policy.Request) (CheckResult, error) {
	in, st, serr := input(req)
	dec, _, err := decide(ctx, in)
	if err != nil {
		return CheckResult{}, err
	}
	res := NewCheckResult(in, st, dec)
	if serr != nil {
		res.Error = serr.Error()
	}
	return res, nil
}

// ExplainReport is the answer of shellgate explain --json: what the
// policy saw (the report and the station) and why it decided (the facts,
// the rules that fired, the decision), with the policy files compiled.
type ExplainReport struct {
	Command string               `json:"command"`
	Mode    string               `json:"mode"`
	Cwd     string               `json:"cwd"`
	Report  *classify.Report     `json:"report"`
	Station *readstation.Station `json:"station,omitempty"`
	*rego.Explanation
	Files []string `json:"policy_files"`
	// UntrustedFiles are project policy files the user has not trusted:
	// only their deny and ask rules apply.
	UntrustedFiles []string `json:"untrusted_policy_files,omitempty"`
}

// NewExplainReport assembles explain's answer from the input, the
// station's judgment (nil when it did not run), the explanation and the
// policy engine that compiled the files.
func NewExplainReport(in policy.Input, st *readstation.Station, x *rego.Explanation, e *rego.Engine) ExplainReport {
	return ExplainReport{
		Command: in.Command, Mode: in.Mode, Cwd: in.Cwd, Report: in.Report, Station: st, Explanation: x,
		Files: e.Files(), UntrustedFiles: e.UntrustedFiles(),
	}
}
