package gate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/rego"
)

// PipelineOptions configure NewPipeline.
type PipelineOptions struct {
	// Config is the configuration (nil: the defaults). A config found in
	// a project (policy.SourceProject) is judged against the user's trust
	// store (policy.Resolve) unless Resolved is given.
	Config *policy.Config
	// Resolved, when set, is Config already judged (tests give a store).
	Resolved *policy.Resolved
	// Catalog replaces the embedded catalog (nil: the embedded one).
	Catalog *classify.Catalog
	// PolicyDirs and Modules are policy the user named: trusted.
	PolicyDirs []string
	Modules    map[string]string
	// Roots are directories the user named, added to the config's roots.
	Roots []string
	// NoStation skips the read station.
	NoStation bool
	// NoDefaultPolicy leaves the embedded default policy out (see
	// WithoutDefaultPolicy): Modules (a policy bundle's, which carries its
	// own copy) then define data.shellgate.decision.
	NoDefaultPolicy bool
	// Background compiles the policy on a goroutine of its own:
	// NewPipeline returns once the config is resolved, so that commands
	// can be classified and judged while the policy compiles, and what
	// needs the policy (Decide, Explain, Engine) waits for it. A policy
	// that does not compile is then Compiled's error, and every decision
	// fails with it (shellgate check --batch).
	Background bool
	// Engine is the policy compiled already (a policy bundle's modules,
	// see rego.Bundle): it is used in place of compiling Modules when the
	// config adds no modules of its own.
	Engine *rego.Engine
	// Env is what is known of the environment the commands run in (the
	// agent's; see readstation.Boundary.Env) for a request that gives
	// none (policy.Request.Env). Nil knows nothing, so a
	// variable that may make a program read more (RIPGREP_CONFIG_PATH)
	// counts as set. A caller the agent started (shellgate check) gives
	// readstation.ProcessEnv.
	Env readstation.Env
}

// Pipeline is the decision pipeline of one configuration: classification
// with the config's catalog additions, the read station on the config's
// boundary, and the policy. What a project's configuration would widen
// (grants, roots, read-only programs, replaced deny rows, the allow rules
// of its modules) applies only once the user trusts it; until then a
// decision it would have made more permissive carries the reason
// project-config-untrusted. Gate decides through a Pipeline, and a Decider
// gives one to the shellgate CLI's check, explain and grant. It is safe for
// concurrent use.
type Pipeline struct {
	res       *policy.Resolved
	cfg       *policy.Config // in effect
	full      *policy.Config // the whole config, when a part was ignored
	engine    *rego.Engine
	engineErr error
	// compiled is closed once engine or engineErr is set (nil: the
	// policy was compiled in NewPipeline).
	compiled  chan struct{}
	classOpts []classify.Option
	fullOpts  []classify.Option
	noStation bool
	env       readstation.Env
	catalog   *classify.Catalog // the base catalog (PipelineOptions.Catalog, else the embedded one)
	// log, when set, receives every decision Decide makes (a policy
	// source's decision log; see Decider).
	log func(context.Context, policy.Input, policy.Decision)
}

// NewPipeline resolves the configuration's trust, builds the catalog and
// compiles the policy.
func NewPipeline(o PipelineOptions) (*Pipeline, error) {
	cfg := o.Config
	if cfg == nil {
		cfg = policy.DefaultConfig()
	}
	res := o.Resolved
	if res == nil {
		var err error
		if res, err = policy.Resolve(cfg); err != nil {
			return nil, err
		}
	}
	p := &Pipeline{res: res, cfg: withRoots(res.Config, o.Roots), noStation: o.NoStation, env: o.Env, catalog: o.Catalog}
	var ropts []rego.Option
	if dirs := append(append([]string{}, res.PolicyDirs...), o.PolicyDirs...); len(dirs) > 0 {
		ropts = append(ropts, rego.WithPolicyDirs(dirs...))
	}
	if len(res.Modules) > 0 {
		ropts = append(ropts, rego.WithModules(res.Modules))
	}
	if len(o.Modules) > 0 {
		ropts = append(ropts, rego.WithModules(o.Modules))
	}
	if len(res.UntrustedModules) > 0 {
		ropts = append(ropts, rego.WithUntrustedModules(res.UntrustedModules))
	}
	if o.NoDefaultPolicy {
		ropts = append(ropts, rego.WithoutDefaultPolicy())
	}
	if o.Engine != nil && len(res.PolicyDirs)+len(o.PolicyDirs)+len(res.Modules)+len(res.UntrustedModules) == 0 {
		p.engine, ropts, o.Background = o.Engine, nil, false
	}
	if o.Background {
		// The policy compiles on one core while the catalog decodes
		// on the other, and while the first commands are judged.
		p.compiled = make(chan struct{})
		go func() {
			defer close(p.compiled)
			p.engine, p.engineErr = newEngine(ropts)
		}()
	}
	if p.catalog == nil {
		p.catalog = classify.DefaultCatalog()
	}
	var err error
	if p.classOpts, err = classifyOptions(p.cfg, o.Catalog); err != nil {
		return nil, err
	}
	if res.Full != nil {
		p.full = withRoots(res.Full, o.Roots)
		if p.fullOpts, err = classifyOptions(p.full, o.Catalog); err != nil {
			return nil, err
		}
	}
	if o.Background {
		return p, nil
	}
	if p.engine != nil {
		return p, nil
	}
	if p.engine, err = newEngine(ropts); err != nil {
		return nil, err
	}
	return p, nil
}

