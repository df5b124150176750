package gate

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/rego"
)

// Decider is the one way a front end (the shellgate CLI, the resident
// engine, the MCP server) decides: it gives each request the Pipeline of
// the policy source it was built on. That is one Pipeline of the local
// config and policy (NewDecider), or the bundle a policy source has in
// force (NewSourceDecider, a policy bundle's: rego/fleet), rebuilt when the
// bundle changes and tightened by the project config found from the
// request's cwd, as an untrusted project config tightens
// (policy.ResolveUnder). Every decision made on a source goes to its
// decision log; while it has no bundle in force every command is denied
// with code rego.PolicyBundleUnavailable. It is a Checker, and gives the
// gates of mcpserver (GateFor). It is safe for concurrent use.
type Decider struct {
	fixed *Pipeline

	src  rego.Source
	opts PipelineOptions // the options of a source's pipelines (Roots, NoStation, Env)

	cur     atomic.Pointer[sourced] // the pipelines of the bundle in force
	mu      sync.Mutex              // held while building cur, and for unavail
	unavail struct {
		why string
		pl  *Pipeline
		err error
	}
}

// sourced is one bundle's base pipeline and its project pipelines.
type sourced struct {
	b    *rego.Bundle
	base *Pipeline

	mu   sync.Mutex
	proj map[string]projPipeline
}

type projPipeline struct {
	sum string
	pl  *Pipeline
	err error
}

// maxProjects bounds the project pipelines a bundle keeps (one per
// project config).
const maxProjects = 64

// NewDecider is the decider of one pipeline (the local config and
// policy).
func NewDecider(pl *Pipeline) *Decider { return &Decider{fixed: pl} }

// NewSourceDecider is the decider of the policy source src: its pipelines
// are built with o's Roots, NoStation and Env (the rest of o is the
// bundle's to say).
func NewSourceDecider(src rego.Source, o PipelineOptions) *Decider {
	return &Decider{src: src, opts: PipelineOptions{Roots: o.Roots, NoStation: o.NoStation, Env: o.Env}}
}

// Pipeline is the pipeline of a request outside any project: the local
// one, the bundle's, or the one that denies while the source has none.
// The error is a bundle's pipeline that could not be built.
func (d *Decider) Pipeline() (*Pipeline, error) {
	if d.fixed != nil {
		return d.fixed, nil
	}
	b, why := d.src.Bundle()
	if b == nil {
		return d.unavailable(why)
	}
	s, err := d.bundle(b)
	if err != nil {
		return nil, err
	}
	return s.base, nil
}

// PipelineFor is the pipeline of a request run in cwd: Pipeline, tightened
// by the project config found from cwd under a bundle (rebuilt when that
// file changes).
func (d *Decider) PipelineFor(cwd string) (*Pipeline, error) {
	if d.fixed != nil {
		return d.fixed, nil
	}
	b, why := d.src.Bundle()
	if b == nil {
		return d.unavailable(why)
	}
	s, err := d.bundle(b)
	if err != nil || !filepath.IsAbs(cwd) {
		// No project config can be found from a directory nobody named
		// (the policy asks with cwd-unknown).
		return s.base, err
	}
	p, src, err := policy.FindConfigSource(cwd)
	if err != nil {
		return nil, fmt.Errorf("finding the project config: %w", err)
	}
	if p == "" || src != policy.SourceProject {
		return s.base, nil
	}
	cfg, err := policy.LoadConfigFrom(p, policy.SourceProject)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if x, ok := s.proj[p]; ok && x.sum == cfg.SHA256() {
		return x.pl, x.err
	}
	res, err := policy.ResolveUnder(b.Config, cfg)
	var pl *Pipeline
	if err == nil {
		pl, err = d.build(b, res)
	}
	if len(s.proj) >= maxProjects {
		s.proj = map[string]projPipeline{}
	}
	s.proj[p] = projPipeline{sum: cfg.SHA256(), pl: pl, err: err}
	return pl, err
}

