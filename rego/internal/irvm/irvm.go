// Package irvm evaluates a Rego policy planned by OPA's planner (package
// ir, the intermediate representation OPA compiles to Wasm) directly in Go.
//
// OPA's own evaluator (topdown) interprets the rules' ASTs with
// unification, rule indexing and backtracking; the plan is the same policy
// lowered to blocks of simple statements (look a key up, compare, scan a
// collection, call a function) that need none of that. Evaluating the plan
// does the same work with far less bookkeeping.
//
// Compile accepts only plans whose every statement and built-in it
// evaluates exactly as topdown does; for any other plan it returns an
// error wrapping ErrUnsupported, and the caller keeps topdown. Built-in
// functions are topdown's own implementations, called with the same
// contract (an error that is not a Halt makes the call undefined).
package irvm

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// ErrUnsupported is wrapped by Compile's error for a plan this package does
// not evaluate.
var ErrUnsupported = errors.New("not supported by the plan evaluator")

// Program is a compiled plan, safe for concurrent use.
type Program struct {
	// evaluators keeps evaluators (their stacks and memos) between
	// evaluations.
	evaluators sync.Pool
	files      []string
	plan       *fn
	funcs      []*fn
	strings    []*ast.Term
}

// fn is a plan function (or the query plan itself, with two locals: input
// and data).
type fn struct {
	name    string
	params  []int
	ret     int
	blocks  []*block
	nlocals int
	// memo: a function of input and data alone is evaluated once per
	// evaluation (as OPA's Wasm target does).
	memo  bool
	index int
}

type block struct {
	stmts []stmt
}

type op uint8

const (
	opResultSetAdd op = iota
	opReturn
	opBlock
	opBreak
	opCall
	opCallBuiltin
	opAssign
	opAssignOnce
	opAssignInt
	opScan
	opNot
	opDot
	opLen
	opEqual
	opNotEqual
	opMakeNull
	opMakeNumber
	opMakeArray
	opMakeObject
	opMakeSet
	opIsArray
	opIsObject
	opIsSet
	opIsDefined
	opIsUndefined
	opResetLocal
	opArrayAppend
	opObjectInsert
	opObjectInsertOnce
	opSetAdd
	opNop
)

// operand is a local (local >= 0) or a constant term.
type operand struct {
	local int
	term  *ast.Term
}

type stmt struct {
	op      op
	a, b, c operand
	target  int
	blocks  []*block
	fn      int
	args    []operand
	builtin *builtinCall
	index   int
	loc     *ir.Location
	// base: a DotStmt that reads the data document's base documents
	// (its source is the data local, or a value read from it by a
	// DotStmt or a ScanStmt): topdown reads them from the store by path,
	// so a number key names the member by its text (data.x[2] is the
	// member "2" of data.x).
	base bool
}

type builtinCall struct {
	name   string
	f      topdown.BuiltinFunc
	result bool
}

