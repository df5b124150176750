package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/rego"
)

// memSource is a policy source held in memory: the bundle in force (or
// why there is none) and the decisions logged, as "revision command
// action".
type memSource struct {
	mu   sync.Mutex
	b    *rego.Bundle
	why  string
	logs []string
}

func (s *memSource) Bundle() (*rego.Bundle, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b, s.why
}

func (s *memSource) Log(_ context.Context, b *rego.Bundle, in policy.Input, d policy.Decision) {
	rev := ""
	if b != nil {
		rev = b.Revision
	}
	s.mu.Lock()
	s.logs = append(s.logs, fmt.Sprintf("%s %s %s", rev, in.Command, d.Action))
	s.mu.Unlock()
}

func (s *memSource) set(b *rego.Bundle, why string) {
	s.mu.Lock()
	s.b, s.why, s.logs = b, why, nil
	s.mu.Unlock()
}

func (s *memSource) logged() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.logs...)
}

// memBundle is a bundle of the default policy and a rule that denies the
// program deny (code org-deny).
func memBundle(t *testing.T, rev, deny string) *rego.Bundle {
	t.Helper()
	mods := rego.DefaultModules(false)
	mods["org.rego"] = fmt.Sprintf(`package shellgate

import rego.v1

deny contains {"code": "org-deny", "message": "not here", "span": s.span} if {
	some s in input.report.segments
	s.program == %q
}
`, deny)
	return &rego.Bundle{Revision: rev, Modules: mods, Config: policy.DefaultConfig()}
}

// TestDeciderSource: a decider on a policy source denies while it has no
// bundle (saying why, as the source says it now), decides with the bundle
// in force and with the next one once it changes, lets a project config
// only tighten it, and hands every decision to the source's log exactly
// once, whichever way it was asked (Check, a gate, Explain, Grant).
func TestDeciderSource(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	ws, proj := filepath.Join(home, "ws"), filepath.Join(home, "proj")
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(proj, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(proj, policy.ConfigFileName), []byte("mode: readonly\ngrants: [\"touch x\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src := &memSource{why: "nothing downloaded yet"}
	d := NewSourceDecider(src, PipelineOptions{})
	check := func(cmd, cwd string) CheckResult {
		t.Helper()
		res, err := d.Check(ctx, policy.Request{Command: cmd, Cwd: cwd})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	codes := func(r CheckResult) []string {
		var out []string
		for _, x := range r.Reasons {
			out = append(out, x.Code)
		}
		return out
	}

	for _, why := range []string{"nothing downloaded yet", "the server said 404"} {
		src.set(nil, why)
		r := check("ls", ws)
		if r.Action != policy.Deny || !cmp.Equal(codes(r), []string{rego.PolicyBundleUnavailable}) || r.Reasons[0].Message != why || !r.Reversible {
			t.Errorf("no bundle (%s): %+v", why, r)
		}
		if diff := cmp.Diff([]string{" ls deny"}, src.logged()); diff != "" {
			t.Errorf("no bundle: the log (-want +got):\n%s", diff)
		}
	}

	for _, tc := range []struct {
		rev, deny, cmd, cwd string
		action              policy.Action
		codes               []string
	}{
		{"v1", "curl", "curl x", ws, policy.Deny, []string{"org-deny"}},
		{"v1", "curl", "ls", ws, policy.Allow, nil},
		{"v1", "curl", "touch x", ws, policy.Ask, nil},
		{"v1", "curl", "touch x", proj, policy.Deny, nil}, // the project says readonly; its grant does not apply
		{"v2", "ls", "ls", ws, policy.Deny, []string{"org-deny"}},
		{"v2", "ls", "curl x", ws, policy.Ask, nil},
	} {
		b, _ := src.Bundle()
		if b == nil || b.Revision != tc.rev {
			b = memBundle(t, tc.rev, tc.deny)
		}
		src.set(b, "") // and the log is emptied
		r := check(tc.cmd, tc.cwd)
		if r.Action != tc.action || (tc.codes != nil && !cmp.Equal(codes(r), tc.codes)) {
			t.Errorf("%s: %s in %s: %s %v; want %s %v", tc.rev, tc.cmd, filepath.Base(tc.cwd), r.Action, codes(r), tc.action, tc.codes)
		}
		want := []string{fmt.Sprintf("%s %s %s", tc.rev, tc.cmd, tc.action)}
		if diff := cmp.Diff(want, src.logged()); diff != "" {
			t.Errorf("%s: %s: the log (-want +got):\n%s", tc.rev, tc.cmd, diff)
		}
	}

	// Every way in logs each decision once.
	src.set(memBundle(t, "v3", "curl"), "")
	g, err := d.GateFor(ws)
	if err != nil {
		t.Fatal(err)
	}
	if gd, err := g.Decide(ctx, Request{Command: "curl x"}); err != nil || gd.Action != policy.Deny {
		t.Fatalf("the gate: %+v, %v", gd, err)
	}
	in, _, _ := d.Input(policy.Request{Command: "ls", Cwd: ws})
	if x, err := d.Explain(ctx, in); err != nil || x.Decision.Action != policy.Allow || len(x.Rules) == 0 {
		t.Fatalf("Explain: %+v, %v", x, err)
	}
	in, _, _ = d.Input(policy.Request{Command: "npm test", Cwd: ws})
	if gr, err := d.Grant(ctx, in); err != nil || len(gr.Grants) == 0 {
		t.Fatalf("Grant: %+v, %v", gr, err)
	}
	if diff := cmp.Diff([]string{"v3 curl x deny", "v3 ls allow", "v3 npm test ask"}, src.logged()); diff != "" {
		t.Errorf("the log (-want +got):\n%s", diff)
	}
}
