package rego

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/shellgate/shellgate/internal/corpusdata"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/rego/internal/irvm"
)

// TestPlanTakesTheDefaultPolicy: the default policy is evaluated from its
// plan, not by topdown (which would be a silent loss of speed).
func TestPlanTakesTheDefaultPolicy(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	if e.vm == nil {
		t.Fatalf("the default policy is not evaluated from its plan: %v", e.vmErr)
	}
	td, err := New(WithTopdown())
	if err != nil {
		t.Fatal(err)
	}
	if td.vm != nil {
		t.Error("WithTopdown: the engine still evaluates the plan")
	}
}

// TestPlanFallsBack: a policy the plan evaluator does not take (a with
// statement, the walk relation) is still decided, by topdown, and decided right.
func TestPlanFallsBack(t *testing.T) {
	for name, src := range map[string]string{
		"with": `package shellgate

deny contains {"code": "team-with", "message": "with", "span": null, "segment": -1, "rule": "team-with"} if {
	probe with input.command as "sleep 1"
}

probe if input.command == "sleep 1"
`,
		"walk": `package shellgate

deny contains {"code": "team-walk", "message": "walk", "span": null, "segment": -1, "rule": "team-walk"} if {
	walk(input.report, [_, "ls"])
}
`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, nil, WithMemo(0), WithModules(map[string]string{"team/" + name + ".rego": src}))
			if f.engine.vm != nil {
				t.Fatalf("the plan evaluator took a policy with %s", name)
			}
			if f.engine.vmErr == nil {
				t.Error("no reason given for evaluating with topdown")
			}
			d := f.decide(t, "ls", policy.ModeDefault)
			if d.Action != policy.Deny || len(d.Reasons) != 1 || d.Reasons[0].Code != "team-"+name {
				t.Errorf("ls: got %+v, want a deny team-%s", d, name)
			}
		})
	}
}

// planModules are user policies the equivalence test runs beside the
// default one: rules over sets, objects, comprehensions, every, else
// chains, functions and built-ins, so that the plan evaluator meets more of
// the language than the default policy uses.
var planModules = map[string]string{
	"team/extra.rego": `package shellgate

import rego.v1

long_pipeline if count(input.report.segments) > 4

ask contains {"code": "team-long", "message": sprintf("%d segments", [count(input.report.segments)]), "span": null, "segment": -1, "rule": "team-long"} if {
	long_pipeline
}

names := {seg.name | some seg in input.report.segments}

name_counts[n] := c if {
	some n in names
	c := count([1 | some seg in input.report.segments; seg.name == n])
}

deny contains {"code": "team-twice", "message": concat(" ", ["twice:", n]), "span": null, "segment": -1, "rule": "team-twice"} if {
	some n, c in name_counts
	c > 2
	startswith(n, "r")
}

all_known if {
	every seg in input.report.segments {
		seg.known
	}
}

first_word := split(trim_space(input.command), " ")[0]

kind := "short" if {
	count(input.command) < 10
} else := "medium" if {
	count(input.command) < 60
} else := "long"

ask contains {"code": "team-curl-long", "message": kind, "span": null, "segment": -1, "rule": "team-curl-long"} if {
	first_word == "curl"
	kind == "long"
	not all_known
}

option_names contains o.name if {
	some seg in input.report.segments
	some o in seg.options
}

ask contains {"code": "team-force", "message": "force", "span": seg.span, "segment": i, "rule": "team-force"} if {
	some i, seg in input.report.segments
	some o in seg.options
	"force" in o.effects
	regex.match("^-", o.written)
	not "--dry-run" in option_names
}

arg_index := {a.value: j | some seg in input.report.segments; some j, a in seg.args}

allow contains {"code": "team-echo", "message": "echo is fine", "span": seg.span, "segment": i, "rule": "team-echo"} if {
	some i, seg in input.report.segments
	seg.name == "echo"
	object.get(arg_index, "secret", -1) == -1
	[x, _] := [seg.name, i]
	x == "echo"
}
`,
}

// TestPlanMatchesTopdown decides every command of the shared corpus (and
// the decide table) in both modes, under the default policy and with user
// modules and grants, once from the plan and once with topdown, on a real
// workspace with the read station: the decisions must be equal.
func TestPlanMatchesTopdown(t *testing.T) {
	cmds := []string{}
	for _, c := range decideCases {
		cmds = append(cmds, c.cmd)
	}
	for _, name := range corpusdata.Files {
		more, err := corpusdata.Read(name)
		if err != nil {
			t.Logf("no shared corpus file: %v", err)
			continue
		}
		cmds = append(cmds, more...)
	}
	cmds = uniqueCommands(cmds)
	if testing.Short() && len(cmds) > 3000 {
		cmds = cmds[:3000]
	}
	grants := policy.DefaultConfig()
	grants.Grants = []string{"python3 -c *", "npm run *", "rm *.tmp", "git push", "make **", "cp **"}
	for _, tc := range []struct {
		name string
		cfg  *policy.Config
		opts []Option
	}{
		{"default", nil, nil},
		{"modules+grants", grants, []Option{WithModules(planModules)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.cfg, append([]Option{WithMemo(0)}, tc.opts...)...)
			if f.engine.vm == nil {
				t.Fatalf("not evaluated from the plan: %v", f.engine.vmErr)
			}
			td, err := New(append([]Option{WithMemo(0), WithTopdown()}, tc.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			actions := map[policy.Action]int{}
			bad := 0
			for _, cmd := range cmds {
				for _, in := range f.modeInputs(t, cmd) {
					mode := in.Mode
					got, err := f.engine.Decide(ctx, in)
					if err != nil {
						t.Fatal(err)
					}
					want, err := td.Decide(ctx, in)
					if err != nil {
						t.Fatal(err)
					}
					actions[got.Action]++
					if diff := cmp.Diff(want, got); diff != "" {
						if bad++; bad <= 10 {
							t.Errorf("%q [%s]: plan and topdown differ (-topdown +plan):\n%s", cmd, mode, diff)
						}
					}
				}
			}
			if bad > 10 {
				t.Errorf("%d more decisions differ", bad-10)
			}
			t.Logf("%d commands × 2 modes: %v", len(cmds), actions)
		})
	}
}

// TestInputRecordMatchesValue: the input built for the plan evaluator
// (Records and Lists) is, materialized, the value topdown evaluates, for
// the decide table and the agent corpus in both modes.
func TestInputRecordMatchesValue(t *testing.T) {
	cmds := []string{}
	for _, c := range decideCases {
		cmds = append(cmds, c.cmd)
	}
	if more, err := corpusdata.Read(corpusdata.Agent); err == nil {
		cmds = append(cmds, more...)
	}
	grants := policy.DefaultConfig()
	grants.Grants = []string{"python3 -c *", "git push", "cp **"}
	f := newFixture(t, grants, WithMemo(0))
	for _, cmd := range uniqueCommands(cmds) {
		for _, in := range f.modeInputs(t, cmd) {
			mode := in.Mode
			facts, err := prepare(&in)
			if err != nil {
				t.Fatal(err)
			}
			want, err := inputValue(&in, facts)
			if err != nil {
				t.Fatal(err)
			}
			rec, err := inputRecord(&in, facts)
			if err != nil {
				t.Fatal(err)
			}
			got := irvm.Materialize(rec)
			if ast.Compare(got.Value, want) != 0 {
				t.Fatalf("%q [%s]: the Records differ from the value:\n got %v\nwant %v", cmd, mode, got, want)
			}
		}
	}
}
