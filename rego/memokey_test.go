package rego

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// TestMemoKeyCoversEveryField changes every field of a rich report, station
// and facts, one at a time, and requires the memo key to change: a field
// the key missed would let two different inputs share a decision.
func TestMemoKeyCoversEveryField(t *testing.T) {
	f := newFixture(t, &policy.Config{Grants: []string{"make lint"}})
	cmd := "cd src && FOO=1 timeout 5 grep -rn --color=auto -e x *.go ~/y | head -3 > out 2>&1; make lint; git -C .. log -1 &"
	in := f.input(t, cmd, policy.ModeDefault)
	facts := policy.ComputeFacts(&in)
	base, ok := keyFor(&in, facts)
	if !ok {
		t.Fatal("no key")
	}
	n := 0
	check := func(what string) {
		k, _ := keyFor(&in, facts)
		if k == base {
			t.Errorf("changing %s does not change the memo key", what)
		}
		n++
	}
	mutateAll(t, reflect.ValueOf(in.Report).Elem(), "report", check)
	mutateAll(t, reflect.ValueOf(in.Station.(*readstation.Station)).Elem(), "station", check)
	mutateAll(t, reflect.ValueOf(facts).Elem(), "facts", func(what string) {
		if what == "facts.Mode" || strings.HasPrefix(what, "facts.Index") || strings.HasPrefix(what, "facts.Has") {
			return // in the key as the mode; derived from the rest (index, flags)
		}
		check(what)
	})
	if n < 100 {
		t.Errorf("only %d fields changed: the sample input is too poor", n)
	}
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
		// Maps (facts.Index) are derived; covered by the caller's filter.
		check(path)
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

var _ = classify.Span{}
