package main

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
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/rego/fleet"
	"github.com/shellgate/shellgate/serve"
)

// PolicyBundleUnavailable is the code of the deny every decision gets
// while no good policy bundle was ever loaded.
const PolicyBundleUnavailable = "policy-bundle-unavailable"

// OPAConfigEnv names the environment variable that gives every command
// (check, run, mcp, serve and the one-shot hook) an OPA configuration when
// no --opa-config is given: set it in the agents' environment so that the
// resident engine the hook client starts, and the hook's fallback, decide
// with the team's bundle too.
const OPAConfigEnv = "SHELLGATE_OPA_CONFIG"

// maxProjects bounds the project pipelines a bundle keeps (one per
// project config).
const maxProjects = 64

// fleetWait is how long a command waits for a first bundle when none is
// persisted.
var fleetWait = 5 * time.Second

// fleetState is an OPA agent (rego/fleet) and the pipelines built from
// the bundle in force: one for commands outside any project, and one per
// project config found from a command's cwd.
type fleetState struct {
	agent     *fleet.Agent
	roots     []string
	noStation bool
	cur       atomic.Pointer[fleetBundle]
}

// fleetBundle is one accepted bundle: its base pipeline and the project
// pipelines built on it.
type fleetBundle struct {
	c    *fleet.Contents
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

// startFleet reads the OPA config at path and starts the agent. Each
// bundle it activates becomes a pipeline: the bundle's modules (which
// include the default policy), config and catalog; a project config found
// from a command's cwd only tightens it (see pipelineFor).
func startFleet(path, _ string, roots []string, noStation bool) (*fleetState, error) {
	raw, err := readSmallFile(path)
	if err != nil {
		return nil, fmt.Errorf("--opa-config: %w", err)
	}
	fs := &fleetState{roots: roots, noStation: noStation}
	accept := func(c *fleet.Contents) error {
		cfg, cat, err := fleet.ParseData(c.Config, c.Catalog, "", "")
		if err != nil {
			return err
		}
		b := &fleetBundle{c: c, cfg: cfg, cat: cat, proj: map[string]projPipeline{}}
		if b.base, err = fs.build(b, nil); err != nil {
			return err
		}
		fs.cur.Store(b)
		return nil
	}
	host, _ := os.Hostname()
	a, err := fleet.Start(context.Background(), raw, "shellgate-"+host, accept, fleetWait)
	if err != nil {
		return nil, err
	}
	fs.agent = a
	return fs, nil
}

// build compiles the bundle b's pipeline, tightened by the project config
// proj when there is one, as an untrusted project config tightens: its
// deny rows, a readonly mode, and the deny and ask rules of its policy
// directories; never its grants, roots or allow rules, trusted or not.
func (f *fleetState) build(b *fleetBundle, proj *policy.Config) (*gate.Pipeline, error) {
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
		Resolved: res, Catalog: b.cat, Modules: b.c.Modules, NoDefaultPolicy: true, Roots: f.roots, NoStation: f.noStation,
	})
}

// pipelineFor is the pipeline for a command run in cwd: the bundle's,
// tightened by the project config found from cwd (rebuilt when that file
// changes). nil when no bundle is in force.
func (f *fleetState) pipelineFor(cwd string) (*gate.Pipeline, error) {
	b := f.cur.Load()
	if b == nil {
		return nil, nil
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
	if e, ok := b.proj[p]; ok && e.sum == cfg.SHA256() {
		return e.pl, e.err
	}
	pl, err := f.build(b, cfg)
	if len(b.proj) >= maxProjects {
		b.proj = map[string]projPipeline{}
	}
	b.proj[p] = projPipeline{sum: cfg.SHA256(), pl: pl, err: err}
	return pl, err
}

// current is the base pipeline of the bundle in force (nil: none yet).
func (f *fleetState) current() *gate.Pipeline {
	if b := f.cur.Load(); b != nil {
		return b.base
	}
	return nil
}

func (f *fleetState) revision() string {
	if b := f.cur.Load(); b != nil {
		return b.c.Revision
	}
	return ""
}

// readSmallFile reads a regular file of at most 1 MiB.
func readSmallFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() > 1<<20 {
		return nil, fmt.Errorf("%s: not a regular file of at most 1 MiB", path)
	}
	return os.ReadFile(path)
}

// decide decides with the bundle in force, or denies when there is none,
// and hands the decision to the decision log.
func (f *fleetState) decide(ctx context.Context, in policy.Input) (policy.Decision, error) {
	var d policy.Decision
	rev := f.revision()
	pl, err := f.pipelineFor(in.Cwd)
	switch {
	case err != nil:
		d, err = policy.ErrorDecision("%v", err), nil
	case pl != nil:
		d, _, err = pl.Decide(ctx, in)
	default:
		d = policy.Decision{Action: policy.Deny, Reasons: []policy.Reason{{
			Code: PolicyBundleUnavailable, Message: f.agent.Unavailable(),
			Span: &classify.Span{Start: 0, End: len(in.Command)}, Segment: -1, Rule: PolicyBundleUnavailable,
		}}}
	}
	f.log(ctx, in, d, rev)
	return d, err
}

