package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
)

func init() {
	register("run", "check a command, then run it: exit code first, bounded output, what the exit means", runRun)
}

// Exit codes of run when the command did not run to its own end. When it
// did, run exits with the command's own status (128+N when a signal
// killed it). They follow timeout(1) and env(1), which run resembles.
const (
	exitRunStopped  = 124 // timeout, or the output passed the capture cap
	exitRunRefused  = 125 // denied, not approved, or changed since the check
	exitRunNoStart  = 126 // the shell could not be started
	exitRunAborted  = 130 // interrupted (SIGINT/SIGTERM): the process group was stopped
	exitRunBadInput = exitUsage
)

const runUsage = `[--mode readonly|default] [--shell bash|zsh|sh] [--timeout MS] [--cwd DIR] [--yes|--no] [--json]
       [--sandbox read-only|workspace-write|full-access|off] [--unprotect PATH]...
       [--policy DIR]... [--config FILE] [--root DIR]... [--no-station] [--spill DIR] COMMAND

Checks COMMAND like 'shellgate check' and runs it with 'bash -c' when the
policy allows it, or when the policy asks and it is approved: on a terminal
the reasons are shown (underlined) and you are asked y/N; without a terminal
an ask is refused unless --yes is given. A deny is never run.

The command runs in its own process group with stdin from /dev/null and a
managed environment; the timeout (default 120000 ms, at most 600000 ms) and
an interrupt stop the whole process tree. The output (stdout and stderr
merged) is printed after a status line that gives the exit code first and
what it means ("Exit code 1 · 0.4 s — No matches found"); a long output is
cut to a head and a tail.

On Linux the command runs confined by Landlock: read-only for a command
allowed as read-only (and in readonly mode), workspace-write (writes only
in the roots and a private TMPDIR) for an approved or granted write, no
network unless the approved command uses it. --sandbox chooses the mode;
--sandbox off turns confinement off. An operation the sandbox refused is
marked in the output: [sandbox: write denied under read-only mode].
In workspace-write the files other programs run or obey later stay
read-only (.git/config, .git/hooks, .gitmodules, .envrc, .vscode, .mcp.json,
the agents' settings, .shellgate.yaml, shell rc files), at the workspace's
top and beneath it (sub/.envrc, a nested repository's hooks); one that did
not exist yet and was made is moved aside after the run. --unprotect PATH
makes one of them (or a directory and what lies beneath it) writable for
this one call (git config, pre-commit install).

Exit status:
  N    the command ran: its own exit status (128+N when signal N killed it)
  124  stopped: the timeout passed, or the output passed the capture cap
  125  not run: denied, not approved, or changed since the check
       (or read-only confinement is not possible here)
  126  not run: the shell could not be started
  130  interrupted: the process group was stopped
  64   usage error: bad flags, cwd, config, policy or command
  70   internal error

Flags:`

