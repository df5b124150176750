package irvm_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	opa "github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/types"

	"github.com/shellgate/shellgate/rego/internal/irvm"
)

// planModule plans query over module with the compliance test's plugin and
// compiles it for irvm (which must take it).
func planModule(t *testing.T, module, query string) *irvm.Program {
	t.Helper()
	registerPlugin.Do(func() { opa.RegisterPlugin(complianceTarget, thePlugin) })
	pluginMu.Lock()
	defer pluginMu.Unlock()
	run := &caseRun{}
	thePlugin.run = run
	_, err := opa.New(opa.Query(query), opa.Module("m.rego", module), opa.Target(complianceTarget)).PrepareForEval(context.Background())
	if run.compileErr != nil {
		t.Fatalf("irvm does not take the plan: %v", run.compileErr)
	}
	if err != nil {
		t.Fatal(err)
	}
	return run.prog
}

// binding evaluates prog and returns the value of the query's variable x
// in its only result (nil: no result).
func binding(t *testing.T, prog *irvm.Program, input, data *ast.Term) *ast.Term {
	t.Helper()
	rs, err := prog.Eval(context.Background(), input, data)
	if err != nil {
		t.Fatal(err)
	}
	switch len(rs) {
	case 0:
		return nil
	case 1:
		return rs[0].Value.(ast.Object).Get(ast.StringTerm("x"))
	}
	t.Fatalf("%d results: %v", len(rs), rs)
	return nil
}

// topdownBinding is binding by topdown.
func topdownBinding(t *testing.T, module, query string, input ast.Value, data map[string]any) *ast.Term {
	t.Helper()
	args := []func(*opa.Rego){opa.Query(query), opa.Module("m.rego", module)}
	if input != nil {
		args = append(args, opa.ParsedInput(input))
	}
	if data != nil {
		args = append(args, opa.Store(inmem.NewFromObject(data)))
	}
	rs, err := opa.New(args...).Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 {
		return nil
	}
	v, err := ast.InterfaceToValue(rs[0].Bindings["x"])
	if err != nil {
		t.Fatal(err)
	}
	return ast.NewTerm(v)
}

func equalTerms(a, b *ast.Term) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Value.Compare(b.Value) == 0
}

// TestUndefinedInput: without input, rules are still evaluated (a plan
// function's input argument is undefined, not the call); rules that read
// input are undefined, a negation of input is true.
func TestUndefinedInput(t *testing.T) {
	const module = `package test

p := 1

q if not input.x

r := input.x
`
	for query, want := range map[string]*ast.Term{
		"x := data.test.p": ast.IntNumberTerm(1),
		"x := data.test.q": ast.BooleanTerm(true),
		"x := data.test.r": nil,
	} {
		got := binding(t, planModule(t, module, query), nil, nil)
		if td := topdownBinding(t, module, query, nil, nil); !equalTerms(td, want) {
			t.Fatalf("%s: topdown gives %v, the test wants %v", query, td, want)
		}
		if !equalTerms(got, want) {
			t.Errorf("%s without input: irvm gives %v, want %v", query, got, want)
		}
	}
}

// TestBuiltinClockAndSeed: built-ins that read the evaluation's clock or
// its source of randomness work (they panicked), and the clock is the
// time of the evaluation, the same for every call in it.
func TestBuiltinClockAndSeed(t *testing.T) {
	const module = `package test

now := [time.now_ns(), time.now_ns()]

random := rand.intn("k", 100)

id := uuid.rfc4122("k")
`
	before := time.Now().UnixNano()
	now := binding(t, planModule(t, module, "x := data.test.now"), nil, nil)
	after := time.Now().UnixNano()
	arr, ok := now.Value.(*ast.Array)
	if !ok || arr.Len() != 2 || !arr.Elem(0).Equal(arr.Elem(1)) {
		t.Fatalf("time.now_ns twice: %v, want one time twice", now)
	}
	ns, err := strconv.ParseInt(arr.Elem(0).Value.String(), 10, 64)
	if err != nil || ns < before || ns > after {
		t.Errorf("time.now_ns() = %v, want a time in [%d, %d]", arr.Elem(0), before, after)
	}
	if n, ok := binding(t, planModule(t, module, "x := data.test.random"), nil, nil).Value.(ast.Number); !ok {
		t.Errorf("rand.intn gives %v, want a number", n)
	} else if i, ok := n.Int(); !ok || i < 0 || i >= 100 {
		t.Errorf("rand.intn(\"k\", 100) = %v", n)
	}
	if s, ok := binding(t, planModule(t, module, "x := data.test.id"), nil, nil).Value.(ast.String); !ok || len(s) != 36 {
		t.Errorf("uuid.rfc4122 gives %v, want a UUID", s)
	}
}

