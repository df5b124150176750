package rego

import (
	"bytes"
	flagpkg "flag"
	"os"
	"testing"

	"github.com/shellgate/shellgate/rego/internal/irvm"
)

var updatePlan = flagpkg.Bool("update", false, "rewrite policy/shellgate.plan.bin")

// TestDefaultPlan: the default policy's plan embedded in shellgate is what
// OPA's planner makes of the embedded modules now (run with -update after
// changing them), and a default engine evaluates it.
func TestDefaultPlan(t *testing.T) {
	want, err := makePlanFile(DefaultModules(false))
	if err != nil {
		t.Fatal(err)
	}
	if *updatePlan {
		if err := os.WriteFile("policy/shellgate.plan.bin", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(defaultPlanFile, want) {
		t.Fatal("policy/shellgate.plan.bin is not the plan of the embedded policy: run go test ./rego -run TestDefaultPlan -update")
	}
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	d, err := defaultProgram()
	if err != nil {
		t.Fatal(err)
	}
	if e.vm != d.prog {
		t.Error("New() compiled the default policy instead of taking its generated plan")
	}
	if e.args != nil {
		t.Error("New() made the query for topdown up front")
	}
}

// TestProgramRoundTrip: a compiled plan read back from its binary form is
// written down the same, for the default policy and for one with user
// modules; what it decides is held to topdown by TestPlanMatchesTopdown
// (whose default engine runs the generated plan).
func TestProgramRoundTrip(t *testing.T) {
	for name, srcs := range map[string]map[string]string{
		"default":      DefaultModules(false),
		"with modules": withModules(DefaultModules(false), planModules),
	} {
		mods, _, err := parseModules(srcs, false)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := plan(queryArgs(mods))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := prog.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := irvm.UnmarshalProgram(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		again, err := back.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, again) {
			t.Errorf("%s: the plan read back is written down differently", name)
		}
	}
}

func withModules(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// FuzzUnmarshalProgram: reading a damaged compiled plan fails with an
// error, never a panic, and a plan it accepts is written down again
// without one.
func FuzzUnmarshalProgram(f *testing.F) {
	// Small plans make the seeds (the fuzzer is slow on the default
	// policy's 38 KB; TestProgramRoundTrip reads that one back).
	for _, src := range []string{
		"package shellgate\n\ndecision := {\"action\": \"allow\", \"reasons\": []}\n",
		"package shellgate\n\ndeny contains x if {\n\tsome x in input.report.segments\n\tcount(x.args) > 2\n}\n\ndecision := {\"action\": \"deny\", \"reasons\": deny} if {\n\tsome _ in deny\n} else := {\"action\": \"allow\", \"reasons\": []}\n",
	} {
		mods, _, err := parseModules(map[string]string{"floor.rego": src}, true)
		if err != nil {
			f.Fatal(err)
		}
		prog, err := plan(queryArgs(mods))
		if err != nil {
			f.Fatal(err)
		}
		b, err := prog.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte{1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := irvm.UnmarshalProgram(b)
		if err != nil {
			return
		}
		if _, err := p.MarshalBinary(); err != nil {
			t.Fatalf("a plan read back cannot be written down: %v", err)
		}
	})
}