func runRun(e *env) int {
	fs := newFlags(e, "run", runUsage)
	df := addDecideFlags(fs)
	timeout := fs.Int64("timeout", 0, "the timeout in `MS` (default 120000; more than 600000 is clamped)")
	yes := fs.Bool("yes", false, "approve a command the policy asks about (a denied one still does not run)")
	no := fs.Bool("no", false, "refuse a command the policy asks about, without asking")
	asJSON := fs.Bool("json", false, "print one JSON object (the gate's Result)")
	spill := fs.String("spill", "", "write the whole output of a run whose output was cut to a file in `DIR`")
	sandbox := fs.String("sandbox", "", "run in sandbox `MODE`: read-only, workspace-write, full-access, or off (no confinement); default: the mode follows the decision")
	var unprotect repeated
	fs.Var(&unprotect, "unprotect", "let this one call write the protected `PATH` (.git/hooks, .git/config, .vscode, ...; repeatable)")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	if len(ops) == 0 {
		fs.Usage()
		return exitUsage
	}
	if *yes && *no {
		fmt.Fprintln(e.stderr, "shellgate run: give --yes or --no, not both")
		return exitUsage
	}
	var mode execution.SandboxMode
	switch *sandbox {
	case "", policy.SandboxAuto, policy.SandboxOff:
	default:
		m, err := execution.ParseSandboxMode(*sandbox)
		if err != nil {
			fmt.Fprintln(e.stderr, "shellgate run: --sandbox:", err)
			return exitUsage
		}
		mode = m
	}
	df.run, df.sandboxOff = true, *sandbox == policy.SandboxOff
	d, err := df.setup(e.stderr)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate run:", err)
		return exitUsage
	}
	defer d.close()
	g, err := newRunGate(d, *df.noStation, *spill)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate run:", err)
		return exitUsage
	}
	command := joinCommand(ops)
	req := gate.Request{Command: command, Cwd: *df.cwd, Mode: *df.mode, Shell: *df.shell, TimeoutMS: *timeout, Sandbox: mode, Unprotect: unprotect}
	switch {
	case *yes:
		req.Approver = gate.ApproverFunc(func(context.Context, *gate.Decision) (bool, error) { return true, nil })
	case *no:
	default:
		if f, ok := e.stdin.(*os.File); ok && isTerminal(f) {
			req.Approver = promptApprover(e.stderr, bufio.NewReader(f))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res := g.Run(ctx, req)
	if res.Code == gate.CodeNotApproved && req.Approver == nil && !*no {
		res.Message += " (no terminal to ask on: pass --yes to approve)"
	}
	if *asJSON {
		if err := writeJSON(e.stdout, res); err != nil {
			return exitInternal
		}
	} else {
		printRun(e.stdout, res)
	}
	return runExit(res)
}

// newRunGate builds the gate of the decider the flags set up (for the
// config found from --cwd, or the policy bundle), with the gate's own
// cwd the working directory (a relative --cwd is the request's).
func newRunGate(d *decider, noStation bool, spill string) (*gate.Gate, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("working directory: %w", err)
	}
	opts := []gate.Option{gate.WithCwd(wd), gate.WithRunner(&execution.BashRunner{Subreaper: true}), gate.WithLimits(gate.Limits{SpillDir: spill})}
	if noStation {
		opts = append(opts, gate.WithoutStation())
	}
	return d.GateAt(d.req.Cwd, opts...)
}

// promptApprover shows the decision on w and reads y/N from r.
func promptApprover(w io.Writer, r *bufio.Reader) gate.Approver {
	return gate.ApproverFunc(func(ctx context.Context, d *gate.Decision) (bool, error) {
		printDecision(w, d.CheckResult())
		fmt.Fprint(w, "Run it? [y/N] ")
		answer := make(chan string, 1)
		go func() {
			line, _ := r.ReadString('\n')
			answer <- line
		}()
		select {
		case <-ctx.Done(): // interrupted at the prompt
			fmt.Fprintln(w)
			return false, ctx.Err()
		case line := <-answer:
			if line == "" {
				fmt.Fprintln(w)
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				return true, nil
			}
			return false, nil
		}
	})
}

// printRun writes the result: the status line, then for a refusal the
// reasons underlined, else the notes and the output.
func printRun(w io.Writer, res gate.Result) {
	if res.Ran() || res.Decision == nil {
		fmt.Fprint(w, res.Text())
		return
	}
	fmt.Fprintf(w, "Not run (%s) — %s\n", res.Code, res.Message)
	printDecision(w, res.Decision.CheckResult())
}

func runExit(res gate.Result) int {
	switch res.Status {
	case gate.StatusOK, gate.StatusFailed:
		if st := res.Run.ShellStatus(); st >= 0 {
			return st
		}
		return exitInternal
	case gate.StatusTimeout:
		return exitRunStopped
	}
	switch res.Code {
	case gate.CodeDenied, gate.CodeNotApproved, gate.CodeChangedSinceCheck, gate.CodeSandboxUnavailable:
		return exitRunRefused
	case gate.CodeOutputCap:
		return exitRunStopped
	case gate.CodeSpawnFailed:
		return exitRunNoStart
	case gate.CodeAborted:
		return exitRunAborted
	case gate.CodeInvalidInput, gate.CodeCwdNotFound, gate.CodeCwdNotADirectory:
		return exitRunBadInput
	}
	return exitInternal
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), getTermios)
	return err == nil
}
