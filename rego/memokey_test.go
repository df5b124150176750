package rego

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// richInput is an input whose report, station and facts have most of
// their fields set, for the tests that change each field in turn.
func richInput(t *testing.T) (policy.Input, *policy.Facts) {
	f := newFixture(t, &policy.Config{Grants: []string{"make lint"}})
	cmd := "cd src && FOO=1 timeout 5 grep -rn --color=auto -e x *.go ~/y | head -3 > out 2>&1; make lint; git -C .. log -1 &"
	in := f.input(t, cmd, policy.ModeDefault)
	return in, policy.ComputeFacts(&in)
}

// mutateInput changes every leaf of in's report and station and of facts,
// one at a time (growing empty slices and setting nil pointers so that
// their fields are reached too), and calls check after each change. It is
// structural: a field added to any of those types is changed too.
func mutateInput(t *testing.T, in *policy.Input, facts *policy.Facts, check func(what string)) int {
	n := 0
	count := func(what string) { n++; check(what) }
	mutateAll(t, reflect.ValueOf(in.Report).Elem(), "report", count)
	mutateAll(t, reflect.ValueOf(in.Station.(*readstation.Station)).Elem(), "station", count)
	mutateAll(t, reflect.ValueOf(facts).Elem(), "facts", count)
	if n < 150 {
		t.Errorf("only %d fields changed: the sample input is too poor", n)
	}
	return n
}

// TestMemoKeyCoversEveryField changes every field of a rich report, station
// and facts, one at a time, and requires the memo key to change: a field
// the key missed would let two different inputs share a decision.
func TestMemoKeyCoversEveryField(t *testing.T) {
	in, facts := richInput(t)
	base, err := keyFor(&in, facts)
	if err != nil {
		t.Fatal(err)
	}
	mutateInput(t, &in, facts, func(what string) {
		k, err := keyFor(&in, facts)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if k == base {
			t.Errorf("changing %s does not change the memo key", what)
		}
	})
}

// TestInputValueCoversEveryField changes every field of a rich report,
// station and facts, one at a time, and requires the input value the
// policy sees to stay exactly the JSON encoding of the input (the report's
// stable contract): a field the value missed, or encoded otherwise than
// its JSON, fails here. With TestMemoKeyCoversEveryField (the key is a
// hash of this value) the JSON, the value and the key cannot drift apart.
func TestInputValueCoversEveryField(t *testing.T) {
	in, facts := richInput(t)
	mutateInput(t, &in, facts, func(what string) {
		got, err := inputValue(&in, facts)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want := jsonInput(t, &in, facts)
		if got.Compare(want) != 0 {
			gj, _ := ast.JSON(got)
			wj, _ := ast.JSON(want)
			t.Errorf("after changing %s the input differs from its JSON (-json +value):\n%s", what, cmp.Diff(wj, gj))
		}
	})
}

// jsonInput is the input document as the JSON encoding of its parts.
func jsonInput(t *testing.T, in *policy.Input, facts *policy.Facts) ast.Value {
	t.Helper()
	doc := map[string]any{"command": in.Command, "mode": facts.Mode, "cwd": in.Cwd, "report": in.Report, "station": in.Station, "config": in.Config, "facts": facts}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ast.ValueFromReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// mutateAll changes each leaf of v in turn, calls check, and restores it.
// Empty slices and nil pointers get one element so that their fields are
// reached too.
func mutateAll(t *testing.T, v reflect.Value, path string, check func(string)) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			mutateAll(t, v.Field(i), path+"."+v.Type().Field(i).Name, check)
		}
	case reflect.Slice:
		if v.Len() == 0 {
			old := v.Interface()
			v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
			check(path + " (grown)")
			mutateAll(t, v.Index(0), path+"[0]", check)
			v.Set(reflect.ValueOf(old))
			return
		}
		for i := 0; i < v.Len(); i++ {
			mutateAll(t, v.Index(i), fmt.Sprintf("%s[%d]", path, i), check)
		}
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
			check(path + " (set)")
			mutateAll(t, v.Elem(), path, check)
			v.Set(reflect.Zero(v.Type()))
			return
		}
		mutateAll(t, v.Elem(), path, check)
	case reflect.Map:
		k := reflect.New(v.Type().Key()).Elem()
		if k.Kind() != reflect.String {
			t.Fatalf("%s: cannot mutate a map keyed by %s", path, k.Kind())
		}
		k.SetString("mutated")
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
			defer v.Set(reflect.Zero(v.Type()))
		}
		v.SetMapIndex(k, reflect.Zero(v.Type().Elem()))
		check(path + " (grown)")
		v.SetMapIndex(k, reflect.Value{})
	case reflect.String:
		old := v.String()
		v.SetString(old + "x")
		check(path)
		v.SetString(old)
	case reflect.Int:
		old := v.Int()
		v.SetInt(old + 1)
		check(path)
		v.SetInt(old)
	case reflect.Bool:
		old := v.Bool()
		v.SetBool(!old)
		check(path)
		v.SetBool(old)
	default:
		t.Fatalf("%s: cannot mutate a %s", path, v.Kind())
	}
}

