package irvm

import (
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
)

// TestCompareDeferred: a Record or List compares with any value exactly as
// its materialized value does.
func TestCompareDeferred(t *testing.T) {
	rec, _ := NewRecord([][2]*ast.Term{{ast.StringTerm("b"), ast.IntNumberTerm(2)}, {ast.StringTerm("a"), NewList([]*ast.Term{ast.StringTerm("x")})}})
	list := NewList([]*ast.Term{ast.BooleanTerm(true), rec})
	others := []*ast.Term{
		ast.NullTerm(), ast.BooleanTerm(false), ast.BooleanTerm(true), ast.IntNumberTerm(0), ast.StringTerm(""),
		ast.ArrayTerm(), ast.ArrayTerm(ast.BooleanTerm(true)), ast.ObjectTerm(), ast.ObjectTerm([2]*ast.Term{ast.StringTerm("a"), ast.IntNumberTerm(1)}),
		ast.SetTerm(), ast.SetTerm(ast.IntNumberTerm(1)), rec, list, Materialize(rec), Materialize(list),
	}
	for _, d := range []*ast.Term{rec, list} {
		for _, o := range others {
			want := ast.Compare(Materialize(d).Value, Materialize(o).Value)
			if got := compare(d, o); sign(got) != sign(want) {
				t.Errorf("compare(%v, %v) = %d, want %d", d, o, got, want)
			}
			want = ast.Compare(Materialize(o).Value, Materialize(d).Value)
			if got := compare(o, d); sign(got) != sign(want) {
				t.Errorf("compare(%v, %v) = %d, want %d", o, d, got, want)
			}
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
