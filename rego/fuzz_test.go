package rego

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
)

// FuzzDecide: any command, through the classifier and the default policy
// (without the station), gives a decision without a policy error; one that
// does not parse is never allowed; readonly never asks.
func FuzzDecide(f *testing.F) {
	for _, c := range decideCases {
		f.Add(c.cmd)
	}
	e, err := New(WithMemo(0))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		r := classify.Classify(cmd)
		for _, mode := range []string{policy.ModeDefault, policy.ModeReadonly} {
			d, err := e.Decide(context.Background(), withWrites(policy.Input{Command: cmd, Mode: mode, Cwd: "/w", Report: r}))
			if err != nil {
				t.Fatal(err)
			}
			checkDecision(t, cmd, mode, d)
			if !r.Parse.OK && d.Action == policy.Allow {
				t.Errorf("%q [%s]: unparsable and allowed", cmd, mode)
			}
		}
	})
}

// FuzzPlanMatchesTopdown: for any command, the decision evaluated from the
// plan (irvm, on Records) equals topdown's, in both modes, under the
// default policy and with the user modules of TestPlanMatchesTopdown.
func FuzzPlanMatchesTopdown(f *testing.F) {
	for _, c := range decideCases {
		f.Add(c.cmd)
	}
	type pair struct{ plan, td *Engine }
	var engines []pair
	for _, opts := range [][]Option{nil, {WithModules(planModules)}} {
		p, err := New(append([]Option{WithMemo(0)}, opts...)...)
		if err != nil {
			f.Fatal(err)
		}
		if p.vm == nil {
			f.Fatalf("not evaluated from the plan: %v", p.vmErr)
		}
		td, err := New(append([]Option{WithMemo(0), WithTopdown()}, opts...)...)
		if err != nil {
			f.Fatal(err)
		}
		engines = append(engines, pair{p, td})
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		r := classify.Classify(cmd)
		for _, mode := range []string{policy.ModeDefault, policy.ModeReadonly} {
			in := withWrites(policy.Input{Command: cmd, Mode: mode, Cwd: "/w", Report: r})
			for _, e := range engines {
				got, err := e.plan.Decide(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				want, err := e.td.Decide(context.Background(), in)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%q [%s]: plan and topdown differ (-topdown +plan):\n%s", cmd, mode, diff)
				}
			}
		}
	})
}
