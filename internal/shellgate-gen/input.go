package main

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"go/format"
	"reflect"
	"sort"
	"strings"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// This file writes rego/input_gen.go: the description of the policy input
// (policy.Input, with the report, the station and the facts it carries)
// that rego's two encoders read, the builder (the ast.Value the policy
// evaluates) and the hasher (the memo key). It is derived from the Go
// types by reflection, following encoding/json's rules (json tags,
// omitempty, embedded structs, nil slices and pointers as null, map keys
// sorted), so the value cannot drift from the JSON encoding of the types:
// a field added to any of them is in the next `go generate ./rego`, and
// the test of this package fails until it is. A type the rules below do
// not cover (a custom MarshalJSON other than classify.Span's, an interface
// without an override, a float) stops the generator instead of being
// guessed at.
//
// What is not derived is small and only tunes the builder: which strings
// are names or enums (their terms are shared across inputs), which types'
// terms are cached whole, and the input's own members that are not its
// JSON (inputOverrides).

// inputRoots are the types described, with the signature of their
// function when it is not the plain (e enc, v *T).
var inputRoots = []struct {
	t      reflect.Type
	params string
	// extra is code written after the members, before the object ends.
	extra string
}{
	{t: reflect.TypeFor[policy.Input](), params: "f *policy.Facts, foreign *ast.Term", extra: "e.key(kFacts)\ndescribePolicyFacts(e, f)"},
	{t: reflect.TypeFor[readstation.Station]()},
	{t: reflect.TypeFor[policy.Facts]()},
}

// inputOverrides are the input's members that are not the JSON encoding
// of its field (each written by the code given, which writes the key too):
// the mode is the effective one (the facts'), the station is described by
// type (describeStationMember: a *readstation.Station, a foreign type's
// value converted once, or nothing), and the config is the encoder's
// (encoded once per config, held by identity in the memo key).
var inputOverrides = map[string]string{
	"policy.Input.Mode":    "e.key(keyMode)\ne.enum(f.Mode)",
	"policy.Input.Station": "describeStationMember(e, v.Station, foreign)",
	"policy.Input.Config":  "e.key(keyConfig)\ne.config(v.Config)",
}

// stringKinds names the strings whose terms the builder shares: "name"
// for frequent values (programs, options, the cwd), "enum" for enum-like
// ones (kinds, sources, roles). For a slice, the kind of its elements.
// Every other string is "str".
var stringKinds = map[string]string{
	"policy.Input.Cwd":                    "name",
	"policy.Input.Shell":                  "enum",
	"classify.Report.Dialect":             "enum",
	"classify.Segment.Program":            "name",
	"classify.Segment.Name":               "name",
	"classify.Segment.Subcommand":         "name",
	"classify.Segment.Wrappers":           "enum",
	"classify.Segment.Categories":         "enum",
	"classify.Segment.Traits":             "enum",
	"classify.Segment.ConfigAlias":        "name",
	"classify.Arg.Dynamic":                "enum",
	"classify.Operand.Role":               "enum",
	"classify.Opt.Name":                   "name",
	"classify.Opt.Written":                "name",
	"classify.Opt.Effects":                "enum",
	"classify.CodeArg.Carries":            "enum",
	"classify.CodeArg.Via":                "name",
	"classify.Walk.HiddenEnv":             "name",
	"classify.Walk.Hint":                  "name",
	"classify.Exclude.Kind":               "enum",
	"classify.Produces.Other":             "name",
	"classify.Produces.DefaultRoot":       "enum",
	"classify.PathRef.Kind":               "enum",
	"classify.PathRef.Dynamic":            "enum",
	"classify.PathRef.Source":             "enum",
	"classify.Redirect.Op":                "enum",
	"classify.Redirect.Mode":              "enum",
	"classify.Finding.Code":               "enum",
	"classify.Finding.Dialect":            "enum",
	"classify.Substitution.Kind":          "enum",
	"classify.Substitution.Role":          "enum",
	"classify.Substitution.OptionEffects": "enum",
	"classify.Substitution.ShiftRoles":    "enum",
	"readstation.Read.Kind":               "enum",
	"readstation.Read.Source":             "enum",
	"readstation.Read.Verdict":            "enum",
	"policy.Facts.Mode":                   "enum",
	"policy.Facts.Home":                   "name",
	"policy.Facts.Roots":                  "name",
}

