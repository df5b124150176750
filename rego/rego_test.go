package rego

import (
	"context"
	"testing"
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
