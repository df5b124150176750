package irvm_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
	opa "github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/test/cases"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/shellgate/shellgate/internal/testenv"
	"github.com/shellgate/shellgate/rego/internal/irvm"
)

// complianceTarget is the rego target under which the test's plugin
// evaluates a case's plan with irvm.
const complianceTarget = "irvm-compliance"

// compliancePlugin is a rego target plugin: PrepareForEval compiles the
// plan OPA's planner made with irvm.Compile (keeping the error when irvm
// refuses it), and its evaluator runs the Program on the case's input and
// data. Going through rego's target plugin flow, irvm's result set is
// turned into a rego.ResultSet by the same code (valueToQueryResult,
// generateResult) that turns any target's result set into one, so it
// compares with topdown's directly. Cases run one at a time (run).
type compliancePlugin struct {
	run *caseRun
}

// caseRun is the state of the case being run.
type caseRun struct {
	input, data *ast.Term
	plan        *ir.Policy
	prog        *irvm.Program
	compileErr  error
}

func (p *compliancePlugin) IsTarget(t string) bool { return t == complianceTarget }

func (p *compliancePlugin) PrepareForEval(_ context.Context, pol *ir.Policy, _ ...opa.PrepareOption) (opa.TargetPluginEval, error) {
	r := p.run
	r.plan = pol
	r.prog, r.compileErr = irvm.Compile(pol)
	if r.compileErr != nil {
		// The engine would fall back to topdown: nothing to evaluate.
		return nil, r.compileErr
	}
	return complianceEval{r}, nil
}

type complianceEval struct{ run *caseRun }

// Eval evaluates the plan with irvm; the result set is a set of objects
// binding the query's variables, as a Wasm module's is.
func (c complianceEval) Eval(ctx context.Context, _ *opa.EvalContext, _ ast.Value) (ast.Value, error) {
	rs, err := c.run.prog.Eval(ctx, c.run.input, c.run.data)
	if err != nil {
		return nil, err
	}
	return ast.NewSet(rs...), nil
}

var (
	thePlugin      = &compliancePlugin{}
	registerPlugin sync.Once
	pluginMu       sync.Mutex
)

// complianceDir finds OPA's compliance cases in the module cache: the
// directory of the OPA module this test is built with (go list -m, which
// needs no network for a module the build already has).
func complianceDir(t *testing.T) string {
	t.Helper()
	// go test puts its own go first on PATH.
	gotool := testenv.LookPath(t, "go")
	out, err := exec.Command(gotool, "list", "-m", "-f", "{{.Dir}}", "github.com/open-policy-agent/opa").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%v: %s", err, ee.Stderr)
		}
		testenv.Missing(t, "the OPA module's directory (go list -m: %v)", err)
	}
	dir = filepath.Join(dir, "v1", "test", "cases", "testdata")
	if fi, err := os.Stat(filepath.Join(dir, "v1")); err != nil || !fi.IsDir() {
		testenv.Missing(t, "OPA's compliance cases (%s)", dir)
	}
	return dir
}

