package rego

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

//go:generate go tool shellgate-gen rego

// The policy input is described once, as a stream of JSON values written
// against enc by describeInput and the functions it calls. Those are
// generated (input_gen.go, by `go generate ./rego`) from the Go types of
// policy.Input, classify.Report, readstation.Station and policy.Facts,
// following their JSON encoding (json tags, omitempty, embedded structs),
// so the description is the JSON encoding of policy.Input plus "facts" by
// construction; what is written by hand is below and in
// internal/shellgate-gen/input.go: the mode is the effective one (the
// facts'), the config is encoded once per config, a station of a foreign
// type is converted through its JSON, and a span is [start, end] as its
// MarshalJSON writes it. Two encoders read the description: the builder
// (below) makes the ast.Value the policy evaluates, and the hasher
// (memokey.go) makes the memo key, without building anything.
// TestInputValueCoversEveryField holds the builder to the JSON for every
// field of the input types, TestMemoKeyCoversEveryField holds the hasher to
// see every field, and the generator's test fails when input_gen.go is not
// what the types generate.

// enc receives the input document in order. An object is object(), then
// key(k) and one value per member, then end(); an array is array(), its
// elements, then end().
type enc interface {
	object()
	array()
	end()
	key(k *ast.Term)
	// str is a string; name is a frequent one (a program, a subcommand,
	// an option, the cwd) and enum an enum-like value (kinds, sources,
	// roles): the builder shares their terms across inputs.
	str(s string)
	name(s string)
	enum(s string)
	num(n int)
	boolean(b bool)
	null()
	// term is a value built elsewhere (a station of a foreign type).
	term(t *ast.Term)
	// config is the input's config, which the builder encodes once per
	// config and the memo key holds by identity.
	config(c *policy.Config)
}

// cached describes a value that is a function of k alone (a span, an
// argument, a finding): the builder reuses the term it built for an equal
// k before, held in c; the hasher writes it in full.
func cached[K comparable](e enc, c *shared[K], k K, describe func(enc)) {
	b, ok := e.(*builder)
	if !ok {
		describe(e)
		return
	}
	if t := c.lookup(k); t != nil {
		b.push(t)
		return
	}
	describe(b)
	c.store(k, b.last)
}

// Keys of the decision and its reasons, and the input's "facts" (the
// input's other keys are generated, input_gen.go), built once and shared
// (terms are never changed once built).
var (
	kFacts      = ast.StringTerm("facts")
	kAction     = ast.StringTerm("action")
	kReasons    = ast.StringTerm("reasons")
	kGrantable  = ast.StringTerm("grantable")
	kRun        = ast.StringTerm("run")
	kKeepGrants = ast.StringTerm("keep_grants")
	kRule       = ast.StringTerm("rule")
	kCode       = ast.StringTerm("code")
	kMessage    = ast.StringTerm("message")
	kSegment    = ast.StringTerm("segment")
	kSpan       = ast.StringTerm("span")
)

// enums holds one term for each frequent enum-like value (kinds, sources,
// roles, categories, verdicts); it is filled at init and only read after.
var enums = func() map[string]*ast.Term {
	m := map[string]*ast.Term{}
	for _, s := range strings.Fields(`literal glob dynamic operand option redirect implicit cwd-flag
		xargs-input source find-match file dir tree write delete pattern script command text number
		any name assign url exec awk sed jq read network destructive privilege interactive wrapper
		shell navigate ok missing denied outside-roots not-established default readonly param
		command-substitution process-substitution arithmetic brace tilde extglob dup heredoc
		herestring readwrite reads-file writes-file recursive follow device cwd stdin
		runs-script formatter stops-system deletes-matches signals force`) {
		m[s] = ast.StringTerm(s)
	}
	return m
}()

// Terms shared by every input (terms are never changed once built).
var (
	emptyString = ast.StringTerm("")
	nullTerm    = ast.NullTerm()
	emptyArray  = ast.ArrayTerm()
)

// shared caches terms that recur across inputs (spans, contexts, cwds).
// Terms are never changed once built, so inputs evaluated at the same time
// may share them. Each cache is emptied when it grows past maxShared.
type shared[K comparable] struct {
	mu sync.RWMutex
	m  map[K]*ast.Term
}

const maxShared = 4096

func (c *shared[K]) lookup(k K) *ast.Term {
	c.mu.RLock()
	t := c.m[k]
	c.mu.RUnlock()
	return t
}

func (c *shared[K]) store(k K, t *ast.Term) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxShared {
		c.m = make(map[K]*ast.Term, 64)
	}
	c.m[k] = t
	c.mu.Unlock()
}