// TestBaseDocumentNumberKey: a number key in a reference to a base
// document names the member by its text, and a string key names an
// array's element by the integer it spells (topdown reads the store by
// path), only along the reference: a value the policy holds (a variable bound to
// a base document, the input) is looked up by value.
func TestBaseDocumentNumberKey(t *testing.T) {
	const module = `package test

p := data.x[2]

q := data.x.y[2]

r := data.arr[1]

s := v[2] if v := data.x

u := input.x[2]

w := k if {
	some k, _ in data.x
	data.x[to_number(k)] == "bar"
}

a := [data.arr["1"], data.arr["+1"], data.arr["1.0"], data.arr[1.00]]

b := [v | v := data.nested[_]["1"]]

c := v["1"] if v := data.arr
`
	data := map[string]any{"x": map[string]any{"2": "bar", "y": map[string]any{"2": "baz"}}, "arr": []any{"a", "b"}, "nested": []any{[]any{"a", "b"}, map[string]any{"1": "o"}}}
	dt, _ := ast.InterfaceToValue(data)
	input := ast.MustParseTerm(`{"x": {"2": "bar"}}`)
	for query, want := range map[string]*ast.Term{
		"x := data.test.p": ast.StringTerm("bar"),
		"x := data.test.q": ast.StringTerm("baz"),
		"x := data.test.r": ast.StringTerm("b"),
		"x := data.test.s": nil,
		"x := data.test.u": nil,
		"x := data.test.w": ast.StringTerm("2"),
		"x := data.test.a": ast.MustParseTerm(`["b", "b", "b", "b"]`),
		"x := data.test.b": ast.MustParseTerm(`["b", "o"]`),
		"x := data.test.c": nil,
	} {
		if td := topdownBinding(t, module, query, input.Value, data); !equalTerms(td, want) {
			t.Fatalf("%s: topdown gives %v, the test wants %v", query, td, want)
		}
		if got := binding(t, planModule(t, module, query), input, ast.NewTerm(dt)); !equalTerms(got, want) {
			t.Errorf("%s: irvm gives %v, want %v", query, got, want)
		}
	}
}

// TestNumberBeyondFloat64: a number constant beyond float64's range is
// compiled, and compares as topdown compares it.
func TestNumberBeyondFloat64(t *testing.T) {
	const module = `package test

p := [1e400 > 1e399, 1e400 == 1e399]
`
	want := ast.ArrayTerm(ast.BooleanTerm(true), ast.BooleanTerm(false))
	if td := topdownBinding(t, module, "x := data.test.p", nil, nil); !equalTerms(td, want) {
		t.Fatalf("topdown gives %v, the test wants %v", td, want)
	}
	if got := binding(t, planModule(t, module, "x := data.test.p"), nil, nil); !equalTerms(got, want) {
		t.Errorf("irvm gives %v, want %v", got, want)
	}
}

// TestSigningBuiltins: io.jwt.encode_sign signs with the evaluation's
// source of randomness (ES256 needs one), a deterministic built-in the
// engine offers.
func TestSigningBuiltins(t *testing.T) {
	const module = `package test

key := {"kty": "EC", "crv": "P-256", "x": "esa9sIwYRUifffEfjiMj9MP84OxFAe7oSDJAfVAv-ok", "y": "lXnZLQ4iezLS6lUlNiYNdo69ewDt1AC1P3-RBYn4rHk", "d": "SF-O_C9SzDVLKaF4FcJXLSgDBcMXKctSDhfElm0GskE"}

signed := io.jwt.encode_sign({"alg": "ES256"}, {"iss": "shellgate"}, key)

verified := io.jwt.verify_es256(signed, json.marshal(object.remove(key, ["d"])))
`
	if td := topdownBinding(t, module, "x := data.test.verified", nil, nil); !equalTerms(td, ast.BooleanTerm(true)) {
		t.Fatalf("topdown: %v, want true", td)
	}
	if got := binding(t, planModule(t, module, "x := data.test.verified"), nil, nil); !equalTerms(got, ast.BooleanTerm(true)) {
		t.Errorf("a token io.jwt.encode_sign signed with ES256 verifies: %v, want true", got)
	}
}

