package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/rego"
)

// PolicyBundleUnavailable is the code of the deny every decision gets
// while no good policy bundle was ever loaded.
const PolicyBundleUnavailable = "policy-bundle-unavailable"

// DefaultWait is how long NewEngine waits for a first bundle when none is
// persisted.
const DefaultWait = 5 * time.Second

// maxProjects bounds the project pipelines a bundle keeps (one per
// project config).
const maxProjects = 64

// EngineOptions configure NewEngine.
type EngineOptions struct {
	// ID is the agent's id in decision logs and status (default
	// "shellgate-" and the host name).
	ID string
	// Roots are directories the user named, added to the bundle config's
	// roots.
	Roots []string
	// NoStation skips the read station.
	NoStation bool
	// Wait is how long to wait for a first bundle when none is persisted
	// (0: DefaultWait; negative: not at all).
	Wait time.Duration
}

// Engine decides with the policy bundle in force: an OPA agent (Start)
// whose every accepted bundle becomes a gate.Pipeline (the bundle's
// modules, which include the default policy, its config and catalog),
// one for commands outside any project and one per project config found
// from a command's cwd, which only tightens it. Every decision goes to the
// decision log. While no bundle was ever loaded every command is denied
// with code policy-bundle-unavailable. It is a gate.Checker and serves
// mcpserver's GateFor; it is safe for concurrent use.
type Engine struct {
	agent     *Agent
	roots     []string
	noStation bool
	cur       atomic.Pointer[engineBundle]

	fallbackOnce sync.Once
	fallback     *gate.Pipeline
	fallbackErr  error
}

// engineBundle is one accepted bundle: its base pipeline and the project
// pipelines built on it.
type engineBundle struct {
	c    *Contents
	cfg  *policy.Config
	cat  *classify.Catalog
	base *gate.Pipeline

	mu   sync.Mutex
	proj map[string]projPipeline
}

type projPipeline struct {
	sum string
	pl  *gate.Pipeline
	err error
}

// NewEngine starts the OPA agent of config (an OPA configuration: services,
// bundles, decision_logs, status, keys, persistence_directory) and waits
// for a first bundle as EngineOptions.Wait says. A bundle whose config or
// catalog does not load, or whose policy does not compile, is refused: the
// last good one stays in force.
func NewEngine(ctx context.Context, config []byte, o EngineOptions) (*Engine, error) {
	e := &Engine{roots: o.Roots, noStation: o.NoStation}
	accept := func(c *Contents) error {
		cfg, cat, err := ParseData(c.Config, c.Catalog, "", "")
		if err != nil {
			return err
		}
		b := &engineBundle{c: c, cfg: cfg, cat: cat, proj: map[string]projPipeline{}}
		if b.base, err = e.build(b, nil); err != nil {
			return err
		}
		e.cur.Store(b)
		return nil
	}
	id := o.ID
	if id == "" {
		host, _ := os.Hostname()
		id = "shellgate-" + host
	}
	wait := o.Wait
	switch {
	case wait == 0:
		wait = DefaultWait
	case wait < 0:
		wait = 0
	}
	a, err := Start(ctx, config, id, accept, wait)
	if err != nil {
		return nil, err
	}
	e.agent = a
	return e, nil
}

// Agent is the engine's OPA agent (status, flush).
func (e *Engine) Agent() *Agent { return e.agent }

// Stop uploads buffered decision logs (for at most 5 s) and stops the
// agent.
func (e *Engine) Stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.agent.Stop(ctx)
}

// build compiles the bundle b's pipeline, tightened by the project config
// proj when there is one, as an untrusted project config tightens: its
// deny rows, a readonly mode, and the deny and ask rules of its policy
// directories; never its grants, roots or allow rules, trusted or not.
func (e *Engine) build(b *engineBundle, proj *policy.Config) (*gate.Pipeline, error) {
	res := &policy.Resolved{Config: b.cfg}
	if proj != nil {
		pr, err := policy.ResolveWith(proj, nil, "", nil) // no store: nothing widens
		if err != nil {
			return nil, err
		}
		merged := *b.cfg
		merged.DenyReads = append(append([]string(nil), b.cfg.DenyReads...), pr.Config.DenyReads...)
		if pr.Config.Mode == policy.ModeReadonly {
			merged.Mode = policy.ModeReadonly
		}
		res.Config = &merged
		res.UntrustedModules = map[string]string{}
		for k, v := range pr.Modules {
			res.UntrustedModules[k] = v
		}
		for k, v := range pr.UntrustedModules {
			res.UntrustedModules[k] = v
		}
	}
	return gate.NewPipeline(gate.PipelineOptions{
		Resolved: res, Catalog: b.cat, Modules: b.c.Modules, NoDefaultPolicy: true, Roots: e.roots, NoStation: e.noStation,
	})
}

