package irvm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/ir"
)

// A compiled Program can be written down (MarshalBinary) and read back
// (UnmarshalProgram) without OPA's compiler and planner: a policy known
// when shellgate is built is planned then, not at every start. The form is
// a version, then varints and length-prefixed strings in the order of the
// Program's fields; reading checks every index it meets and fails (never
// panics) on anything else.

// codecVersion changes whenever the form does.
const codecVersion = 1

// Operand constants, by kind.
const (
	kNull = iota
	kFalse
	kTrue
	kString
	kNumber
)

// MarshalBinary writes the Program down.
func (p *Program) MarshalBinary() ([]byte, error) {
	w := &writer{}
	w.uint(codecVersion)
	w.uint(uint64(len(p.strings)))
	for _, s := range p.strings {
		w.str(string(s.Value.(ast.String)))
	}
	w.uint(uint64(len(p.files)))
	for _, f := range p.files {
		w.str(f)
	}
	w.uint(uint64(len(p.funcs)))
	for _, f := range p.funcs {
		if err := w.fn(f); err != nil {
			return nil, err
		}
	}
	if err := w.fn(p.plan); err != nil {
		return nil, err
	}
	return w.b, nil
}

type writer struct{ b []byte }

func (w *writer) uint(n uint64) { w.b = binary.AppendUvarint(w.b, n) }
func (w *writer) int(n int)     { w.b = binary.AppendVarint(w.b, int64(n)) }
func (w *writer) str(s string)  { w.uint(uint64(len(s))); w.b = append(w.b, s...) }
func (w *writer) bool(v bool) {
	if v {
		w.uint(1)
	} else {
		w.uint(0)
	}
}

func (w *writer) fn(f *fn) error {
	w.str(f.name)
	w.uint(uint64(len(f.params)))
	for _, p := range f.params {
		w.int(p)
	}
	w.int(f.ret)
	w.int(f.nlocals)
	w.bool(f.memo)
	w.int(f.index)
	return w.blocks(f.blocks)
}