func newEngine(ropts []rego.Option) (*rego.Engine, error) {
	e, err := rego.New(ropts...)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return e, nil
}

// Compiling reports whether the policy is still compiling in the
// background (see PipelineOptions.Background): whether Compiled would wait.
func (p *Pipeline) Compiling() bool {
	if p.compiled == nil {
		return false
	}
	select {
	case <-p.compiled:
		return false
	default:
		return true
	}
}

// Compiled waits for the policy (see PipelineOptions.Background) and
// returns why it did not compile; without Background it is nil at once.
func (p *Pipeline) Compiled() error {
	_, err := p.policy()
	return err
}

// policy is the compiled policy, once it is.
func (p *Pipeline) policy() (*rego.Engine, error) {
	if p.compiled != nil {
		<-p.compiled
	}
	return p.engine, p.engineErr
}

func withRoots(c *policy.Config, roots []string) *policy.Config {
	if len(roots) == 0 {
		return c
	}
	cc := *c
	cc.Roots = append(append([]string{}, c.Roots...), roots...)
	return &cc
}

func classifyOptions(c *policy.Config, cat *classify.Catalog) ([]classify.Option, error) {
	opts, err := c.ClassifyOptions(cat)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if cat != nil {
		opts = append([]classify.Option{classify.WithCatalog(cat)}, opts...)
	}
	return opts, nil
}

// Catalog returns the catalog the pipeline classifies with (before the
// config's read_only_programs): PipelineOptions.Catalog, else the embedded
// one. Exit meanings are read from it.
func (p *Pipeline) Catalog() *classify.Catalog { return p.catalog }

// Config returns the configuration in effect: for an untrusted project
// config, its tightening part only.
func (p *Pipeline) Config() *policy.Config { return p.cfg }

// Resolved returns the configuration as judged against the trust store.
func (p *Pipeline) Resolved() *policy.Resolved { return p.res }

// Engine returns the compiled policy (nil when it did not compile; see
// Compiled).
func (p *Pipeline) Engine() *rego.Engine {
	e, _ := p.policy()
	return e
}

// Input classifies req's command and judges its reads for a run in its
// cwd (absolute; one that is not is judged with no boundary, and the
// policy asks with cwd-unknown) under the config in effect. Its mode ""
// is the config's; its shell DialectUnknown the config's, and with none
// there the command is read as both bash and zsh; its Env nil the
// pipeline's (PipelineOptions.Env). A boundary that cannot be built
// leaves the station out (the policy then sees reads that are not
// established); the error says why.
func (p *Pipeline) Input(req policy.Request) (policy.Input, *readstation.Station, error) {
	if req.Env == nil {
		req.Env = p.env
	}
	return p.input(p.cfg, p.classOpts, req, p.boundary)
}

// inputStatements is Input for req as given (its Env nil knows nothing)
// that passes the command's top-level statements to fn
// (classify.WithStatements) when fn is not nil.
func (p *Pipeline) inputStatements(req policy.Request, fn func(*syntax.Stmt)) (policy.Input, *readstation.Station, error) {
	opts := p.classOpts
	if fn != nil {
		opts = append(opts[:len(opts):len(opts)], classify.WithStatements(fn))
	}
	return p.input(p.cfg, opts, req, p.boundary)
}

// Shell is the dialect a request for shell s is judged in: s, else the
// config's shell (of a trusted config), else unknown.
func (p *Pipeline) Shell(s classify.Dialect) classify.Dialect {
	if s == classify.DialectUnknown {
		s = p.cfg.Dialect()
	}
	return s
}

// Batch is a Pipeline deciding one batch of commands (shellgate check
// --batch): it builds the read boundary of each cwd once (the stat of the
// cwd, the home directory, the walk up to the .git entry) and reuses it for
// the rest of the batch, which a long-lived engine must not do, since the
// file system may change between its requests. It is safe for concurrent
// use.
type Batch struct {
	p      *Pipeline
	mu     sync.Mutex
	bounds map[string]*batchBoundary
}

// batchBoundary is the boundary of a cwd, built once: the lines of the
// cwd that come while it is built wait for it.
type batchBoundary struct {
	once sync.Once
	b    readstation.Boundary
	err  error
}

// errNoBoundary is the boundary error of a batch's cwd whose boundary
// could not be built at all.
var errNoBoundary = errors.New("the boundary of the cwd could not be built")

// Batch starts a batch of decisions.
func (p *Pipeline) Batch() *Batch { return &Batch{p: p, bounds: map[string]*batchBoundary{}} }

// Input is Pipeline.Input with the boundary of each cwd built once per
// batch.
func (b *Batch) Input(req policy.Request) (policy.Input, *readstation.Station, error) {
	if req.Env == nil {
		req.Env = b.p.env
	}
	return b.p.input(b.p.cfg, b.p.classOpts, req, b.boundary)
}