// cachedTypes are the types whose whole term the builder caches across
// inputs, keyed by their value: spans' parts, arguments, findings and the
// like recur from one command to the next. A type with slices or pointers
// is cached only when they are empty, keyed by its other fields.
var cachedTypes = map[string]bool{
	"classify.Arg":        true,
	"classify.Operand":    true,
	"classify.Finding":    true,
	"classify.Context":    true,
	"classify.Cwd":        true,
	"policy.HasFlags":     true,
	"policy.SegmentFacts": true,
}

var (
	spanType      = reflect.TypeFor[classify.Span]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

// inputGen writes the generated file.
type inputGen struct {
	body    bytes.Buffer
	keys    map[string]bool
	done    map[reflect.Type]bool
	queue   []reflect.Type
	used    map[string]bool // hints used, to report stale ones
	mapKeys int
}

// inputFile returns rego/input_gen.go.
func inputFile() ([]byte, error) {
	g := &inputGen{keys: map[string]bool{}, done: map[reflect.Type]bool{}, used: map[string]bool{}}
	for _, r := range inputRoots {
		g.done[r.t] = true
		if err := g.structFunc(r.t, r.params, r.extra); err != nil {
			return nil, err
		}
	}
	for len(g.queue) > 0 {
		t := g.queue[0]
		g.queue = g.queue[1:]
		if err := g.structFunc(t, "", ""); err != nil {
			return nil, err
		}
	}
	for _, m := range []map[string]string{stringKinds, inputOverrides} {
		for k := range m {
			if !g.used[k] {
				return nil, fmt.Errorf("input: hint %s names no field described", k)
			}
		}
	}
	for k := range cachedTypes {
		if !g.used[k] {
			return nil, fmt.Errorf("input: cached type %s is not described", k)
		}
	}
	var out bytes.Buffer
	out.WriteString("// Code generated by shellgate-gen rego from the Go types of the policy input; DO NOT EDIT.\n\npackage rego\n\n")
	out.WriteString("import (\n\t\"github.com/open-policy-agent/opa/v1/ast\"\n\n\t\"github.com/shellgate/shellgate/classify\"\n\t\"github.com/shellgate/shellgate/policy\"\n\t\"github.com/shellgate/shellgate/readstation\"\n)\n\n")
	out.WriteString("// Object keys of the input, built once and shared by every input.\nvar (\n")
	names := make([]string, 0, len(g.keys))
	for k := range g.keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(&out, "\t%s = ast.StringTerm(%q)\n", keyVar(k), k)
	}
	out.WriteString(")\n")
	out.Write(g.body.Bytes())
	src, err := format.Source(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("input: %w\n%s", err, out.Bytes())
	}
	return src, nil
}

// typeName is the type as the generated code spells it.
func typeName(t reflect.Type) string {
	p := t.PkgPath()
	return p[strings.LastIndex(p, "/")+1:] + "." + t.Name()
}

// funcName is the name of the function describing struct type t.
func funcName(t reflect.Type) string {
	n := typeName(t)
	i := strings.Index(n, ".")
	return "describe" + strings.ToUpper(n[:1]) + n[1:i] + n[i+1:]
}

// keyVar is the variable holding the object key k.
func keyVar(k string) string {
	var b strings.Builder
	b.WriteString("key")
	for _, p := range strings.Split(k, "_") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

// field is a member of a struct's JSON object.
type field struct {
	name      string // the JSON key
	expr      string // the Go expression, from v
	hint      string // Type.Field, for the hints
	t         reflect.Type
	omitempty bool
}

// fields lists t's JSON members in encoding/json's order, embedded
// structs without a tag inlined.
func fields(t reflect.Type, prefix string) ([]field, error) {
	var fs []field
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			if sf.Type.Kind() != reflect.Struct {
				return nil, fmt.Errorf("input: %s.%s: only embedded structs are supported", typeName(t), sf.Name)
			}
			sub, err := fields(sf.Type, prefix+sf.Name+".")
			if err != nil {
				return nil, err
			}
			fs = append(fs, sub...)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		for _, o := range strings.Split(opts, ",") {
			if o != "" && o != "omitempty" {
				return nil, fmt.Errorf("input: %s.%s: json option %q is not supported", typeName(t), sf.Name, o)
			}
		}
		fs = append(fs, field{name: name, expr: "v." + prefix + sf.Name, hint: typeName(t) + "." + sf.Name, t: sf.Type, omitempty: strings.Contains(opts, "omitempty")})
	}
	seen := map[string]bool{}
	for _, f := range fs {
		if seen[f.name] {
			return nil, fmt.Errorf("input: %s: two fields are named %q in JSON", typeName(t), f.name)
		}
		seen[f.name] = true
	}
	return fs, nil
}

