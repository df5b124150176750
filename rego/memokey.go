package rego

import (
	"encoding/binary"
	"hash/maphash"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/shellgate/shellgate/policy"
)

// The policy input is described once (describeInput, value.go); the memo
// key is that description hashed, written by the hasher below instead of
// built into a value. A field the policy can see is therefore in the key by
// construction (TestMemoKeyCoversEveryField changes every field and
// requires the key to change), and two inputs share a memoized decision
// only when the policy would see the same document. The key costs no
// allocation, so a decision answered from the memo builds no value at all.

// memoKey identifies a policy input: the command, the mode, the cwd and the
// config exactly, and a 64-bit seeded hash of the whole description (the
// report, the station and the facts too). Configs are compared by
// identity: a Config must not change once it is passed to Decide (its
// value is cached by identity too, see configValue).
type memoKey struct {
	command, mode, cwd string
	cfg                *policy.Config
	sum                uint64
}

var memoSeed = maphash.MakeSeed()

// hasher is the encoder that writes the description into a byte buffer,
// with a tag for every value's type, a length for every string and an end
// tag for every object and array, so that no two different documents
// write the same bytes; the key is one seeded hash of the buffer.
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
	tagEnd
	tagConfig
)

func (h *hasher) int(n int) { h.b = binary.AppendVarint(h.b, int64(n)) }

func (h *hasher) bytes(s string) {
	h.b = binary.AppendUvarint(h.b, uint64(len(s)))
	h.b = append(h.b, s...)
}

func (h *hasher) object() { h.b = append(h.b, tagObject) }
func (h *hasher) array()  { h.b = append(h.b, tagArray) }
func (h *hasher) end()    { h.b = append(h.b, tagEnd) }
func (h *hasher) null()   { h.b = append(h.b, tagNull) }

func (h *hasher) key(k *ast.Term) { h.value(k.Value) }

func (h *hasher) str(s string) {
	h.b = append(h.b, tagString)
	h.bytes(s)
}

func (h *hasher) name(s string) { h.str(s) }
func (h *hasher) enum(s string) { h.str(s) }

func (h *hasher) num(n int) {
	h.b = append(h.b, tagNumber)
	h.int(n)
}

func (h *hasher) boolean(b bool) {
	if b {
		h.b = append(h.b, tagTrue)
	} else {
		h.b = append(h.b, tagFalse)
	}
}

func (h *hasher) term(t *ast.Term) { h.value(t.Value) }

// config writes only a tag: the memo key holds the config by identity.
func (h *hasher) config(*policy.Config) { h.b = append(h.b, tagConfig) }

func (h *hasher) pair(k, v *ast.Term) {
	h.value(k.Value)
	h.value(v.Value)
}

// value writes a value built elsewhere (a station of a foreign type) as
// the encoder methods would have: object members are visited in key order,
// so equal values write the same bytes however they were built. Numbers
// are written as their text, with a tag of their own.
func (h *hasher) value(v ast.Value) {
	switch x := v.(type) {
	case ast.String:
		h.str(string(x))
	case ast.Boolean:
		h.boolean(bool(x))
	case ast.Number:
		h.b = append(h.b, tagOther)
		h.bytes(string(x))
	case ast.Null:
		h.null()
	case *ast.Array:
		h.array()
		for i := 0; i < x.Len(); i++ {
			h.value(x.Elem(i).Value)
		}
		h.end()
	case ast.Object:
		h.object()
		x.Foreach(h.member)
		h.end()
	case ast.Set:
		h.b = append(h.b, tagSet)
		x.Foreach(func(t *ast.Term) { h.value(t.Value) })
		h.end()
	default:
		// The input holds only JSON values; anything else is written as
		// its text, which is still exact.
		h.b = append(h.b, tagOther)
		h.bytes(v.String())
	}
}

// keyFor returns the memo key of an input (with its facts), or an error
// when the input cannot be described (then nothing is memoized: building
// the value reports the same error).
func keyFor(in *policy.Input, f *policy.Facts) (memoKey, error) {
	h := hashers.Get().(*hasher)
	h.b = h.b[:0]
	if err := describeInput(h, in, f); err != nil {
		return memoKey{}, err
	}
	sum := maphash.Bytes(memoSeed, h.b)
	if cap(h.b) <= maxHashBuf {
		hashers.Put(h)
	}
	return memoKey{command: in.Command, mode: f.Mode, cwd: in.Cwd, cfg: in.Config, sum: sum}, nil
}