func (w *writer) blocks(bs []*block) error {
	w.uint(uint64(len(bs)))
	for _, b := range bs {
		w.uint(uint64(len(b.stmts)))
		for i := range b.stmts {
			if err := w.stmt(&b.stmts[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *writer) stmt(s *stmt) error {
	w.uint(uint64(s.op))
	for _, o := range []operand{s.a, s.b, s.c} {
		if err := w.operand(o); err != nil {
			return err
		}
	}
	w.int(s.target)
	if err := w.blocks(s.blocks); err != nil {
		return err
	}
	w.int(s.fn)
	w.uint(uint64(len(s.args)))
	for _, a := range s.args {
		if err := w.operand(a); err != nil {
			return err
		}
	}
	if s.builtin != nil {
		w.str(s.builtin.name)
	} else {
		w.str("")
	}
	w.int(s.index)
	if s.loc != nil {
		w.int(s.loc.File)
		w.int(s.loc.Row)
	} else {
		w.int(-1)
		w.int(0)
	}
	w.bool(s.base)
	return nil
}

func (w *writer) operand(o operand) error {
	w.int(o.local)
	if o.local >= 0 {
		return nil
	}
	if o.term == nil {
		w.uint(kNull)
		return nil
	}
	switch v := o.term.Value.(type) {
	case ast.Null:
		w.uint(kNull)
	case ast.Boolean:
		if v {
			w.uint(kTrue)
		} else {
			w.uint(kFalse)
		}
	case ast.String:
		w.uint(kString)
		w.str(string(v))
	case ast.Number:
		w.uint(kNumber)
		w.str(string(v))
	default:
		return fmt.Errorf("constant %v of type %T", o.term, v)
	}
	return nil
}

// UnmarshalProgram reads a Program MarshalBinary wrote (by the same
// version of this package and of OPA's built-ins).
func UnmarshalProgram(b []byte) (p *Program, err error) {
	r := &reader{b: b, builtins: map[string]*builtinCall{}}
	if v := r.uint(); v != codecVersion {
		return nil, fmt.Errorf("program form %d, want %d", v, codecVersion)
	}
	p = &Program{}
	ns := r.count()
	for i := 0; i < ns && r.err == nil; i++ {
		p.strings = append(p.strings, ast.StringTerm(r.str()))
	}
	nf := r.count()
	for i := 0; i < nf && r.err == nil; i++ {
		p.files = append(p.files, r.str())
	}
	nfn := r.count()
	r.nfuncs = nfn
	for i := 0; i < nfn && r.err == nil; i++ {
		p.funcs = append(p.funcs, r.fn())
	}
	p.plan = r.fn()
	if r.err == nil && len(r.b) != r.off {
		r.err = errors.New("trailing bytes")
	}
	if r.err == nil {
		r.err = p.check()
	}
	if r.err != nil {
		return nil, fmt.Errorf("compiled plan: offset %d: %w", r.off, r.err)
	}
	return p, nil
}

type reader struct {
	b        []byte
	off      int
	err      error
	nfuncs   int
	builtins map[string]*builtinCall
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) uint() uint64 {
	if r.err != nil {
		return 0
	}
	n, k := binary.Uvarint(r.b[r.off:])
	if k <= 0 {
		r.fail("bad varint")
		return 0
	}
	r.off += k
	return n
}

func (r *reader) int() int {
	if r.err != nil {
		return 0
	}
	n, k := binary.Varint(r.b[r.off:])
	if k <= 0 || n < -1<<31 || n > 1<<31 {
		r.fail("bad varint")
		return 0
	}
	r.off += k
	return int(n)
}

// count reads a length no longer than what is left to read.
func (r *reader) count() int {
	n := r.uint()
	if n > uint64(len(r.b)-r.off) {
		r.fail("count %d beyond the end", n)
		return 0
	}
	return int(n)
}

func (r *reader) str() string {
	n := r.count()
	if r.err != nil {
		return ""
	}
	s := string(r.b[r.off : r.off+n])
	r.off += n
	return s
}

func (r *reader) local() int {
	l := r.int()
	if l < -1 || l > maxLocals {
		r.fail("local %d", l)
		return 0
	}
	return l
}

func (r *reader) fn() *fn {
	f := &fn{name: r.str()}
	np := r.count()
	for i := 0; i < np && r.err == nil; i++ {
		f.params = append(f.params, r.local())
	}
	f.ret, f.nlocals = r.local(), r.int()
	f.memo = r.uint() == 1
	f.index = r.int()
	f.blocks = r.blocks()
	if r.err == nil {
		if f.nlocals < 0 || f.nlocals > maxLocals || f.ret >= f.nlocals || f.index < -1 || f.index >= r.nfuncs {
			r.fail("function %s: bad frame", f.name)
		}
		for _, p := range f.params {
			if p < 0 || p >= f.nlocals {
				r.fail("function %s: parameter %d", f.name, p)
			}
		}
		r.checkLocals(f.blocks, f.nlocals)
	}
	return f
}

func (r *reader) blocks() []*block {
	// Nothing is sized by a count read before what it counts is read: a
	// damaged count must not make a large allocation.
	n := r.count()
	var out []*block
	for i := 0; i < n && r.err == nil; i++ {
		b := &block{}
		ns := r.count()
		for j := 0; j < ns && r.err == nil; j++ {
			b.stmts = append(b.stmts, r.stmt())
		}
		out = append(out, b)
	}
	return out
}

func (r *reader) stmt() stmt {
	var s stmt
	code := r.uint()
	if code > uint64(opNop) {
		r.fail("statement %d", code)
	}
	s.op = op(code)
	s.a, s.b, s.c = r.operand(), r.operand(), r.operand()
	s.target = r.local()
	s.blocks = r.blocks()
	s.fn = r.int()
	na := r.count()
	for i := 0; i < na && r.err == nil; i++ {
		s.args = append(s.args, r.operand())
	}
	if name := r.str(); name != "" {
		s.builtin = r.builtin(name)
	}
	s.index = r.int()
	if file, row := r.int(), r.int(); file >= 0 {
		s.loc = &ir.Location{File: file, Row: row}
	}
	s.base = r.uint() == 1
	switch {
	case s.op == opCall && (s.fn < 0 || s.fn >= r.nfuncs):
		r.fail("call of function %d", s.fn)
	case s.op == opCallBuiltin && s.builtin == nil:
		r.fail("built-in call without a built-in")
	case (s.op == opScan || s.op == opNot) && len(s.blocks) != 1:
		r.fail("%d blocks where one is wanted", len(s.blocks))
	}
	return s
}

func (r *reader) operand() operand {
	o := operand{local: r.local()}
	if o.local >= 0 {
		return o
	}
	switch k := r.uint(); k {
	case kNull:
		o.term = ast.NullTerm()
	case kFalse:
		o.term = ast.BooleanTerm(false)
	case kTrue:
		o.term = ast.BooleanTerm(true)
	case kString:
		o.term = ast.StringTerm(r.str())
	case kNumber:
		n := r.str()
		if _, err := strconv.ParseFloat(n, 64); err != nil && !isRange(err) {
			r.fail("number %q", n)
		}
		o.term = ast.NewTerm(ast.Number(n))
	default:
		r.fail("constant of kind %d", k)
	}
	return o
}

func isRange(err error) bool {
	var ne *strconv.NumError
	return errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange)
}

// builtin resolves a built-in by name, as Compile does.
func (r *reader) builtin(name string) *builtinCall {
	if b, ok := r.builtins[name]; ok {
		return b
	}
	b, err := lookupBuiltin(name)
	if err != nil {
		r.fail("%v", err)
		return nil
	}
	r.builtins[name] = b
	return b
}

// check holds a Program read back to what Compile makes: the evaluator
// indexes with what it finds there.
func (p *Program) check() error {
	if p.plan.nlocals < 2 || len(p.plan.params) != 2 || p.plan.params[0] != 0 || p.plan.params[1] != 1 {
		return errors.New("the plan's frame is not input and data")
	}
	for _, f := range p.funcs {
		if f.ret < 0 || len(f.params) < 2 {
			return fmt.Errorf("function %s: bad frame", f.name)
		}
		if err := p.checkBlocks(f.blocks); err != nil {
			return fmt.Errorf("function %s: %w", f.name, err)
		}
	}
	return p.checkBlocks(p.plan.blocks)
}

func (p *Program) checkBlocks(bs []*block) error {
	for _, b := range bs {
		for i := range b.stmts {
			s := &b.stmts[i]
			if s.target < 0 || s.index < 0 {
				return fmt.Errorf("statement %d: target %d, index %d", s.op, s.target, s.index)
			}
			switch s.op {
			case opResultSetAdd, opIsDefined, opIsUndefined, opReturn:
				if s.a.local < 0 {
					return fmt.Errorf("statement %d reads no local", s.op)
				}
			case opScan:
				if s.a.local < 0 || s.b.local < 0 || s.c.local < 0 {
					return errors.New("a scan without its locals")
				}
			case opAssignInt, opMakeNumber, opMakeNull:
				if s.a.term == nil {
					return fmt.Errorf("statement %d without its constant", s.op)
				}
			case opMakeArray:
				if s.index > 1<<16 {
					return fmt.Errorf("array capacity %d", s.index)
				}
			case opCall:
				if len(s.args) != len(p.funcs[s.fn].params) {
					return fmt.Errorf("call of %s with %d arguments", p.funcs[s.fn].name, len(s.args))
				}
			}
			if err := p.checkBlocks(s.blocks); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkLocals fails when a statement names a local outside the frame.
func (r *reader) checkLocals(bs []*block, n int) {
	for _, b := range bs {
		for i := range b.stmts {
			s := &b.stmts[i]
			for _, o := range append([]operand{s.a, s.b, s.c}, s.args...) {
				if o.local >= n {
					r.fail("local %d outside a frame of %d", o.local, n)
				}
			}
			if s.target >= n {
				r.fail("local %d outside a frame of %d", s.target, n)
			}
			r.checkLocals(s.blocks, n)
		}
	}
}

// maxLocals bounds a function's frame read back (the planner's largest
// are a few hundred).
const maxLocals = 1 << 12
