package irvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"
	"github.com/open-policy-agent/opa/v1/util"
)

// A block's outcome: done (it ran to its end), returned (a function's
// ReturnLocalStmt ran), or k >= 0: break out of k more enclosing blocks
// (0: leave this block; a statement that is undefined leaves its block).
const (
	done     = -1
	returned = -2
)

type evaluator struct {
	start   time.Time
	prog    *Program
	ctx     context.Context
	bctx    topdown.BuiltinContext
	cache   bool
	results []Result
	memo    []*ast.Term
	memoSet []bool
	stack   []*ast.Term
	steps   int
}

// maxDepth bounds nested calls (Rego has no recursion; this guards a
// malformed plan).
const maxDepth = 1000

func (e *evaluator) call(f *fn, args []*ast.Term, depth int) (*ast.Term, error) {
	if f.memo && e.memoSet[f.index] {
		return e.memo[f.index], nil
	}
	if depth > maxDepth {
		return nil, errors.New("plan calls nest too deep")
	}
	if e.steps++; e.steps&1023 == 0 {
		if err := e.ctx.Err(); err != nil {
			return nil, err
		}
	}
	base := len(e.stack)
	e.stack = slices.Grow(e.stack, f.nlocals)[:base+f.nlocals]
	locals := e.stack[base : base+f.nlocals : base+f.nlocals]
	clear(locals)
	for i, p := range f.params {
		locals[p] = args[i]
	}
	var out *ast.Term
	for _, b := range f.blocks {
		r, err := e.exec(b, locals, depth)
		if err != nil {
			e.stack = e.stack[:base]
			return nil, err
		}
		if r == returned {
			break
		}
		if r > 0 {
			e.stack = e.stack[:base]
			return nil, fmt.Errorf("malformed plan: %s breaks out of its body", f.name)
		}
	}
	out = locals[f.ret]
	clear(e.stack[base:])
	e.stack = e.stack[:base]
	if f.memo {
		e.memo[f.index], e.memoSet[f.index] = out, true
	}
	return out, nil
}

func (o operand) get(locals []*ast.Term) *ast.Term {
	if o.local >= 0 {
		return locals[o.local]
	}
	return o.term
}

// exec runs a block's statements in order: the statements that change
// the flow here, the others in step.
func (e *evaluator) exec(b *block, locals []*ast.Term, depth int) (int, error) {
	for i := range b.stmts {
		s := &b.stmts[i]
		switch s.op {
		case opReturn:
			return returned, nil
		case opBlock:
			for _, sub := range s.blocks {
				r, err := e.exec(sub, locals, depth)
				if err != nil {
					return 0, err
				}
				if r == returned {
					return returned, nil
				}
				if r > 0 {
					return r - 1, nil
				}
			}
		case opBreak:
			return s.index, nil
		case opCall:
			// An argument may be undefined (input, when there is none):
			// the function gets it as it is and checks it where it reads
			// it, as the Wasm target's functions do.
			var buf [4]*ast.Term
			args := buf[:0]
			for _, a := range s.args {
				args = append(args, a.get(locals))
			}
			v, err := e.call(e.prog.funcs[s.fn], args, depth+1)
			if err != nil {
				return 0, err
			}
			if v == nil {
				return 0, nil
			}
			locals[s.target] = v
		case opCallBuiltin:
			v, err := e.builtin(s, locals)
			if err != nil {
				return 0, err
			}
			if s.builtin.result {
				if v == nil {
					return 0, nil
				}
				locals[s.target] = v
			}
		case opScan:
			r, err := e.scan(s, locals, depth)
			if err != nil || r != done {
				return r, err
			}
		case opNot:
			r, err := e.exec(s.blocks[0], locals, depth)
			if err != nil {
				return 0, err
			}
			switch {
			case r == done:
				return 0, nil
			case r == returned:
				return returned, nil
			case r > 0:
				return r - 1, nil
			}
		default:
			if ok, err := e.simple(s, locals); err != nil || !ok {
				return 0, err
			}
		}
	}
	return done, nil
}

