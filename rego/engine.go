package rego

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/metrics"
	opa "github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
)

// Query is the policy's decision rule.
const Query = "data.shellgate.decision"

// RunQuery is the rule that makes the run plans of a decision
// (policy/engine.rego, which every engine compiles), evaluated only for a
// command the gate is to run.
const RunQuery = "data.shellgate.engine.run"

// Option configures New.
type Option func(*options)

type options struct {
	dirs      []string
	modules   map[string]string
	untrusted map[string]string
	noDefault bool
	memo      int
}

// WithPolicyDirs adds the .rego modules under each directory (recursively;
// *_test.rego files are left out) to the default policy.
func WithPolicyDirs(dirs ...string) Option {
	return func(o *options) { o.dirs = append(o.dirs, dirs...) }
}

// WithModules adds modules given as file name to Rego source.
func WithModules(m map[string]string) Option {
	return func(o *options) {
		if o.modules == nil {
			o.modules = map[string]string{}
		}
		for k, v := range m {
			o.modules[k] = v
		}
	}
}

// WithUntrustedModules adds modules (file name to Rego source) that may
// only tighten a decision: modules found in a project the user has not
// trusted. They are compiled into a second query together with every other
// module; Decide adds that query's deny and ask reasons to the trusted
// query's decision, so nothing they add to allow, or to any helper rule the
// default policy reads, can make a command more permissive. DecideWhole
// tells what the decision would be with them trusted.
func WithUntrustedModules(m map[string]string) Option {
	return func(o *options) {
		if o.untrusted == nil {
			o.untrusted = map[string]string{}
		}
		for k, v := range m {
			o.untrusted[k] = v
		}
	}
}

// WithoutDefaultPolicy leaves the embedded default policy out: the given
// modules must then define data.shellgate.decision themselves.
func WithoutDefaultPolicy() Option { return func(o *options) { o.noDefault = true } }

// WithMemo sets how many decisions are memoized by canonical input (0
// turns memoization off). The default is DefaultMemo.
func WithMemo(n int) Option { return func(o *options) { o.memo = n } }

// DefaultMemo is the default number of memoized decisions.
const DefaultMemo = 4096

// Engine decides on policy inputs with a prepared query. It is safe for
// concurrent use.
type Engine struct {
	*compiled
	memo *memo
	// runs memoizes run plans (Runs) as memo does decisions, the key's
	// mode extended by the action asked about.
	runs *memo
	// whole is the query with the untrusted modules too (nil when there
	// are none).
	whole *Engine
}

// compiled is one set of modules compiled, which engines may share: it
// does not change once made.
type compiled struct {
	// pq is the query, prepared once for OPA's evaluator (topdown):
	// every decision, explanation and Rego test runs on it.
	pq opa.PreparedEvalQuery
	// args make the query of the modules; cq is the combination query
	// (CombineQuery) and rq the run query (RunQuery), each prepared once
	// when first needed.
	args  []func(*opa.Rego)
	cq    lazyQuery
	rq    lazyQuery
	index map[string]string // rule name → file:line
	files []string
}