func (f *fleetState) log(ctx context.Context, in policy.Input, d policy.Decision, rev string) {
	r := fleet.Record{Command: in.Command, Cwd: in.Cwd, Mode: in.Mode, Action: string(d.Action), Reasons: d.Reasons, Revision: rev, Dialect: "bash"}
	for _, x := range d.Reasons {
		r.Codes = append(r.Codes, x.Code)
		r.Rules = append(r.Rules, x.Rule)
	}
	r.Secrets = secrets(in)
	_ = f.agent.Log(ctx, r)
}

// secrets are the source texts a decision log must not show: the values
// of env assignments (as written and as the shell sees them) and the reads
// the station denied.
func secrets(in policy.Input) []string {
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

// stop uploads buffered decision logs and stops the agent.
func (f *fleetState) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	f.agent.Stop(ctx)
}

// fleetHook answers hook calls with the bundle in force (serve
// --opa-config).
type fleetHook struct {
	f     *fleetState
	flags hook.Flags
}

// Decide implements hook.Decider. A hook that names its own config or
// policy is denied: under a bundle, local policy cannot replace it.
func (h fleetHook) Decide(ctx context.Context, q hook.Query) (hook.Verdict, error) {
	in := policy.Input{Command: q.Command, Cwd: q.Cwd}
	var d policy.Decision
	if h.flags.Config != "" || len(h.flags.Policy) > 0 {
		d = policy.Decision{Action: policy.Deny, Reasons: []policy.Reason{{
			Code:    PolicyBundleUnavailable,
			Message: "the engine decides with the team's policy bundle (serve --opa-config); the hook's --config and --policy cannot replace it: remove them from the hook command",
			Span:    &classify.Span{Start: 0, End: len(q.Command)}, Segment: -1,
		}}}
		return serve.Verdict(&gate.Decision{Decision: d, Command: q.Command, Cwd: q.Cwd}), nil
	}
	if !filepath.IsAbs(q.Cwd) {
		d = policy.Decision{Action: policy.Ask, Reasons: []policy.Reason{{
			Code:    "cwd-unknown",
			Message: "the agent did not say in which directory the command runs, so its reads cannot be judged",
			Span:    &classify.Span{Start: 0, End: len(q.Command)}, Segment: -1,
		}}}
		return serve.Verdict(&gate.Decision{Decision: d, Command: q.Command, Cwd: q.Cwd}), nil
	}
	ctx, cancel := context.WithTimeout(ctx, serve.CheckTimeout)
	defer cancel()
	mode := serve.GateMode(q.Mode)
	shell, err := classify.ParseDialect(q.Shell)
	if err != nil {
		return hook.Verdict{}, err
	}
	pl, err := h.f.pipelineFor(q.Cwd)
	if err == nil && pl != nil {
		in, _, _ = pl.InputShell(q.Command, q.Cwd, mode, pl.Shell(shell))
	} else if in, _, err = fleetFallback(q.Command, q.Cwd, mode, shell); err != nil {
		return hook.Verdict{}, err
	}
	if d, err = h.f.decide(ctx, in); err != nil {
		return hook.Verdict{}, err
	}
	return serve.Verdict(&gate.Decision{Decision: d, Command: q.Command, Cwd: q.Cwd}), nil
}

var (
	fallbackOnce sync.Once
	fallbackPl   *gate.Pipeline
	fallbackErr  error
)

// fleetFallback classifies a command while no bundle is in force (the
// decision is then a deny).
func fleetFallback(command, cwd, mode string, shell classify.Dialect) (policy.Input, *readstation.Station, error) {
	fallbackOnce.Do(func() { fallbackPl, fallbackErr = (&decideFlags{}).fallback() })
	if fallbackErr != nil {
		return policy.Input{}, nil, fallbackErr
	}
	return fallbackPl.InputShell(command, cwd, mode, shell)
}

// unavailablePipeline is a pipeline whose policy denies every command with
// code policy-bundle-unavailable and the message why, for a gate built
// while no bundle is in force.
func unavailablePipeline(why string) (*gate.Pipeline, error) {
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

// gateFor builds a gate for a command run in cwd on the bundle in force
// (a deny-all gate while there is none).
func (f *fleetState) gateFor(cwd string) (*gate.Gate, error) {
	pl, err := f.pipelineFor(cwd)
	if err == nil && pl == nil {
		pl, err = unavailablePipeline(f.agent.Unavailable())
	}
	if err != nil {
		return nil, err
	}
	return gate.New(gate.WithCwd(cwd), gate.WithPipeline(pl))
}

// logGate hands a gate's decision to the decision log (nothing when f is
// nil or the decision is).
func (f *fleetState) logGate(ctx context.Context, d *gate.Decision) {
	if f == nil || d == nil {
		return
	}
	in := policy.Input{Command: d.Command, Cwd: d.Cwd, Mode: d.Mode, Report: d.Report}
	if d.Station != nil {
		in.Station = d.Station
	}
	f.log(ctx, in, d.Decision, f.revision())
}