// simple runs one statement that does not change the flow; ok is false when
// it is undefined (its block ends).
func (e *evaluator) simple(s *stmt, locals []*ast.Term) (ok bool, err error) {
	switch s.op {
	case opResultSetAdd:
		v := locals[s.a.local]
		if v == nil {
			return false, nil
		}
		e.results = append(e.results, Materialize(v))
	case opAssign:
		// An undefined source is copied too, as the Wasm target does;
		// every planned read of it checks for it first.
		locals[s.target] = s.a.get(locals)
	case opAssignOnce:
		v := s.a.get(locals)
		if v == nil {
			return true, nil
		}
		if old := locals[s.target]; old != nil && compare(old, v) != 0 {
			return false, e.conflict(s, "complete rules must not produce multiple outputs")
		}
		locals[s.target] = v
	case opAssignInt, opMakeNumber, opMakeNull:
		locals[s.target] = s.a.term
	case opDot:
		src, key := s.a.get(locals), s.b.get(locals)
		if src == nil || key == nil {
			return false, nil
		}
		v := dot(src, key)
		if v == nil && s.base {
			v = baseDot(src, key)
		}
		if v == nil {
			return false, nil
		}
		locals[s.target] = v
	case opLen:
		src := s.a.get(locals)
		if src == nil {
			return false, nil
		}
		n, ok := length(src.Value)
		if !ok {
			return false, nil
		}
		locals[s.target] = ast.InternedTerm(n)
	case opEqual, opNotEqual:
		a, c := s.a.get(locals), s.b.get(locals)
		return a != nil && c != nil && (compare(a, c) == 0) == (s.op == opEqual), nil
	case opMakeArray:
		locals[s.target] = ast.NewTerm(ast.NewArrayWithCapacity(s.index))
	case opMakeObject:
		locals[s.target] = ast.NewTerm(ast.NewObject())
	case opMakeSet:
		locals[s.target] = ast.NewTerm(ast.NewSet())
	case opIsArray, opIsObject, opIsSet:
		return isType(s.op, s.a.get(locals)), nil
	case opIsDefined:
		return locals[s.a.local] != nil, nil
	case opIsUndefined:
		return locals[s.a.local] == nil, nil
	case opResetLocal:
		locals[s.target] = nil
	case opArrayAppend, opObjectInsert, opObjectInsertOnce, opSetAdd:
		return true, e.insert(s, locals)
	case opNop:
	}
	return true, nil
}

// isType tells whether v is of the type op tests.
func isType(o op, v *ast.Term) bool {
	if v == nil {
		return false
	}
	switch v.Value.(type) {
	case *ast.Array, *List:
		return o == opIsArray
	case ast.Object, *Record:
		return o == opIsObject
	case ast.Set:
		return o == opIsSet
	}
	return false
}

// insert adds a value to an array, object or set the plan is building.
func (e *evaluator) insert(s *stmt, locals []*ast.Term) error {
	switch s.op {
	case opArrayAppend:
		arr, ok := collection[*ast.Array](locals[s.target])
		v := s.a.get(locals)
		if !ok || v == nil {
			return fmt.Errorf("malformed plan: append to %v", locals[s.target])
		}
		locals[s.target].Value = arr.Append(Materialize(v))
	case opObjectInsert, opObjectInsertOnce:
		obj, ok := collection[ast.Object](locals[s.target])
		k, v := s.a.get(locals), s.b.get(locals)
		if !ok || k == nil || v == nil {
			return fmt.Errorf("malformed plan: insert into %v", locals[s.target])
		}
		// A Record or a List finds its key by its value
		// (ast.Object compares keys of its own types only).
		k = Materialize(k)
		if s.op == opObjectInsertOnce {
			if old := obj.Get(k); old != nil && compare(old, v) != 0 {
				return e.conflict(s, "object keys must be unique")
			}
		}
		obj.Insert(k, Materialize(v))
	case opSetAdd:
		set, ok := collection[ast.Set](locals[s.target])
		v := s.a.get(locals)
		if !ok || v == nil {
			return fmt.Errorf("malformed plan: add to %v", locals[s.target])
		}
		set.Add(Materialize(v))
	}
	return nil
}

