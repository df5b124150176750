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
	gotool := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(gotool); err != nil {
		gotool = testenv.LookPath(t, "go")
	}
	out, err := exec.Command(gotool, "list", "-m", "-f", "{{.Dir}}", "github.com/open-policy-agent/opa").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%v: %s", err, ee.Stderr)
		}
		testenv.Missing(t, "the OPA module's directory (go list -m: %v)", err)
	}
	dir = filepath.Join(dir, "v1", "test", "cases", "testdata", "v1")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		testenv.Missing(t, "OPA's compliance cases (%s)", dir)
	}
	return dir
}

// knownDifferences are cases where topdown and irvm rightly differ, by
// note, with the reason.
var knownDifferences = map[string]string{}

// TestCompliance holds irvm to OPA's compliance suite: every case whose
// plan irvm takes must give topdown's result set (as a set of results,
// each its bindings and expression values, compared as values), and
// where topdown errors irvm must error too. A defined result that differs
// from topdown's fails the test: it is the fail-open risk. The Wasm
// runner's allowance for errors that only strict built-in errors raise
// (strict_error: an empty result set) needs none here: topdown runs with
// the engine's settings (built-in errors are undefined), so it gives that
// empty result set itself.
func TestCompliance(t *testing.T) {
	dir := complianceDir(t)
	set, err := cases.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Cases) < 1000 {
		t.Fatalf("%s holds only %d cases", dir, len(set.Cases))
	}
	registerPlugin.Do(func() { opa.RegisterPlugin(complianceTarget, thePlugin) })
	pluginMu.Lock()
	defer pluginMu.Unlock()

	var st complianceStats
	st.refused = map[string]int{}
	for _, tc := range set.Sorted().Cases {
		name := strings.TrimPrefix(filepath.ToSlash(strings.TrimPrefix(tc.Filename, dir)), "/") + "/" + tc.Note
		t.Run(name, func(t *testing.T) { runCase(t, tc, &st) })
	}
	refused := 0
	for _, n := range st.refused {
		refused += n
	}
	t.Logf("%d cases: %d run by irvm (%d equal to topdown, %d known differences), %d refused by irvm.Compile, %d not planned, %d not prepared by topdown",
		len(set.Cases), st.run, st.equal, st.known, refused, st.unplanned, st.unprepared)
	reasons := slices.Collect(maps.Keys(st.refused))
	sort.Slice(reasons, func(i, j int) bool {
		if st.refused[reasons[i]] != st.refused[reasons[j]] {
			return st.refused[reasons[i]] > st.refused[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	for _, r := range reasons {
		t.Logf("refused %4d: %s", st.refused[r], r)
	}
}

type complianceStats struct {
	run, equal, known, unplanned, unprepared int
	refused                                  map[string]int
}

func runCase(t *testing.T, tc cases.TestCase, st *complianceStats) {
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
			opa.SetRegoVersion(ast.RegoV1),
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
	got, gotErr := pq.Eval(ctx)
	if reason, ok := knownDifferences[tc.Note]; ok {
		st.known++
		t.Logf("known difference (%s): topdown %v (%v), irvm %v (%v)", reason, want, wantErr, got, gotErr)
		return
	}
	switch {
	case wantErr != nil && gotErr == nil:
		t.Fatalf("topdown errs (%v), irvm gives %v", wantErr, canonical(got))
	case wantErr == nil && gotErr != nil:
		t.Fatalf("irvm errs (%v), topdown gives %v", gotErr, canonical(want))
	case wantErr != nil:
		st.equal++
		return
	}
	if w, g := canonical(want), canonical(got); w.Compare(g) != 0 {
		t.Fatalf("irvm gives %v, topdown %v", g, w)
	}
	st.equal++
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