// TestCompliance holds irvm to OPA's compliance suite: every case whose
// plan irvm takes must give topdown's result set (as a set of results,
// each its bindings and expression values, compared as values), and
// where topdown errors irvm must error too. A defined result that differs
// from topdown's fails the test: it is the fail-open risk. The Wasm
// runner's allowance for errors that only strict built-in errors raise
// (strict_error: an empty result set) needs none here: topdown runs with
// the engine's settings (built-in errors are undefined), so it gives that
// empty result set itself.
//
// The suite's cases are in Rego v1 (testdata/v1) and, most of them again,
// in Rego v0 (testdata/v0); the engine compiles v1 only, but the plans of
// v0 policies are more plans for irvm, so both are run.
func TestCompliance(t *testing.T) {
	root := complianceDir(t)
	registerPlugin.Do(func() {
		opa.RegisterPlugin(complianceTarget, thePlugin)
		// The built-in OPA's runners add for the case "time caching".
		opa.RegisterBuiltin1(&opa.Function{
			Name: "test.sleep",
			Decl: types.NewFunction(types.Args(types.S), types.NewNull()),
		}, func(_ opa.BuiltinContext, op *ast.Term) (*ast.Term, error) {
			d, _ := time.ParseDuration(string(op.Value.(ast.String)))
			time.Sleep(d)
			return ast.NullTerm(), nil
		})
	})
	pluginMu.Lock()
	defer pluginMu.Unlock()
	for _, version := range []struct {
		dir string
		v   ast.RegoVersion
	}{{"v1", ast.RegoV1}, {"v0", ast.RegoV0}} {
		dir := filepath.Join(root, version.dir)
		set, err := cases.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(set.Cases) < 1000 {
			t.Fatalf("%s holds only %d cases", dir, len(set.Cases))
		}
		st := complianceStats{refused: map[string]int{}}
		t.Run(version.dir, func(t *testing.T) {
			for _, tc := range set.Sorted().Cases {
				name := strings.TrimPrefix(filepath.ToSlash(strings.TrimPrefix(tc.Filename, dir)), "/") + "/" + tc.Note
				t.Run(name, func(t *testing.T) { runCase(t, tc, version.v, &st) })
			}
		})
		st.report(t, version.dir, len(set.Cases))
	}
}