func collection[T ast.Value](t *ast.Term) (T, bool) {
	var zero T
	if t == nil {
		return zero, false
	}
	v, ok := t.Value.(T)
	return v, ok
}

// scan runs the scan's block once per element of a collection (in the
// order topdown enumerates it); a scalar has none.
func (e *evaluator) scan(s *stmt, locals []*ast.Term, depth int) (int, error) {
	src := locals[s.a.local]
	if src == nil {
		return done, nil
	}
	next := func(k, v *ast.Term) (bool, int, error) { return e.step(s, locals, depth, k, v) }
	switch c := src.Value.(type) {
	case *List:
		for i, v := range c.elems {
			if stop, out, err := e.step(s, locals, depth, ast.InternedTerm(i), v); stop {
				return out, err
			}
		}
	case *Record:
		for _, m := range c.members {
			if stop, out, err := e.step(s, locals, depth, m.key, m.val); stop {
				return out, err
			}
		}
	case *ast.Array:
		for i := 0; i < c.Len(); i++ {
			if stop, out, err := e.step(s, locals, depth, ast.InternedTerm(i), c.Elem(i)); stop {
				return out, err
			}
		}
	case ast.Object:
		out, fail := done, error(nil)
		c.Until(func(k, v *ast.Term) bool {
			stop, o, err := next(k, v)
			out, fail = o, err
			return stop
		})
		return out, fail
	case ast.Set:
		out, fail := done, error(nil)
		c.Until(func(t *ast.Term) bool {
			stop, o, err := next(t, t)
			out, fail = o, err
			return stop
		})
		return out, fail
	}
	return done, nil
}

// step runs a scan's block on one element: stop says the scan is over,
// with out and err.
func (e *evaluator) step(s *stmt, locals []*ast.Term, depth int, k, v *ast.Term) (stop bool, out int, err error) {
	if e.steps++; e.steps&1023 == 0 {
		if err := e.ctx.Err(); err != nil {
			return true, 0, err
		}
	}
	locals[s.b.local], locals[s.c.local] = k, v
	r, err := e.exec(s.blocks[0], locals, depth)
	switch {
	case err != nil:
		return true, 0, err
	case r == done || r == 0:
		return false, done, nil
	case r == returned:
		return true, returned, nil
	case r == 1:
		return true, done, nil
	default:
		return true, r - 2, nil
	}
}

// dot looks key up in src: an object's member, an array's element, a
// set's element itself.
func dot(src, key *ast.Term) *ast.Term {
	switch c := src.Value.(type) {
	case *Record:
		if k, ok := key.Value.(ast.String); ok {
			return c.get(string(k))
		}
		return nil
	case *List:
		if n, ok := key.Value.(ast.Number); ok {
			if i, ok := n.Int(); ok && i >= 0 && i < len(c.elems) {
				return c.elems[i]
			}
		}
		return nil
	case ast.Object:
		// A Record or a List key finds the member its value names
		// (ast.Object compares keys of its own types only); so in a set.
		return c.Get(Materialize(key))
	case *ast.Array:
		return c.Get(key)
	case ast.Set:
		if key = Materialize(key); c.Contains(key) {
			return key
		}
	}
	return nil
}

// baseDot looks a key up in a base document read from the data document
// as topdown does: by path (storage.NewPathForRef), where a number key is
// its text and an array's index is a path element read as an integer
// (util.Atoi), so that data.x[2] is the member "2" of an object data.x,
// and data.y["1"] the element 1 of an array data.y. dot has already
// looked the key up by value.
func baseDot(src, key *ast.Term) *ast.Term {
	var path string
	switch k := key.Value.(type) {
	case ast.Number:
		path = k.String()
	case ast.String:
		path = string(k)
	default:
		return nil
	}
	switch src.Value.(type) {
	case *Record, ast.Object:
		if _, ok := key.Value.(ast.Number); ok {
			return dot(src, ast.StringTerm(path))
		}
	case *List, *ast.Array:
		if i, ok := util.Atoi(path); ok {
			return dot(src, ast.InternedTerm(i))
		}
	}
	return nil
}