// get returns the term for k, building it the first time.
func (c *shared[K]) get(k K, build func() *ast.Term) *ast.Term {
	if t := c.lookup(k); t != nil {
		return t
	}
	t := build()
	c.store(k, t)
	return t
}

var (
	spanTerms shared[classify.Span]
	nameTerms shared[string]
)

// builder is the encoder that builds the ast.Value. An open object's
// members collect on pairs (key() starts a member, the value pushed next
// completes it), an open array's elements on elems; end replaces the
// innermost open object's or array's items by its term.
type builder struct {
	elems  []*ast.Term
	pairs  [][2]*ast.Term
	frames []frame
	// last is the term pushed last.
	last *ast.Term
}

// frame is an open object or array: where its items start on pairs or
// elems.
type frame struct {
	start  int
	object bool
}

// builders keeps builders and their stacks between decisions.
var builders = sync.Pool{New: func() any { return newBuilder() }}

func newBuilder() *builder {
	return &builder{elems: make([]*ast.Term, 0, 64), pairs: make([][2]*ast.Term, 0, 128), frames: make([]frame, 0, 16)}
}

func (b *builder) push(t *ast.Term) {
	b.last = t
	if n := len(b.frames); n > 0 && b.frames[n-1].object {
		b.pairs[len(b.pairs)-1][1] = t
		return
	}
	b.elems = append(b.elems, t)
}

func (b *builder) object()          { b.frames = append(b.frames, frame{len(b.pairs), true}) }
func (b *builder) array()           { b.frames = append(b.frames, frame{len(b.elems), false}) }
func (b *builder) key(k *ast.Term)  { b.pairs = append(b.pairs, [2]*ast.Term{k, nil}) }
func (b *builder) num(n int)        { b.push(ast.InternedTerm(n)) }
func (b *builder) boolean(v bool)   { b.push(ast.InternedTerm(v)) }
func (b *builder) null()            { b.push(nullTerm) }
func (b *builder) term(t *ast.Term) { b.push(t) }

func (b *builder) str(s string) {
	if s == "" {
		b.push(emptyString)
		return
	}
	b.push(ast.StringTerm(s))
}

func (b *builder) name(s string) {
	if s == "" {
		b.push(emptyString)
		return
	}
	b.push(nameTerms.get(s, func() *ast.Term { return ast.StringTerm(s) }))
}

func (b *builder) enum(s string) {
	if t := enums[s]; t != nil {
		b.push(t)
		return
	}
	b.str(s)
}

func (b *builder) config(c *policy.Config) { b.push(configTerm(c)) }

func (b *builder) end() {
	fr := b.frames[len(b.frames)-1]
	b.frames = b.frames[:len(b.frames)-1]
	var t *ast.Term
	switch {
	case fr.object:
		// NewObject copies the members.
		t = ast.NewTerm(ast.NewObject(b.pairs[fr.start:]...))
		b.pairs = b.pairs[:fr.start]
	case len(b.elems) == fr.start:
		t = emptyArray
	default:
		ts := make([]*ast.Term, len(b.elems)-fr.start)
		copy(ts, b.elems[fr.start:])
		t = ast.ArrayTerm(ts...)
		b.elems = b.elems[:fr.start]
	}
	b.push(t)
}

// maxBuilderStack is the largest stack a builder keeps for the next
// decision.
const maxBuilderStack = 1 << 16

// inputValue builds the whole input document.
func inputValue(in *policy.Input, f *policy.Facts) (ast.Object, error) {
	b := builders.Get().(*builder)
	defer func() {
		// The terms left on the stacks are garbage: drop them.
		clear(b.elems[:cap(b.elems)])
		clear(b.pairs[:cap(b.pairs)])
		b.elems, b.pairs, b.frames, b.last = b.elems[:0], b.pairs[:0], b.frames[:0], nil
		if cap(b.elems)+cap(b.pairs) <= maxBuilderStack {
			builders.Put(b)
		}
	}()
	if err := describeInput(b, in, f); err != nil {
		return nil, err
	}
	if len(b.elems) != 1 || len(b.pairs) != 0 || len(b.frames) != 0 {
		return nil, fmt.Errorf("internal error: the input's description left %d values, %d members and %d open", len(b.elems), len(b.pairs), len(b.frames))
	}
	o, ok := b.elems[0].Value.(ast.Object)
	if !ok {
		return nil, fmt.Errorf("internal error: the input is %s, not an object", ast.ValueName(b.elems[0].Value))
	}
	return o, nil
}