// valueComparable reports whether t is compared by value alone (no
// pointers, slices, maps or interfaces anywhere in it).
func valueComparable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !valueComparable(t.Field(i).Type) {
				return false
			}
		}
		return true
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return true
	}
	return false
}

func (g *inputGen) printf(format string, args ...any) { fmt.Fprintf(&g.body, format, args...) }

// structFunc writes the function describing struct type t.
func (g *inputGen) structFunc(t reflect.Type, params, extra string) error {
	fs, err := fields(t, "")
	if err != nil {
		return err
	}
	fn, tn := funcName(t), typeName(t)
	sig := "e enc, v *" + tn
	if params != "" {
		sig += ", " + params
	}
	var body bytes.Buffer
	body.WriteString("e.object()\n")
	for _, f := range fs {
		g.keys[f.name] = true
		var code string
		if o, ok := inputOverrides[f.hint]; ok {
			g.used[f.hint] = true
			code = o + "\n"
		} else {
			val, err := g.value(f.expr, f.t, f.hint, 0)
			if err != nil {
				return err
			}
			code = "e.key(" + keyVar(f.name) + ")\n" + val
			if f.omitempty {
				code = "if " + nonEmpty(f.expr, f.t) + " {\n" + code + "}\n"
			}
		}
		body.WriteString(code)
	}
	if extra != "" {
		body.WriteString(extra + "\n")
	}
	body.WriteString("e.end()\n")
	if !cachedTypes[tn] {
		g.printf("\n// %s describes a %s as its JSON encoding.\nfunc %s(%s) {\n%s}\n", fn, tn, fn, sig, body.String())
		return nil
	}
	g.used[tn] = true
	cache := strings.ToLower(t.Name()[:1]) + t.Name()[1:] + "Terms"
	if valueComparable(t) {
		g.printf("\nvar %s shared[%s]\n", cache, tn)
		g.printf("\n// %s describes a %s as its JSON encoding; the builder caches the term by value.\nfunc %s(%s) {\n", fn, tn, fn, sig)
		g.printf("cached(e, &%s, *v, func(e enc) {\n%s})\n}\n", cache, body.String())
		return nil
	}
	// Cache the values whose slices, maps and pointers are empty, keyed by
	// the other fields (equal keys then encode equally).
	var conds, keyFields, keyVals []string
	for _, f := range fs {
		if valueComparable(f.t) {
			keyFields = append(keyFields, fmt.Sprintf("f%d %s", len(keyFields), goType(f.t)))
			keyVals = append(keyVals, f.expr)
			continue
		}
		switch f.t.Kind() {
		case reflect.Slice, reflect.Map:
			if f.omitempty {
				conds = append(conds, "len("+f.expr+") == 0")
			} else {
				conds = append(conds, f.expr+" == nil")
			}
		case reflect.Pointer:
			conds = append(conds, f.expr+" == nil")
		default:
			return fmt.Errorf("input: cached type %s: field %s cannot be keyed", tn, f.hint)
		}
	}
	keyType := strings.ToLower(t.Name()[:1]) + t.Name()[1:] + "Key"
	g.printf("\n// %s is a %s with no slices, maps or pointers, for the cache.\ntype %s struct {\n%s\n}\n", keyType, tn, keyType, strings.Join(keyFields, "\n"))
	g.printf("\nvar %s shared[%s]\n", cache, keyType)
	g.printf("\n// %s describes a %s as its JSON encoding; the builder caches the term of one with no slices, maps or pointers.\nfunc %s(%s) {\n", fn, tn, fn, sig)
	g.printf("describe := func(e enc) {\n%s}\n", body.String())
	g.printf("if %s {\ncached(e, &%s, %s{%s}, describe)\nreturn\n}\ndescribe(e)\n}\n", strings.Join(conds, " && "), cache, keyType, strings.Join(keyVals, ", "))
	return nil
}

// goType spells a value-comparable field's type.
func goType(t reflect.Type) string {
	if t.PkgPath() == "" {
		return t.String()
	}
	return typeName(t)
}

// nonEmpty is the condition under which encoding/json writes an omitempty
// field.
func nonEmpty(expr string, t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return expr + ` != ""`
	case reflect.Bool:
		return expr
	case reflect.Slice, reflect.Map:
		return "len(" + expr + ") > 0"
	case reflect.Pointer, reflect.Interface:
		return expr + " != nil"
	case reflect.Struct:
		return "true"
	}
	return expr + " != 0"
}