// Compile turns a plan into a Program. The plan must have exactly one plan
// (the query).
func Compile(p *ir.Policy) (*Program, error) {
	if p == nil || p.Plans == nil || len(p.Plans.Plans) != 1 {
		return nil, fmt.Errorf("%w: a policy with other than one plan", ErrUnsupported)
	}
	if len(p.UnplannedRules) > 0 {
		return nil, fmt.Errorf("%w: rule %s was not planned", ErrUnsupported, p.UnplannedRules[0].Path)
	}
	c := &compiler{prog: &Program{}, funcIndex: map[string]int{}, builtins: map[string]*builtinCall{}}
	if p.Static != nil {
		for _, f := range p.Static.Files {
			c.prog.files = append(c.prog.files, f.Value)
		}
		for _, s := range p.Static.Strings {
			c.prog.strings = append(c.prog.strings, ast.StringTerm(s.Value))
		}
		for _, b := range p.Static.BuiltinFuncs {
			bc, err := lookupBuiltin(b.Name)
			if err != nil {
				return nil, err
			}
			c.builtins[b.Name] = bc
		}
	}
	if p.Funcs != nil {
		for i, f := range p.Funcs.Funcs {
			c.funcIndex[f.Name] = i
			out := &fn{name: f.Name, index: i}
			for _, l := range f.Params {
				out.params = append(out.params, int(l))
			}
			c.prog.funcs = append(c.prog.funcs, out)
		}
		for i, f := range p.Funcs.Funcs {
			if err := c.function(c.prog.funcs[i], f); err != nil {
				return nil, err
			}
		}
	}
	plan := p.Plans.Plans[0]
	c.prog.plan = &fn{name: plan.Name, params: []int{int(ir.Input), int(ir.Data)}, ret: -1, index: -1}
	c.max = int(ir.Data)
	c.baseLocals(int(ir.Data), plan.Blocks)
	for _, b := range plan.Blocks {
		cb, err := c.block(b)
		if err != nil {
			return nil, err
		}
		c.prog.plan.blocks = append(c.prog.plan.blocks, cb)
	}
	c.prog.plan.nlocals = c.max + 1
	return c.prog, nil
}

// lookupBuiltin is topdown's implementation of the built-in name, with
// the declaration OPA registers (not a plan's copy: a plan read back from
// JSON may lack it).
func lookupBuiltin(name string) (*builtinCall, error) {
	f := topdown.GetBuiltin(name)
	if f == nil {
		return nil, fmt.Errorf("%w: built-in %s has no implementation", ErrUnsupported, name)
	}
	d, ok := ast.BuiltinMap[name]
	if !ok || d.Relation || d.Decl == nil {
		// A relation (walk) gives many outputs; the plan wants them as
		// one collection.
		return nil, fmt.Errorf("%w: built-in %s", ErrUnsupported, name)
	}
	return &builtinCall{name: name, f: f, result: d.Decl.Result() != nil}, nil
}

type compiler struct {
	prog      *Program
	funcIndex map[string]int
	builtins  map[string]*builtinCall
	max       int
	// base holds the locals of the function being compiled that hold a
	// base document read along a path from the data local (see
	// stmt.base): only a local no other statement writes.
	base map[int]bool
	// writes counts the statements of the function being compiled
	// that write each local.
	writes map[int]int
}

func (c *compiler) function(out *fn, f *ir.Func) error {
	if len(f.Params) < 2 {
		return fmt.Errorf("%w: function %s takes %d parameters", ErrUnsupported, f.Name, len(f.Params))
	}
	c.max = int(f.Return)
	for _, p := range f.Params {
		c.max = max(c.max, int(p))
	}
	out.ret = int(f.Return)
	out.memo = len(f.Params) == 2
	// A plan function's second parameter is the data document.
	c.baseLocals(int(f.Params[1]), f.Blocks)
	for _, b := range f.Blocks {
		cb, err := c.block(b)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		out.blocks = append(out.blocks, cb)
	}
	out.nlocals = c.max + 1
	return nil
}

func (c *compiler) local(l ir.Local) int {
	c.max = max(c.max, int(l))
	return int(l)
}

func (c *compiler) operand(o ir.Operand) (operand, error) {
	switch v := o.Value.(type) {
	case ir.Local:
		return operand{local: c.local(v)}, nil
	case ir.Bool:
		return operand{local: -1, term: ast.BooleanTerm(bool(v))}, nil
	case ir.StringIndex:
		if int(v) < 0 || int(v) >= len(c.prog.strings) {
			return operand{}, fmt.Errorf("string index %d out of range", v)
		}
		return operand{local: -1, term: c.prog.strings[v]}, nil
	}
	return operand{}, fmt.Errorf("%w: operand %v", ErrUnsupported, o.Value)
}

func (c *compiler) block(b *ir.Block) (*block, error) {
	out := &block{stmts: make([]stmt, 0, len(b.Stmts))}
	for _, s := range b.Stmts {
		st, err := c.stmt(s)
		if err != nil {
			return nil, err
		}
		out.stmts = append(out.stmts, st)
	}
	return out, nil
}

