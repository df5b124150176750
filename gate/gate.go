package gate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/exitmeaning"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// Status is the outcome of a request.
type Status string

// The statuses. A command that ran and exited non-zero is StatusFailed,
// not StatusError: StatusError means it did not run, or was stopped.
const (
	StatusOK      Status = "ok"
	StatusFailed  Status = "failed"
	StatusTimeout Status = "timeout"
	StatusError   Status = "error"
)

// Code says why a request ended in StatusError.
type Code string

// The error codes.
const (
	CodeInvalidInput      Code = "INVALID_INPUT"
	CodeCwdNotFound       Code = "CWD_NOT_FOUND"
	CodeCwdNotADirectory  Code = "CWD_NOT_A_DIRECTORY"
	CodeDenied            Code = "DENIED"
	CodeNotApproved       Code = "NOT_APPROVED"
	CodeChangedSinceCheck Code = "CHANGED_SINCE_CHECK"
	CodeAborted           Code = "ABORTED"
	CodeSpawnFailed       Code = "SPAWN_FAILED"
	CodeOutputCap         Code = "OUTPUT_CAP"
	// CodeSandboxUnavailable: the command was to run read-only and the
	// runner cannot confine it here (no Landlock, not Linux or macOS);
	// nothing ran. The config key "sandbox: off" turns confinement off.
	CodeSandboxUnavailable Code = "SANDBOX_UNAVAILABLE"
)

// Error is a request that stopped before a decision was made (Check) or
// before or while the command ran (Run).
type Error struct {
	Code    Code
	Message string
}

// Error formats the error as "CODE: message".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Request is one command to check or run.
type Request struct {
	// Command is the command line.
	Command string `json:"command"`
	// Shell is the shell that will run it: "bash", "zsh" or "sh"; ""
	// takes the config's shell, and when that is empty too the command is
	// judged as both bash and zsh (Check), or as the runner's bash (Run
	// with the default runner).
	Shell string `json:"shell,omitempty"`
	// Cwd is the directory it runs in: absolute, or relative to the gate's
	// default cwd; "" is the default cwd.
	Cwd string `json:"cwd,omitempty"`
	// Mode is "default" or "readonly"; "" is the configured mode.
	Mode string `json:"mode,omitempty"`
	// TimeoutMS is the run's timeout in milliseconds; 0 is the default,
	// more than the ceiling is clamped (note "clamped").
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// Approver decides an ask; nil refuses it (NOT_APPROVED).
	Approver Approver `json:"-"`
	// Sandbox chooses the sandbox mode explicitly; "" lets it follow the
	// decision (see Gate.Run). It is the caller's own choice, like
	// `shellgate run --sandbox`: an agent asks for a wider mode through
	// Escalate instead.
	Sandbox execution.SandboxMode `json:"sandbox,omitempty"`
	// Escalate asks to run this one call in a mode strictly wider than
	// the one the decision gives, with Justification (one sentence) for
	// the person who approves it. Both or neither must be given.
	Escalate      execution.SandboxMode `json:"sandbox_escalation,omitempty"`
	Justification string                `json:"justification,omitempty"`
	// Env is what the caller knows of the environment the command will
	// run in (the agent's), for Decide, Check, Explain and Grant: the
	// values of the variables it lists, "" for one known not to be set;
	// one it does not list is not known, and counts as set where it could
	// make a program read more (RIPGREP_CONFIG_PATH may show rg hidden
	// files). Nil: the gate's own environment (WithEnv's host), unless
	// WithEnvFromRequests. Run judges in the environment it runs the
	// command with.
	Env map[string]string `json:"env,omitempty"`
	// AgentRules, when set, are the rules of the agent's own settings
	// (package agentrules): the segments they allow are facts for the
	// policy (policy.Input.AgentApprovals), which may then allow what it
	// would ask. Nil: none.
	AgentRules AgentRules `json:"-"`
	// Unprotect are protected paths (execution.ProtectedNames, execution.ProtectedGitNames)
	// the command may write in this one call, as a person chose
	// (shellgate run --unprotect PATH): relative to Cwd, or absolute.
	// It is the caller's own choice, like Sandbox; agents cannot set it
	// through the MCP server.
	Unprotect []string `json:"unprotect,omitempty"`
	// ReportDir asks Run for the directory the shell ended in
	// (RunInfo.FinalDir), for a caller that keeps a session's working
	// directory (the MCP server). Bash and zsh report it; sh does not.
	ReportDir bool `json:"-"`
}

