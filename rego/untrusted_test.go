package rego

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
)

// untrustedModules widen in every way a module can, or tighten.
var untrustedModules = map[string]string{
	"allow": `package shellgate

allow contains {"code": "team-python", "message": "python is fine", "span": seg.span, "segment": i} if {
	some i, seg in input.report.segments
	seg.name == "python3"
}
`,
	"helper": `package shellgate

granted_segments contains i if {
	some i, seg in input.report.segments
	seg.name == "python3"
}
`,
	"deny": `package shellgate

deny contains {"code": "no-whoami", "message": "no whoami here", "span": seg.span, "segment": i} if {
	some i, seg in input.report.segments
	seg.name == "whoami"
}
`,
	"ask": `package shellgate

ask contains {"code": "ask-date", "message": "ask before date", "span": seg.span, "segment": i} if {
	some i, seg in input.report.segments
	seg.name == "date"
}
`,
}

// TestUntrustedModules: an untrusted module's deny and ask reasons apply,
// and nothing it allows does; DecideWhole shows what trusting it would do.
func TestUntrustedModules(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		module, cmd string
		mode        string
		want        string // action and codes of Decide
		whole       string // of DecideWhole
	}{
		{"allow", "python3 -c pass", "default", "ask interpreter", "allow team-python"},
		{"helper", "python3 -c pass", "default", "ask interpreter", "allow"},
		{"deny", "whoami", "default", "deny no-whoami", "deny no-whoami"},
		{"deny", "whoami; rm -rf /", "default", "deny destructive-critical no-whoami write-outside-roots", "deny destructive-critical no-whoami write-outside-roots"},
		{"deny", "pwd", "default", "allow", "allow"},
		{"ask", "date", "default", "ask ask-date", "ask ask-date"},
		{"ask", "date", "readonly", "deny ask-date", "deny ask-date"},
		{"ask", "date > out", "default", "ask ask-date redirect-write", "ask ask-date redirect-write"},
	} {
		t.Run(tc.module+" "+tc.cmd+" "+tc.mode, func(t *testing.T) {
			e, err := New(WithUntrustedModules(map[string]string{"/proj/pol/" + tc.module + ".rego": untrustedModules[tc.module]}))
			if err != nil {
				t.Fatal(err)
			}
			if !e.HasUntrusted() {
				t.Fatal("HasUntrusted is false")
			}
			if diff := cmp.Diff([]string{"/proj/pol/" + tc.module + ".rego"}, e.UntrustedFiles()); diff != "" {
				t.Errorf("UntrustedFiles (-want +got):\n%s", diff)
			}
			in := withWrites(policy.Input{Command: tc.cmd, Mode: tc.mode, Cwd: "/proj", Report: classify.Classify(tc.cmd), Config: policy.DefaultConfig()})
			d, err := e.Decide(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			w, err := e.DecideWhole(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summary(d)); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.whole, summary(w)); diff != "" {
				t.Errorf("DecideWhole (-want +got):\n%s", diff)
			}
		})
	}
}

// summary is the action and the sorted distinct codes.
func summary(d policy.Decision) string {
	seen := map[string]bool{}
	var codes []string
	for _, r := range d.Reasons {
		if !seen[r.Code] {
			seen[r.Code] = true
			codes = append(codes, r.Code)
		}
	}
	sortStrings(codes)
	s := string(d.Action)
	for _, c := range codes {
		s += " " + c
	}
	return s
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// TestTighten holds the engine's use of the untrusted-modules combination
// (policy/engine.rego, whose own tests are engine_test.rego) to the
// decisions it must give.
func TestTighten(t *testing.T) {
	e, err := New(WithMemo(0))
	if err != nil {
		t.Fatal(err)
	}
	r := func(code string) policy.Reason {
		return policy.Reason{Code: code, Message: code, Segment: -1, Span: &classify.Span{}}
	}
	d := func(a policy.Action, codes ...string) policy.Decision {
		out := policy.Decision{Action: a, Reasons: []policy.Reason{}}
		for _, c := range codes {
			out.Reasons = append(out.Reasons, r(c))
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		t, w, want policy.Decision
	}{
		{"whole allows", d(policy.Ask, "x"), d(policy.Allow, "granted"), d(policy.Ask, "x")},
		{"whole not proven", d(policy.Allow), d(policy.Ask, "not-proven"), d(policy.Allow)},
		{"whole asks", d(policy.Allow), d(policy.Ask, "y"), d(policy.Ask, "y")},
		{"whole denies", d(policy.Ask, "x"), d(policy.Deny, "z"), d(policy.Deny, "z")},
		{"same action: union", d(policy.Ask, "x"), d(policy.Ask, "x", "y"), d(policy.Ask, "x", "y")},
		{"trusted denies", d(policy.Deny, "x"), d(policy.Ask, "y"), d(policy.Deny, "x")},
		{"policy error", d(policy.Allow), d(policy.Deny, policy.PolicyError), d(policy.Deny, policy.PolicyError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := e.combine(context.Background(), "", tc.t, "untrusted-modules", map[string]any{"trusted": tc.t, "whole": tc.w})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnjudgedWritesDeny: an input whose report writes but whose writes
// the file-system model did not judge (policy.Input.Writes nil) is a
// policy error, never a decision made without knowing where they land.
func TestUnjudgedWritesDeny(t *testing.T) {
	e, err := New(WithMemo(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"rm -rf /", "touch x", "echo hi > out"} {
		d, err := e.Decide(context.Background(), policy.Input{Command: cmd, Cwd: "/proj", Report: classify.Classify(cmd)})
		if err != nil {
			t.Fatal(err)
		}
		if got := summary(d); got != "deny policy-error" {
			t.Errorf("%q: %s, want deny policy-error", cmd, got)
		}
	}
	// A command that writes nothing needs no judgment of writes.
	d, err := e.Decide(context.Background(), policy.Input{Command: "echo hi", Cwd: "/proj", Report: classify.Classify("echo hi")})
	if err != nil || d.Action != policy.Allow {
		t.Errorf("echo hi: %+v, %v", d, err)
	}
}