// report logs the counts of one directory's cases.
func (st *complianceStats) report(t *testing.T, dir string, n int) {
	if len(st.unexpected) > 0 {
		// The harness does not run topdown as OPA's runners do: the
		// comparison would prove little.
		t.Errorf("%s: in %d cases topdown's answer is not the one the case wants: %q", dir, len(st.unexpected), st.unexpected)
	}
	refused := 0
	for _, n := range st.refused {
		refused += n
	}
	t.Logf("%s: %d cases: %d run by irvm (%d equal to topdown, %d of them errors in both), %d refused by irvm.Compile, %d not planned, %d not prepared by topdown",
		dir, n, st.run, st.equal, st.errs, refused, st.unplanned, st.unprepared)
	reasons := slices.Collect(maps.Keys(st.refused))
	sort.Slice(reasons, func(i, j int) bool {
		if st.refused[reasons[i]] != st.refused[reasons[j]] {
			return st.refused[reasons[i]] > st.refused[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	for _, r := range reasons {
		t.Logf("%s: refused %4d: %s", dir, st.refused[r], r)
	}
}

type complianceStats struct {
	run, equal, unplanned, unprepared, errs int
	// unexpected are the cases run where topdown's answer is not the
	// one the case wants.
	unexpected []string
	refused    map[string]int
}

func runCase(t *testing.T, tc cases.TestCase, version ast.RegoVersion, st *complianceStats) {
	for k, v := range tc.Env {
		t.Setenv(k, v)
	}
	run := &caseRun{}
	if tc.Data != nil {
		v, err := ast.InterfaceToValue(*tc.Data)
		if err != nil {
			t.Fatal(err)
		}
		run.data = ast.NewTerm(v)
	}
	var input ast.Value
	if tc.InputTerm != nil {
		it, err := ast.ParseTerm(*tc.InputTerm)
		if err != nil {
			t.Fatal(err)
		}
		input = it.Value
	} else if tc.Input != nil {
		v, err := ast.InterfaceToValue(*tc.Input)
		if err != nil {
			t.Fatal(err)
		}
		input = v
	}
	if input != nil {
		run.input = ast.NewTerm(input)
	}
	args := func(extra ...func(*opa.Rego)) []func(*opa.Rego) {
		a := []func(*opa.Rego){
			opa.Query(tc.Query),
			opa.SetRegoVersion(version),
			opa.Capabilities(ast.CapabilitiesForThisVersion(ast.CapabilitiesExperimentalKeywords(tc.ExperimentalKeywords))),
			// Raw values: sets stay sets (sort_bindings needs no
			// sorting), and results compare as Rego values.
			opa.GenerateJSON(func(t *ast.Term, _ *opa.EvalContext) (any, error) { return t, nil }),
		}
		for i, m := range tc.Modules {
			a = append(a, opa.Module(fmt.Sprintf("module-%d.rego", i), m))
		}
		if tc.Data != nil {
			a = append(a, opa.Store(inmem.NewFromObject(*tc.Data)))
		}
		if input != nil {
			a = append(a, opa.ParsedInput(input))
		}
		return append(a, extra...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	thePlugin.run = run
	pq, err := opa.New(args(opa.Target(complianceTarget))...).PrepareForEval(ctx)
	switch {
	case run.compileErr != nil:
		if !errors.Is(run.compileErr, irvm.ErrUnsupported) {
			t.Fatalf("irvm.Compile failed without refusing the plan: %v", run.compileErr)
		}
		st.refused[refusal(run.compileErr)]++
		return
	case err != nil && run.plan == nil:
		// The query does not compile, or the planner does not plan it:
		// nothing for irvm.
		st.unplanned++
		t.Logf("not planned: %v", err)
		return
	case err != nil:
		t.Fatalf("preparing the plan: %v", err)
	}
	want, wantErr := topdownResult(ctx, args())
	if errors.Is(wantErr, errNotPrepared) {
		st.unprepared++
		t.Logf("topdown does not prepare the query, the plan does: %v", wantErr)
		return
	}
	st.run++
	if !expected(tc, want, wantErr) {
		// topdown, run here as the engine runs it, does not give the
		// answer the case wants (as OPA's Wasm runner reads it): the
		// harness is wrong, and comparing with it proves little.
		st.unexpected = append(st.unexpected, tc.Note)
	}
	if wantErr != nil {
		st.errs++
	}
	got, gotErr := pq.Eval(ctx)
	compare(t, "", want, wantErr, got, gotErr)
	if run.input != nil {
		// Once more on the input as the engine builds it: objects as
		// Records, arrays as Lists.
		run.input = records(run.input)
		got, gotErr = pq.Eval(ctx)
		compare(t, " (input as Records)", want, wantErr, got, gotErr)
	}
	if !t.Failed() {
		st.equal++
	}
}

// compare fails t unless irvm's answer is topdown's.
func compare(t *testing.T, how string, want opa.ResultSet, wantErr error, got opa.ResultSet, gotErr error) {
	t.Helper()
	switch {
	case wantErr != nil && gotErr == nil:
		t.Errorf("topdown errs (%v), irvm%s gives %v", wantErr, how, canonical(got))
	case wantErr == nil && gotErr != nil:
		t.Errorf("irvm%s errs (%v), topdown gives %v", how, gotErr, canonical(want))
	case wantErr != nil:
		// Both err: the same kind of error (in the suite, conflicts).
		if w, g := errKind(wantErr), errKind(gotErr); w != g {
			t.Errorf("topdown errs with %s (%v), irvm%s with %s (%v)", w, wantErr, how, g, gotErr)
		}
	default:
		if w, g := canonical(want), canonical(got); w.Compare(g) != 0 {
			t.Errorf("irvm%s gives %v, topdown %v", how, g, w)
		}
	}
}

// records is t with every object whose keys are all strings made a
// Record, and every array a List (elements of sets stay as they are).
func records(t *ast.Term) *ast.Term {
	switch v := t.Value.(type) {
	case ast.Object:
		members := make([][2]*ast.Term, 0, v.Len())
		v.Foreach(func(k, x *ast.Term) { members = append(members, [2]*ast.Term{k, records(x)}) })
		if r, ok := irvm.NewRecord(members); ok {
			return r
		}
		return t
	case *ast.Array:
		elems := make([]*ast.Term, v.Len())
		for i := range elems {
			elems[i] = records(v.Elem(i))
		}
		return irvm.NewList(elems)
	}
	return t
}

var errNotPrepared = errors.New("topdown does not prepare the query")

func topdownResult(ctx context.Context, args []func(*opa.Rego)) (opa.ResultSet, error) {
	pq, err := opa.New(args...).PrepareForEval(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotPrepared, err)
	}
	return pq.Eval(ctx)
}

// canonical is a result set as one value: the set of its results, each an
// array of its bindings (an object) and its expressions' values (an array).
func canonical(rs opa.ResultSet) ast.Value {
	out := ast.NewSet()
	for _, r := range rs {
		b := ast.NewObject()
		for k, v := range r.Bindings {
			b.Insert(ast.StringTerm(k), asTerm(v))
		}
		es := make([]*ast.Term, len(r.Expressions))
		for i, e := range r.Expressions {
			es[i] = asTerm(e.Value)
		}
		out.Add(ast.ArrayTerm(ast.NewTerm(b), ast.ArrayTerm(es...)))
	}
	return out
}

func asTerm(v any) *ast.Term {
	if t, ok := v.(*ast.Term); ok {
		return irvm.Materialize(t)
	}
	t, err := ast.InterfaceToValue(v)
	if err != nil {
		return ast.StringTerm(fmt.Sprintf("unconvertible %T %v", v, v))
	}
	return ast.NewTerm(t)
}

// refusal is a Compile error's reason with the specifics (function names,
// operands) taken out, to count refusals by kind.
func refusal(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, irvm.ErrUnsupported.Error()); i >= 0 {
		msg = msg[i+len(irvm.ErrUnsupported.Error()):]
	}
	msg = strings.TrimPrefix(msg, ": ")
	if strings.HasPrefix(msg, "rule ") && strings.HasSuffix(msg, " was not planned") {
		return "a rule was not planned"
	}
	if strings.HasPrefix(msg, "call of ") {
		return "call of neither a plan function nor a built-in"
	}
	return msg
}

// expected tells whether topdown's answer is the one the case wants, as
// OPA's Wasm runner checks it (bindings compared as values, sets as
// sorted arrays where sort_bindings says so).
func expected(tc cases.TestCase, rs opa.ResultSet, err error) bool {
	switch {
	case (tc.WantError != nil || tc.WantErrorCode != nil) && tc.StrictError:
		// The error is strict built-in errors' only: without them,
		// the result set is empty (the Wasm runner's expectation).
		return err == nil && len(rs) == 0
	case tc.WantError != nil || tc.WantErrorCode != nil:
		return err != nil
	case err != nil:
		return false
	case tc.WantDefined != nil:
		return *tc.WantDefined == (len(rs) > 0)
	case tc.WantResult == nil:
		return true
	}
	want := ast.NewSet()
	for _, b := range *tc.WantResult {
		v, err := ast.InterfaceToValue(b)
		if err != nil {
			return false
		}
		want.Add(ast.NewTerm(v))
	}
	got := ast.NewSet()
	for _, r := range rs {
		b := ast.NewObject()
		for k, v := range r.Bindings {
			j, err := ast.JSONWithOpt(asTerm(v).Value, ast.JSONOpt{SortSets: tc.SortBindings})
			if err != nil {
				return false
			}
			jv, err := ast.InterfaceToValue(j)
			if err != nil {
				return false
			}
			if a, ok := jv.(*ast.Array); ok && tc.SortBindings {
				jv = a.Sorted()
			}
			b.Insert(ast.StringTerm(k), ast.NewTerm(jv))
		}
		got.Add(ast.NewTerm(b))
	}
	return want.Compare(got) == 0
}

// errKind is an error's code: topdown's (eval_conflict_error, ...), or
// eval_conflict_error for irvm's ConflictError.
func errKind(err error) string {
	var te *topdown.Error
	if errors.As(err, &te) {
		return te.Code
	}
	var ce *irvm.ConflictError
	if errors.As(err, &ce) {
		return topdown.ConflictErr
	}
	return fmt.Sprintf("%T", err)
}