// AgentRules says which segments of a command the rules a person keeps in
// a coding agent's own settings allow, matched as the agent matches them
// (agentrules.Rules).
type AgentRules interface {
	Approve(command string, r *classify.Report) map[int]policy.AgentApproval
}

// Escalation is a request to run one call in a wider sandbox mode, as the
// approver sees it on the Decision.
type Escalation struct {
	// From is the mode the call would run in; To the mode asked for.
	From execution.SandboxMode `json:"from"`
	To   execution.SandboxMode `json:"to"`
	// Justification is the caller's one sentence.
	Justification string `json:"justification"`
}

// ErrApprovalPending is what an Approver returns (wrapped or not) when the
// person's answer is not there yet and will come with a later call of the
// same request (MCP's multi round-trip elicitation): nothing runs, and a
// pending escalation is not counted as refused.
var ErrApprovalPending = errors.New("approval pending")

// Approver is asked when the policy says ask. It sees the decision with
// its reasons; it approves by returning true.
type Approver interface {
	Approve(ctx context.Context, d *Decision) (bool, error)
}

// ApproverFunc adapts a function to Approver.
type ApproverFunc func(ctx context.Context, d *Decision) (bool, error)

// Approve calls f.
func (f ApproverFunc) Approve(ctx context.Context, d *Decision) (bool, error) { return f(ctx, d) }

// Decision is the policy's decision with what it was made on.
type Decision struct {
	policy.Decision
	// Command and Cwd (absolute) are what was decided on; Mode is the
	// mode in effect.
	Command string `json:"command"`
	Cwd     string `json:"cwd"`
	Mode    string `json:"mode"`
	// Shell is the shell it was judged for; "" when not known (the report
	// then holds the bash and the zsh reading).
	Shell string `json:"shell,omitempty"`
	// Reversible repeats the report's verdict.
	Reversible bool `json:"reversible"`
	// Report is the classifier's report; nil only when shellgate failed
	// internally (code internal-error).
	Report *classify.Report `json:"report"`
	// Station is the read station's judgment; nil when it did not run.
	Station *readstation.Station `json:"station,omitempty"`
	// StationError says why the station could not run (a bad boundary):
	// the policy then saw reads that are not established.
	StationError string `json:"station_error,omitempty"`
	// Escalation is set when the caller asks to run this call in a wider
	// sandbox mode: the approver decides it together with the reasons.
	Escalation *Escalation `json:"escalation,omitempty"`

	// in is what the policy saw (for Explain); writes are where each
	// write landed at the check, for Run to judge the writes again right
	// before the spawn.
	in     policy.Input
	writes []policy.WriteFacts
	// stmts are the command's top-level statements as the classifier
	// read them, kept for a run: its exit meaning is read from them and
	// the report, with no parse of its own.
	stmts []*syntax.Stmt
}

// Limits bound a run.
type Limits struct {
	// DefaultTimeout is used when a request gives none (120 s).
	DefaultTimeout time.Duration
	// MaxTimeout is the ceiling; a larger request is clamped (600 s).
	MaxTimeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL (2 s).
	Grace time.Duration
	// View bounds the output kept (DefaultViewLimits).
	View execution.ViewLimits
	// CaptureCap stops a command after this much output (10 MiB).
	CaptureCap int64
	// SpillDir receives the whole output of a command whose view left
	// something out; "" spills nothing.
	SpillDir string
}

// DefaultLimits are the limits unless WithLimits says otherwise.
var DefaultLimits = Limits{
	DefaultTimeout: 120 * time.Second,
	MaxTimeout:     600 * time.Second,
	Grace:          2 * time.Second,
	View:           execution.DefaultViewLimits,
	CaptureCap:     10 << 20,
}

// MaxCommandBytes is the longest command a request may carry.
const MaxCommandBytes = 1 << 20

// MaxJustificationBytes is the longest escalation justification.
const MaxJustificationBytes = 500

// Option configures New.
type Option func(*options) error

type options struct {
	cwd        string
	cfg        *policy.Config
	policyDirs []string
	modules    map[string]string
	noDefault  bool
	roots      []string
	noStation  bool
	runner     execution.Runner
	limits     Limits
	hostEnv    []string
	envAllow   []string
	envSet     map[string]string
	catalog    *classify.Catalog
	resolved   *policy.Resolved
	pipeline   *Pipeline
	envFromReq bool
}