// bundle is the pipelines of b, built when b is not the bundle they were
// built for.
func (d *Decider) bundle(b *rego.Bundle) (*sourced, error) {
	if s := d.cur.Load(); s != nil && s.b == b {
		return s, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if s := d.cur.Load(); s != nil && s.b == b {
		return s, nil
	}
	base, err := d.build(b, &policy.Resolved{Config: b.Config})
	if err != nil {
		return nil, err
	}
	s := &sourced{b: b, base: base, proj: map[string]projPipeline{}}
	d.cur.Store(s)
	return s, nil
}

// build is the pipeline of the bundle b under the resolved config res (the
// bundle's, or tightened by a project's), logging its decisions.
func (d *Decider) build(b *rego.Bundle, res *policy.Resolved) (*Pipeline, error) {
	o := d.opts
	o.Resolved, o.Catalog, o.Modules, o.NoDefaultPolicy, o.Engine = res, b.Catalog, b.Modules, true, b.Engine
	pl, err := NewPipeline(o)
	if err != nil {
		return nil, err
	}
	pl.log = func(ctx context.Context, in policy.Input, dec policy.Decision) { d.src.Log(ctx, b, in, dec) }
	return pl, nil
}

// unavailable is the pipeline while the source has no bundle: the default
// config and catalog, no station, and a policy that denies every command
// saying why (rebuilt when why changes).
func (d *Decider) unavailable(why string) (*Pipeline, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	u := &d.unavail
	if u.pl == nil && u.err == nil || u.why != why {
		u.why = why
		u.pl, u.err = NewPipeline(PipelineOptions{
			Config: policy.DefaultConfig(), Modules: rego.UnavailableModules(why), NoDefaultPolicy: true, NoStation: true, Env: d.opts.Env,
		})
		if u.pl != nil {
			u.pl.log = func(ctx context.Context, in policy.Input, dec policy.Decision) { d.src.Log(ctx, nil, in, dec) }
		}
	}
	return u.pl, u.err
}

// Input classifies req's command and judges its reads with the pipeline
// for its cwd (see Pipeline.Input): a project's tightening (a readonly
// mode, deny rows) applies to the input as well. When that pipeline
// cannot be had, Pipeline builds the input (Decide then says why).
func (d *Decider) Input(req policy.Request) (policy.Input, *readstation.Station, error) {
	pl, err := d.PipelineFor(req.Cwd)
	if err != nil {
		if pl, err = d.Pipeline(); err != nil {
			return policy.Input{Command: req.Command, Cwd: req.Cwd, Mode: req.Mode}, nil, err
		}
	}
	return pl.Input(req)
}

// Decide decides on in (built by Input) with the pipeline for its cwd. A
// pipeline that cannot be had (a project config that does not load) is a
// deny with code policy-error, logged as the source's decisions are. The
// error is for a cancelled context, or a policy compiled in the
// background that did not compile.
func (d *Decider) Decide(ctx context.Context, in policy.Input) (policy.Decision, *policy.Facts, error) {
	pl, err := d.PipelineFor(in.Cwd)
	if err != nil {
		dec := policy.ErrorDecision("%v", err)
		if d.src != nil {
			b, _ := d.src.Bundle()
			d.src.Log(ctx, b, in, dec)
		}
		return dec, nil, nil
	}
	return pl.Decide(ctx, in)
}

// Check decides req (see Checker), finding the pipeline for its cwd once
// (under a bundle that reads the project's config: Input and Decide would
// each read it again).
func (d *Decider) Check(ctx context.Context, req policy.Request) (CheckResult, error) {
	if pl, err := d.PipelineFor(req.Cwd); err == nil {
		return check(ctx, pl.Decide, pl.Input, req)
	}
	return check(ctx, d.Decide, d.Input, req)
}

// Batch is the Checker of a batch: the local pipeline's Batch (the
// boundary of each cwd built once), or the decider itself.
func (d *Decider) Batch() Checker {
	if d.fixed != nil {
		return d.fixed.Batch()
	}
	return d
}

// Compiling reports whether the policy is still compiling in the
// background (see Pipeline.Compiling).
func (d *Decider) Compiling() bool { return d.fixed != nil && d.fixed.Compiling() }

// Compiled waits for a policy compiled in the background and returns why
// it did not compile (see Pipeline.Compiled).
func (d *Decider) Compiled() error {
	if d.fixed != nil {
		return d.fixed.Compiled()
	}
	return nil
}

// Explain decides on in as Decide does and reports the facts and every
// rule that fired: those of the pipeline outside any project (see
// Pipeline.Explain); the decision is Decide's.
func (d *Decider) Explain(ctx context.Context, in policy.Input) (*rego.Explanation, error) {
	pl, err := d.Pipeline()
	if err != nil {
		return nil, err
	}
	engine, err := pl.policy()
	if err != nil {
		return nil, err
	}
	x, err := engine.Explain(ctx, in)
	if err != nil {
		return nil, err
	}
	x.Decision, _, err = d.Decide(ctx, in)
	return x, err
}

// Grant decides on in in default mode and returns its grants (see
// Gate.Grant).
func (d *Decider) Grant(ctx context.Context, in policy.Input) (Grants, error) {
	in.Mode = policy.ModeDefault
	dec, _, err := d.Decide(ctx, in)
	if err != nil {
		return Grants{}, err
	}
	return GrantsOf(in.Command, dec), nil
}

// GateFor builds a gate for a command run in cwd, on the pipeline for
// cwd; it implements mcpserver.Gates.
func (d *Decider) GateFor(cwd string) (*Gate, error) { return d.GateAt(cwd, WithCwd(cwd)) }

// GateAt builds a gate with opts on the pipeline for a command run in dir
// (WithPipeline is the decider's).
func (d *Decider) GateAt(dir string, opts ...Option) (*Gate, error) {
	pl, err := d.PipelineFor(dir)
	if err != nil {
		return nil, err
	}
	return New(append(opts[:len(opts):len(opts)], WithPipeline(pl))...)
}
