// Command shellgate-hook is the thin agent-hook client of shellgate: an
// agent (Claude Code, Codex, Gemini CLI, Cursor, Qwen Code, GitHub Copilot
// CLI) runs it before every shell command. It forwards the agent's payload to the resident engine
// (`shellgate serve`) over a user-only unix socket and prints the engine's
// answer. An engine that neither acknowledges nor answers within 250 ms
// (missing, stopped, hung) is given up on: the one-shot `shellgate hook
// <agent>`, started alongside from 50 ms, answers this call, and a new
// engine is started for the next ones (it takes the socket over from a
// hung one); if neither answers, it denies. It never allows on its own.
//
// It is built with CGO_ENABLED=0 and does not link OPA, so that it starts in
// a few milliseconds:
//
//	CGO_ENABLED=0 go build ./cmd/shellgate-hook
//
// Usage:
//
//	shellgate-hook <claude|codex|gemini|cursor|qwen|copilot> [--ask-as deny|defer] [--mode readonly]
//	               [--policy DIR]... [--config FILE] [--socket PATH] [--engine-timeout DUR]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/shellgate/shellgate/hook"
)

// Time limits. The agents kill a hook that runs past its timeout (30 s as
// installed) and some then let the command run; so the client answers, with
// a deny at worst, well within it.
const (
	// defaultEngineTimeout bounds the engine's first sign of life: the
	// connection, then its acknowledgement of the request (or its answer).
	// An engine that is not there fails at once; one that is stopped or
	// hung is given up on after this.
	defaultEngineTimeout = 250 * time.Millisecond
	// hedgeAfter is when the one-shot fallback starts if the engine has
	// neither acknowledged nor answered yet: a warm engine answers in a few
	// milliseconds, so by then it is probably stopped or hung, and
	// whichever answers first is used. This keeps a hung engine's cost
	// near hedgeAfter plus one one-shot call.
	hedgeAfter = 50 * time.Millisecond
	// ackedHedge is when the one-shot starts alongside an engine that
	// acknowledged the request but has not answered (a policy rebuilt
	// after a change takes a few hundred milliseconds; more is unusual).
	ackedHedge = 2 * time.Second
	// ackedTimeout bounds the wait for an acknowledged engine's answer
	// (the engine's own decision timeout is 10 s).
	ackedTimeout = 12 * time.Second
	// totalBudget bounds the whole call, the one-shot fallback included.
	totalBudget = 25 * time.Second
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// client is one hook call.
type client struct {
	agent         hook.Agent
	flags         hook.Flags
	socket        string
	engineTimeout time.Duration
	stderr        io.Writer
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == "--version" {
		// The handshake version: the engine must report the same.
		fmt.Fprintln(stdout, hook.BuildVersion())
		return 0
	}
	c := &client{socket: hook.DefaultSocketPath(), engineTimeout: defaultEngineTimeout, stderr: stderr}
	rest, err := c.clientFlags(args)
	if err == nil {
		var ops []string
		c.flags, ops, err = hook.ParseFlags(rest, stderr)
		if err == nil {
			switch len(ops) {
			case 1:
				c.agent, err = hook.ParseAgent(ops[0])
			case 0:
				err = errors.New("no agent given")
			default:
				err = fmt.Errorf("unexpected arguments %q", ops[1:])
			}
		}
	}
	if err != nil {
		// Without a known agent there is no answer format: exit 2 blocks
		// the command in Claude Code, Codex and Gemini CLI, and stderr is
		// the reason.
		fmt.Fprintln(stderr, "shellgate-hook:", err)
		fmt.Fprintln(stderr, "usage: shellgate-hook <claude|codex|gemini|cursor|qwen|copilot> [--ask-as deny|defer] [--mode readonly] [--policy DIR]... [--config FILE] [--socket PATH]")
		return 2
	}
	input, err := io.ReadAll(io.LimitReader(stdin, hook.MaxPayload+1))
	if err != nil {
		return c.write(stdout, hook.DenyError(c.agent, "", fmt.Errorf("reading stdin: %v", err)))
	}
	if len(input) > hook.MaxPayload {
		return c.write(stdout, hook.DenyError(c.agent, "", hook.ErrTooLarge))
	}
	return c.write(stdout, c.answer(input))
}

// clientFlags takes out the flags only the client knows.
func (c *client) clientFlags(args []string) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || (name != "socket" && name != "engine-timeout") {
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			val = args[i]
		}
		switch name {
		case "socket":
			abs, err := filepath.Abs(val)
			if err != nil {
				return nil, err
			}
			c.socket = abs
		case "engine-timeout":
			d, err := time.ParseDuration(val)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("--engine-timeout %q: want a duration like 250ms", val)
			}
			c.engineTimeout = d
		}
	}
	return rest, nil
}

func (c *client) write(stdout io.Writer, a hook.Answer) int {
	if _, err := stdout.Write(a.Stdout); err != nil {
		fmt.Fprintln(c.stderr, "shellgate-hook:", err)
		return 2
	}
	return a.Exit
}

// outcome is what one path (the engine or the one-shot) gave.
type outcome struct {
	ans    hook.Answer
	err    error
	stderr []byte // the one-shot's
}

