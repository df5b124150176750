package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestInputGenerated fails when rego/input_gen.go is not what the policy
// input's Go types generate (a field was added, renamed or retagged and
// `go generate ./rego` was not run).
func TestInputGenerated(t *testing.T) {
	want, err := inputFile()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "rego", "input_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("rego/input_gen.go is stale; run go generate ./rego (-want +got):\n%s", diff)
	}
}

// TestInputRefusesUnknownEncodings checks that the generator stops on a
// type whose JSON it would have to guess instead of describing it.
func TestInputRefusesUnknownEncodings(t *testing.T) {
	tests := []struct {
		name string
		v    any
	}{
		{"float", withFloat{}},
		{"interface", withInterface{}},
		{"marshaler", withMarshaler{}},
		{"byte slice", withBytes{}},
		{"omitzero", withOmitzero{}},
	}
	for _, tc := range tests {
		g := &inputGen{keys: map[string]bool{}, done: map[reflect.Type]bool{}, used: map[string]bool{}}
		if err := g.structFunc(reflect.TypeOf(tc.v), "", ""); err == nil {
			t.Errorf("%s: generated a description", tc.name)
		}
	}
}

type (
	withFloat     struct{ F float64 }
	withInterface struct{ X any }
	withMarshaler struct{ T time.Time }
	withBytes     struct{ B []byte }
	withOmitzero  struct {
		N int `json:"n,omitzero"`
	}
)