func length(v ast.Value) (int, bool) {
	switch c := v.(type) {
	case *List:
		return len(c.elems), true
	case *Record:
		return len(c.members), true
	case *ast.Array:
		return c.Len(), true
	case ast.Object:
		return c.Len(), true
	case ast.Set:
		return c.Len(), true
	}
	return 0, false
}

// builtin calls a built-in with topdown's contract: the first output is
// the result; an error is undefined unless it is a Halt.
func (e *evaluator) builtin(s *stmt, locals []*ast.Term) (*ast.Term, error) {
	var buf [4]*ast.Term
	args := buf[:0]
	deferred := false
	for _, a := range s.args {
		v := a.get(locals)
		if v == nil {
			return nil, nil
		}
		deferred = deferred || isDeferred(v)
		args = append(args, v)
	}
	if deferred {
		if t, ok := native(s.builtin.name, args); ok {
			return t, nil
		}
		for i, a := range args {
			args[i] = Materialize(a)
		}
	}
	if !e.cache {
		// The clock is the evaluation's start, as topdown's; the term is
		// made for the first built-in called.
		e.bctx.Time = ast.NumberTerm(json.Number(strconv.FormatInt(e.start.UnixNano(), 10)))
		e.bctx.Cache, e.cache = builtins.Cache{}, true
	}
	var out *ast.Term
	err := s.builtin.f(e.bctx, args, func(t *ast.Term) error {
		if out == nil {
			out = t
		}
		return nil
	})
	if err != nil {
		// Only a Halt itself stops the evaluation: topdown asserts the
		// type (a built-in's error that wraps a Halt is a built-in error,
		// undefined).
		if h, ok := err.(topdown.Halt); ok {
			return nil, h.Err
		}
		return nil, nil
	}
	if !s.builtin.result {
		// A void built-in succeeded: any non-nil marker will do.
		return ast.InternedTerm(true), nil
	}
	return out, nil
}

func (e *evaluator) conflict(s *stmt, msg string) error {
	err := &ConflictError{Message: msg}
	if s.loc != nil {
		err.Row = s.loc.Row
		if s.loc.File >= 0 && s.loc.File < len(e.prog.files) {
			err.File = e.prog.files[s.loc.File]
		}
	}
	return err
}

// compare orders two values as ast.Compare does, Records and Lists as
// their materialized values.
func compare(a, b *ast.Term) int {
	if isDeferred(a) || isDeferred(b) {
		if ka, kb := kind(a.Value), kind(b.Value); ka != kb {
			// Values of different types are ordered by type alone: an
			// empty value of the same type stands for the Record or List
			// (materializing the station to compare it with false would
			// cost more than the rest of the decision).
			return proxy(a.Value).Compare(proxy(b.Value))
		}
	}
	return plain(a.Value).Compare(plain(b.Value))
}

var (
	emptyObject ast.Value = ast.NewObject()
	emptyArray  ast.Value = ast.NewArray()
)

// kind tells objects (1) and arrays (2), deferred or not, from the rest
// (0).
func kind(v ast.Value) int {
	switch v.(type) {
	case *Record, ast.Object:
		return 1
	case *List, *ast.Array:
		return 2
	}
	return 0
}

func proxy(v ast.Value) ast.Value {
	switch v.(type) {
	case *Record:
		return emptyObject
	case *List:
		return emptyArray
	}
	return v
}

// native answers count and membership on a Record or List without
// materializing it, exactly as topdown's count and internal.member_2 do on
// the materialized value.
func native(name string, args []*ast.Term) (*ast.Term, bool) {
	switch name {
	case ast.Count.Name:
		if n, ok := length(args[0].Value); ok && len(args) == 1 {
			return ast.InternedTerm(n), true
		}
	case ast.Member.Name:
		if len(args) != 2 || isDeferred(args[0]) {
			return nil, false
		}
		x := args[0]
		switch c := args[1].Value.(type) {
		case *List:
			for _, v := range c.elems {
				if compare(x, v) == 0 {
					return ast.InternedTerm(true), true
				}
			}
			return ast.InternedTerm(false), true
		case *Record:
			for _, m := range c.members {
				if compare(x, m.val) == 0 {
					return ast.InternedTerm(true), true
				}
			}
			return ast.InternedTerm(false), true
		}
	}
	return nil, false
}
