package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/serve"
)

func init() {
	register("hook", "answer a coding agent's hook call on stdin ("+strings.Join(agentNames(), ", ")+")", runHook)
}

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
		fmt.Fprintln(e.stderr, "usage: shellgate hook <claude|codex|gemini|cursor|qwen|copilot> [--ask-as deny|defer] [--mode readonly] [--shell bash|zsh|sh] [--policy DIR]... [--config FILE]")
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
		var dec hook.Decider = serve.NewGates(flags)
		if p := os.Getenv(OPAConfigEnv); p != "" {
			f, err := startFleet(p)
			if err != nil {
				ans = hook.DenyError(agent, "", fmt.Errorf("%s: %v", OPAConfigEnv, err))
				break
			}
			defer f.Stop()
			dec = serve.BundleDecider{Decider: fleetDecider(f), Flags: flags}
		}
		ans = hook.Handle(context.Background(), agent, input, flags, dec, serve.Explainer(dec))
	}
	if _, err := e.stdout.Write(ans.Stdout); err != nil {
		fmt.Fprintln(e.stderr, "shellgate hook:", err)
		return 2
	}
	return ans.Exit
}
