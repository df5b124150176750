package gate

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// TestFrontDoorAgrees: Explain's and Grant's decisions are Decide's, on
// the Gate and on its Pipeline alike; Grant decides in default mode even
// when the request says readonly.
func TestFrontDoorAgrees(t *testing.T) {
	g, err := New(WithCwd(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		cmd, mode  string
		wantGrant  []string
		wantAction policy.Action // of Grant
	}{
		{"git status", "", []string{}, policy.Allow},
		{"npm test", "", []string{"npm test"}, policy.Ask},
		{"npm test", policy.ModeReadonly, []string{"npm test"}, policy.Ask},
		{"cat ~/.ssh/id_rsa", "", []string{}, policy.Deny},
	} {
		req := Request{Command: tc.cmd, Mode: tc.mode, Shell: "bash"}
		d, err := g.Decide(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		x, err := g.Explain(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(d.Codes(), x.Codes()); diff != "" || d.Action != x.Action {
			t.Errorf("%s: Explain %s, Decide %s (-decide +explain):\n%s", tc.cmd, x.Action, d.Action, diff)
		}
		if len(x.Rules) == 0 || x.Facts == nil || len(x.Files) == 0 {
			t.Errorf("%s: explanation without rules, facts or files: %+v", tc.cmd, x)
		}
		// In the environment the gate judges in (New without WithEnv:
		// this process's); a pipeline's own knows nothing of it.
		in, _, err := g.Pipeline().Input(policy.Request{Command: tc.cmd, Cwd: g.Cwd(), Mode: tc.mode, Shell: classify.DialectBash, Env: readstation.ProcessEnv})
		if err != nil {
			t.Fatal(err)
		}
		px, err := g.Pipeline().Explain(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if px.Decision.Action != d.Action || len(px.Rules) != len(x.Rules) {
			t.Errorf("%s: Pipeline.Explain %s with %d rules, Gate.Explain %s with %d", tc.cmd, px.Decision.Action, len(px.Rules), x.Action, len(x.Rules))
		}
		for _, gr := range []func() (Grants, error){
			func() (Grants, error) { return g.Grant(ctx, req) },
			func() (Grants, error) { return g.Pipeline().Grant(ctx, in) },
		} {
			got, err := gr()
			if err != nil {
				t.Fatal(err)
			}
			var pats []string = []string{}
			for _, p := range got.Grants {
				pats = append(pats, p.Pattern)
			}
			if diff := cmp.Diff(tc.wantGrant, pats); diff != "" || got.Action != tc.wantAction || got.Command != tc.cmd {
				t.Errorf("%s: grant %s %q (-want +got):\n%s", tc.cmd, got.Action, got.Command, diff)
			}
			if (got.Nothing() == "") != (len(got.Grants) > 0) {
				t.Errorf("%s: Nothing() = %q with %d grants", tc.cmd, got.Nothing(), len(got.Grants))
			}
		}
	}
}

// TestExplainInternalError: a panic while deciding is a deny with code
// internal-error, and Explain says so without tracing anything.
func TestExplainInternalError(t *testing.T) {
	g, err := New(WithCwd(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	old := checkHook
	checkHook = func() { panic("boom") }
	defer func() { checkHook = old }()
	x, err := g.Explain(context.Background(), Request{Command: "ls"})
	if err != nil {
		t.Fatal(err)
	}
	if x.Action != policy.Deny || x.Reasons[0].Code != policy.InternalError || x.Rules != nil {
		t.Fatalf("explanation %+v", x)
	}
	if _, err := g.Explain(context.Background(), Request{Command: ""}); err == nil {
		t.Fatal("Explain of an empty command: no error")
	}
}

// TestClassifier: the classifier of a config sees its read-only programs
// and its shell; a pipeline's is the same.
func TestClassifier(t *testing.T) {
	cfg := policy.DefaultConfig()
	cfg.ReadOnlyPrograms = []string{"mytool"}
	cfg.Shell = "zsh"
	c, err := NewClassifier(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPipeline(PipelineOptions{Resolved: &policy.Resolved{Config: cfg}, NoStation: true})
	if err != nil {
		t.Fatal(err)
	}
	bare, err := NewClassifier(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		c     *Classifier
		shell classify.Dialect
		rev   bool
		want  string // dialect
	}{
		{"config", c, classify.DialectUnknown, true, "zsh"},
		{"config, bash asked", c, classify.DialectBash, true, "bash"},
		{"pipeline", p.Classifier(), classify.DialectUnknown, true, "zsh"},
		{"no config", bare, classify.DialectUnknown, false, "bash+zsh"},
	} {
		r := tc.c.Classify("mytool x", tc.shell)
		if r.Reversible != tc.rev || r.Dialect != tc.want {
			t.Errorf("%s: reversible %v dialect %q, want %v %q", tc.name, r.Reversible, r.Dialect, tc.rev, tc.want)
		}
	}
	cfg.ReadOnlyPrograms = []string{"rm"}
	if _, err := NewClassifier(cfg, nil); err == nil {
		t.Error("rm as a read-only program: no error")
	}
}