// PipelineFor is the pipeline for a command run in cwd: the bundle's,
// tightened by the project config found from cwd (rebuilt when that file
// changes). nil when no bundle is in force.
func (e *Engine) PipelineFor(cwd string) (*gate.Pipeline, error) {
	b := e.cur.Load()
	if b == nil {
		return nil, nil
	}
	if !filepath.IsAbs(cwd) {
		// No project config can be found from a directory nobody named
		// (the policy asks with cwd-unknown).
		return b.base, nil
	}
	p, src, err := policy.FindConfigSource(cwd)
	if err != nil {
		return nil, fmt.Errorf("finding the project config: %w", err)
	}
	if p == "" || src != policy.SourceProject {
		return b.base, nil
	}
	cfg, err := policy.LoadConfigFrom(p, policy.SourceProject)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if x, ok := b.proj[p]; ok && x.sum == cfg.SHA256() {
		return x.pl, x.err
	}
	pl, err := e.build(b, cfg)
	if len(b.proj) >= maxProjects {
		b.proj = map[string]projPipeline{}
	}
	b.proj[p] = projPipeline{sum: cfg.SHA256(), pl: pl, err: err}
	return pl, err
}

// Pipeline is the base pipeline of the bundle in force (nil: none yet).
func (e *Engine) Pipeline() *gate.Pipeline {
	if b := e.cur.Load(); b != nil {
		return b.base
	}
	return nil
}

// Revision names the bundles in force ("" when none).
func (e *Engine) Revision() string {
	if b := e.cur.Load(); b != nil {
		return b.c.Revision
	}
	return ""
}

// Fallback is the pipeline that classifies while no bundle is in force
// (the default config and catalog, no station): the decision is then a
// deny.
func (e *Engine) Fallback() (*gate.Pipeline, error) {
	e.fallbackOnce.Do(func() {
		e.fallback, e.fallbackErr = gate.NewPipeline(gate.PipelineOptions{Config: policy.DefaultConfig(), NoStation: true})
	})
	return e.fallback, e.fallbackErr
}

// Input classifies command and judges its reads with the pipeline for cwd
// (see gate.Pipeline.InputShell): the project's tightening (a readonly
// mode, deny rows) applies to the input as well. When that pipeline cannot
// be had, the bundle's base pipeline, or the fallback, builds the input
// (Decide then says why). The command runs in this process's environment
// (the CLI, started by the agent); InputEnv takes another.
func (e *Engine) Input(command, cwd, mode string, shell classify.Dialect) (policy.Input, *readstation.Station, error) {
	return e.InputEnv(command, cwd, mode, shell, readstation.ProcessEnv)
}

// InputEnv is Input for a command that runs in the environment env (what
// is known of the agent's: readstation.Boundary.Env).
func (e *Engine) InputEnv(command, cwd, mode string, shell classify.Dialect, env readstation.Env) (policy.Input, *readstation.Station, error) {
	pl, err := e.PipelineFor(cwd)
	if err != nil || pl == nil {
		if pl = e.Pipeline(); pl == nil {
			if pl, err = e.Fallback(); err != nil {
				return policy.Input{Command: command, Cwd: cwd, Mode: mode}, nil, err
			}
		}
	}
	return pl.InputEnv(command, cwd, mode, shell, env)
}

// Decide decides on in (built by Input) with the bundle in force, or
// denies when there is none, and hands the decision to the decision log.
// A project config that does not load is a deny with code policy-error.
// The error is for a cancelled context.
func (e *Engine) Decide(ctx context.Context, in policy.Input) (policy.Decision, error) {
	var d policy.Decision
	rev := e.Revision()
	pl, err := e.PipelineFor(in.Cwd)
	switch {
	case err != nil:
		d, err = policy.ErrorDecision("%v", err), nil
	case pl != nil:
		d, _, err = pl.Decide(ctx, in)
	default:
		d = e.unavailable(in.Command)
	}
	e.log(ctx, in, d, rev)
	return d, err
}

// unavailable is the deny of command while no bundle is in force.
func (e *Engine) unavailable(command string) policy.Decision {
	return policy.Decision{Action: policy.Deny, Reasons: []policy.Reason{{
		Code: PolicyBundleUnavailable, Message: e.agent.Unavailable(),
		Span: &classify.Span{Start: 0, End: len(command)}, Segment: -1, Rule: PolicyBundleUnavailable,
	}}}
}

// Check decides command as shellgate check does (see gate.Checker), with
// the bundle in force, and logs the decision.
func (e *Engine) Check(ctx context.Context, command, cwd, mode string, shell classify.Dialect) (gate.CheckResult, error) {
	in, st, serr := e.Input(command, cwd, mode, shell)
	dec, err := e.Decide(ctx, in)
	if err != nil {
		return gate.CheckResult{}, err
	}
	res := gate.NewCheckResult(in, st, dec)
	if serr != nil {
		res.Error = serr.Error()
	}
	return res, nil
}