func (b *Batch) boundary(cfg *policy.Config, cwd string) (readstation.Boundary, error) {
	b.mu.Lock()
	e := b.bounds[cwd]
	if e == nil {
		if len(b.bounds) >= maxValid {
			clear(b.bounds)
		}
		e = &batchBoundary{}
		b.bounds[cwd] = e
	}
	b.mu.Unlock()
	e.once.Do(func() {
		// Should building it panic, the lines that wait for it get an
		// error (reads not established), never a zero boundary.
		e.err = errNoBoundary
		e.b, e.err = b.p.boundary(cfg, cwd)
	})
	return e.b, e.err
}

// input is Input under cfg, classified with opts, on the boundary
// boundary gives; req.Env is taken as given (nil knows nothing).
func (p *Pipeline) input(cfg *policy.Config, opts []classify.Option, req policy.Request, boundary func(*policy.Config, string) (readstation.Boundary, error)) (policy.Input, *readstation.Station, error) {
	mode, shell, cwd, env := req.Mode, req.Shell, req.Cwd, req.Env
	if mode == "" {
		mode = p.cfg.Mode
	}
	if mode == "" {
		mode = policy.ModeDefault
	}
	if shell == classify.DialectUnknown {
		shell = cfg.Dialect()
	}
	in := policy.Input{Command: req.Command, Mode: mode, Cwd: cwd, Shell: string(shell), Config: cfg, Env: env}
	in.Report = classify.Classify(req.Command, append(opts[:len(opts):len(opts)], classify.WithDialect(shell))...)
	if p.noStation && len(in.Report.Writes) == 0 {
		return in, nil, nil
	}
	// One model of the file system: the boundary judges the writes (on
	// what it knows even when it failed) and the reads.
	b, err := boundary(cfg, cwd)
	b.Env = env
	in.Writes = readstation.JudgeWrites(in.Report, b)
	if p.noStation {
		return in, nil, nil
	}
	if err != nil {
		return in, nil, fmt.Errorf("read station: %w (reads are not established)", err)
	}
	st := readstation.Judge(in.Report, b)
	in.Station = st
	return in, st, nil
}

// maxValid bounds the boundaries a batch remembers.
const maxValid = 256

// boundary is the boundary of the file-system model for cwd under cfg:
// policy.Config.Boundary, the one constructor (readstation.NewBoundary).
func (p *Pipeline) boundary(cfg *policy.Config, cwd string) (readstation.Boundary, error) {
	return cfg.Boundary(cwd)
}

// Runs asks the policy how to run a command it decided action on (in as
// Decide was given it): the run plans the gate acts on.
func (p *Pipeline) Runs(ctx context.Context, in policy.Input, action policy.Action) (*policy.Runs, error) {
	engine, err := p.policy()
	if err != nil {
		return nil, err
	}
	return engine.Runs(ctx, in, action)
}

// Decide asks the policy about in (built by Input). When a part of an
// untrusted project file was ignored, it also decides as if the user
// trusted it, and when that would have been more permissive the policy
// adds a reason with code project-config-untrusted saying which file,
// what was ignored and how to trust it. The error is for a cancelled
// context, or a policy compiled in the background that did not compile.
func (p *Pipeline) Decide(ctx context.Context, in policy.Input) (policy.Decision, *policy.Facts, error) {
	engine, err := p.policy()
	if err != nil {
		return policy.Decision{}, nil, err
	}
	pd, facts, err := p.decide(ctx, engine, in)
	if err == nil && p.log != nil {
		p.log(ctx, in, pd)
	}
	return pd, facts, err
}

// decide is Decide without the decision log.
func (p *Pipeline) decide(ctx context.Context, engine *rego.Engine, in policy.Input) (policy.Decision, *policy.Facts, error) {
	pd, facts, err := engine.DecideFacts(ctx, in)
	if err != nil || pd.Action == policy.Allow || !pd.Action.Valid() || len(p.res.Untrusted) == 0 {
		return pd, facts, err
	}
	whole := in
	if p.full != nil {
		// The request's own shell; the whole config's applies when it
		// named none (in.Shell is then the trusted part's, ""); and what
		// was known of the command's environment (a Go toolchain pin is
		// judged on GOTOOLCHAIN and PATH: knowing nothing of them would
		// make every go command's whole-config decision an ask).
		req := policy.Request{Command: in.Command, Cwd: in.Cwd, Mode: in.Mode, Shell: classify.Dialect(in.Shell), Env: in.Env}
		whole, _, _ = p.input(p.full, p.fullOpts, req, p.boundary)
		if in.Station == nil {
			whole.Station = nil
		}
	}
	wd, err := engine.DecideWhole(ctx, whole)
	if err != nil {
		return pd, facts, err
	}
	// The policy says whether the untrusted part would have been more
	// permissive (CombineQuery, "untrusted-config").
	pd, err = engine.WithUntrustedConfig(ctx, in.Command, pd, wd, p.res.Message())
	return pd, facts, err
}