// value returns the code describing expr, of type t.
func (g *inputGen) value(expr string, t reflect.Type, hint string, depth int) (string, error) {
	if t != spanType && t.Kind() != reflect.Pointer && (t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) || t.Implements(textType) || reflect.PointerTo(t).Implements(textType)) {
		return "", fmt.Errorf("input: %s: %s has its own JSON encoding, which the generator does not know", hint, t)
	}
	switch t.Kind() {
	case reflect.String:
		kind := "str"
		if k, ok := stringKinds[hint]; ok {
			g.used[hint] = true
			kind = k
		}
		if t.PkgPath() != "" {
			expr = "string(" + expr + ")"
		}
		return "e." + kind + "(" + expr + ")\n", nil
	case reflect.Bool:
		return "e.boolean(" + expr + ")\n", nil
	case reflect.Int:
		if t.PkgPath() != "" {
			expr = "int(" + expr + ")"
		}
		return "e.num(" + expr + ")\n", nil
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Uint8, reflect.Uint16:
		return "e.num(int(" + expr + "))\n", nil
	case reflect.Struct:
		if t == spanType {
			return "describeSpan(e, " + expr + ")\n", nil
		}
		g.want(t)
		return funcName(t) + "(e, &" + expr + ")\n", nil
	case reflect.Pointer:
		el := t.Elem()
		if el.Kind() != reflect.Struct {
			return "", fmt.Errorf("input: %s: a pointer to %s is not supported", hint, el)
		}
		if el == spanType {
			return "if " + expr + " == nil {\ne.null()\n} else {\ndescribeSpan(e, *" + expr + ")\n}\n", nil
		}
		if err := g.check(el, hint); err != nil {
			return "", err
		}
		g.want(el)
		return "describePointer(e, " + expr + ", " + funcName(el) + ")\n", nil
	case reflect.Slice:
		el := t.Elem()
		if el.Kind() == reflect.Uint8 {
			return "", fmt.Errorf("input: %s: []byte is not supported", hint)
		}
		// The common slices are described by the helpers of value.go
		// (null when nil, else an array of the elements).
		switch {
		case el.Kind() == reflect.Struct && el != spanType:
			if err := g.check(el, hint); err != nil {
				return "", err
			}
			g.want(el)
			return "describeSlice(e, " + expr + ", " + funcName(el) + ")\n", nil
		case el.Kind() == reflect.String:
			kind := "str"
			if k, ok := stringKinds[hint]; ok {
				g.used[hint] = true
				kind = k
			}
			return "describeStrings(e, " + expr + ", " + kind + "Kind)\n", nil
		case el == reflect.TypeFor[int]():
			return "describeInts(e, " + expr + ")\n", nil
		}
		i := fmt.Sprintf("i%d", depth)
		code, err := g.value(expr+"["+i+"]", el, hint, depth+1)
		if err != nil {
			return "", err
		}
		return "if " + expr + " == nil {\ne.null()\n} else {\ne.array()\nfor " + i + " := range " + expr + " {\n" + code + "}\ne.end()\n}\n", nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Key().PkgPath() != "" {
			return "", fmt.Errorf("input: %s: only maps with string keys are supported", hint)
		}
		if k := t.Elem().Kind(); k == reflect.Struct || k == reflect.Pointer {
			return "", fmt.Errorf("input: %s: a map of %s is not supported", hint, t.Elem())
		}
		k := fmt.Sprintf("k%d", depth)
		el, err := g.value(expr+"["+k+"]", t.Elem(), hint, depth+1)
		if err != nil {
			return "", err
		}
		g.mapKeys++
		cache := fmt.Sprintf("mapKeys%d", g.mapKeys)
		g.printf("\n// %s shares the terms of %s's keys.\nvar %s shared[string]\n", cache, hint, cache)
		return fmt.Sprintf("if %s == nil {\ne.null()\n} else {\nvar buf [32]string\ne.object()\nfor _, %s := range sortedKeys(%s, buf[:0]) {\ne.key(%s.get(%s, func() *ast.Term { return ast.StringTerm(%s) }))\n%s}\ne.end()\n}\n",
			expr, k, expr, cache, k, k, el), nil
	}
	return "", fmt.Errorf("input: %s: %s (%s) is not supported", hint, t, t.Kind())
}

// check refuses a struct type with its own JSON encoding.
func (g *inputGen) check(t reflect.Type, hint string) error {
	if t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType) || t.Implements(textType) || reflect.PointerTo(t).Implements(textType) {
		return fmt.Errorf("input: %s: %s has its own JSON encoding, which the generator does not know", hint, t)
	}
	return nil
}

// want queues struct type t for a function of its own.
func (g *inputGen) want(t reflect.Type) {
	if !g.done[t] {
		g.done[t] = true
		g.queue = append(g.queue, t)
	}
}