// Explain explains the decision on in: the facts and the rules that fired
// are those of the bundle's base pipeline (the fallback's while there is
// none); the decision is the bundle's, as Decide makes it.
func (e *Engine) Explain(ctx context.Context, in policy.Input) (*rego.Explanation, error) {
	pl := e.Pipeline()
	if pl == nil {
		var err error
		if pl, err = e.Fallback(); err != nil {
			return nil, err
		}
	}
	x, err := pl.Explain(ctx, in)
	if err != nil {
		return nil, err
	}
	x.Decision, err = e.Decide(ctx, in)
	return x, err
}

// Grant decides on in in default mode with the bundle in force and
// returns its grants.
func (e *Engine) Grant(ctx context.Context, in policy.Input) (gate.Grants, error) {
	in.Mode = policy.ModeDefault
	dec, err := e.Decide(ctx, in)
	return gate.GrantsOf(in.Command, dec), err
}

// dialectOf is the shell language the command was read in, as the report
// says ("bash", "zsh", or both readings for an unknown shell); "bash" when
// there is no report (the default reading).
func dialectOf(in policy.Input) string {
	if in.Report != nil && in.Report.Dialect != "" {
		return in.Report.Dialect
	}
	if in.Shell != "" {
		return in.Shell
	}
	return string(classify.DialectBash)
}

func (e *Engine) log(ctx context.Context, in policy.Input, d policy.Decision, rev string) {
	r := Record{Command: in.Command, Cwd: in.Cwd, Mode: in.Mode, Action: string(d.Action), Reasons: d.Reasons, Revision: rev, Dialect: dialectOf(in)}
	for _, x := range d.Reasons {
		r.Codes = append(r.Codes, x.Code)
		r.Rules = append(r.Rules, x.Rule)
	}
	r.Secrets = Secrets(in)
	_ = e.agent.Log(ctx, r)
}

// Secrets are the source texts a decision log must not show: the values
// of env assignments (as written and as the shell sees them) and the reads
// the station denied.
func Secrets(in policy.Input) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	text := func(sp classify.Span) string {
		if sp.Start >= 0 && sp.End <= len(in.Command) && sp.Start < sp.End {
			return in.Command[sp.Start:sp.End]
		}
		return ""
	}
	if in.Report != nil {
		for _, s := range in.Report.Segments {
			for _, a := range s.Assigns {
				add(text(a.Value.Span))
				add(a.Value.Value)
			}
		}
	}
	if st, ok := in.Station.(*readstation.Station); ok && st != nil {
		for _, r := range st.Reads {
			if r.Verdict == readstation.VerdictDenied {
				add(text(r.Span))
				add(r.Path)
				add(r.Resolved)
				add(r.Real)
			}
		}
	}
	return out
}

// UnavailablePipeline is a pipeline whose policy denies every command with
// code policy-bundle-unavailable and the message why, for a gate built
// while no bundle is in force.
func UnavailablePipeline(why string) (*gate.Pipeline, error) {
	msg, err := json.Marshal(why)
	if err != nil {
		return nil, err
	}
	mod := fmt.Sprintf(`package shellgate

import rego.v1

decision := {"action": "deny", "reasons": [{"code": %q, "message": %s, "rule": %q}]}
`, PolicyBundleUnavailable, msg, PolicyBundleUnavailable)
	return gate.NewPipeline(gate.PipelineOptions{
		Config: policy.DefaultConfig(), Modules: map[string]string{"policy-bundle-unavailable.rego": mod}, NoDefaultPolicy: true, NoStation: true,
	})
}

// GatePipeline is the pipeline a gate for a command run in cwd decides
// with: the bundle's for cwd, or one that denies every command while no
// bundle is in force.
func (e *Engine) GatePipeline(cwd string) (*gate.Pipeline, error) {
	pl, err := e.PipelineFor(cwd)
	if err == nil && pl == nil {
		pl, err = UnavailablePipeline(e.agent.Unavailable())
	}
	return pl, err
}

// GateFor builds a gate for a command run in cwd on the bundle in force
// (a deny-all gate while there is none); it implements mcpserver.Gates.
// Log its decisions with LogDecision.
func (e *Engine) GateFor(cwd string) (*gate.Gate, error) {
	pl, err := e.GatePipeline(cwd)
	if err != nil {
		return nil, err
	}
	return gate.New(gate.WithCwd(cwd), gate.WithPipeline(pl))
}

// LogDecision hands a gate's decision to the decision log (nothing when e
// or d is nil).
func (e *Engine) LogDecision(ctx context.Context, d *gate.Decision) {
	if e == nil || d == nil {
		return
	}
	in := policy.Input{Command: d.Command, Cwd: d.Cwd, Mode: d.Mode, Report: d.Report}
	if d.Station != nil {
		in.Station = d.Station
	}
	e.log(ctx, in, d.Decision, e.Revision())
}
