package serve

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/shellgate/shellgate/agentrules"
	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/exitmeaning"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/trust"
)

// CheckTimeout bounds one hook decision: below the thin client's budget
// for a whole call (25 s, its one-shot fallback included) and the agents'
// hook timeouts (30 s as installed), so that a slow decision is a deny
// with a reason, not a killed hook.
const CheckTimeout = 10 * time.Second

// Gates is a hook.Decider over gates: one gate per config file that
// applies (the --config file, else the .shellgate.yaml or user config
// that policy.FindConfigSource finds from the command's cwd), each
// compiled once. Before every decision it compares the stamp of the
// gate's inputs (the config file, the policy directories, the trust
// store) with the one taken when the gate was built, and rebuilds first
// when one changed: a resident engine never answers from stale rules. It
// is safe for concurrent use.
type Gates struct {
	flags hook.Flags
	// afterBuild, when set (by tests), runs right after a gate is built.
	afterBuild func()

	mu    sync.Mutex
	gates map[string]*gateEntry
	// rules caches the rules of the agents' own settings.
	rules agentrules.Cache
}

type gateEntry struct {
	mu     sync.Mutex
	g      *gate.Gate
	err    error
	stamps []*hook.InputStamp
}

// NewGates returns the gates of the hook flags f (its Config and Policy
// apply; none is built yet).
func NewGates(f hook.Flags) *Gates {
	return &Gates{flags: f, gates: map[string]*gateEntry{}}
}

// maxGates bounds the gates a Gates keeps (one per config file).
const maxGates = 64

// GateFor returns the gate for a command run in cwd, rebuilt first when
// an input changed since it was built.
func (c *Gates) GateFor(cwd string) (*gate.Gate, error) {
	cfgPath, src := c.flags.Config, policy.SourceExplicit
	var findErr error
	if cfgPath == "" {
		// A config found in any form that cannot be used (a directory,
		// a FIFO, a dangling symlink) is not "no config": its gate
		// denies every command, naming the file (policy.LoadFoundConfig).
		if cfgPath, src, findErr = policy.FindConfigSource(cwd); findErr != nil && cfgPath == "" {
			return nil, fmt.Errorf("finding the config: %w", findErr)
		}
	}
	key := string(src) + "\x00" + cfgPath
	c.mu.Lock()
	e, ok := c.gates[key]
	if !ok {
		if len(c.gates) >= maxGates {
			c.gates = map[string]*gateEntry{}
		}
		e = &gateEntry{}
		c.gates[key] = e
	}
	c.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stamps != nil && !changed(e.stamps) {
		return e.g, e.err
	}
	// (Re)build: first time, or an input changed. Each input is stamped
	// before it is read, so that a change made while the gate is built
	// is seen at the next decision rather than stamped as already built.
	paths := append([]string{cfgPath}, c.flags.Policy...)
	if src == policy.SourceProject {
		if tp, err := trust.Path(); err == nil {
			paths = append(paths, tp)
		}
	}
	e.stamps = []*hook.InputStamp{hook.NewInputStamp(paths...)}
	e.g, e.err = c.build(cfgPath, src, findErr, func(dirs []string) {
		e.stamps = append(e.stamps, hook.NewInputStamp(dirs...))
	})
	if c.afterBuild != nil {
		c.afterBuild()
	}
	return e.g, e.err
}

func changed(stamps []*hook.InputStamp) bool {
	for _, s := range stamps {
		if s.Changed() {
			return true
		}
	}
	return false
}

// build loads the config and builds its gate; stampDirs is called with
// the config's policy dirs before they are read.
func (c *Gates) build(cfgPath string, src policy.Source, findErr error, stampDirs func([]string)) (*gate.Gate, error) {
	cfg := policy.DefaultConfig()
	switch {
	case cfgPath == "":
	case src == policy.SourceExplicit:
		// The file the user named: an error of theirs to fix.
		var err error
		if cfg, err = policy.LoadConfigFrom(cfgPath, src); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
	default:
		cfg = policy.LoadFoundConfig(cfgPath, src, findErr)
	}
	stampDirs(cfg.PolicyDirs)
	return gate.New(gate.WithConfig(cfg), gate.WithPolicyDirs(c.flags.Policy...))
}

