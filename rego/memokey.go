package rego

import (
	"encoding/binary"
	"hash/maphash"

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

// hasher writes values with a tag for their type and a length for every
// string, array and object, so that no two different values write the same
// bytes.
type hasher struct {
	h   maphash.Hash
	buf [8]byte
}

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

func (h *hasher) int(n int) {
	binary.LittleEndian.PutUint64(h.buf[:], uint64(n))
	h.h.Write(h.buf[:])
}

func (h *hasher) str(s string) {
	h.int(len(s))
	h.h.WriteString(s)
}

// value hashes v. Object members are visited in key order, so equal
// values hash the same however they were built.
func (h *hasher) value(v ast.Value) {
	switch x := v.(type) {
	case ast.Null:
		h.h.WriteByte(tagNull)
	case ast.Boolean:
		if x {
			h.h.WriteByte(tagTrue)
		} else {
			h.h.WriteByte(tagFalse)
		}
	case ast.Number:
		h.h.WriteByte(tagNumber)
		h.str(string(x))
	case ast.String:
		h.h.WriteByte(tagString)
		h.str(string(x))
	case *ast.Array:
		h.h.WriteByte(tagArray)
		n := x.Len()
		h.int(n)
		for i := 0; i < n; i++ {
			h.value(x.Elem(i).Value)
		}
	case ast.Object:
		h.h.WriteByte(tagObject)
		h.int(x.Len())
		x.Foreach(func(k, t *ast.Term) {
			h.value(k.Value)
			h.value(t.Value)
		})
	case ast.Set:
		h.h.WriteByte(tagSet)
		h.int(x.Len())
		x.Foreach(func(t *ast.Term) { h.value(t.Value) })
	default:
		// The input holds only JSON values; anything else is hashed by
		// its text, which is still exact.
		h.h.WriteByte(tagOther)
		h.str(v.String())
	}
}

// keyOf returns the memo key of the input document v built for in: the
// command, mode, cwd and config by value or identity, and every other
// member of v hashed.
func keyOf(in *policy.Input, mode string, v ast.Object) memoKey {
	var h hasher
	h.h.SetSeed(memoSeed)
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
	return memoKey{command: in.Command, mode: mode, cwd: in.Cwd, cfg: in.Config, sum: h.h.Sum64()}
}

// keyFor returns the memo key of an input (with its facts).
func keyFor(in *policy.Input, f *policy.Facts) (memoKey, error) {
	v, err := inputValue(in, f)
	if err != nil {
		return memoKey{}, err
	}
	return keyOf(in, f.Mode, v), nil
}