// New compiles the embedded default policy and the user's modules once.
// Errors name the file, line and column.
func New(opts ...Option) (*Engine, error) {
	o := options{memo: DefaultMemo}
	for _, f := range opts {
		f(&o)
	}
	srcs := map[string]string{}
	if !o.noDefault {
		for k, v := range DefaultModules(false) {
			srcs[k] = v
		}
	}
	for _, d := range o.dirs {
		m, err := ReadPolicyDir(d, false)
		if err != nil {
			return nil, err
		}
		for k, v := range m {
			srcs[k] = v
		}
	}
	for k, v := range o.modules {
		if isTest(k) {
			continue
		}
		srcs[k] = v
	}
	if o.noDefault {
		// The combinations are the engine's own, whatever the policy.
		srcs[engineModule] = DefaultModules(false)[engineModule]
	}
	e, err := compile(srcs, o)
	if err != nil {
		return nil, err
	}
	if len(o.untrusted) > 0 {
		all := map[string]string{}
		for k, v := range srcs {
			all[k] = v
		}
		for k, v := range o.untrusted {
			if !isTest(k) {
				all[k] = v
			}
		}
		if e.whole, err = compile(all, o); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// compile parses and prepares one set of modules: the embedded default
// policy alone is compiled once per process (defaultCompiled).
func compile(srcs map[string]string, o options) (*Engine, error) {
	var c *compiled
	var err error
	if !o.noDefault && sameModules(srcs, defaultSources()) {
		c, err = defaultCompiled()
	} else {
		c, err = compileModules(srcs, o.noDefault, nil)
	}
	if err != nil {
		return nil, err
	}
	return &Engine{compiled: c, memo: newMemo(o.memo), runs: newMemo(o.memo)}, nil
}

// compileModules parses and prepares one set of modules. decisionArgs,
// when not nil, make the decision's query instead of all the modules.
func compileModules(srcs map[string]string, ownDecision bool, decisionArgs func(map[string]*ast.Module) []func(*opa.Rego)) (*compiled, error) {
	mods, index, err := parseModules(srcs, ownDecision)
	if err != nil {
		return nil, err
	}
	c := &compiled{index: index, args: queryArgs(mods)}
	for n := range mods {
		c.files = append(c.files, n)
	}
	sort.Strings(c.files)
	if err := checkTypes(mods); err != nil {
		return nil, err
	}
	args := c.args
	if decisionArgs != nil {
		args = decisionArgs(mods)
	}
	pq, err := opa.New(append(args[:len(args):len(args)], opa.Query(Query))...).PrepareForEval(context.Background())
	if err != nil {
		return nil, formatErrors(err)
	}
	c.pq = pq
	return c, nil
}

// defaultDecisionArgs make the embedded default policy's decision query
// with less work at start, for the same decisions: the engine's own module
// (RunQuery, CombineQuery) is left out, since no rule of the decision
// refers to it, and the compiler's stages that only check the modules
// (skippedChecks) are skipped, since the same modules pass them. Both are
// facts about the embedded modules, which TestDefaultDecisionQuery
// checks; the engine's queries, the Rego tests and any other set of
// modules compile everything with every stage.
func defaultDecisionArgs(mods map[string]*ast.Module) []func(*opa.Rego) {
	rest := map[string]*ast.Module{}
	for n, m := range mods {
		if n != engineModule {
			rest[n] = m
		}
	}
	return append(queryArgs(rest), opa.CompilerHook(func(c *ast.Compiler) { c.WithSkipStages(skippedChecks...) }))
}

// skippedChecks are the compiler's stages that only check the modules,
// skipped for the embedded default policy's decision query: they change
// nothing the evaluation reads, but for the types, which topdown reads
// only for a with modifier (and the default policy's decision has none).
var skippedChecks = []ast.StageID{
	ast.StageCheckUnusedImports, ast.StageCheckKeywordOverrides, ast.StageCheckVoidCalls,
	ast.StageCheckRuleConflicts, ast.StageCheckUndefinedFuncs, ast.StageCheckSafetyRuleHeads,
	ast.StageCheckRecursion, ast.StageCheckTypes, ast.StageCheckDeprecatedBuiltins, ast.StageCheckUnsafeBuiltins,
}

// defaultEngine is the embedded default policy compiled, once per process
// and when first needed (or from Prewarm).
var defaultEngine struct {
	once sync.Once
	c    *compiled
	err  error
}

// defaultCompiled returns the embedded default policy compiled.
func defaultCompiled() (*compiled, error) {
	defaultEngine.once.Do(func() {
		defaultEngine.c, defaultEngine.err = compileModules(defaultSources(), false, defaultDecisionArgs)
	})
	return defaultEngine.c, defaultEngine.err
}

// Prewarm starts compiling the embedded default policy in the background,
// so that a process that will decide with it (New with no other modules)
// starts on the compilation while it loads its config and classifies: New
// then waits for that compilation instead of doing its own. It costs a
// process that does not call New the compilation's CPU time, on another
// core.
func Prewarm() { go defaultCompiled() }

// sameModules reports whether a and b hold the same modules.
func sameModules(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// queryArgs are the rego options that make a query of mods (with the
// query's own option).
func queryArgs(mods map[string]*ast.Module) []func(*opa.Rego) {
	args := []func(*opa.Rego){
		opa.Capabilities(capabilities),
		opa.SetRegoVersion(ast.RegoV1),
		opa.GenerateJSON(rawTerm),
	}
	for _, m := range mods {
		args = append(args, opa.ParsedModule(m))
	}
	return args
}

// notCancelled is the Cancel of an evaluation whose context cannot be
// cancelled.
type notCancelled struct{}

func (notCancelled) Cancel()         {}
func (notCancelled) Cancelled() bool { return false }

// noMetrics spares each evaluation a metrics registry nobody reads.
var noMetrics = metrics.NoOp()

// rawTerm hands evaluation results back as *ast.Term, with no conversion.
func rawTerm(t *ast.Term, _ *opa.EvalContext) (any, error) { return t, nil }

// checkTypes rejects a policy whose decision rule is missing.
func checkTypes(mods map[string]*ast.Module) error {
	for _, m := range mods {
		if len(m.Package.Path) != 2 {
			continue
		}
		for _, r := range m.Rules {
			if r.Head.Name.String() == "decision" || (len(r.Head.Reference) > 0 && r.Head.Reference[0].Value.String() == "decision") {
				return nil
			}
		}
	}
	return errors.New("no module defines data.shellgate.decision")
}

// Files lists the policy files compiled, sorted.
func (e *Engine) Files() []string { return append([]string(nil), e.files...) }

// RuleLocation returns the file:line of the rule that a reason's "rule"
// names, or "".
func (e *Engine) RuleLocation(rule string) string { return e.index[rule] }

// prepare fills the effective mode and computes the facts.
func prepare(in *policy.Input) (*policy.Facts, error) {
	if in.Report == nil {
		return nil, errors.New("the input has no report")
	}
	if len(in.Report.Writes) > 0 && (in.Writes == nil || len(in.Writes.Writes) != len(in.Report.Writes)) {
		// Where a write lands is the file-system model's to say
		// (readstation.JudgeWrites); the policy does no I/O of its own.
		return nil, errors.New("the input's writes were not judged (policy.Input.Writes)")
	}
	f := policy.ComputeFacts(in)
	if !policy.ValidMode(f.Mode) {
		return f, fmt.Errorf("mode %q is not a mode (want default or readonly)", f.Mode)
	}
	return f, nil
}

// Decide evaluates the policy on in: one evaluation per call (or none, when
// the same canonical input was decided before). An evaluation error, an
// undefined or malformed decision, a missing report or an unknown mode is a
// deny with code policy-error; the error result is for a cancelled context.
// With untrusted modules (WithUntrustedModules) the decision is the trusted
// modules' decision tightened by the deny and ask reasons of all of them.
func (e *Engine) Decide(ctx context.Context, in policy.Input) (policy.Decision, error) {
	d, _, err := e.DecideFacts(ctx, in)
	return d, err
}

// DecideFacts is Decide, and also returns the facts the policy saw (nil
// when the input has no report), so that a caller can judge them again
// later (the gate re-judges the writes right before the spawn).
func (e *Engine) DecideFacts(ctx context.Context, in policy.Input) (policy.Decision, *policy.Facts, error) {
	d, f, err := e.decide(ctx, &in, nil)
	if err != nil || e.whole == nil {
		return d, f, err
	}
	w, _, err := e.whole.decide(ctx, &in, nil)
	if err != nil {
		return w, f, err
	}
	// The untrusted modules only tighten (CombineQuery,
	// "untrusted-modules").
	c, err := e.combine(ctx, in.Command, d, "untrusted-modules", map[string]any{"trusted": d, "whole": w})
	return c, f, err
}

// HasUntrusted reports whether the engine has untrusted modules.
func (e *Engine) HasUntrusted() bool { return e.whole != nil }

// DecideWhole decides as if the untrusted modules were trusted: what the
// decision would be once the user trusts them. Without untrusted modules it
// is Decide.
func (e *Engine) DecideWhole(ctx context.Context, in policy.Input) (policy.Decision, error) {
	w := e
	if e.whole != nil {
		w = e.whole
	}
	d, _, err := w.decide(ctx, &in, nil)
	return d, err
}

// UntrustedFiles lists the untrusted policy files compiled, sorted.
func (e *Engine) UntrustedFiles() []string {
	if e.whole == nil {
		return nil
	}
	var out []string
	for _, f := range e.whole.files {
		if !contains(e.files, f) {
			out = append(out, f)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	i := sort.SearchStrings(list, s)
	return i < len(list) && list[i] == s
}

// engineModule is the module of the engine's own rules (RunQuery,
// CombineQuery), in every engine.
const engineModule = "default/engine.rego"

// CombineQuery is the rule that combines two decisions on one command
// (policy/engine.rego): the trusted modules' with the untrusted ones'
// ("untrusted-modules"), or a decision with the one an untrusted project
// config would have given ("untrusted-config").
const CombineQuery = "data.shellgate.engine.result"

// combine evaluates CombineQuery on input {"kind": kind, fields...},
// whose decisions are given as policy.Decisions; base is the decision
// whose suggested grants stand when the result says keep_grants. Any
// failure is a policy-error deny.
func (e *Engine) combine(ctx context.Context, command string, base policy.Decision, kind string, fields map[string]any) (policy.Decision, error) {
	cq, err := e.cq.get(e.args, CombineQuery)
	if err != nil {
		return policy.ErrorDecision("preparing the combination of decisions: %v", err), nil
	}
	doc := map[string]any{"kind": kind}
	for k, v := range fields {
		doc[k] = v
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return policy.ErrorDecision("building the combination's input: %v", err), nil
	}
	v, err := ast.ValueFromReader(bytes.NewReader(b))
	if err != nil {
		return policy.ErrorDecision("building the combination's input: %v", err), nil
	}
	rs, err := cq.Eval(ctx, opa.EvalParsedInput(v), opa.EvalMetrics(noMetrics))
	if err != nil {
		if ctx.Err() != nil {
			return policy.ErrorDecision("policy evaluation stopped: %v", ctx.Err()), ctx.Err()
		}
		return policy.ErrorDecision("combining decisions failed: %v", formatErrors(err)), nil
	}
	d := e.decision(rs, &policy.Input{Command: command})
	if isPolicyError(d) {
		return d, nil
	}
	t := rs[0].Expressions[0].Value.(*ast.Term)
	if k := t.Value.(ast.Object).Get(kKeepGrants); k != nil && k.Value.Compare(ast.Boolean(true)) == 0 && d.Action == policy.Ask {
		d.SuggestedGrants, d.NoGrants = base.SuggestedGrants, base.NoGrants
	}
	return d, nil
}

// lazyQuery is a query prepared once, when first needed.
type lazyQuery struct {
	once sync.Once
	pq   opa.PreparedEvalQuery
	err  error
}

func (q *lazyQuery) get(args []func(*opa.Rego), query string) (opa.PreparedEvalQuery, error) {
	q.once.Do(func() {
		q.pq, q.err = opa.New(append(args[:len(args):len(args)], opa.Query(query))...).PrepareForEval(context.Background())
		if q.err != nil {
			q.err = formatErrors(q.err)
		}
	})
	return q.pq, q.err
}

// Runs evaluates the run plans (RunQuery) of a command decided action on
// input in (as Decide was given it): how the gate runs it without and
// with a person's approval. The policy sees the input document with
// "action" added. Any failure is an error (the gate then fails closed).
// Plans are memoized as decisions are, under the input's key and the
// action.
func (e *Engine) Runs(ctx context.Context, in policy.Input, action policy.Action) (*policy.Runs, error) {
	rq, err := e.rq.get(e.args, RunQuery)
	if err != nil {
		return nil, err
	}
	f, err := prepare(&in)
	if err != nil {
		return nil, err
	}
	in.Mode = f.Mode
	var key memoKey
	memoize := e.runs != nil
	if memoize {
		if key, err = keyFor(&in, f); err != nil {
			memoize = false
		} else {
			key.mode += "\x00" + string(action)
			if d, ok := e.runs.get(key); ok {
				return d.Run, nil
			}
		}
	}
	v, err := inputValue(&in, f)
	if err != nil {
		return nil, err
	}
	// v is this call's own object (its members are shared terms, never
	// changed): a member added to it is seen by no other input.
	v.Insert(kAction, ast.StringTerm(string(action)))
	rs, err := rq.Eval(ctx, opa.EvalParsedInput(v), opa.EvalMetrics(noMetrics))
	if err != nil {
		return nil, formatErrors(err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("the policy produced no run plan (%s is undefined)", RunQuery)
	}
	t, ok := rs[0].Expressions[0].Value.(*ast.Term)
	if !ok {
		return nil, errors.New("the run plan is not a value")
	}
	runs, err := runsOf(t)
	if err == nil && memoize {
		e.runs.put(key, policy.Decision{Run: runs})
	}
	return runs, err
}

// WithUntrustedConfig combines d, decided under the trusted part of the
// config, with whole, the decision had the user trusted the project's
// config (CombineQuery, "untrusted-config"): the policy adds the reason
// project-config-untrusted with message when whole is more permissive.
func (e *Engine) WithUntrustedConfig(ctx context.Context, command string, d, whole policy.Decision, message string) (policy.Decision, error) {
	return e.combine(ctx, command, d, "untrusted-config", map[string]any{
		"decision": d, "whole": whole, "message": message, "command_length": len(command),
	})
}

func (e *Engine) decide(ctx context.Context, in *policy.Input, extra []opa.EvalOption) (policy.Decision, *policy.Facts, error) {
	if err := ctx.Err(); err != nil {
		return policy.ErrorDecision("policy evaluation stopped: %v", err), nil, err
	}
	f, err := prepare(in)
	if err != nil {
		return policy.ErrorDecision("%v", err), f, nil
	}
	in.Mode = f.Mode
	var key memoKey
	memoize := e.memo != nil && extra == nil
	if memoize {
		// The key is hashed from the input's description without building
		// the value: a decision answered from the memo builds nothing.
		if key, err = keyFor(in, f); err != nil {
			memoize = false
		} else if d, ok := e.memo.get(key); ok {
			return d, f, nil
		}
	}
	d, ok, err := e.eval(ctx, in, f, extra)
	if err != nil || !ok {
		return d, f, err
	}
	if memoize {
		e.memo.put(key, d)
	}
	return d, f, nil
}

// eval decides with OPA's topdown evaluator on the prepared query (extra:
// options such as a tracer). ok is false when the input could not be built
// or the evaluation failed (the decision is a policy error that says why,
// and is not memoized).
func (e *Engine) eval(ctx context.Context, in *policy.Input, f *policy.Facts, extra []opa.EvalOption) (d policy.Decision, ok bool, err error) {
	v, err := inputValue(in, f)
	if err != nil {
		return policy.ErrorDecision("building the policy input: %v", err), false, nil
	}
	rs, err := e.evalValue(ctx, v, extra...)
	if err != nil {
		if ctx.Err() != nil {
			return policy.ErrorDecision("policy evaluation stopped: %v", ctx.Err()), false, ctx.Err()
		}
		return policy.ErrorDecision("policy evaluation failed: %v", formatErrors(err)), false, nil
	}
	return e.decision(rs, in), true, nil
}

// evalValue evaluates the prepared query on the input value v: the one
// evaluation path of decisions, explanations and the benchmarks' floor.
func (e *Engine) evalValue(ctx context.Context, v ast.Value, extra ...opa.EvalOption) (opa.ResultSet, error) {
	opts := make([]opa.EvalOption, 0, 3+len(extra))
	opts = append(opts, opa.EvalParsedInput(v), opa.EvalMetrics(noMetrics))
	if ctx.Done() == nil {
		// The context cannot be cancelled: nothing to watch.
		opts = append(opts, opa.EvalExternalCancel(notCancelled{}))
	} else {
		// Without an external Cancel, OPA starts a goroutine per
		// evaluation to watch the context; a callback registered on the
		// context cancels the evaluation the same way, for no goroutine.
		c := topdown.NewCancel()
		stop := context.AfterFunc(ctx, c.Cancel)
		defer stop()
		opts = append(opts, opa.EvalExternalCancel(c))
	}
	return e.pq.Eval(ctx, append(opts, extra...)...)
}

// decision reads the result set into a Decision, failing closed.
func (e *Engine) decision(rs opa.ResultSet, in *policy.Input) policy.Decision {
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return policy.ErrorDecision("the policy produced no decision (%s is undefined)", Query)
	}
	if len(rs) > 1 {
		return policy.ErrorDecision("the policy produced %d decisions", len(rs))
	}
	t, ok := rs[0].Expressions[0].Value.(*ast.Term)
	if !ok {
		return policy.ErrorDecision("the decision is not a value")
	}
	return e.decisionOf(t, in)
}

// isPolicyError reports whether d is a policy-error deny (ErrorDecision).
func isPolicyError(d policy.Decision) bool {
	return d.Action == policy.Deny && len(d.Reasons) == 1 && d.Reasons[0].Code == policy.PolicyError
}

// decisionOf reads the decision's value, failing closed.
func (e *Engine) decisionOf(t *ast.Term, in *policy.Input) policy.Decision {
	o, ok := t.Value.(ast.Object)
	if !ok {
		return policy.ErrorDecision("the decision is %s, not an object", ast.ValueName(t.Value))
	}
	var d policy.Decision
	var at ast.String
	if a := o.Get(kAction); a != nil {
		at, _ = a.Value.(ast.String)
	}
	d.Action = policy.Action(at)
	if !d.Action.Valid() {
		return policy.ErrorDecision("the decision's action %v is not allow, ask or deny", o.Get(kAction))
	}
	rt := o.Get(kReasons)
	if rt == nil {
		return policy.ErrorDecision("the decision has no reasons")
	}
	var bad error
	isList := each(rt.Value, func(t *ast.Term) {
		if bad != nil {
			return
		}
		r, err := e.reason(t, len(in.Command))
		if err != nil {
			bad = err
			return
		}
		d.Reasons = append(d.Reasons, r)
	})
	if !isList {
		return policy.ErrorDecision("the decision's reasons are %s, not a set or an array", ast.ValueName(rt.Value))
	}
	if bad != nil {
		return policy.ErrorDecision("%v", bad)
	}
	if d.Action != policy.Allow && len(d.Reasons) == 0 {
		return policy.ErrorDecision("the decision is %s without a reason", d.Action)
	}
	if d.Reasons == nil {
		d.Reasons = []policy.Reason{}
	}
	policy.SortReasons(d.Reasons)
	if d.Action == policy.Ask {
		if g := o.Get(kGrantable); g != nil {
			d.SuggestedGrants, d.NoGrants = suggest(g.Value, in.Report)
		}
	}
	return d
}

// runsOf reads the decision's run plans, checking their shape.
func runsOf(t *ast.Term) (*policy.Runs, error) {
	o, ok := t.Value.(ast.Object)
	if !ok {
		return nil, fmt.Errorf("the decision's run is %s, not an object", ast.ValueName(t.Value))
	}
	var r policy.Runs
	for _, p := range []struct {
		key  string
		plan *policy.RunPlan
	}{{"unapproved", &r.Unapproved}, {"approved", &r.Approved}} {
		pt := o.Get(ast.StringTerm(p.key))
		if pt == nil {
			return nil, fmt.Errorf("the decision's run has no %q plan", p.key)
		}
		if err := ast.As(pt.Value, p.plan); err != nil {
			return nil, fmt.Errorf("the decision's run.%s is malformed: %v", p.key, err)
		}
		if !validSandbox(p.plan.Sandbox) || p.plan.Why == "" {
			return nil, fmt.Errorf("the decision's run.%s names no sandbox mode (%v)", p.key, pt)
		}
	}
	return &r, nil
}

func validSandbox(m string) bool {
	switch m {
	case "read-only", "workspace-write", "full-access":
		return true
	}
	return false
}

func each(v ast.Value, fn func(*ast.Term)) bool {
	switch c := v.(type) {
	case ast.Set:
		c.Foreach(fn)
	case *ast.Array:
		c.Foreach(fn)
	default:
		return false
	}
	return true
}

func suggest(v ast.Value, r *classify.Report) ([]policy.Grant, []policy.NoGrant) {
	var idx []int
	each(v, func(t *ast.Term) {
		if n, ok := t.Value.(ast.Number); ok {
			if i, ok := n.Int(); ok && i >= 0 && i < len(r.Segments) {
				idx = append(idx, i)
			}
		}
	})
	sort.Ints(idx)
	var out []policy.Grant
	var no []policy.NoGrant
	for _, i := range idx {
		if g, why := policy.GrantOrWhy(&r.Segments[i]); why == "" {
			out = append(out, g)
		} else {
			sp := r.Segments[i].Span
			no = append(no, policy.NoGrant{Segment: i, Span: &sp, Why: why})
		}
	}
	return out, no
}

// reason reads one reason object, checking its shape.
func (e *Engine) reason(t *ast.Term, n int) (policy.Reason, error) {
	o, ok := t.Value.(ast.Object)
	if !ok {
		return policy.Reason{}, fmt.Errorf("malformed reason %v: a reason is an object {\"code\", \"message\", \"span\", \"segment\"}", t)
	}
	r := policy.Reason{Segment: -1}
	if rt := o.Get(kRule); rt != nil {
		s, ok := rt.Value.(ast.String)
		if !ok {
			return r, fmt.Errorf("malformed reason %v: \"rule\" is not a string", t)
		}
		r.Rule = string(s)
		if loc := e.index[r.Rule]; loc != "" && !strings.HasPrefix(r.Rule, loc) {
			r.Rule += " (" + loc + ")"
		}
	}
	// from names the rule in an error (built only for one).
	from := func() string {
		if r.Rule == "" {
			return ""
		}
		return " from rule " + r.Rule
	}
	get := func(kt *ast.Term) (string, error) {
		k := string(kt.Value.(ast.String))
		v := o.Get(kt)
		if v == nil {
			return "", fmt.Errorf("malformed reason%s: no %q in %v", from(), k, t)
		}
		s, ok := v.Value.(ast.String)
		if !ok || s == "" {
			return "", fmt.Errorf("malformed reason%s: %q is not a non-empty string in %v", from(), k, t)
		}
		return string(s), nil
	}
	var err error
	if r.Code, err = get(kCode); err != nil {
		return r, err
	}
	if r.Message, err = get(kMessage); err != nil {
		return r, err
	}
	if st := o.Get(kSegment); st != nil {
		num, ok := st.Value.(ast.Number)
		i, ok2 := num.Int()
		if !ok || !ok2 {
			return r, fmt.Errorf("malformed reason%s: \"segment\" is not an integer in %v", from(), t)
		}
		r.Segment = i
	}
	sp := classify.Span{Start: 0, End: n}
	if st := o.Get(kSpan); st != nil {
		if _, null := st.Value.(ast.Null); !null {
			a, ok := st.Value.(*ast.Array)
			if !ok || a.Len() != 2 {
				return r, fmt.Errorf("malformed reason%s: \"span\" is not [start, end] in %v", from(), t)
			}
			s0, ok0 := intOf(a.Elem(0))
			s1, ok1 := intOf(a.Elem(1))
			if !ok0 || !ok1 || s0 < 0 || s1 < s0 || s1 > n {
				return r, fmt.Errorf("malformed reason%s: \"span\" %v is not a byte range of the command in %v", from(), st, t)
			}
			sp = classify.Span{Start: s0, End: s1}
		}
	}
	r.Span = &sp
	return r, nil
}

func intOf(t *ast.Term) (int, bool) {
	n, ok := t.Value.(ast.Number)
	if !ok {
		return 0, false
	}
	return n.Int()
}

// MarshalInput returns the input document the policy sees for in, as JSON
// (for explain and for policy authors writing tests).
func MarshalInput(in policy.Input) ([]byte, error) {
	f, err := prepare(&in)
	if err != nil {
		return nil, err
	}
	in.Mode = f.Mode
	v, err := inputValue(&in, f)
	if err != nil {
		return nil, err
	}
	x, err := ast.JSON(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

// ResidentGCPercent is the garbage collector's target percentage a
// long-lived engine (shellgate serve, shellgate mcp) runs with when GOGC is
// not set. An engine's live heap is small (a few MiB: the compiled policy
// and the catalog) and every decision allocates tens of KiB, so at Go's
// default of 100 the collector runs every hundred or so decisions and
// rescans the whole heap each time; at 400 it runs a quarter as often, for
// a few more MiB of memory.
const ResidentGCPercent = 400