// WithPipeline decides with p, built beforehand (a policy bundle's), in
// place of a pipeline from the config, policy and catalog options.
func WithPipeline(p *Pipeline) Option {
	return func(o *options) error { o.pipeline = p; return nil }
}

// WithCwd sets the default cwd that relative request cwds start from
// (default: the process's working directory).
func WithCwd(dir string) Option {
	return func(o *options) error { o.cwd = dir; return nil }
}

// WithConfig sets the configuration (default: policy.DefaultConfig).
func WithConfig(c *policy.Config) Option {
	return func(o *options) error {
		if c == nil {
			return errors.New("gate: nil config")
		}
		if err := c.Validate(); err != nil {
			return err
		}
		o.cfg = c
		return nil
	}
}

// WithPolicyDirs adds directories of Rego modules to the policy.
func WithPolicyDirs(dirs ...string) Option {
	return func(o *options) error { o.policyDirs = append(o.policyDirs, dirs...); return nil }
}

// WithPolicyModules adds Rego modules given as file name to source.
func WithPolicyModules(m map[string]string) Option {
	return func(o *options) error {
		if o.modules == nil {
			o.modules = map[string]string{}
		}
		for k, v := range m {
			o.modules[k] = v
		}
		return nil
	}
}

// WithoutDefaultPolicy leaves the embedded default policy out: the
// modules given with WithPolicyModules or WithPolicyDirs must define
// data.shellgate.decision themselves.
func WithoutDefaultPolicy() Option {
	return func(o *options) error { o.noDefault = true; return nil }
}

// WithRoots adds directories commands may read and write in, besides the
// workspace and the config's roots.
func WithRoots(dirs ...string) Option {
	return func(o *options) error {
		for _, d := range dirs {
			if !filepath.IsAbs(d) {
				return fmt.Errorf("gate: root %q is not absolute", d)
			}
		}
		o.roots = append(o.roots, dirs...)
		return nil
	}
}

// WithoutStation skips the read station: reads are then not established,
// which the default policy answers with ask (deny in readonly mode).
func WithoutStation() Option {
	return func(o *options) error { o.noStation = true; return nil }
}

// WithRunner replaces the default BashRunner.
func WithRunner(r execution.Runner) Option {
	return func(o *options) error {
		if r == nil {
			return errors.New("gate: nil runner")
		}
		o.runner = r
		return nil
	}
}

// WithLimits replaces the run limits; zero fields keep their defaults.
func WithLimits(l Limits) Option {
	return func(o *options) error {
		if l.DefaultTimeout < 0 || l.MaxTimeout < 0 || l.Grace < 0 || l.CaptureCap < 0 {
			return errors.New("gate: negative limit")
		}
		if l.DefaultTimeout != 0 {
			o.limits.DefaultTimeout = l.DefaultTimeout
		}
		if l.MaxTimeout != 0 {
			o.limits.MaxTimeout = l.MaxTimeout
		}
		if l.Grace != 0 {
			o.limits.Grace = l.Grace
		}
		if l.View != (execution.ViewLimits{}) {
			o.limits.View = l.View
		}
		if l.CaptureCap != 0 {
			o.limits.CaptureCap = l.CaptureCap
		}
		o.limits.SpillDir = l.SpillDir
		return nil
	}
}

// WithEnv sets the host environment commands start from (default
// os.Environ), the allow list of names kept from it (nil keeps all; a
// trailing "*" is a prefix) and variables set on top. See BuildEnv.
func WithEnv(host []string, allow []string, set map[string]string) Option {
	return func(o *options) error {
		o.hostEnv, o.envAllow, o.envSet = host, allow, set
		return nil
	}
}

// WithEnvFromRequests says the commands the gate decides run in an
// environment it does not share (a resident engine answering agents
// started elsewhere): a Request's Env is all it knows of it, and a
// request with none knows nothing, so a variable that could make a
// program read more counts as set. Run still judges in the environment
// it runs the command with.
func WithEnvFromRequests() Option {
	return func(o *options) error { o.envFromReq = true; return nil }
}

// WithResolvedConfig sets the configuration as already judged against a
// trust store (policy.ResolveWith), in place of WithConfig: tests and
// embedders that keep their own store use it.
func WithResolvedConfig(r *policy.Resolved) Option {
	return func(o *options) error {
		if r == nil || r.Config == nil {
			return errors.New("gate: nil resolved config")
		}
		o.cfg, o.resolved = r.Config, r
		return nil
	}
}

