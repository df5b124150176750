package main

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/rego/fleet"
)

// PolicyBundleUnavailable is the code of the deny every decision gets
// while no good policy bundle was ever loaded.
const PolicyBundleUnavailable = "policy-bundle-unavailable"

// fleetWait is how long a command waits for a first bundle when none is
// persisted.
var fleetWait = 5 * time.Second

// fleetState is an OPA agent (rego/fleet) and the pipeline built from
// the bundle in force.
type fleetState struct {
	agent *fleet.Agent
	pl    atomic.Pointer[gate.Pipeline]
	rev   atomic.Pointer[string]
}

// startFleet reads the OPA config at path and starts the agent. Each
// bundle it activates becomes a pipeline: the bundle's modules (which
// include the default policy), config and catalog, tightened by a project
// config found from cwd (as an untrusted project config tightens: its deny
// rows, a readonly mode, and the deny and ask rules of its modules; never
// its grants, roots or allow rules).
func startFleet(path, cwd string, roots []string, noStation bool) (*fleetState, error) {
	raw, err := readSmallFile(path)
	if err != nil {
		return nil, fmt.Errorf("--opa-config: %w", err)
	}
	var proj *policy.Resolved
	if p, src, err := policy.FindConfigSource(cwd); err == nil && p != "" && src == policy.SourceProject {
		cfg, err := policy.LoadConfigFrom(p, policy.SourceProject)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		// No trust store: a project config only tightens a bundle.
		if proj, err = policy.ResolveWith(cfg, nil, "", nil); err != nil {
			return nil, err
		}
	}
	fs := &fleetState{}
	accept := func(c *fleet.Contents) error {
		cfg, cat, err := fleet.ParseData(c.Config, c.Catalog, "", "")
		if err != nil {
			return err
		}
		res := &policy.Resolved{Config: cfg}
		if proj != nil {
			merged := *cfg
			merged.DenyReads = append(append([]string(nil), cfg.DenyReads...), proj.Config.DenyReads...)
			if proj.Config.Mode == policy.ModeReadonly {
				merged.Mode = policy.ModeReadonly
			}
			res.Config = &merged
			res.UntrustedModules = map[string]string{}
			for k, v := range proj.Modules {
				res.UntrustedModules[k] = v
			}
			for k, v := range proj.UntrustedModules {
				res.UntrustedModules[k] = v
			}
		}
		pl, err := gate.NewPipeline(gate.PipelineOptions{
			Resolved: res, Catalog: cat, Modules: c.Modules, NoDefaultPolicy: true, Roots: roots, NoStation: noStation,
		})
		if err != nil {
			return err
		}
		rev := c.Revision
		fs.pl.Store(pl)
		fs.rev.Store(&rev)
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

// current is the pipeline of the bundle in force (nil: none yet).
func (f *fleetState) current() *gate.Pipeline { return f.pl.Load() }

func (f *fleetState) revision() string {
	if r := f.rev.Load(); r != nil {
		return *r
	}
	return ""
}

// decide decides with the bundle in force, or denies when there is none,
// and hands the decision to the decision log.
func (f *fleetState) decide(ctx context.Context, in policy.Input) (policy.Decision, error) {
	var d policy.Decision
	var err error
	rev := f.revision()
	if pl := f.current(); pl != nil {
		d, _, err = pl.Decide(ctx, in)
	} else {
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
