package rego

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	opa "github.com/open-policy-agent/opa/v1/rego"

	"github.com/shellgate/shellgate/readstation"
)

// TestRegoUnitTests runs the default policy's *_test.rego through OPA's
// tester: any failing case, any error, or no tests at all fails.
func TestRegoUnitTests(t *testing.T) {
	res, err := RunTests(context.Background(), nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 {
		t.Fatal("no Rego tests ran")
	}
	for _, r := range res {
		switch {
		case r.Error != nil:
			t.Errorf("%s (%s): error: %v", r.Name, r.Location, r.Error)
		case r.Skipped:
			t.Errorf("%s (%s): skipped", r.Name, r.Location)
		case !r.Pass:
			t.Errorf("%s (%s): FAIL", r.Name, r.Location)
		}
	}
	t.Logf("%d Rego test cases", len(res))
}

// TestKnownVerdictsMatchStation: the policy's known_verdicts and the
// station's verdicts are the same set. Go flags an unknown verdict
// (facts.has.station_unknown_verdict) against readstation.Verdicts, and
// the policy's rule reads that flag first: a verdict the station knows and
// the policy does not would otherwise pass unasked.
func TestKnownVerdictsMatchStation(t *testing.T) {
	var args []func(*opa.Rego)
	for name, src := range DefaultModules(false) {
		args = append(args, opa.Module(name, src))
	}
	args = append(args, opa.Query("data.shellgate.known_verdicts"))
	rs, err := opa.New(args...).Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("evaluating known_verdicts: %v, %v", rs, err)
	}
	var got []string
	for _, v := range rs[0].Expressions[0].Value.([]any) {
		got = append(got, v.(string))
	}
	var want []string
	for _, v := range readstation.Verdicts {
		want = append(want, string(v))
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("known_verdicts (-station +policy):\n%s", diff)
	}
}