// WithCatalog classifies with the catalog c (default: the embedded one).
func WithCatalog(c *classify.Catalog) Option {
	return func(o *options) error { o.catalog = c; return nil }
}

// Gate checks and runs commands. It is safe for concurrent use.
type Gate struct {
	cwd       string
	pl        *Pipeline
	roots     []string
	noStation bool
	runner    execution.Runner
	limits    Limits
	env       []string
	// hostEnv is the environment decided commands run in when a request
	// does not say (nil: not known); runEnv the one Run gives them.
	hostEnv, runEnv readstation.Env

	refusedMu sync.Mutex
	refused   map[string]bool // escalations refused: final for that command
}

// New builds a gate: it loads the configuration's catalog additions and
// compiles the policy once.
func New(opts ...Option) (*Gate, error) {
	o := options{limits: DefaultLimits}
	for _, f := range opts {
		if err := f(&o); err != nil {
			return nil, err
		}
	}
	if o.cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("gate: cwd: %w", err)
		}
		o.cwd = wd
	}
	cwd, err := filepath.Abs(o.cwd)
	if err != nil {
		return nil, fmt.Errorf("gate: cwd: %w", err)
	}
	if o.limits.SpillDir != "" {
		sd, err := filepath.Abs(o.limits.SpillDir)
		if err != nil {
			return nil, fmt.Errorf("gate: spill dir: %w", err)
		}
		o.limits.SpillDir = sd
	}
	pl := o.pipeline
	if pl == nil {
		if pl, err = NewPipeline(PipelineOptions{
			Config: o.cfg, Resolved: o.resolved, Catalog: o.catalog, PolicyDirs: o.policyDirs,
			Modules: o.modules, Roots: o.roots, NoStation: o.noStation, NoDefaultPolicy: o.noDefault,
		}); err != nil {
			return nil, fmt.Errorf("gate: %w", err)
		}
	}
	if !o.noStation {
		// Check the deny rows and roots once; requests skip it.
		if _, err := pl.Config().Boundary(cwd); err != nil {
			return nil, fmt.Errorf("gate: read boundary: %w", err)
		}
	}
	if o.runner == nil {
		o.runner = &execution.BashRunner{}
	}
	host := o.hostEnv
	var hostEnv readstation.Env = readstation.ProcessEnv
	if host == nil {
		host = os.Environ()
	} else {
		hostEnv = readstation.NewFullEnv(host)
	}
	if o.envFromReq {
		hostEnv = nil
	}
	env := execution.BuildEnv(host, o.envAllow, o.envSet)
	return &Gate{
		cwd: cwd, pl: pl,
		roots: o.roots, noStation: o.noStation, runner: o.runner, limits: o.limits,
		env: env, hostEnv: hostEnv, runEnv: readstation.NewRunnerEnv(env),
	}, nil
}

// Cwd returns the gate's default cwd.
func (g *Gate) Cwd() string { return g.cwd }

// Config returns the configuration in effect: for a project config the
// user has not trusted, its tightening part only (see Pipeline).
func (g *Gate) Config() *policy.Config { return g.pl.Config() }

// Pipeline returns the gate's decision pipeline.
func (g *Gate) Pipeline() *Pipeline { return g.pl }

// Decide runs the stages up to the policy's decision: input validation,
// the cwd, classification, the read station and the policy. It returns
// an *Error for bad input (INVALID_INPUT), a bad cwd (CWD_NOT_FOUND,
// CWD_NOT_A_DIRECTORY) or a cancelled context (ABORTED). A policy that
// fails is a deny with code policy-error, never an allow; a panic inside
// shellgate is a deny with code internal-error (the decision then has no
// report).
func (g *Gate) Decide(ctx context.Context, req Request) (*Decision, error) {
	return g.decideIn(ctx, req, g.requestEnv(req), false)
}

// requestEnv is what is known of the environment req's command runs in:
// the request's Env, else the gate's host environment (nil under
// WithEnvFromRequests).
func (g *Gate) requestEnv(req Request) readstation.Env {
	if req.Env != nil {
		return readstation.EnvMap(req.Env)
	}
	return g.hostEnv
}

