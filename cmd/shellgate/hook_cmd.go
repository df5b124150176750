package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shellgate/shellgate/exitmeaning"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
)

func init() {
	register("hook", "answer a coding agent's hook call on stdin (claude, codex, gemini, cursor)", runHook)
}

// hookCheckTimeout bounds one decision: below the thin client's wait for
// the engine (12 s) and the agents' hook timeouts (30 s as installed), so
// that a slow decision is a deny with a reason, not a killed hook.
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
		ans = hook.Handle(context.Background(), agent, input, flags, newGateCache(flags), explainExit)
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
// applies (the --config file, else the .shellgate.yaml that policy.FindConfig
// finds from the command's cwd), each compiled once and rebuilt when its
// config or policy files change. It is safe for concurrent use.
type gateCache struct {
	flags hook.Flags
	poll  time.Duration
	// afterBuild, when set (by tests), runs right after a gate is built.
	afterBuild func()

	mu    sync.Mutex
	gates map[string]*gateEntry
}

type gateEntry struct {
	mu      sync.Mutex
	g       *gate.Gate
	err     error
	paths   []string
	stamp   string
	checked time.Time
	// cfgDirs are the policy dirs the config named at the last build.
	cfgDirs []string
}

func newGateCache(f hook.Flags) *gateCache {
	return &gateCache{flags: f, poll: time.Second, gates: map[string]*gateEntry{}}
}

// gateFor returns the gate for a command run in cwd.
func (c *gateCache) gateFor(cwd string) (*gate.Gate, error) {
	cfgPath := c.flags.Config
	if cfgPath == "" {
		var err error
		if cfgPath, err = policy.FindConfig(cwd); err != nil {
			return nil, fmt.Errorf("finding the config: %w", err)
		}
	}
	c.mu.Lock()
	e, ok := c.gates[cfgPath]
	if !ok {
		e = &gateEntry{}
		c.gates[cfgPath] = e
	}
	c.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	if e.g != nil || e.err != nil {
		if now.Sub(e.checked) < c.poll {
			return e.g, e.err
		}
		e.checked = now
		if hook.Fingerprint(e.paths...) == e.stamp {
			return e.g, e.err
		}
	}
	// (Re)build: first time, or a config or policy file changed. The
	// stamp is taken before the build reads the files (the config's
	// policy dirs as of the last build included), so that a change made
	// while the policy compiles is seen at the next poll rather than
	// stamped as already built.
	paths := append([]string{cfgPath}, c.flags.Policy...)
	paths = append(paths, e.cfgDirs...)
	stamp := hook.Fingerprint(paths...)
	e.checked = now
	e.g, e.err = c.build(cfgPath)
	if c.afterBuild != nil {
		c.afterBuild()
	}
	if e.err == nil {
		// Policy dirs the config names that the last build did not: their
		// stamp can only be taken now.
		var extra []string
		for _, d := range e.g.Config().PolicyDirs {
			if !slices.Contains(paths, d) {
				extra = append(extra, d)
			}
		}
		paths = append(paths, extra...)
		stamp += hook.Fingerprint(extra...)
		e.cfgDirs = e.g.Config().PolicyDirs
	}
	e.paths, e.stamp = paths, stamp
	return e.g, e.err
}

func (c *gateCache) build(cfgPath string) (*gate.Gate, error) {
	cfg := policy.DefaultConfig()
	if cfgPath != "" {
		var err error
		if cfg, err = policy.LoadConfig(cfgPath); err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
	}
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
