package fleet

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/rego"
)

// PolicyBundleUnavailable is the code of the deny every decision gets
// while no good policy bundle was ever loaded.
const PolicyBundleUnavailable = rego.PolicyBundleUnavailable

// DefaultWait is how long NewEngine waits for a first bundle when none is
// persisted.
const DefaultWait = 5 * time.Second

// EngineOptions configure NewEngine.
type EngineOptions struct {
	// ID is the agent's id in decision logs and status (default
	// "shellgate-" and the host name).
	ID string
	// Wait is how long to wait for a first bundle when none is persisted
	// (0: DefaultWait; negative: not at all).
	Wait time.Duration
}

// Engine is a policy source (rego.Source) of the one pipeline: an OPA
// agent (Start) whose every accepted bundle, its modules (which include the
// default policy), config and catalog, is the bundle in force, and the
// decision log every decision made with it goes to, masked (Secrets). The
// pipeline (gate.NewSourceDecider) decides with it; while no bundle was
// ever loaded it denies every command with code policy-bundle-unavailable,
// saying why (Agent.Unavailable). It is safe for concurrent use.
type Engine struct {
	agent *Agent
	cur   atomic.Pointer[rego.Bundle]
}

// NewEngine starts the OPA agent of config (an OPA configuration: services,
// bundles, decision_logs, status, keys, persistence_directory) and waits
// for a first bundle as EngineOptions.Wait says. A bundle whose config or
// catalog does not load, or whose policy does not compile, is refused: the
// last good one stays in force.
func NewEngine(ctx context.Context, config []byte, o EngineOptions) (*Engine, error) {
	e := &Engine{}
	accept := func(c *Contents) error {
		b, err := ReadBundle(c)
		if err != nil {
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

// ReadBundle reads a bundle's contents as the pipeline consumes them: its
// config and catalog loaded, the config's catalog additions checked and
// its modules compiled. The error says why the bundle is refused.
func ReadBundle(c *Contents) (*rego.Bundle, error) {
	cfg, cat, err := ParseData(c.Config, c.Catalog, "", "")
	if err != nil {
		return nil, err
	}
	if _, err := cfg.ClassifyOptions(cat); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	eng, err := rego.New(rego.WithModules(c.Modules), rego.WithoutDefaultPolicy())
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return &rego.Bundle{Revision: c.Revision, Modules: c.Modules, Config: cfg, Catalog: cat, Engine: eng}, nil
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

// Bundle returns the bundle in force, or nil and why there is none (see
// rego.Source).
func (e *Engine) Bundle() (*rego.Bundle, string) {
	if b := e.cur.Load(); b != nil {
		return b, ""
	}
	return nil, e.agent.Unavailable()
}

// Revision names the bundles in force ("" when none).
func (e *Engine) Revision() string {
	if b := e.cur.Load(); b != nil {
		return b.Revision
	}
	return ""
}

// Log hands the decision d on in, made with the bundle b (nil: none in
// force), to the decision log, masked (see rego.Source).
func (e *Engine) Log(ctx context.Context, b *rego.Bundle, in policy.Input, d policy.Decision) {
	rev := ""
	if b != nil {
		rev = b.Revision
	}
	e.log(ctx, in, d, rev)
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
