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
	// run is shellgate run's setup: a --cwd that is not a directory is
	// the gate's to report (with its code), and the config is then looked
	// up from the working directory.
	run bool
	// sandboxOff turns the config's confinement off (run --sandbox off).
	sandboxOff bool
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

// decider is what the flags set up: the one decider (the local config,
// catalog and policy judged against the trust store, or the policy bundle
// of --opa-config), and the request defaults (the cwd, mode and shell).
type decider struct {
	*gate.Decider
	// req is what a request that names no cwd, mode or shell gets: the
	// flags' (the config's mode and shell apply when these are "").
	req policy.Request
	// stop stops what setup started (nil: nothing): OPA's plugins, which
	// upload buffered decision logs first.
	stop func()
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
	if err := d.Compiled(); err != nil {
		return err
	}
	for _, w := range d.warnings {
		w()
	}
	d.warnings = nil
	return nil
}

// close stops what setup started.
func (d *decider) close() {
	if d.stop != nil {
		d.stop()
	}
}

// flagCwd is --cwd as an absolute directory (the working directory when
// it is "").
func flagCwd(cwd string) (string, error) {
	wd, err := os.Getwd()
	abs := policy.ResolveCwd(wd, cwd)
	if !filepath.IsAbs(abs) {
		return "", fmt.Errorf("working directory: %w", err)
	}
	if st, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("--cwd: %w", err)
	} else if !st.IsDir() {
		return "", fmt.Errorf("--cwd %s: not a directory", abs)
	}
	return abs, nil
}

// setup loads the config and compiles the policy (or starts compiling it:
// see decideFlags.background), or starts the policy bundle's engine
// (--opa-config). A failure is a usage error (exitUsage): the user's cwd,
// config or policy is wrong. Each grant of the config in effect that puts
// a wildcard over code is a warning on warn, printed once the policy
// compiled.
func (f *decideFlags) setup(warn io.Writer) (*decider, error) {
	abs, err := flagCwd(*f.cwd)
	if err != nil && f.run {
		abs, err = flagCwd("")
	}
	if err != nil {
		return nil, err
	}
	// shellgate check runs in the agent's environment: the commands it
	// judges run in this process's.
	d := &decider{req: policy.Request{Cwd: abs, Mode: *f.mode, Env: readstation.ProcessEnv}}
	o := gate.PipelineOptions{Roots: absAll(f.roots), NoStation: *f.noStation, Env: readstation.ProcessEnv}
	if *f.opaConfig != "" {
		if *f.config != "" || len(f.policies) > 0 || *f.catalog != "" {
			return nil, errors.New("--opa-config: the policy bundle carries the policy, catalog and config; give no --config, --policy or --catalog")
		}
		if d.req.Mode != "" && !policy.ValidMode(d.req.Mode) {
			return nil, fmt.Errorf("--mode %q: want default or readonly", d.req.Mode)
		}
		if d.req.Shell, err = requestShell(*f.shell); err != nil {
			return nil, err
		}
		src, err := startFleet(*f.opaConfig)
		if err != nil {
			return nil, err
		}
		d.Decider, d.stop = gate.NewSourceDecider(src, o), src.Stop
		return d, nil
	}
	cfg, err := policy.LoadConfigFor(*f.config, abs)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if f.sandboxOff {
		c := *cfg
		c.Sandbox = policy.SandboxOff
		cfg = &c
	}
	if d.req.Mode == "" {
		d.req.Mode = cfg.Mode
	}
	if !policy.ValidMode(d.req.Mode) {
		return nil, fmt.Errorf("--mode %q: want default or readonly", d.req.Mode)
	}
	// The config's shell applies through the pipeline, once trusted.
	if d.req.Shell, err = requestShell(*f.shell); err != nil {
		return nil, err
	}
	if *f.catalog != "" {
		if o.Catalog, err = loadCatalog(*f.catalog); err != nil {
			return nil, err
		}
	}
	o.Config, o.PolicyDirs, o.Background = cfg, f.policies, f.background
	pl, err := gate.NewPipeline(o)
	if err != nil {
		return nil, err
	}
	d.Decider = gate.NewDecider(pl)
	d.warnings = append(d.warnings, func() { warnGrants(warn, pl.Config(), o.Catalog) })
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
	if pl, err := d.Pipeline(); err == nil {
		if err := pl.Resolved().StoreError; err != nil {
			fmt.Fprintf(w, "shellgate %s: %v\n", name, err)
		}
	}
}

// engine is the policy of a request outside any project (explain's files).
func (d *decider) engine() *rego.Engine {
	pl, err := d.Pipeline()
	if err != nil {
		return nil
	}
	return pl.Engine()
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

// input classifies req's command and runs the station (see
// gate.Decider.Input) with the flags' cwd, mode and shell where req
// names none.
func (d *decider) input(req policy.Request) (policy.Input, *readstation.Station, error) {
	return d.Input(req.Defaults(d.req))
}

// batcher decides check --batch's lines (see gate.Decider.Batch).
func (d *decider) batcher() *gate.Batcher {
	return &gate.Batcher{Defaults: d.req, Checker: d.Batch(), Ready: d.compiled, Pending: d.Compiling}
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
	in, st, serr := d.input(policy.Request{Command: command})
	if err := d.compiled(); err != nil {
		fmt.Fprintln(e.stderr, "shellgate check:", err)
		return exitUsage
	}
	if serr != nil {
		fmt.Fprintln(e.stderr, "shellgate check:", serr)
	}
	dec, _, err := d.Decide(ctx, in)
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