// decideIn is Decide for a command that runs in env; run keeps the
// statements the classifier read, for the exit meaning of the run.
func (g *Gate) decideIn(ctx context.Context, req Request, env readstation.Env, run bool) (*Decision, error) {
	shell, err := validate(req)
	if err != nil {
		return nil, err
	}
	cwd, err := g.resolveCwd(req.Cwd)
	if err != nil {
		return nil, err
	}
	mode := req.Mode
	if mode == "" {
		mode = g.pl.Config().Mode
	}
	if mode == "" {
		mode = policy.ModeDefault
	}
	// The shell it is judged in: its own, else the (trusted) config's,
	// else unknown (both bash and zsh).
	pr := policy.Request{Command: req.Command, Cwd: cwd, Mode: mode, Shell: g.pl.Shell(shell), Env: env}
	return g.decide(ctx, pr, run, req.AgentRules)
}

// checkHook runs inside decide's protection; tests make it panic.
var checkHook = func() {}

// decide classifies, judges the reads and asks the policy. A panic in any
// of them (a bug) is caught and becomes a deny with code internal-error, so
// that a long-lived caller (serve, mcp, an embedding program) neither
// crashes nor runs what was not decided.
func (g *Gate) decide(ctx context.Context, req policy.Request, run bool, rules AgentRules) (d *Decision, err error) {
	command, cwd, mode := req.Command, req.Cwd, req.Mode
	defer func() {
		if r := recover(); r != nil {
			d = &Decision{Command: command, Cwd: cwd, Mode: mode, Decision: policy.Decision{Action: policy.Deny, Reasons: []policy.Reason{{
				Code:    policy.InternalError,
				Message: fmt.Sprintf("shellgate failed while checking this command (%v), so it is not run; please report this", r),
				Segment: -1,
			}}}}
			err = nil
		}
	}()
	checkHook()
	// A boundary that cannot be built leaves the station out: the policy
	// then sees reads that are not established.
	var stmts []*syntax.Stmt
	var keep func(*syntax.Stmt)
	if run {
		keep = func(s *syntax.Stmt) { stmts = append(stmts, s) }
	}
	in, st, serr := g.pl.inputStatements(req, keep)
	d = &Decision{stmts: stmts, Command: command, Cwd: cwd, Mode: mode, Shell: in.Shell, Report: in.Report, Reversible: in.Report.Reversible, Station: st}
	if serr != nil {
		d.StationError = serr.Error()
	}
	if rules != nil && in.Report != nil {
		in.AgentApprovals = rules.Approve(command, in.Report)
	}
	if run {
		in.Confinement = g.confinementFacts()
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Code: CodeAborted, Message: err.Error()}
	}
	pd, facts, err := g.pl.Decide(ctx, in)
	if err != nil {
		if ctx.Err() != nil {
			return nil, &Error{Code: CodeAborted, Message: err.Error()}
		}
		pd = policy.ErrorDecision("the policy failed: %v", err)
	}
	if !pd.Action.Valid() {
		pd = policy.ErrorDecision("the policy returned the unknown action %q", pd.Action)
	}
	d.Decision = pd
	d.in = in
	if run && pd.Action != policy.Deny {
		// How to run it is the policy's too; a failure leaves no plan,
		// and the gate then runs it read-only (policy.Decision.Plan).
		if runs, err := g.pl.Runs(ctx, in, pd.Action); err == nil {
			d.Run = runs
		} else if ctx.Err() != nil {
			return nil, &Error{Code: CodeAborted, Message: ctx.Err().Error()}
		}
	}
	if facts != nil && len(facts.Writes) > 0 {
		d.writes = facts.Writes
	}
	return d, nil
}

// recheckWrites judges the decision's writes again and reports the first
// that no longer lands where it did at the check (a directory replaced by
// a symlink while a person was approving, say).
func recheckWrites(d *Decision) error {
	if len(d.writes) == 0 {
		return nil
	}
	in := d.in
	in.Writes = in.Writes.Again()
	now := policy.ComputeFacts(&in).Writes
	if len(now) != len(d.writes) {
		return &readstation.ChangeError{Path: "(writes)", Was: fmt.Sprintf("%d writes", len(d.writes)), Now: fmt.Sprintf("%d writes", len(now))}
	}
	for i, w := range d.writes {
		if now[i] != w {
			return &readstation.ChangeError{Path: w.Path, Was: describeWrite(w), Now: describeWrite(now[i])}
		}
	}
	return nil
}

