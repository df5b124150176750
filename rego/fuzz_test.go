package rego

import (
	"context"
	"testing"

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