// answer asks the engine and, when it has failed or has given no sign of
// life within hedgeAfter, the one-shot `shellgate hook AGENT` too, and uses
// the first answer that is one; when neither gives one, it denies. The
// engine must acknowledge the request (or answer) within c.engineTimeout,
// connection included, or it is given up on; one that acknowledged gets
// ackedTimeout to answer, with the one-shot started alongside after
// ackedHedge. When the engine did not answer, a new one is started for the
// next calls (it takes over from a hung one), and a diagnostic on stderr
// says that the one-shot answered.
func (c *client) answer(input []byte) hook.Answer {
	req := hook.Request{
		Version: hook.BuildVersion(),
		Op:      hook.OpHook,
		Agent:   c.agent,
		Flags:   c.flags,
		Payload: string(input),
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), totalBudget)
	defer cancel() // stops a one-shot still under way

	ectx, giveUp := context.WithTimeout(ctx, ackedTimeout)
	defer giveUp()
	engine := make(chan outcome, 1)
	alive := make(chan struct{})
	go func() {
		resp, err := hook.AskEngineAcked(ectx, c.socket, req, c.engineTimeout, func() { close(alive) })
		if err == nil {
			if err = c.checkAnswer(resp.Answer.Stdout); err == nil && resp.Answer.Exit != 0 {
				err = fmt.Errorf("exit %d", resp.Answer.Exit)
			}
			if err != nil {
				err = fmt.Errorf("the engine's answer is not one: %v", err)
			}
		}
		engine <- outcome{ans: resp.Answer, err: err}
	}()

	hedge := time.NewTimer(min(hedgeAfter, c.engineTimeout))
	defer hedge.Stop()
	deadline := time.NewTimer(c.engineTimeout)
	defer deadline.Stop()
	var (
		oneShot               chan outcome // nil until started
		full                  string
		engineErr, oneShotErr error
		engineDone, shotDone  bool
		engineStarted         bool
		acked, gaveUp         bool
	)
	startEngine := func() {
		if full != "" && !engineStarted {
			engineStarted = true
			c.startEngine(full)
		}
	}
	startOneShot := func() {
		if oneShot != nil {
			return
		}
		oneShot = make(chan outcome, 1)
		var err error
		if full, err = fullBinary(); err != nil {
			oneShot <- outcome{err: err}
			return
		}
		go func() { oneShot <- c.oneShot(ctx, full, input) }()
	}
	for !engineDone || !shotDone {
		select {
		case <-alive:
			alive = nil
			acked = true
			deadline.Stop()
			hedge.Reset(ackedHedge)
		case <-hedge.C:
			startOneShot()
		case <-deadline.C:
			if !acked && !engineDone {
				gaveUp = true
				giveUp()
			}
		case o := <-engine:
			engineDone = true
			if o.err == nil {
				return o.ans
			}
			engineErr = o.err
			if gaveUp {
				engineErr = fmt.Errorf("the engine did not answer within %s (%v)", c.engineTimeout, o.err)
			}
			startOneShot()
		case o := <-oneShot:
			shotDone = true
			c.stderr.Write(o.stderr)
			if o.err != nil {
				oneShotErr = o.err
				continue
			}
			why := engineErr
			switch {
			case !engineDone && acked:
				why = fmt.Errorf("it acknowledged but had not answered after %s", time.Since(start).Round(time.Millisecond))
			case !engineDone:
				why = fmt.Errorf("it had not answered after %s", time.Since(start).Round(time.Millisecond))
			}
			fmt.Fprintf(c.stderr, "shellgate-hook: no engine answered: %v; answered by the one-shot %s hook %s\n", why, full, c.agent)
			// Absent, hung or slow: a new engine takes its place, takes
			// over from a hung one, or leaves at once when the old one
			// answers its ping after all. It starts only now, so as not to
			// compete with the one-shot for the CPU.
			startEngine()
			return o.ans
		}
	}
	fmt.Fprintln(c.stderr, "shellgate-hook: no engine answered:", engineErr)
	startEngine()
	return hook.DenyError(c.agent, "", oneShotErr)
}

// fullBinary finds the full shellgate binary: $SHELLGATE_BIN, next to this
// executable, or on PATH.
func fullBinary() (string, error) {
	if p := os.Getenv("SHELLGATE_BIN"); p != "" {
		return p, nil
	}
	if self := hook.Executable(); self != "" {
		p := filepath.Join(filepath.Dir(self), "shellgate")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath("shellgate")
	if err != nil {
		return "", errors.New("no engine answered and the shellgate binary was not found next to shellgate-hook or on PATH")
	}
	return p, nil
}

// startEngine starts `shellgate serve` detached, for the next call. An
// engine that finds another one running exits at once.
func (c *client) startEngine(full string) {
	args := []string{"serve", "--socket", c.socket, "--log", filepath.Join(filepath.Dir(c.socket), "engine.log")}
	if err := startDetached(full, args); err != nil {
		fmt.Fprintln(c.stderr, "shellgate-hook: could not start the engine:", err)
	}
}

// oneShot runs `shellgate hook <agent>` for this call and checks that its
// answer is an answer: exit 0 and JSON (or, for Claude Code, nothing).
func (c *client) oneShot(ctx context.Context, full string, input []byte) outcome {
	args := append([]string{"hook", string(c.agent)}, c.flags.Args()...)
	cmd := exec.CommandContext(ctx, full, args...)
	cmd.Stdin = bytes.NewReader(input)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	o := outcome{stderr: errb.Bytes()}
	if err != nil {
		o.err = fmt.Errorf("one-shot %s hook failed: %v", full, err)
	} else if err := c.checkAnswer(out.Bytes()); err != nil {
		o.err = fmt.Errorf("one-shot %s hook: %v", full, err)
	} else {
		o.ans = hook.Answer{Stdout: out.Bytes()}
	}
	return o
}

// checkAnswer makes sure an answer is one the agent reads: a JSON object,
// or nothing for an agent that reads nothing as "no opinion" (Claude Code).
func (c *client) checkAnswer(stdout []byte) error {
	b := bytes.TrimSpace(stdout)
	if len(b) == 0 {
		if len(hook.NoOpinion(c.agent).Stdout) == 0 {
			return nil
		}
		return errors.New("printed nothing")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return errors.New("printed something that is not a JSON object")
	}
	return nil
}