func describeWrite(w policy.WriteFacts) string {
	if !w.Established {
		return "a write whose target is not established"
	}
	s := "a write landing at " + w.Real
	if w.OutsideRoots {
		s += " (outside the roots)"
	}
	return s
}

// ValidateCommand says why command is not one a shell can be given (an
// *Error with code INVALID_INPUT): empty, over MaxCommandBytes, with a
// NUL byte or not valid UTF-8. Every front end refuses such a command
// the same way, before anything judges it: Decide and Run, check and
// check --batch (a deny), the hooks (a deny), the MCP tools.
func ValidateCommand(command string) error {
	bad := func(format string, a ...any) error {
		return &Error{Code: CodeInvalidInput, Message: fmt.Sprintf(format, a...)}
	}
	switch {
	case strings.TrimSpace(command) == "":
		return bad("the command is empty")
	case len(command) > MaxCommandBytes:
		return bad("the command is %d bytes, over the %d-byte limit", len(command), MaxCommandBytes)
	case strings.IndexByte(command, 0) >= 0:
		return bad("the command contains a NUL byte")
	case !utf8.ValidString(command):
		return bad("the command is not valid UTF-8")
	}
	return nil
}

// validate says why req cannot be decided (an *Error with code
// INVALID_INPUT), and reads its shell.
func validate(req Request) (classify.Dialect, error) {
	bad := func(format string, a ...any) error {
		return &Error{Code: CodeInvalidInput, Message: fmt.Sprintf(format, a...)}
	}
	if err := ValidateCommand(req.Command); err != nil {
		return "", err
	}
	shell, shellErr := classify.ParseDialect(req.Shell)
	switch {
	case req.Mode != "" && !policy.ValidMode(req.Mode):
		return "", bad("unknown mode %q (want %s or %s)", req.Mode, policy.ModeDefault, policy.ModeReadonly)
	case shellErr != nil:
		return "", bad("unknown shell %q (want bash, zsh or sh)", req.Shell)
	case req.TimeoutMS < 0:
		return "", bad("negative timeout %d ms", req.TimeoutMS)
	case strings.IndexByte(req.Cwd, 0) >= 0:
		return "", bad("the cwd contains a NUL byte")
	case req.Sandbox != "" && !req.Sandbox.Valid():
		return "", bad("unknown sandbox mode %q (want read-only, workspace-write or full-access)", req.Sandbox)
	case req.Escalate != "" && strings.TrimSpace(req.Justification) == "":
		return "", bad("a sandbox escalation to %s needs a justification: one sentence saying why this call needs it", req.Escalate)
	case req.Escalate == "" && req.Justification != "":
		return "", bad("a justification was given without a sandbox escalation: say which mode (workspace-write or full-access) this call needs")
	case req.Escalate != "" && !req.Escalate.Valid():
		return "", bad("unknown sandbox escalation %q (want workspace-write or full-access)", req.Escalate)
	case req.Escalate != "" && req.Sandbox != "":
		return "", bad("give either a sandbox mode or an escalation, not both")
	case len(req.Justification) > MaxJustificationBytes:
		return "", bad("the justification is %d bytes, over the %d-byte limit (one sentence)", len(req.Justification), MaxJustificationBytes)
	case strings.ContainsAny(strings.TrimSpace(req.Justification), "\n\r"):
		return "", bad("the justification must be one sentence on one line")
	case !utf8.ValidString(req.Justification):
		return "", bad("the justification is not valid UTF-8")
	}
	return shell, nil
}

func (g *Gate) resolveCwd(dir string) (string, error) {
	p := policy.ResolveCwd(g.cwd, dir)
	fi, err := os.Stat(p)
	if err != nil {
		return "", &Error{Code: CodeCwdNotFound, Message: fmt.Sprintf("the cwd %s cannot be used: %v", p, errors.Unwrap(err))}
	}
	if !fi.IsDir() {
		return "", &Error{Code: CodeCwdNotADirectory, Message: fmt.Sprintf("the cwd %s is not a directory", p)}
	}
	return p, nil
}

// boundary is the read boundary the gate judges reads in cwd against.
func (g *Gate) boundary(cwd string) (readstation.Boundary, error) {
	return g.pl.boundary(g.pl.Config(), cwd)
}

