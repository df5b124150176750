package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/shellgate/shellgate/exitmeaning"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/trust"
)

func init() {
	register("hook", "answer a coding agent's hook call on stdin (claude, codex, gemini, cursor)", runHook)
}

// hookCheckTimeout bounds one decision: below the thin client's budget for
// a whole call (25 s, its one-shot fallback included) and the agents' hook
// timeouts (30 s as installed), so that a slow decision is a deny with a
// reason, not a killed hook.
const hookCheckTimeout = 10 * time.Second

func runHook(e *env) int {
	flags, ops, err := hook.ParseFlags(e.args, e.stderr)
	var agent hook.Agent
	if err == nil {
		switch len(ops) {
		case 1:
			agent, err = hook.ParseAgent(ops[0])
		case 0:
			err = errors.New("no agent given")
		default:
			err = fmt.Errorf("unexpected arguments %q", ops[1:])
		}
	}
	if err != nil {
		// No agent, no answer format: exit 2 blocks the command in Claude
		// Code, Codex and Gemini CLI, with stderr as the reason.
		fmt.Fprintln(e.stderr, "shellgate hook:", err)
		fmt.Fprintln(e.stderr, "usage: shellgate hook <claude|codex|gemini|cursor> [--ask-as deny|defer] [--mode readonly] [--shell bash|zsh|sh] [--policy DIR]... [--config FILE]")
		return 2
	}
	var ans hook.Answer
	input, err := io.ReadAll(io.LimitReader(e.stdin, hook.MaxPayload+1))
	switch {
	case err != nil:
		ans = hook.DenyError(agent, "", fmt.Errorf("reading stdin: %v", err))
	case len(input) > hook.MaxPayload:
		ans = hook.DenyError(agent, "", hook.ErrTooLarge)
	default:
		var dec hook.Decider = newGateCache(flags)
		if p := os.Getenv(OPAConfigEnv); p != "" {
			f, err := startFleet(p, "", nil, false)
			if err != nil {
				ans = hook.DenyError(agent, "", fmt.Errorf("%s: %v", OPAConfigEnv, err))
				break
			}
			defer f.stop()
			dec = fleetHook{f: f, flags: flags}
		}
		ans = hook.Handle(context.Background(), agent, input, flags, dec, explainExit)
	}
	if _, err := e.stdout.Write(ans.Stdout); err != nil {
		fmt.Fprintln(e.stderr, "shellgate hook:", err)
		return 2
	}
	return ans.Exit
}

// explainExit is the hooks' Explainer: what an exit code means, for the
// model, when it is worth saying.
func explainExit(command string, code int) string {
	m := exitmeaning.Interpret(command, code)
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

// gateCache is a hook.Decider over gates: one gate per config file that
// applies (the --config file, else the .shellgate.yaml or user config that
// policy.FindConfigSource finds from the command's cwd), each compiled
// once. Before every decision it compares the stamp of the gate's inputs
// (the config file, the policy directories, the trust store) with the one
// taken when the gate was built, and rebuilds first when one changed: a
// resident engine never answers from stale rules. It is safe for
// concurrent use.
type gateCache struct {
	flags hook.Flags
	// fleet, when set (mcp --opa-config), builds every gate on the policy
	// bundle in force.
	fleet *fleetState
	// afterBuild, when set (by tests), runs right after a gate is built.
	afterBuild func()

	mu    sync.Mutex
	gates map[string]*gateEntry
}

type gateEntry struct {
	mu     sync.Mutex
	g      *gate.Gate
	err    error
	stamps []*hook.InputStamp
}

func newGateCache(f hook.Flags) *gateCache {
	return &gateCache{flags: f, gates: map[string]*gateEntry{}}
}

// maxGates bounds the gates a cache keeps (one per config file).
const maxGates = 64

// gateFor returns the gate for a command run in cwd, rebuilt first when
// an input changed since it was built.
func (c *gateCache) gateFor(cwd string) (*gate.Gate, error) {
	if c.fleet != nil {
		return c.fleet.gateFor(cwd)
	}
	cfgPath, src := c.flags.Config, policy.SourceExplicit
	if cfgPath == "" {
		var err error
		if cfgPath, src, err = policy.FindConfigSource(cwd); err != nil {
			return nil, fmt.Errorf("finding the config: %w", err)
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
	e.g, e.err = c.build(cfgPath, src, func(dirs []string) {
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
func (c *gateCache) build(cfgPath string, src policy.Source, stampDirs func([]string)) (*gate.Gate, error) {
	cfg := policy.DefaultConfig()
	if cfgPath != "" {
		var err error
		if cfg, err = policy.LoadConfigFrom(cfgPath, src); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
	}
	stampDirs(cfg.PolicyDirs)
	return gate.New(gate.WithConfig(cfg), gate.WithPolicyDirs(c.flags.Policy...))
}

// Decide implements hook.Decider with the gate's Check.
func (c *gateCache) Decide(ctx context.Context, q hook.Query) (hook.Verdict, error) {
	g, err := c.gateFor(q.Cwd)
	if err != nil {
		return hook.Verdict{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, hookCheckTimeout)
	defer cancel()
	d, err := g.Check(ctx, gate.Request{Command: q.Command, Cwd: q.Cwd, Mode: hookMode(q.Mode), Shell: q.Shell})
	if err != nil {
		return hook.Verdict{}, err
	}
	return verdictOf(d), nil
}

// hookMode maps a hook mode to the gate's: readonly stays readonly, and
// default becomes "" (the configured mode), so a config that says readonly
// is never loosened by a hook.
func hookMode(m string) string {
	if m == hook.ModeReadonly {
		return hook.ModeReadonly
	}
	return ""
}

func verdictOf(d *gate.Decision) hook.Verdict {
	v := hook.Verdict{Action: string(d.Action)}
	for _, r := range d.Reasons {
		hr := hook.Reason{Code: r.Code, Message: oneLineText(r.Message)}
		if r.Span != nil {
			hr.Span = &[2]int{r.Span.Start, r.Span.End}
		}
		v.Reasons = append(v.Reasons, hr)
	}
	return v
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