// describeInput describes the whole input document: its station of a foreign
// type and its config are converted first, so that an error is reported
// before anything is described.
func describeInput(e enc, in *policy.Input, f *policy.Facts) error {
	var foreign *ast.Term
	if in.Station != nil && !isNilStation(in.Station) {
		if _, ok := in.Station.(*readstation.Station); !ok {
			v, err := jsonValue(in.Station)
			if err != nil {
				return fmt.Errorf("station: %w", err)
			}
			if _, isNull := v.(ast.Null); !isNull {
				foreign = ast.NewTerm(v)
			}
		}
	}
	if _, err := configValue(in.Config); err != nil {
		return err
	}
	describePolicyInput(e, in, f, foreign)
	return nil
}

// describeStationMember describes the input's station member: a
// *readstation.Station by its generated description, a station of a
// foreign type by its JSON (foreign, converted once per input), and
// nothing when there is no station (nil, or a nil *readstation.Station,
// which the JSON would write as null: the policy reads a missing station
// as one that did not run).
func describeStationMember(e enc, st any, foreign *ast.Term) {
	if s, ok := st.(*readstation.Station); ok && s != nil {
		e.key(keyStation)
		describeReadstationStation(e, s)
	} else if foreign != nil {
		e.key(keyStation)
		e.term(foreign)
	}
}

func isNilStation(x any) bool {
	st, ok := x.(*readstation.Station)
	return ok && st == nil
}

// describeSpan describes a span as its JSON, [start, end]
// (classify.Span.MarshalJSON); the builder caches the term by value.
func describeSpan(e enc, s classify.Span) {
	cached(e, &spanTerms, s, func(e enc) {
		e.array()
		e.num(s.Start)
		e.num(s.End)
		e.end()
	})
}

// describePointer describes a pointer as its JSON: null when nil, else
// what describe writes.
func describePointer[T any](e enc, p *T, describe func(enc, *T)) {
	if p == nil {
		e.null()
		return
	}
	describe(e, p)
}

// describeSlice describes a slice as its JSON: null when nil, else an
// array of what describe writes for each element.
func describeSlice[T any](e enc, list []T, describe func(enc, *T)) {
	if list == nil {
		e.null()
		return
	}
	e.array()
	for i := range list {
		describe(e, &list[i])
	}
	e.end()
}

// stringKind says how a string is written: e.str, e.name or e.enum.
type stringKind uint8

const (
	strKind stringKind = iota
	nameKind
	enumKind
)

// describeStrings describes a slice of strings as its JSON: null when nil,
// else an array, each string written as kind says.
func describeStrings[S ~string](e enc, list []S, kind stringKind) {
	if list == nil {
		e.null()
		return
	}
	e.array()
	for _, s := range list {
		switch kind {
		case nameKind:
			e.name(string(s))
		case enumKind:
			e.enum(string(s))
		default:
			e.str(string(s))
		}
	}
	e.end()
}

// describeInts describes a slice of ints as its JSON.
func describeInts(e enc, list []int) {
	if list == nil {
		e.null()
		return
	}
	e.array()
	for _, n := range list {
		e.num(n)
	}
	e.end()
}

// sortedKeys appends m's keys to buf, sorted (encoding/json writes a
// map's members in key order).
func sortedKeys[V any](m map[string]V, buf []string) []string {
	for k := range m {
		buf = append(buf, k)
	}
	slices.Sort(buf)
	return buf
}

// configValues caches the value of the configs in use (configs are not
// changed once loaded); it is emptied when it grows past maxConfigValues,
// so a process that reloads its config does not accumulate them.
var configValues struct {
	sync.Mutex
	m map[*policy.Config]*ast.Term
}

const maxConfigValues = 64

// configTerm is the config's value, built by configValue before.
func configTerm(c *policy.Config) *ast.Term {
	t, err := configValue(c)
	if err != nil {
		// describeInput called configValue first, which returned the error.
		return nullTerm
	}
	return t
}

// configValue returns the config's value, building it the first time.
func configValue(c *policy.Config) (*ast.Term, error) {
	if c == nil {
		return nullTerm, nil
	}
	configValues.Lock()
	t, ok := configValues.m[c]
	configValues.Unlock()
	if ok {
		return t, nil
	}
	v, err := jsonValue(c)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	t = ast.NewTerm(v)
	configValues.Lock()
	if configValues.m == nil || len(configValues.m) >= maxConfigValues {
		configValues.m = map[*policy.Config]*ast.Term{}
	}
	configValues.m[c] = t
	configValues.Unlock()
	return t, nil
}

// jsonValue converts a value through its JSON encoding (for the station
// and the config, whose types this package does not own).
func jsonValue(x any) (ast.Value, error) {
	b, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	return ast.ValueFromReader(bytes.NewReader(b))
}
