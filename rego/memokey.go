package rego

import (
	"encoding/binary"
	"hash/maphash"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/shellgate/shellgate/policy"
)

// The policy input is described once: inputValue builds it from the report,
// the station, the config and the facts, in the shape of their JSON
// encoding (TestInputValueCoversEveryField changes every field of those
// types in turn and holds the value to the JSON), and the memo key is a
// hash of that very value. A field the policy can see is therefore in the
// key by construction, and two inputs share a memoized decision only when
// the policy would see the same document.

// memoKey identifies a policy input: the command, the mode, the cwd and the
// config exactly, and a 64-bit seeded hash of the rest of the input value
// (the report, the station and the facts). Configs are compared by
// identity: a Config must not change once it is passed to Decide (its
// value is cached by identity too, see configTerm).
type memoKey struct {
	command, mode, cwd string
	cfg                *policy.Config
	sum                uint64
}

var memoSeed = maphash.MakeSeed()

// hasher writes values into a byte buffer with a tag for their type and a
// length for every string, array and object, so that no two different
// values write the same bytes; the key is one seeded hash of the buffer.
type hasher struct {
	b []byte
	// member is h.pair as a func value, made once per hasher (a closure
	// per object would be an allocation per object).
	member func(k, v *ast.Term)
}

// hashers keeps hashers and their buffers between decisions.
var hashers = sync.Pool{New: func() any {
	h := &hasher{b: make([]byte, 0, 8<<10)}
	h.member = h.pair
	return h
}}

// maxHashBuf is the largest buffer a hasher keeps for the next decision.
const maxHashBuf = 1 << 20

// Type tags of the values hashed.
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagNumber
	tagString
	tagArray
	tagObject
	tagSet
	tagOther
)

func (h *hasher) int(n int) { h.b = binary.AppendUvarint(h.b, uint64(n)) }

func (h *hasher) str(s string) {
	h.int(len(s))
	h.b = append(h.b, s...)
}

func (h *hasher) pair(k, v *ast.Term) {
	h.value(k.Value)
	h.value(v.Value)
}

// value writes v. Object members are visited in key order, so equal
// values write the same bytes however they were built.
func (h *hasher) value(v ast.Value) {
	switch x := v.(type) {
	case ast.String:
		h.b = append(h.b, tagString)
		h.str(string(x))
	case ast.Boolean:
		if x {
			h.b = append(h.b, tagTrue)
		} else {
			h.b = append(h.b, tagFalse)
		}
	case ast.Number:
		h.b = append(h.b, tagNumber)
		h.str(string(x))
	case ast.Null:
		h.b = append(h.b, tagNull)
	case *ast.Array:
		h.b = append(h.b, tagArray)
		n := x.Len()
		h.int(n)
		for i := 0; i < n; i++ {
			h.value(x.Elem(i).Value)
		}
	case ast.Object:
		h.b = append(h.b, tagObject)
		h.int(x.Len())
		x.Foreach(h.member)
	case ast.Set:
		h.b = append(h.b, tagSet)
		h.int(x.Len())
		x.Foreach(func(t *ast.Term) { h.value(t.Value) })
	default:
		// The input holds only JSON values; anything else is written as
		// its text, which is still exact.
		h.b = append(h.b, tagOther)
		h.str(v.String())
	}
}

// keyOf returns the memo key of the input document v built for in: the
// command, mode, cwd and config by value or identity, and every other
// member of v hashed.
func keyOf(in *policy.Input, mode string, v ast.Object) memoKey {
	h := hashers.Get().(*hasher)
	h.b = h.b[:0]
	h.int(v.Len())
	v.Foreach(func(k, t *ast.Term) {
		switch k.Value {
		case kCommand.Value, kMode.Value, kCwd.Value, kConfig.Value:
			// In the key exactly, below.
			h.value(k.Value)
			return
		}
		h.value(k.Value)
		h.value(t.Value)
	})
	sum := maphash.Bytes(memoSeed, h.b)
	if cap(h.b) <= maxHashBuf {
		hashers.Put(h)
	}
	return memoKey{command: in.Command, mode: mode, cwd: in.Cwd, cfg: in.Config, sum: sum}
}

// keyFor returns the memo key of an input (with its facts).
func keyFor(in *policy.Input, f *policy.Facts) (memoKey, error) {
	v, err := inputValue(in, f)
	if err != nil {
		return memoKey{}, err
	}
	return keyOf(in, f.Mode, v), nil
}
