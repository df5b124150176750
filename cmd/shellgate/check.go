package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/rego"
	"github.com/shellgate/shellgate/rego/fleet"
	"github.com/shellgate/shellgate/render"
)

func init() {
	register("check", "decide whether a command may run: allow, ask or deny, with reasons", runCheck)
}

// repeated is a flag that may be given several times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// decideFlags are the flags check, explain and grant share.
type decideFlags struct {
	mode      *string
	shell     *string
	policies  repeated
	roots     repeated
	config    *string
	cwd       *string
	noStation *bool
	catalog   *string
	opaConfig *string
	// background compiles the policy while the first commands are
	// classified and judged (check; see gate.PipelineOptions.Background):
	// the caller then calls decider.compiled before its first answer.
	background bool
}

func addDecideFlags(fs *flag.FlagSet) *decideFlags {
	f := &decideFlags{}
	f.mode = fs.String("mode", "", "default (ask a person for anything not proven safe) or readonly (deny it); default: the config's mode")
	f.shell = addShellFlag(fs)
	fs.Var(&f.policies, "policy", "add the Rego modules in `DIR` to the default policy (repeatable)")
	fs.Var(&f.roots, "root", "add `DIR` to the roots reads and writes may touch (repeatable)")
	f.config = fs.String("config", "", "config `FILE` (default: .shellgate.yaml in the cwd or a parent, else the user config)")
	f.cwd = fs.String("cwd", "", "the `DIR` the command runs in (default: the current directory)")
	f.noStation = fs.Bool("no-station", false, "skip the read station: reads are then not established")
	f.catalog = fs.String("catalog", "", "extend the embedded command catalog with this YAML `FILE`")
	f.opaConfig = fs.String("opa-config", os.Getenv(OPAConfigEnv), "OPA configuration `FILE` (services, bundles, decision_logs, status, keys, persistence_directory): decide with the policy bundle it names and log decisions as it says; a project config may then only tighten (default: $SHELLGATE_OPA_CONFIG)")
	return f
}

// decider is what the flags set up: the pipeline (config, catalog,
// policy, judged against the trust store), the cwd and the mode.
type decider struct {
	pl   *gate.Pipeline
	cwd  string
	mode string
	// shell is --shell; the (trusted) config's applies when it is unknown.
	shell classify.Dialect
	// fleet is set with --opa-config: the bundle in force decides (pl is
	// then its base pipeline, or the fallback while there is none).
	fleet *fleet.Engine
	// warnings are setup's warnings about the config, left for compiled
	// to print when the policy compiles in the background (a policy that
	// does not compile is then the only message, as when it compiles
	// first).
	warnings []func()
}

// compiled waits for a policy compiled in the background and returns why
// it did not compile (a usage error: the user's policy is wrong); once it
// has, the warnings setup left are printed.
func (d *decider) compiled() error {
	if err := d.pl.Compiled(); err != nil {
		return err
	}
	for _, w := range d.warnings {
		w()
	}
	d.warnings = nil
	return nil
}

// close uploads buffered decision logs and stops OPA's plugins.
func (d *decider) close() {
	if d.fleet != nil {
		d.fleet.Stop()
	}
}

// setup loads the config and compiles the policy (or starts compiling it:
// see decideFlags.background). A failure is a usage error (exitUsage):
// the user's cwd, config or policy is wrong. Each grant of the config in
// effect that puts a wildcard over code is a warning on warn, printed once
// the policy compiled.
func (f *decideFlags) setup(warn io.Writer) (*decider, error) {
	d := &decider{}
	cwd := *f.cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("working directory: %w", err)
		}
		cwd = wd
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("--cwd %s: %w", cwd, err)
	}
	if st, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("--cwd: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("--cwd %s: not a directory", abs)
	}
	d.cwd = abs
	if *f.opaConfig != "" {
		if *f.config != "" || len(f.policies) > 0 || *f.catalog != "" {
			return nil, errors.New("--opa-config: the policy bundle carries the policy, catalog and config; give no --config, --policy or --catalog")
		}
		if d.fleet, err = startFleet(*f.opaConfig, absAll(f.roots), *f.noStation); err != nil {
			return nil, err
		}
		d.mode = *f.mode
		if d.mode != "" && !policy.ValidMode(d.mode) {
			return nil, fmt.Errorf("--mode %q: want default or readonly", d.mode)
		}
		if d.pl = d.fleet.Pipeline(); d.pl != nil {
			return d, nil
		}
		if d.pl, err = d.fleet.Fallback(); err != nil {
			return nil, err
		}
		return d, nil
	}
	cfg, err := policy.LoadConfigFor(*f.config, abs)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	d.mode = *f.mode
	if d.mode == "" {
		d.mode = cfg.Mode
	}
	if !policy.ValidMode(d.mode) {
		return nil, fmt.Errorf("--mode %q: want default or readonly", d.mode)
	}
	// The config's shell applies through the pipeline, once trusted.
	if d.shell, err = requestShell(*f.shell); err != nil {
		return nil, err
	}
	var base *classify.Catalog
	if *f.catalog != "" {
		if base, err = loadCatalog(*f.catalog); err != nil {
			return nil, err
		}
	}
	// shellgate check runs in the agent's environment: the commands it
	// judges run in this process's.
	d.pl, err = gate.NewPipeline(gate.PipelineOptions{
		Config: cfg, Catalog: base, PolicyDirs: f.policies, Roots: absAll(f.roots), NoStation: *f.noStation,
		Background: f.background,
		Env:        readstation.ProcessEnv,
	})
	if err != nil {
		return nil, err
	}
	d.warnings = append(d.warnings, func() { warnGrants(warn, d.pl.Config(), base) })
	if !f.background {
		return d, d.compiled()
	}
	return d, nil
}