// Run checks the request and, when the policy allows it or the approver
// approves it and nothing changed since the check, runs it. It never
// returns an error: every outcome is a Result.
//
// The command runs confined (see SandboxMode) in the mode the decision
// gives: the request's Sandbox when set; read-only in readonly mode; the
// config's sandbox mode; read-only for a command allowed as reversible;
// workspace-write for a write a person approved or a grant allowed; the
// mode of an approved escalation for that one call.
func (g *Gate) Run(ctx context.Context, req Request) Result {
	p, res, ok := g.prepare(ctx, req, false)
	if !ok {
		return res
	}
	return g.execute(ctx, p, res)
}

// prepared is a request that may run: its spec, confinement and decision.
type prepared struct {
	req     Request
	d       *Decision
	spec    execution.Spec
	sb      *execution.SandboxInfo
	why     string
	timeout time.Duration
}

// prepare checks the request, asks for approval, re-checks the
// admission and builds the spec and confinement. ok is false when the
// request must not run; res is then the refusal. A background run has no
// timeout.
func (g *Gate) prepare(ctx context.Context, req Request, background bool) (p prepared, res Result, ok bool) {
	res.Command = req.Command
	fail := func(r Result) (prepared, Result, bool) { return prepared{}, r, false }
	if _, ok := g.runner.(*execution.BashRunner); ok && req.Shell == "" && g.pl.Config().Shell == "" {
		// The default runner runs bash: that is the shell that runs it.
		req.Shell = string(classify.DialectBash)
	}
	// Judged in the environment the runner gives the command.
	d, err := g.decideIn(ctx, req, g.runEnv, true)
	if err != nil {
		return fail(errResult(res, err))
	}
	res.Decision = d
	switch d.Action {
	case policy.Allow, policy.Ask:
	default:
		return fail(res.fail(CodeDenied, "the policy denies this command"))
	}
	var escKey string
	if req.Escalate != "" {
		base, _ := g.sandboxFor(req, d, d.Action == policy.Ask)
		if !req.Escalate.Wider(base) {
			return fail(res.fail(CodeInvalidInput, fmt.Sprintf("the escalation to %s is not wider than the mode this call runs in (%s); nothing was asked and nothing ran", req.Escalate, base)))
		}
		escKey = d.Cwd + "\x00" + d.Command
		if g.refusedBefore(escKey) {
			return fail(res.fail(CodeNotApproved, "an escalation of this command was refused before, and that refusal is final; change the command instead"))
		}
		d.Escalation = &Escalation{From: base, To: req.Escalate, Justification: strings.TrimSpace(req.Justification)}
	}
	if d.Action == policy.Ask || d.Escalation != nil {
		what := "the policy asks for approval"
		if d.Action == policy.Allow {
			what = "the sandbox escalation needs approval"
		}
		if req.Approver == nil {
			g.refuse(escKey)
			return fail(res.fail(CodeNotApproved, what+" and there is no one to ask"))
		}
		ok, err := approveSafely(ctx, req.Approver, d)
		if ctx.Err() != nil {
			g.refuse(escKey)
			return fail(res.fail(CodeAborted, "cancelled while waiting for approval"))
		}
		if errors.Is(err, ErrApprovalPending) {
			return fail(res.fail(CodeNotApproved, "waiting for a person's approval"))
		}
		if err != nil {
			g.refuse(escKey)
			return fail(res.fail(CodeNotApproved, "the approver failed: "+err.Error()))
		}
		if !ok {
			g.refuse(escKey)
			return fail(res.fail(CodeNotApproved, "not approved"))
		}
		res.Approved = true
	}
	// Right before the spawn: has anything the judgment rests on changed?
	if d.Station != nil {
		if err := d.Station.Admission().Recheck(); err != nil {
			return fail(res.fail(CodeChangedSinceCheck, err.Error()))
		}
	}
	if err := recheckWrites(d); err != nil {
		return fail(res.fail(CodeChangedSinceCheck, err.Error()))
	}
	if err := ctx.Err(); err != nil {
		return fail(res.fail(CodeAborted, err.Error()))
	}
	timeout := g.limits.DefaultTimeout
	if background {
		timeout = 0
	} else if req.TimeoutMS > 0 {
		timeout = time.Duration(req.TimeoutMS) * time.Millisecond
	}
	if timeout > g.limits.MaxTimeout {
		timeout = g.limits.MaxTimeout
		if req.TimeoutMS > 0 {
			res.Notes = append(res.Notes, execution.NoteClamped)
		}
	}
	env := g.env
	if d.Plan(res.Approved).Offline {
		env = execution.WithOffline(env)
	}
	spec := execution.Spec{
		Command: req.Command, Shell: d.Shell, Dir: d.Cwd, Env: env, Timeout: timeout, Grace: g.limits.Grace,
		View: g.limits.View, CaptureCap: g.limits.CaptureCap, SpillDir: g.limits.SpillDir,
		ReportDir: req.ReportDir && !background,
	}
	mode, why := g.sandboxFor(req, d, res.Approved)
	if d.Escalation != nil {
		mode, why = d.Escalation.To, "escalated"
	}
	sb, conf, err := g.confinement(req, mode, why, d, res.Approved)
	if err != nil {
		res.Sandbox = sb
		return fail(res.fail(CodeSandboxUnavailable, err.Error()))
	}
	spec.Sandbox = conf
	return prepared{req: req, d: d, spec: spec, sb: sb, why: why, timeout: timeout}, res, true
}