// TestMemoKeyMatchesValue builds the value and the key of many inputs
// (commands, modes, configs, a station of a foreign type) and requires
// that two inputs have the same key exactly when the policy sees the same
// document: the memo is sound (different documents never share a key) and
// answers every repeat (equal documents always do).
func TestMemoKeyMatchesValue(t *testing.T) {
	project := &policy.Config{Grants: []string{"python3 -c *", "env **"}, Source: policy.SourceProject}
	cmds := []string{
		"git status", "git status ", "git  status", "ls -la src/", "ls -la src", "cat README.md", "cat README.md notes.txt",
		"cd src && grep -rn TODO . | head -20", "cd src && grep -rn TODO . | head -2", "echo hi > out.txt", "echo hi >> out.txt",
		"python3 -c 'print(1)' && env FOO=1 touch x", "find . -name '*.go' -exec rm {} +", "rm -rf /", "cat .env ~/.ssh/id_rsa",
		"for f in src/*.go; do wc -l $f; done", "ls |", "", "curl x | sh", "git push --force origin main",
	}
	type doc struct {
		what string
		key  memoKey
		val  ast.Value
	}
	var docs []doc
	for _, cfg := range []*policy.Config{nil, project} {
		f := newFixture(t, cfg)
		for _, mode := range []string{policy.ModeDefault, policy.ModeReadonly} {
			for _, c := range cmds {
				for _, foreign := range []bool{false, true, false, true} {
					// Each input is made twice, from scratch: the same
					// document from different Go values.
					in := f.input(t, c, mode)
					if foreign {
						// A station of a type this package does not know
						// reaches the policy as its JSON.
						b, err := json.Marshal(in.Station)
						if err != nil {
							t.Fatal(err)
						}
						var m map[string]any
						if err := json.Unmarshal(b, &m); err != nil {
							t.Fatal(err)
						}
						in.Station = m
					}
					facts, err := prepare(&in)
					if err != nil {
						t.Fatal(err)
					}
					in.Mode = facts.Mode
					k, err := keyFor(&in, facts)
					if err != nil {
						t.Fatal(err)
					}
					v, err := inputValue(&in, facts)
					if err != nil {
						t.Fatal(err)
					}
					docs = append(docs, doc{fmt.Sprintf("%q mode %s config %v foreign station %v", c, mode, cfg != nil, foreign), k, v})
				}
			}
		}
	}
	same := 0
	for i := range docs {
		for j := i + 1; j < len(docs); j++ {
			a, b := docs[i], docs[j]
			eqVal := a.val.Compare(b.val) == 0
			switch {
			case a.key == b.key && !eqVal:
				t.Errorf("%s and %s share a memo key but the policy sees different documents", a.what, b.what)
			case a.key != b.key && eqVal && a.key.cfg == b.key.cfg:
				t.Errorf("%s and %s are the same document under different memo keys", a.what, b.what)
			case eqVal:
				same++
			}
		}
	}
	if same == 0 {
		t.Errorf("no two of the %d inputs are the same document: the test does not reach a repeat", len(docs))
	}
}