// warnGrants warns about each grant of the config in effect that puts a
// wildcard over code: the user's own or a named config applies it (the
// user chose it), a project's config does not where the wildcard covers
// code.
func warnGrants(w io.Writer, cfg *policy.Config, cat *classify.Catalog) {
	if w == nil || cfg == nil || len(cfg.Grants) == 0 {
		return
	}
	for _, p := range cfg.GrantProblems(cat) {
		if cfg.Source == policy.SourceProject {
			fmt.Fprintf(w, "shellgate: warning: %s; in a project's config it does not apply where the wildcard covers code\n", p)
		} else {
			fmt.Fprintf(w, "shellgate: warning: %s; it applies, since it is in your own config\n", p)
		}
	}
}

// warnTrust says on w that the trust store could not be used.
func (d *decider) warnTrust(w io.Writer, name string) {
	if err := d.pl.Resolved().StoreError; err != nil {
		fmt.Fprintf(w, "shellgate %s: %v\n", name, err)
	}
}

func absAll(list []string) []string {
	out := make([]string, len(list))
	for i, p := range list {
		if a, err := filepath.Abs(p); err == nil {
			out[i] = a
		} else {
			out[i] = p
		}
	}
	return out
}

// input classifies the command and runs the station (see
// gate.Pipeline.InputShell) with the flags' cwd, mode and shell where
// these are "".
func (d *decider) input(command, cwd, mode string, shell classify.Dialect) (policy.Input, *readstation.Station, error) {
	if cwd == "" {
		cwd = d.cwd
	}
	if mode == "" {
		mode = d.mode
	}
	if shell == classify.DialectUnknown {
		shell = d.shell
	}
	if d.fleet != nil {
		return d.fleet.Input(command, cwd, mode, shell)
	}
	return d.pl.InputShell(command, cwd, mode, shell)
}

// decide asks the policy about in.
func (d *decider) decide(ctx context.Context, in policy.Input) (policy.Decision, error) {
	if d.fleet != nil {
		return d.fleet.Decide(ctx, in)
	}
	dec, _, err := d.pl.Decide(ctx, in)
	return dec, err
}

// explain explains the decision on in (see gate.Pipeline.Explain and
// fleet.Engine.Explain).
func (d *decider) explain(ctx context.Context, in policy.Input) (*rego.Explanation, error) {
	if d.fleet != nil {
		return d.fleet.Explain(ctx, in)
	}
	return d.pl.Explain(ctx, in)
}

// grant decides on in in default mode and returns its grants.
func (d *decider) grant(ctx context.Context, in policy.Input) (gate.Grants, error) {
	if d.fleet != nil {
		return d.fleet.Grant(ctx, in)
	}
	return d.pl.Grant(ctx, in)
}

// batcher decides check --batch's lines: with the bundle in force, or
// with the pipeline's boundaries built once per cwd for the batch.
func (d *decider) batcher() *gate.Batcher {
	b := &gate.Batcher{Cwd: d.cwd, Mode: d.mode, Shell: d.shell, Checker: d.pl.Batch(), Ready: d.compiled, Pending: d.pl.Compiling}
	if d.fleet != nil {
		b.Checker, b.Pending = d.fleet, nil
	}
	return b
}

const checkUsage = `[--mode readonly|default] [--shell bash|zsh|sh] [--policy DIR]... [--config FILE] [--cwd DIR]
       [--root DIR]... [--no-station] [--json] [--batch [--input lines|jsonl]] COMMAND

Decides whether COMMAND may run and prints the action with its reasons: the
command with the reason's span underlined, and the rule that fired.

Exit status:
  0   allow
  1   ask: a person must approve
  2   deny
  64  usage error: bad flags, cwd, config or policy
  70  internal error
With --batch the exit status is 0 once every line was answered (each line's
action is in its JSON object; a line that cannot be decided is answered with
"action": "deny" and an "error"), 64 or 70 otherwise.

Flags:`