// execute runs a prepared request and makes its result.
func (g *Gate) execute(ctx context.Context, p prepared, res Result) Result {
	req, d, spec, sb, why, timeout := p.req, p.d, p.spec, p.sb, p.why, p.timeout
	conf := spec.Sandbox
	out, err := g.runner.Run(ctx, spec)
	if err != nil {
		res.Sandbox = sb
		if ctx.Err() != nil {
			return res.fail(CodeAborted, err.Error())
		}
		return res.fail(CodeSpawnFailed, err.Error())
	}
	res.Sandbox = sb
	if conf != nil {
		if out.Sandbox != nil {
			res.Sandbox = out.Sandbox
			res.Sandbox.Reason = why
		} else {
			sb.Note = "the runner did not report the confinement"
		}
	}
	if d.Escalation != nil {
		res.Sandbox.Escalated, res.Sandbox.From = true, d.Escalation.From
	}
	res.Run = &RunInfo{Command: req.Command, Cwd: d.Cwd, ExitCode: out.ExitCode, Signal: out.Signal, Duration: out.Duration, TimeoutMS: timeout.Milliseconds(), FinalDir: out.FinalDir, pid: out.PID}
	o := out.Output
	res.Output = &o
	res.Notes = append(res.Notes, out.Notes...)
	switch out.Stopped {
	case execution.StopTimeout:
		res.Status = StatusTimeout
		res.Message = fmt.Sprintf("timed out after %s; the process group was stopped", fmtDuration(timeout))
		return res
	case execution.StopAborted:
		return res.fail(CodeAborted, "cancelled while running; the process group was stopped")
	case execution.StopOutputCap:
		return res.fail(CodeOutputCap, fmt.Sprintf("the output passed the %d-byte capture cap; the process group was stopped", g.limits.CaptureCap))
	}
	// The report and statements the check read, in the dialect it was
	// judged in: no second parse.
	m := exitmeaning.InterpretParsed(d.Report, d.stmts, res.Run.ShellStatus(), exitmeaning.WithCatalog(g.pl.Catalog()), exitmeaning.WithDialect(classify.Dialect(d.Shell)))
	res.Meaning = &m
	if out.ExitCode == 0 {
		res.Status = StatusOK
	} else {
		res.Status = StatusFailed
	}
	return res
}

// ExitMeaning says what exit status code means for command, run by a
// shell of dialect shell (the one the gate judged it in; DialectUnknown
// reads it as bash), with the gate's catalog: its exit entries, wrappers
// and shell builtins. The hooks' exit explainer and Run say it this way.
func (g *Gate) ExitMeaning(command string, code int, shell classify.Dialect) exitmeaning.Meaning {
	return exitmeaning.Interpret(command, code, exitmeaning.WithCatalog(g.pl.Catalog()), exitmeaning.WithDialect(shell))
}

// approveSafely asks a; an approver that panics has not approved (the
// panic is its error), so that a long-lived caller such as the MCP server
// keeps serving and nothing runs.
func approveSafely(ctx context.Context, a Approver, d *Decision) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			ok, err = false, fmt.Errorf("panic: %v", r)
		}
	}()
	return a.Approve(ctx, d)
}

func errResult(res Result, err error) Result {
	var ge *Error
	if errors.As(err, &ge) {
		return res.fail(ge.Code, ge.Message)
	}
	return res.fail(CodeInvalidInput, err.Error())
}
