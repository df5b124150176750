package corpus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
)

// GateChecker judges commands through a real gate: classify, the read
// station and the policy, exactly as `shellgate check` and the hook do.
// Exit meanings are the gate's (Gate.ExitMeaning: its catalog, the
// case's shell).
type GateChecker struct {
	Gate *gate.Gate
}

// NewGateChecker builds a gate with opts and wraps it.
func NewGateChecker(opts ...gate.Option) (*GateChecker, error) {
	g, err := gate.New(opts...)
	if err != nil {
		return nil, err
	}
	return &GateChecker{Gate: g}, nil
}

// GateFactory builds a gate per configuration: base for the run's own
// (nil: the defaults), a case file's config otherwise; opts (policy
// directories, a catalog) apply to every gate.
func GateFactory(base *policy.Config, opts ...gate.Option) Factory {
	return func(cfg *policy.Config) (Checker, error) {
		if cfg == nil {
			cfg = base
		}
		o := opts
		if cfg != nil {
			o = append([]gate.Option{gate.WithConfig(cfg)}, opts...)
		}
		return NewGateChecker(o...)
	}
}

// Check implements Checker. The gate takes the home directory from the
// environment, so an Input.Home other than $HOME is an error rather than a
// silently different boundary (run with Options.Home and $HOME pointing at
// the same directory).
func (c *GateChecker) Check(ctx context.Context, in Input) (Outcome, error) {
	if in.Home != "" {
		h, err := os.UserHomeDir()
		if err != nil || !sameDir(h, in.Home) {
			return Outcome{}, fmt.Errorf("the case's home %s is not $HOME (%s): the gate reads the home directory from the environment", in.Home, h)
		}
	}
	d, err := c.Gate.Check(ctx, gate.Request{Command: in.Command, Cwd: in.Cwd, Mode: in.Mode, Shell: in.Shell})
	if err != nil {
		return Outcome{}, err
	}
	o := Outcome{Action: string(d.Action), Reversible: d.Reversible}
	for _, r := range d.Reasons {
		rs := Reason{Code: r.Code, Message: r.Message, Rule: r.Rule}
		if r.Span != nil {
			rs.Span = [2]int{r.Span.Start, r.Span.End}
		}
		o.Reasons = append(o.Reasons, rs)
	}
	if st := d.Station; st != nil {
		for _, rd := range st.Reads {
			o.Reads = append(o.Reads, Read{Path: rd.Path, Verdict: string(rd.Verdict)})
		}
		for _, h := range st.RepoHelpers {
			name := h.Key
			if name == "" {
				name = filepath.Base(h.File) // a project file whose existence runs code
			}
			o.Reads = append(o.Reads, Read{Path: name, Verdict: "repo-helper"})
		}
	}
	return o, nil
}

// ExitMeaning implements ExitMeaner with the gate's reading: its catalog,
// in shell's dialect (else the config's shell, else bash).
func (c *GateChecker) ExitMeaning(command, shell string, code int) (bool, string) {
	d, _ := classify.ParseDialect(shell)
	m := c.Gate.ExitMeaning(command, code, c.Gate.Pipeline().Shell(d))
	return m.Error, m.Message
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return ra == rb
}