var registerWrappedHalt sync.Once

// TestWrappedHalt: a built-in's error that wraps a Halt is a built-in
// error (the call is undefined), as in topdown, which stops only on a
// Halt itself.
func TestWrappedHalt(t *testing.T) {
	registerWrappedHalt.Do(func() {
		opa.RegisterBuiltin1(&opa.Function{
			Name: "test.wrapped_halt",
			Decl: types.NewFunction(types.Args(types.S), types.S),
		}, func(_ opa.BuiltinContext, op *ast.Term) (*ast.Term, error) {
			if op.Value.Compare(ast.String("halt")) == 0 {
				return nil, fmt.Errorf("wrapped: %w", topdown.Halt{Err: errors.New("halted")})
			}
			return op, nil
		})
	})
	const module = `package test

p := test.wrapped_halt("halt")

q if not test.wrapped_halt("halt")
`
	for query, want := range map[string]*ast.Term{
		"x := data.test.p": nil,
		"x := data.test.q": ast.BooleanTerm(true),
	} {
		if td := topdownBinding(t, module, query, nil, nil); !equalTerms(td, want) {
			t.Fatalf("%s: topdown gives %v, the test wants %v", query, td, want)
		}
		if got := binding(t, planModule(t, module, query), nil, nil); !equalTerms(got, want) {
			t.Errorf("%s: irvm gives %v, want %v", query, got, want)
		}
	}
}

// TestRecordAsKey: a Record (an input object as the engine builds it) or a
// List used as a key finds what its value finds: a member of an object or
// a set the policy built, and a conflict between two values of one key in
// an object comprehension (missed, it let the last value win).
func TestRecordAsKey(t *testing.T) {
	const module = `package test

p := {input.a: 1}[input.b]

q := x if {
	s := {input.a}
	x := s[input.b]
}

r := {k: i | some i, k in input.pair}

s := {input.l: 1}[input.l]
`
	input := ast.MustParseTerm(`{"a": {"x": 1, "y": [1, 2]}, "b": {"y": [1, 2], "x": 1}, "pair": [{"x": 1}, {"x": 1}], "l": [1, {"x": 1}]}`)
	for query, want := range map[string]*ast.Term{
		"x := data.test.p": ast.IntNumberTerm(1),
		"x := data.test.q": ast.MustParseTerm(`{"x": 1, "y": [1, 2]}`),
		"x := data.test.s": ast.IntNumberTerm(1),
	} {
		if td := topdownBinding(t, module, query, input.Value, nil); !equalTerms(td, want) {
			t.Fatalf("%s: topdown gives %v, the test wants %v", query, td, want)
		}
		prog := planModule(t, module, query)
		for _, in := range []*ast.Term{input, records(input)} {
			if got := binding(t, prog, in, nil); !equalTerms(got, want) {
				t.Errorf("%s on %T: irvm gives %v, want %v", query, in.Value, got, want)
			}
		}
	}
	if _, err := opa.New(opa.Query("x := data.test.r"), opa.Module("m.rego", module), opa.ParsedInput(input.Value)).Eval(context.Background()); !topdown.IsError(err) {
		t.Fatalf("data.test.r: topdown gives %v, want a conflict", err)
	}
	prog := planModule(t, module, "x := data.test.r")
	for _, in := range []*ast.Term{input, records(input)} {
		rs, err := prog.Eval(context.Background(), in, nil)
		var ce *irvm.ConflictError
		if !errors.As(err, &ce) {
			t.Errorf("data.test.r on %T: irvm gives %v, %v; want a conflict", in.Value, rs, err)
		}
	}
}