func runCheck(e *env) int {
	fs := newFlags(e, "check", checkUsage)
	df := addDecideFlags(fs)
	asJSON := fs.Bool("json", false, "print one JSON object")
	batch := fs.Bool("batch", false, "read one command per line on stdin, write one JSON object per line")
	input := fs.String("input", "lines", "with --batch: lines, or jsonl (objects with \"command\" and optional \"cwd\", \"mode\", \"shell\")")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	if *batch && len(ops) > 0 {
		fmt.Fprintln(e.stderr, "shellgate check: --batch reads commands from stdin; give no COMMAND")
		return exitUsage
	}
	if !*batch && len(ops) == 0 {
		fs.Usage()
		return exitUsage
	}
	if err := inputFormat(*input); *batch && err != nil {
		fmt.Fprintln(e.stderr, "shellgate check:", err)
		return exitUsage
	}
	// The collector's batch settings from the start: setting up allocates
	// the catalog and the compiled policy, and a single check then runs
	// no collection at all.
	defer batchGC()()
	// The policy compiles on one core while the command is classified and
	// judged on the other; the embedded catalog decodes from the start.
	df.background = true
	if *df.opaConfig == "" {
		go classify.DefaultCatalog()
	}
	d, err := df.setup(e.stderr)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate check:", err)
		return exitUsage
	}
	defer d.close()
	d.warnings = append(d.warnings, func() { d.warnTrust(e.stderr, "check") })
	ctx := context.Background()
	if *batch {
		return d.batch(ctx, e, *input)
	}
	command := joinCommand(ops)
	if err := gate.ValidateCommand(command); err != nil {
		// Not a command a shell can be given: denied, as every front
		// end denies it.
		if *asJSON {
			if err := writeJSON(e.stdout, struct {
				Command string `json:"command"`
				Action  string `json:"action"`
				Error   string `json:"error"`
			}{command, string(policy.Deny), err.Error()}); err != nil {
				return exitInternal
			}
		} else {
			fmt.Fprintf(e.stdout, "deny: %v\n", err)
		}
		return exitDeny
	}
	in, st, serr := d.input(command, "", "", "")
	if err := d.compiled(); err != nil {
		fmt.Fprintln(e.stderr, "shellgate check:", err)
		return exitUsage
	}
	if serr != nil {
		fmt.Fprintln(e.stderr, "shellgate check:", serr)
	}
	dec, err := d.decide(ctx, in)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate check:", err)
		return exitInternal
	}
	res := gate.NewCheckResult(in, st, dec)
	if *asJSON {
		if err := writeJSON(e.stdout, res); err != nil {
			return exitInternal
		}
	} else {
		printDecision(e.stdout, res)
	}
	return actionExit(dec.Action)
}

func actionExit(a policy.Action) int {
	switch a {
	case policy.Allow:
		return exitOK
	case policy.Ask:
		return exitAsk
	default:
		return exitDeny
	}
}

// batch decides the commands on e.stdin, one JSON line each on e.stdout in
// input order, on every core (see gate.Batcher). A policy that does not
// compile is a usage error, with no line written, as when it is compiled
// before the batch.
func (d *decider) batch(ctx context.Context, e *env, format string) int {
	if err := d.batcher().Stream(ctx, e.stdin, format, e.stdout); err != nil {
		fmt.Fprintln(e.stderr, "shellgate check:", err)
		if errors.Is(err, context.Canceled) {
			return exitInternal
		}
		return exitUsage
	}
	return exitOK
}

// printDecision writes the human text of r (see render.Decision).
func printDecision(w io.Writer, r gate.CheckResult) {
	d := policy.Decision{Action: r.Action, Reasons: r.Reasons, SuggestedGrants: r.SuggestedGrants, NoGrants: r.NoGrants}
	render.Decision(w, r.Command, d, r.Station)
}

// addShellFlag adds --shell: the shell that will run the command.
func addShellFlag(fs *flag.FlagSet) *string {
	return fs.String("shell", "", "the shell that runs the command: bash, zsh or sh; default: the config's shell, else judge it as both bash and zsh")
}

// requestShell is the dialect --shell names; "" is not known (then the
// config's shell, else both bash and zsh).
func requestShell(flagValue string) (classify.Dialect, error) {
	d, err := classify.ParseDialect(flagValue)
	if err != nil {
		return d, fmt.Errorf("--shell: %v", err)
	}
	return d, nil
}