// Decide implements hook.Decider with the gate's Decide, within
// CheckTimeout.
func (c *Gates) Decide(ctx context.Context, q hook.Query) (hook.Verdict, error) {
	g, err := c.GateFor(q.Cwd)
	if err != nil {
		return hook.Verdict{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	req := gate.Request{Command: q.Command, Cwd: q.Cwd, Mode: GateMode(q.Mode), Shell: q.Shell, Env: q.Env}
	if q.Agent != "" {
		// What the person allowed in the agent's own settings.
		req.AgentRules = c.rules.Load(agentrules.Source{Agent: q.Agent, Env: q.AgentEnv, Cwd: q.Cwd})
	}
	d, err := g.Decide(ctx, req)
	if err != nil {
		return hook.Verdict{}, err
	}
	return Verdict(d), nil
}

// GateMode maps a hook mode to the gate's: readonly stays readonly, and
// default becomes "" (the configured mode), so a config that says
// readonly is never loosened by a hook.
func GateMode(hookMode string) string {
	if hookMode == hook.ModeReadonly {
		return hook.ModeReadonly
	}
	return ""
}

// Verdict is the gate's decision as a hook verdict: the action and each
// reason's code, message (on one line) and span.
func Verdict(d *gate.Decision) hook.Verdict {
	v := hook.Verdict{Action: string(d.Action)}
	for _, r := range d.Reasons {
		hr := hook.Reason{Code: r.Code, Message: OneLineText(r.Message)}
		if r.Span != nil {
			hr.Span = &[2]int{r.Span.Start, r.Span.End}
		}
		v.Reasons = append(v.Reasons, hr)
	}
	return v
}

// OneLineText is s with every run of white space (newlines included) one
// space: a message for a line of an agent's or a model's text.
func OneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

// ExitText is what the hooks tell the model about exit code, whose
// meaning is m, when it is worth saying: "" for exit 0 or an exit with no
// known meaning.
func ExitText(m exitmeaning.Meaning, code int) string {
	if m.Message == "" || code == 0 {
		return ""
	}
	who := ""
	if m.Program != "" {
		who = " from " + m.Program
	}
	if !m.Error {
		return fmt.Sprintf("exit %d%s means %s, not an error", code, who, m.Message)
	}
	return fmt.Sprintf("exit %d%s: %s", code, who, m.Message)
}

// ExplainExit is the hook.Explainer of no gate: the embedded catalog's
// meaning of the exit, the command read in the query's shell (bash when
// it is not known).
func ExplainExit(q hook.Query, code int) string {
	return explainExit(q, queryShell(q), code)
}

func explainExit(q hook.Query, shell classify.Dialect, code int) string {
	return ExitText(exitmeaning.Interpret(q.Command, code, exitmeaning.WithDialect(shell)), code)
}

// queryShell is the shell a query names (DialectUnknown for one that is
// not known: the exit is then read as bash).
func queryShell(q hook.Query) classify.Dialect {
	d, _ := classify.ParseDialect(q.Shell)
	return d
}

// ExplainExit is the gates' hook.Explainer: the meaning of the exit as the
// gate for the command's cwd reads it (its catalog, and the query's shell
// or else its config's). With no gate for that cwd it is ExplainExit's.
func (c *Gates) ExplainExit(q hook.Query, code int) string {
	return explainWith(c.GateFor, q, code)
}

// ExplainExit is the bundle's hook.Explainer: the meaning of the exit as
// the bundle's gate for the command's cwd reads it.
func (b BundleDecider) ExplainExit(q hook.Query, code int) string {
	return explainWith(func(cwd string) (*gate.Gate, error) { return b.Decider.GateFor(cwd) }, q, code)
}

func explainWith(gateFor func(cwd string) (*gate.Gate, error), q hook.Query, code int) string {
	d := queryShell(q)
	g, err := gateFor(q.Cwd)
	if err != nil || g == nil {
		return explainExit(q, d, code)
	}
	return ExitText(g.ExitMeaning(q.Command, code, g.Pipeline().Shell(d)), code)
}

// Explainer is d's own exit explainer when it has one (Gates,
// BundleDecider: the catalog of the gate that decides), else ExplainExit.
func Explainer(d hook.Decider) hook.Explainer {
	if e, ok := d.(interface {
		ExplainExit(hook.Query, int) string
	}); ok {
		return e.ExplainExit
	}
	return ExplainExit
}
