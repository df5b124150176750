package irvm

import (
	"sync/atomic"

	"github.com/open-policy-agent/opa/v1/ast"
)

// Record is an object of the input document built for the plan evaluator:
// its members sorted by key, with no hashing and no index. The evaluator
// looks members up and scans them in place; a Record that leaves the
// input (into a built-in's argument, a value the policy builds, the
// result) is turned into an ast.Object first, once (Materialize).
//
// A Record is never changed once made, so many inputs may share one.
// Its ast.Value methods answer for the materialized object.
type Record struct {
	term    ast.Term // the Record's own term (one allocation for both)
	members []member
	mat     atomic.Pointer[ast.Term]
}

// member is a Record's member: the key's term (as built, shared between
// inputs; always an ast.String) and the value.
type member struct {
	key *ast.Term
	val *ast.Term
}

func (m *member) name() string { return string(m.key.Value.(ast.String)) }

// List is an array of the input document built for the plan evaluator,
// for the same reason as Record: an *ast.Array hashes every element when
// it is made.
type List struct {
	term  ast.Term
	elems []*ast.Term
	mat   atomic.Pointer[ast.Term]
}

// NewRecord returns the term of a Record of the members (key, value);
// keys are strings (ok is false otherwise), and a later member replaces
// an earlier one of the same key, as ast.NewObject does. The slice is not
// kept.
func NewRecord(members [][2]*ast.Term) (t *ast.Term, ok bool) {
	r := &Record{members: make([]member, 0, len(members))}
	for _, m := range members {
		if _, ok := m[0].Value.(ast.String); !ok {
			return nil, false
		}
		r.insert(member{m[0], m[1]})
	}
	r.term.Value = r
	return &r.term, true
}

func (r *Record) insert(m member) {
	i := len(r.members)
	name := m.name()
	for i > 0 && r.members[i-1].name() > name {
		i--
	}
	if i > 0 && r.members[i-1].name() == name {
		r.members[i-1] = m
		return
	}
	r.members = append(r.members, member{})
	copy(r.members[i+1:], r.members[i:])
	r.members[i] = m
}

// NewList returns the term of a List of elems (the slice is kept).
func NewList(elems []*ast.Term) *ast.Term {
	l := &List{elems: elems}
	l.term.Value = l
	return &l.term
}

// get returns the member k, or nil.
func (r *Record) get(k string) *ast.Term {
	lo, hi := 0, len(r.members)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.members[m].name() < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(r.members) && r.members[lo].name() == k {
		return r.members[lo].val
	}
	return nil
}

// Materialize returns t with every Record and List in it turned into
// ast.Object and *ast.Array; t itself when it has none.
func Materialize(t *ast.Term) *ast.Term {
	if t == nil {
		return nil
	}
	switch v := t.Value.(type) {
	case *Record:
		return v.materialize()
	case *List:
		return v.materialize()
	}
	return t
}

func (r *Record) materialize() *ast.Term {
	if t := r.mat.Load(); t != nil {
		return t
	}
	members := make([][2]*ast.Term, len(r.members))
	for i, m := range r.members {
		members[i] = [2]*ast.Term{m.key, Materialize(m.val)}
	}
	t := ast.NewTerm(ast.NewObject(members...))
	r.mat.Store(t)
	return t
}

func (l *List) materialize() *ast.Term {
	if t := l.mat.Load(); t != nil {
		return t
	}
	elems := make([]*ast.Term, len(l.elems))
	for i, e := range l.elems {
		elems[i] = Materialize(e)
	}
	t := ast.NewTerm(ast.NewArray(elems...))
	l.mat.Store(t)
	return t
}

// The ast.Value methods answer for the materialized value.

// Compare compares the materialized object with other.
func (r *Record) Compare(other ast.Value) int { return r.materialize().Value.Compare(plain(other)) }

// Find looks path up in the materialized object.
func (r *Record) Find(path ast.Ref) (ast.Value, error) { return r.materialize().Value.Find(path) }

// Hash is the materialized object's hash.
func (r *Record) Hash() int { return r.materialize().Value.Hash() }

// IsGround is true: input values hold no variables.
func (r *Record) IsGround() bool { return true }

// String is the materialized object's text.
func (r *Record) String() string { return r.materialize().Value.String() }

// StringLength is the length of String.
func (r *Record) StringLength() int { return len(r.String()) }

// Compare compares the materialized array with other.
func (l *List) Compare(other ast.Value) int { return l.materialize().Value.Compare(plain(other)) }

// Find looks path up in the materialized array.
func (l *List) Find(path ast.Ref) (ast.Value, error) { return l.materialize().Value.Find(path) }

// Hash is the materialized array's hash.
func (l *List) Hash() int { return l.materialize().Value.Hash() }

// IsGround is true: input values hold no variables.
func (l *List) IsGround() bool { return true }

// String is the materialized array's text.
func (l *List) String() string { return l.materialize().Value.String() }

// StringLength is the length of String.
func (l *List) StringLength() int { return len(l.String()) }

func plain(v ast.Value) ast.Value {
	switch x := v.(type) {
	case *Record:
		return x.materialize().Value
	case *List:
		return x.materialize().Value
	}
	return v
}

// isDeferred tells whether t is a Record or a List.
func isDeferred(t *ast.Term) bool {
	switch t.Value.(type) {
	case *Record, *List:
		return true
	}
	return false
}