func (c *compiler) blocks(bs []*ir.Block) ([]*block, error) {
	out := make([]*block, 0, len(bs))
	for _, b := range bs {
		cb, err := c.block(b)
		if err != nil {
			return nil, err
		}
		out = append(out, cb)
	}
	return out, nil
}

func (c *compiler) stmt(s ir.Stmt) (stmt, error) {
	out := stmt{loc: s.GetLocation()}
	var err error
	ops := func(dst *operand, o ir.Operand) {
		if err == nil {
			*dst, err = c.operand(o)
		}
	}
	switch s := s.(type) {
	case *ir.ResultSetAddStmt:
		out.op, out.a = opResultSetAdd, operand{local: c.local(s.Value)}
	case *ir.ReturnLocalStmt:
		out.op, out.a = opReturn, operand{local: c.local(s.Source)}
	case *ir.BlockStmt:
		out.op = opBlock
		out.blocks, err = c.blocks(s.Blocks)
	case *ir.BreakStmt:
		out.op, out.index = opBreak, int(s.Index)
	case *ir.CallStmt:
		out.target = c.local(s.Result)
		out.args = make([]operand, len(s.Args))
		for i, a := range s.Args {
			ops(&out.args[i], a)
		}
		if i, ok := c.funcIndex[s.Func]; ok {
			out.op, out.fn = opCall, i
			if len(s.Args) != len(c.prog.funcs[i].params) {
				err = fmt.Errorf("call of %s with %d arguments", s.Func, len(s.Args))
			}
		} else if b, ok := c.builtins[s.Func]; ok {
			out.op, out.builtin = opCallBuiltin, b
		} else {
			err = fmt.Errorf("%w: call of %s, neither a plan function nor a built-in", ErrUnsupported, s.Func)
		}
	case *ir.AssignVarStmt:
		out.op, out.target = opAssign, c.local(s.Target)
		ops(&out.a, s.Source)
	case *ir.AssignVarOnceStmt:
		out.op, out.target = opAssignOnce, c.local(s.Target)
		ops(&out.a, s.Source)
	case *ir.AssignIntStmt:
		out.op, out.target, out.a = opAssignInt, c.local(s.Target), operand{local: -1, term: ast.IntNumberTerm(int(s.Value))}
	case *ir.ScanStmt:
		out.op = opScan
		out.a = operand{local: c.local(s.Source)}
		if c.base[int(s.Source)] && c.writes[int(s.Value)] == 1 {
			c.base[int(s.Value)] = true
		}
		out.b = operand{local: c.local(s.Key)}
		out.c = operand{local: c.local(s.Value)}
		var b *block
		b, err = c.block(s.Block)
		out.blocks = []*block{b}
	case *ir.NotStmt:
		out.op = opNot
		var b *block
		b, err = c.block(s.Block)
		out.blocks = []*block{b}
	case *ir.DotStmt:
		out.op, out.target = opDot, c.local(s.Target)
		ops(&out.a, s.Source)
		ops(&out.b, s.Key)
		if l, ok := s.Source.Value.(ir.Local); ok && c.base[int(l)] {
			out.base = true
			if c.writes[int(s.Target)] == 1 {
				c.base[int(s.Target)] = true
			}
		}
	case *ir.LenStmt:
		out.op, out.target = opLen, c.local(s.Target)
		ops(&out.a, s.Source)
	case *ir.EqualStmt:
		out.op = opEqual
		ops(&out.a, s.A)
		ops(&out.b, s.B)
	case *ir.NotEqualStmt:
		out.op = opNotEqual
		ops(&out.a, s.A)
		ops(&out.b, s.B)
	case *ir.MakeNullStmt:
		out.op, out.target, out.a = opMakeNull, c.local(s.Target), operand{local: -1, term: ast.NullTerm()}
	case *ir.MakeNumberIntStmt:
		out.op, out.target, out.a = opMakeNumber, c.local(s.Target), operand{local: -1, term: ast.IntNumberTerm(int(s.Value))}
	case *ir.MakeNumberRefStmt:
		if s.Index < 0 || s.Index >= len(c.prog.strings) {
			return out, fmt.Errorf("number index %d out of range", s.Index)
		}
		out.op, out.target = opMakeNumber, c.local(s.Target)
		n, ok := c.prog.strings[s.Index].Value.(ast.String)
		// A number beyond float64's range (1e400) is still a number:
		// topdown computes with it exactly.
		if _, err := strconv.ParseFloat(string(n), 64); !ok || (err != nil && !errors.Is(err, strconv.ErrRange)) {
			return out, fmt.Errorf("number %v is not a number", c.prog.strings[s.Index])
		}
		out.a = operand{local: -1, term: ast.NewTerm(ast.Number(n))}
	case *ir.MakeArrayStmt:
		out.op, out.target, out.index = opMakeArray, c.local(s.Target), int(s.Capacity)
	case *ir.MakeObjectStmt:
		out.op, out.target = opMakeObject, c.local(s.Target)
	case *ir.MakeSetStmt:
		out.op, out.target = opMakeSet, c.local(s.Target)
	case *ir.IsArrayStmt:
		out.op = opIsArray
		ops(&out.a, s.Source)
	case *ir.IsObjectStmt:
		out.op = opIsObject
		ops(&out.a, s.Source)
	case *ir.IsSetStmt:
		out.op = opIsSet
		ops(&out.a, s.Source)
	case *ir.IsDefinedStmt:
		out.op, out.a = opIsDefined, operand{local: c.local(s.Source)}
	case *ir.IsUndefinedStmt:
		out.op, out.a = opIsUndefined, operand{local: c.local(s.Source)}
	case *ir.ResetLocalStmt:
		out.op, out.target = opResetLocal, c.local(s.Target)
	case *ir.ArrayAppendStmt:
		out.op, out.target = opArrayAppend, c.local(s.Array)
		ops(&out.a, s.Value)
	case *ir.ObjectInsertStmt:
		out.op, out.target = opObjectInsert, c.local(s.Object)
		ops(&out.a, s.Key)
		ops(&out.b, s.Value)
	case *ir.ObjectInsertOnceStmt:
		out.op, out.target = opObjectInsertOnce, c.local(s.Object)
		ops(&out.a, s.Key)
		ops(&out.b, s.Value)
	case *ir.SetAddStmt:
		out.op, out.target = opSetAdd, c.local(s.Set)
		ops(&out.a, s.Value)
	case *ir.NopStmt:
		out.op = opNop
	default:
		// WithStmt, CallDynamicStmt, ObjectMergeStmt and any statement
		// added later: topdown evaluates the policy.
		return out, fmt.Errorf("%w: statement %T", ErrUnsupported, s)
	}
	return out, err
}

