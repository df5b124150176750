package gate

import (
	"context"
	"fmt"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/rego"
)

// This file is the Gate's front door besides Decide and Run: Explain
// (why), Grant (what would allow it next time) and Classify (what the
// command is), each the same on a Pipeline for a caller that builds its
// own inputs (the shellgate CLI's check --batch, a policy bundle).

// Check is Decide: the name the gate's decision had first.
func (g *Gate) Check(ctx context.Context, req Request) (*Decision, error) {
	return g.Decide(ctx, req)
}

// Explanation is a decision with what produced it: the facts Go computed
// for the rules and every rule of the trusted policy that fired.
type Explanation struct {
	// Decision is Decide's answer; Decision.Decision is the pipeline's
	// (an untrusted project module's deny and ask included).
	*Decision
	// Facts are the facts Go computed for the rules.
	Facts *policy.Facts `json:"facts"`
	// Rules are the rules that fired, in file and line order.
	Rules []rego.FiredRule `json:"rules"`
	// Files are the policy files compiled; UntrustedFiles those of a
	// project the user has not trusted (only their deny and ask rules
	// apply).
	Files          []string `json:"policy_files"`
	UntrustedFiles []string `json:"untrusted_policy_files,omitempty"`
}

// Explain decides on req as Decide does and says why: the facts and every
// rule that fired, with its file:line. It traces the policy, so it is
// slower than Decide: it is for a person asking why. The errors are
// Decide's, and the policy's when tracing fails.
func (g *Gate) Explain(ctx context.Context, req Request) (*Explanation, error) {
	d, err := g.Decide(ctx, req)
	if err != nil {
		return nil, err
	}
	e := g.pl.Engine()
	x := &Explanation{Decision: d, Files: e.Files(), UntrustedFiles: e.UntrustedFiles()}
	if d.Report == nil {
		return x, nil // shellgate failed internally: nothing was traced
	}
	rx, err := e.Explain(ctx, d.in)
	if err != nil {
		return nil, fmt.Errorf("explain: %w", err)
	}
	x.Facts, x.Rules = rx.Facts, rx.Rules
	return x, nil
}

// Explain decides on in (built by Input) as Decide does and reports the
// facts and every rule of the trusted policy that fired; the decision is
// the pipeline's (with an untrusted project module's deny and ask, and the
// project-config-untrusted reason).
func (p *Pipeline) Explain(ctx context.Context, in policy.Input) (*rego.Explanation, error) {
	engine, err := p.policy()
	if err != nil {
		return nil, err
	}
	x, err := engine.Explain(ctx, in)
	if err != nil {
		return nil, err
	}
	if x.Decision, _, err = p.Decide(ctx, in); err != nil {
		return nil, err
	}
	return x, nil
}

// Grants are the narrowest config grants that would allow a command's
// asked segments (shellgate grant's JSON).
type Grants struct {
	Command string        `json:"command"`
	Action  policy.Action `json:"action"`
	// Grants are ready for the "grants:" list of a config; never nil.
	Grants []policy.Grant `json:"grants"`
	// NoGrants says why a segment asked about has no grant.
	NoGrants []policy.NoGrant `json:"no_grants,omitempty"`
}

// GrantsOf reads the grants off a decision on command made in default
// mode.
func GrantsOf(command string, d policy.Decision) Grants {
	g := Grants{Command: command, Action: d.Action, Grants: d.SuggestedGrants, NoGrants: d.NoGrants}
	if g.Grants == nil {
		g.Grants = []policy.Grant{}
	}
	return g
}

// Nothing says why there is nothing to grant ("" when there is): the
// command is allowed already, denied, or no grant could allow it.
func (g Grants) Nothing() string {
	if len(g.Grants) > 0 {
		return ""
	}
	switch g.Action {
	case policy.Allow:
		return "the command is allowed"
	case policy.Deny:
		return "the command is denied, and a grant never overrides a deny"
	default:
		return "no grant could allow what was asked (see shellgate check)"
	}
}

// Grant decides on req in default mode (grants apply there only) and
// returns the narrowest grants that would allow its asked segments. A
// grant never covers a redirect, a substitution, a read the station could
// not clear, or another segment. The errors are Decide's.
func (g *Gate) Grant(ctx context.Context, req Request) (Grants, error) {
	req.Mode = policy.ModeDefault
	d, err := g.Decide(ctx, req)
	if err != nil {
		return Grants{}, err
	}
	return GrantsOf(d.Command, d.Decision), nil
}

// Grant decides on in in default mode and returns its grants (see
// Gate.Grant). The error is for a cancelled context.
func (p *Pipeline) Grant(ctx context.Context, in policy.Input) (Grants, error) {
	in.Mode = policy.ModeDefault
	d, _, err := p.Decide(ctx, in)
	if err != nil {
		return Grants{}, err
	}
	return GrantsOf(in.Command, d), nil
}

// Classifier describes commands as a Pipeline's classification does (the
// catalog and the config's read-only programs), without the read station
// or the policy. It is safe for concurrent use.
type Classifier struct {
	opts  []classify.Option
	shell classify.Dialect
}

// NewClassifier is the classifier of cfg (nil: no config) over the
// catalog cat (nil: the embedded one).
func NewClassifier(cfg *policy.Config, cat *classify.Catalog) (*Classifier, error) {
	opts, err := classifyOptions(cfg, cat)
	if err != nil {
		return nil, err
	}
	return &Classifier{opts: opts, shell: cfg.Dialect()}, nil
}

// Classify describes command read in shell's language; DialectUnknown
// takes the config's shell, and with none there the command is read as
// both bash and zsh.
func (c *Classifier) Classify(command string, shell classify.Dialect) *classify.Report {
	if shell == classify.DialectUnknown {
		shell = c.shell
	}
	return classify.Classify(command, append(c.opts[:len(c.opts):len(c.opts)], classify.WithDialect(shell))...)
}

// Classifier is the pipeline's classification, for the config in effect.
func (p *Pipeline) Classifier() *Classifier {
	c := &Classifier{opts: p.classOpts}
	c.shell = p.Shell(classify.DialectUnknown)
	return c
}