// Result is one element of the query's result set.
type Result = *ast.Term

// ConflictError is a conflict the policy ran into: a complete rule or a
// function with two values, or an object rule with two values for one key.
type ConflictError struct {
	Message string
	File    string
	Row     int
}

func (e *ConflictError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d: eval_conflict_error: %s", e.File, e.Row, e.Message)
	}
	return "eval_conflict_error: " + e.Message
}

// Eval evaluates the plan on input (nil: undefined) and data (nil: an empty
// document) and returns its result set: one object per result, as the
// query's plan builds it.
func (p *Program) Eval(ctx context.Context, input, data *ast.Term) ([]Result, error) {
	if data == nil {
		data = emptyData
	}
	e, _ := p.evaluators.Get().(*evaluator)
	if e == nil {
		e = &evaluator{prog: p, memo: make([]*ast.Term, len(p.funcs)), memoSet: make([]bool, len(p.funcs))}
	}
	defer p.release(e)
	e.ctx = ctx
	// The clock and the source of randomness topdown gives its built-ins
	// by default: time.now_ns, io.jwt.decode_verify, rand.intn and
	// uuid.rfc4122 read them (nil, they panic).
	e.bctx = topdown.BuiltinContext{Context: ctx, Seed: rand.Reader}
	e.start = time.Now()
	e.stack = slices.Grow(e.stack[:0], p.plan.nlocals)[:p.plan.nlocals]
	locals := e.stack[:p.plan.nlocals:p.plan.nlocals]
	locals[ir.Input], locals[ir.Data] = input, data
	for _, b := range p.plan.blocks {
		if _, err := e.exec(b, locals, 0); err != nil {
			return nil, err
		}
	}
	return slices.Clone(e.results), nil
}

// emptyData is the data document when the caller has none.
var emptyData = ast.ObjectTerm()

// release clears an evaluator of everything one evaluation left in it and
// keeps it for the next.
func (p *Program) release(e *evaluator) {
	clear(e.stack[:cap(e.stack)])
	clear(e.memo)
	clear(e.memoSet)
	clear(e.results)
	e.stack, e.results, e.ctx, e.cache, e.steps = e.stack[:0], e.results[:0], nil, false, 0
	e.bctx = topdown.BuiltinContext{}
	if cap(e.stack) <= maxStack {
		p.evaluators.Put(e)
	}
}

// maxStack is the largest stack an evaluator keeps for the next
// evaluation.
const maxStack = 1 << 14

// baseLocals starts the base locals of a function (or the plan) whose data
// local is data and whose body is blocks.
func (c *compiler) baseLocals(data int, blocks []*ir.Block) {
	c.writes = map[int]int{}
	for _, b := range blocks {
		_ = ir.Walk(writeCounter(c.writes), b)
	}
	c.base = map[int]bool{}
	if c.writes[data] == 0 {
		c.base[data] = true
	}
}

// writeCounter is an ir.Visitor that counts the statements that write
// each local.
type writeCounter map[int]int

func (w writeCounter) Before(any) {}
func (w writeCounter) After(any)  {}

func (w writeCounter) Visit(x any) (ir.Visitor, error) {
	var locals []ir.Local
	switch s := x.(type) {
	case *ir.CallStmt:
		locals = []ir.Local{s.Result}
	case *ir.CallDynamicStmt:
		locals = []ir.Local{s.Result}
	case *ir.AssignVarStmt:
		locals = []ir.Local{s.Target}
	case *ir.AssignVarOnceStmt:
		locals = []ir.Local{s.Target}
	case *ir.AssignIntStmt:
		locals = []ir.Local{s.Target}
	case *ir.ScanStmt:
		locals = []ir.Local{s.Key, s.Value}
	case *ir.DotStmt:
		locals = []ir.Local{s.Target}
	case *ir.LenStmt:
		locals = []ir.Local{s.Target}
	case *ir.MakeNullStmt:
		locals = []ir.Local{s.Target}
	case *ir.MakeNumberIntStmt:
		locals = []ir.Local{s.Target}
	case *ir.MakeNumberRefStmt:
		locals = []ir.Local{s.Target}
	case *ir.MakeArrayStmt:
		locals = []ir.Local{s.Target}
	case *ir.MakeObjectStmt:
		locals = []ir.Local{s.Target}
	case *ir.MakeSetStmt:
		locals = []ir.Local{s.Target}
	case *ir.ResetLocalStmt:
		locals = []ir.Local{s.Target}
	case *ir.ArrayAppendStmt:
		locals = []ir.Local{s.Array}
	case *ir.ObjectInsertStmt:
		locals = []ir.Local{s.Object}
	case *ir.ObjectInsertOnceStmt:
		locals = []ir.Local{s.Object}
	case *ir.ObjectMergeStmt:
		locals = []ir.Local{s.Target}
	case *ir.SetAddStmt:
		locals = []ir.Local{s.Set}
	case *ir.WithStmt:
		locals = []ir.Local{s.Local}
	}
	for _, l := range locals {
		w[int(l)]++
	}
	return w, nil
}
