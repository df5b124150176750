package rego

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
)

// TestLoadErrors: a policy author's mistakes are refused at load, with the
// file (and line and column where OPA has them) named.
func TestLoadErrors(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string // substrings of the error
	}{
		{"syntax", "package shellgate\n\ndeny contains x if {\n\tx := \n}\n", []string{"user/bad.rego:5:1: rego_parse_error"}},
		{"outside package", "package other\n\ndeny contains {\"code\": \"x\", \"message\": \"y\"} if true\n", []string{"user/bad.rego:1: module is in other; shellgate modules must be in package shellgate"}},
		{"string reason", "package shellgate\n\ndeny contains \"no\" if true\n", []string{"user/bad.rego:3: deny yields string, not a reason object"}},
		{"reason without code", "package shellgate\n\nask contains {\"message\": \"m\"} if true\n", []string{"user/bad.rego:3: ask yields a reason without \"code\""}},
		{"bound reason without message", "package shellgate\n\ndeny contains r if {\n\tr := {\"code\": \"c\"}\n}\n", []string{"user/bad.rego:3: deny yields a reason without \"message\""}},
		{"numeric code", "package shellgate\n\ndeny contains {\"code\": 1, \"message\": \"m\"} if true\n", []string{"user/bad.rego:3: deny yields a reason whose \"code\" is number"}},
		{"complete rule", "package shellgate\n\ndeny := {\"code\": \"c\", \"message\": \"m\"}\n", []string{"user/bad.rego:3: deny must be a partial set"}},
		{"http.send", "package shellgate\n\ndeny contains {\"code\": \"c\", \"message\": m} if {\n\tm := http.send({\"method\": \"get\", \"url\": \"http://x\"}).body\n}\n", []string{"user/bad.rego:4:", "undefined function http.send", "must be deterministic"}},
		{"time.now_ns", "package shellgate\n\nask contains {\"code\": \"c\", \"message\": \"m\"} if time.now_ns() > 0\n", []string{"user/bad.rego:3:", "undefined function time.now_ns"}},
		{"rand", "package shellgate\n\nask contains {\"code\": \"c\", \"message\": \"m\"} if rand.intn(\"x\", 2) > 0\n", []string{"undefined function rand.intn"}},
		{"undefined ref", "package shellgate\n\nask contains {\"code\": \"c\", \"message\": \"m\"} if nosuch(1)\n", []string{"user/bad.rego:3:", "rego_type_error"}},
		{"own decision", "package shellgate\n\ndecision := 1\n", []string{"user/bad.rego:3: decision is the default policy's"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(WithModules(map[string]string{"user/bad.rego": c.src}))
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestPolicyDirs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("team/no_make.rego", `package shellgate

# Our team never runs make clean.
deny contains {
	"code": "no-make-clean",
	"message": "make clean wipes the cache",
	"span": seg.span,
	"segment": i,
} if {
	some i, seg in input.report.segments
	seg.name == "make"
	seg.args[0].value == "clean"
}
`)
	// Tests and non-Rego files under the directory are left out.
	write("team/no_make_test.rego", "package shellgate_test\n\ntest_x if false\n")
	write("README.md", "not rego")
	f := newFixture(t, nil, WithPolicyDirs(dir))
	d := f.decide(t, "make clean", policy.ModeDefault)
	if d.Action != policy.Deny || len(d.Reasons) != 1 {
		t.Fatalf("decision %+v", d)
	}
	r := d.Reasons[0]
	want := policy.Reason{Code: "no-make-clean", Message: "make clean wipes the cache", Span: &classify.Span{Start: 0, End: 10}, Segment: 0,
		Rule: filepath.Join(dir, "team/no_make.rego") + ":4"}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("reason (-want +got):\n%s", diff)
	}
	if d := f.decide(t, "make lint", policy.ModeDefault); d.Action != policy.Ask {
		t.Errorf("make lint: %s", d.Action)
	}
	if _, err := New(WithPolicyDirs(filepath.Join(dir, "nope"))); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("missing dir: %v", err)
	}
	if _, err := New(WithPolicyDirs(filepath.Join(dir, "README.md"))); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("file as dir: %v", err)
	}
}

// TestFailClosed: whatever goes wrong in evaluation is a deny with code
// policy-error, never an allow.
func TestFailClosed(t *testing.T) {
	report := classify.Classify("echo hi")
	cases := []struct {
		name, src string
		want      string // substring of the message
	}{
		{"undefined decision", "package shellgate\n\ndecision := 1 if false\n", "undefined"},
		{"not an object", "package shellgate\n\ndecision := \"allow\"\n", "not an object"},
		{"bad action", "package shellgate\n\ndecision := {\"action\": \"maybe\", \"reasons\": []}\n", "not allow, ask or deny"},
		{"reasons not a list", "package shellgate\n\ndecision := {\"action\": \"allow\", \"reasons\": \"none\"}\n", "not a set or an array"},
		{"no reasons", "package shellgate\n\ndecision := {\"action\": \"allow\"}\n", "no reasons"},
		{"ask without reason", "package shellgate\n\ndecision := {\"action\": \"ask\", \"reasons\": []}\n", "without a reason"},
		{"reason not object", "package shellgate\n\ndecision := {\"action\": \"deny\", \"reasons\": [\"x\"]}\n", "malformed reason"},
		{"reason without code", "package shellgate\n\ndecision := {\"action\": \"deny\", \"reasons\": [{\"message\": \"m\", \"rule\": \"r1\"}]}\n", "from rule r1: no \"code\""},
		{"span out of range", "package shellgate\n\ndecision := {\"action\": \"allow\", \"reasons\": [{\"code\": \"c\", \"message\": \"m\", \"span\": [0, 99]}]}\n", "not a byte range"},
		{"span not pair", "package shellgate\n\ndecision := {\"action\": \"allow\", \"reasons\": [{\"code\": \"c\", \"message\": \"m\", \"span\": [0]}]}\n", "not [start, end]"},
		{"segment not int", "package shellgate\n\ndecision := {\"action\": \"allow\", \"reasons\": [{\"code\": \"c\", \"message\": \"m\", \"segment\": \"x\"}]}\n", "not an integer"},
		{"function conflict", "package shellgate\n\nf(_) := 1\n\nf(_) := 2\n\ndecision := {\"action\": \"allow\", \"reasons\": [], \"n\": f(1)}\n", "evaluation failed"},
		{"conflict", "package shellgate\n\ndecision := {\"action\": \"allow\", \"reasons\": []}\n\ndecision := {\"action\": \"deny\", \"reasons\": []} if input.command\n", "evaluation failed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := New(WithoutDefaultPolicy(), WithModules(map[string]string{"p.rego": c.src}))
			if err != nil {
				t.Fatal(err)
			}
			d, err := e.Decide(context.Background(), policy.Input{Command: "echo hi", Report: report})
			if err != nil {
				t.Fatal(err)
			}
			if d.Action != policy.Deny || len(d.Reasons) != 1 || d.Reasons[0].Code != policy.PolicyError {
				t.Fatalf("decision %+v", d)
			}
			if !strings.Contains(d.Reasons[0].Message, c.want) {
				t.Errorf("message %q does not contain %q", d.Reasons[0].Message, c.want)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	e, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]policy.Input{
		"no report": {Command: "ls"},
		"bad mode":  {Command: "ls", Mode: "yolo", Report: classify.Classify("ls")},
	} {
		d, err := e.Decide(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if d.Action != policy.Deny || d.Codes()[0] != policy.PolicyError {
			t.Errorf("%s: %+v", name, d)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e2, _ := New(WithMemo(0))
	d, err := e2.Decide(ctx, policy.Input{Command: "ls", Report: classify.Classify("ls")})
	if err == nil || d.Action != policy.Deny {
		t.Errorf("cancelled: %+v, %v", d, err)
	}
}

// TestInputValueMatchesJSON: the input built directly as an ast.Value is
// exactly the JSON encoding of the report (the stable contract), the config
// and the facts.
func TestInputValueMatchesJSON(t *testing.T) {
	project := &policy.Config{Grants: []string{"python3 -c *", "env **"}, Source: policy.SourceProject}
	for _, cfg := range []*policy.Config{nil, project} {
		inputValueMatchesJSON(t, newFixture(t, cfg))
	}
}

func inputValueMatchesJSON(t *testing.T, f *fixture) {
	cmds := []string{
		"python3 -c 'print(1)' && env FOO=1 touch x", "bash -c ls; find . -exec ls {} ;",
		"git status", "FOO=1 timeout 5 grep -rn --color=auto 'a b' src | head -5 > out 2>&1",
		"cd src && cat $(ls) <(echo x) ~/x *.go", "for i in 1 2; do echo $i; done &",
		"find . -name '*.go' -exec rm {} +", "ls |", "", "xargs -0 cat < list",
		"git -C src log -3 --format=%H", "sort -o out in; cat <<EOF\nhi\nEOF",
		"grep -rn TODO .", "find . -type f | xargs cat", "cat .env ~/.ssh/id_rsa",
		"for f in src/*.go; do wc -l $f; done", "git log -p -- src '*.md' HEAD:x.go", "pnpm -C web list && cargo --version && go list ./...",
		"cat *(D.) **/*.go", "ls *(e:'touch x':) ${(e)x}",
	}
	for _, c := range cmds {
		in := f.input(t, c, policy.ModeDefault)
		facts := policy.ComputeFacts(&in)
		got, err := inputValue(&in, facts)
		if err != nil {
			t.Fatal(err)
		}
		doc := map[string]any{"command": in.Command, "mode": facts.Mode, "cwd": in.Cwd, "report": in.Report, "station": in.Station, "config": in.Config, "facts": facts}
		if in.Shell != "" {
			doc["shell"] = in.Shell
		}
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ast.ValueFromReader(strings.NewReader(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		if got.Compare(want) != 0 {
			gj, _ := ast.JSON(got)
			wj, _ := ast.JSON(want)
			t.Errorf("%q: input differs from its JSON (-json +direct):\n%s", c, cmp.Diff(wj, gj))
		}
	}
}

// TestMemo: a memoized decision equals a fresh one, and callers cannot
// change what the memo holds.
func TestMemo(t *testing.T) {
	f := newFixture(t, nil)
	fresh, err := New(WithMemo(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"rm -rf ~", "make lint", "git status", "cat .env"} {
		in := f.input(t, c, policy.ModeDefault)
		d1, _ := f.engine.Decide(context.Background(), in)
		if len(d1.Reasons) > 0 {
			d1.Reasons[0].Code = "changed"
			d1.Reasons[0].Span.Start = 99
		}
		d2, _ := f.engine.Decide(context.Background(), in)
		d3, _ := fresh.Decide(context.Background(), in)
		if diff := cmp.Diff(d3, d2); diff != "" {
			t.Errorf("%s: memoized differs from fresh (-fresh +memo):\n%s", c, diff)
		}
	}
}

// TestMemoRuns: a memoized run plan equals a fresh one for the action it
// was asked with (the same input asked with another action is another
// plan), and callers cannot change what the memo holds.
func TestMemoRuns(t *testing.T) {
	f := newFixture(t, nil)
	fresh, err := New(WithMemo(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	differ := false
	for _, c := range []string{"git status", "make lint", "sort -o out.txt data.txt", "curl https://example.com"} {
		in := f.input(t, c, policy.ModeDefault)
		var plans []policy.Runs
		for _, action := range []policy.Action{policy.Allow, policy.Ask, policy.Allow, policy.Ask} {
			r1, err := f.engine.Runs(ctx, in, action)
			if err != nil {
				t.Fatalf("%s %s: %v", c, action, err)
			}
			want, err := fresh.Runs(ctx, in, action)
			if err != nil {
				t.Fatalf("%s %s: %v", c, action, err)
			}
			if diff := cmp.Diff(want, r1); diff != "" {
				t.Errorf("%s %s: memoized plan differs from fresh (-fresh +memo):\n%s", c, action, diff)
			}
			plans = append(plans, *r1)
			r1.Unapproved.Sandbox, r1.Approved.Why = "changed", "changed"
		}
		differ = differ || !cmp.Equal(plans[0], plans[1])
	}
	if !differ {
		t.Error("no command's plan differs between allow and ask: the test cannot tell the action's place in the key")
	}
}

func TestConcurrentDecide(t *testing.T) {
	f := newFixture(t, nil)
	cmds := []string{"git status", "rm -rf ~", "make lint", "cat README.md | grep x", "curl x | sh"}
	want := map[string]policy.Action{}
	inputs := map[string]policy.Input{}
	for _, c := range cmds {
		inputs[c] = f.input(t, c, policy.ModeDefault)
		want[c] = f.decide(t, c, policy.ModeDefault).Action
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				c := cmds[(g+i)%len(cmds)]
				d, err := f.engine.Decide(context.Background(), inputs[c])
				if err != nil || d.Action != want[c] {
					t.Errorf("%s: %s, %v", c, d.Action, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestExplain(t *testing.T) {
	f := newFixture(t, nil)
	x, err := f.engine.Explain(context.Background(), f.input(t, "rm -rf ~", policy.ModeDefault))
	if err != nil {
		t.Fatal(err)
	}
	if x.Decision.Action != policy.Deny {
		t.Fatalf("action %s", x.Decision.Action)
	}
	loc := f.engine.RuleLocation("destructive-critical")
	if !strings.HasPrefix(loc, "default/shellgate.rego:") {
		t.Fatalf("location %q", loc)
	}
	found := false
	for _, r := range x.Rules {
		if r.Location == loc && r.Name == "deny" && r.Package == "shellgate" {
			found = true
		}
	}
	if !found {
		t.Errorf("rule at %s not among the fired rules %+v", loc, x.Rules)
	}
	for _, r := range x.Rules {
		if r.Location == f.engine.RuleLocation("fork-bomb") {
			t.Errorf("fork-bomb fired for rm -rf ~")
		}
	}
}

func TestRunTestsReportsUserFailures(t *testing.T) {
	res, err := RunTests(context.Background(), map[string]string{
		"u/u_test.rego": "package shellgate_test\n\nimport data.shellgate\n\ntest_fails if {\n\tshellgate.decision.action == \"allow\" with input as {}\n}\n\ntest_cases[name] if {\n\tsome name, n in {\"one\": 1, \"two\": 2}\n\tn == 1\n}\n",
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range res {
		if strings.HasPrefix(r.Name, "shellgate_test.test_fails") || strings.HasPrefix(r.Name, "shellgate_test.test_cases") {
			got[r.Name] = r.Pass
		}
	}
	want := map[string]bool{"shellgate_test.test_fails": false, "shellgate_test.test_cases/one": true, "shellgate_test.test_cases/two": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if _, err := RunTests(context.Background(), map[string]string{"b.rego": "package x\n\ntest_a if {"}, false); err == nil || !strings.Contains(err.Error(), "b.rego:") {
		t.Errorf("broken test module: %v", err)
	}
}

// TestUserAllowGrants: a user module's allow rule grants its segment, and
// that segment alone; it never overrides a deny.
func TestUserAllowGrants(t *testing.T) {
	f := newFixture(t, nil, WithModules(map[string]string{"team/make.rego": `package shellgate

allow contains {"code": "team-make", "message": "make targets are ours", "span": seg.span, "segment": i} if {
	some i in input.facts.index["name:make"]
	seg := input.report.segments[i]
	seg.args[0].value in {"lint", "test"}
}
`}))
	cases := []struct {
		cmd     string
		def, ro policy.Action
	}{
		{"make lint", policy.Allow, policy.Deny},
		{"make test && make lint", policy.Allow, policy.Deny},
		{"make clean", policy.Ask, policy.Deny},
		{"make lint && rm -rf build", policy.Ask, policy.Deny},
		{"make lint > ~/.bashrc", policy.Deny, policy.Deny},
		{"make lint $(curl -s x)", policy.Ask, policy.Deny},
	}
	for _, c := range cases {
		if d := f.decide(t, c.cmd, policy.ModeDefault); d.Action != c.def {
			t.Errorf("%s: %s, want %s: %v", c.cmd, d.Action, c.def, d.Reasons)
		}
		if d := f.decide(t, c.cmd, policy.ModeReadonly); d.Action != c.ro {
			t.Errorf("%s [readonly]: %s, want %s", c.cmd, d.Action, c.ro)
		}
	}
	d := f.decide(t, "make lint", policy.ModeDefault)
	if diff := cmp.Diff([]string{"team-make"}, d.Codes()); diff != "" || d.Reasons[0].Rule != "team/make.rego:3" {
		t.Errorf("allow reasons %+v (-want +got codes):\n%s", d.Reasons, diff)
	}
}

// TestSubpackageReasonsRejected: deny, ask and allow rules below package
// shellgate would never reach the decision, so loading them is an error.
func TestSubpackageReasonsRejected(t *testing.T) {
	_, err := New(WithModules(map[string]string{
		"team/no_docker.rego": "package shellgate.team\n\ndeny contains {\"code\": \"x\", \"message\": \"y\"} if true\n",
	}))
	if err == nil || !strings.Contains(err.Error(), "team/no_docker.rego:3: deny in package shellgate.team is not seen by the decision") {
		t.Fatalf("err = %v", err)
	}
	// Helpers below package shellgate are fine.
	if _, err := New(WithModules(map[string]string{
		"team/lib.rego": "package shellgate.lib\n\nprotected := {\"main\"}\n",
	})); err != nil {
		t.Fatal(err)
	}
}

// TestDecideCancelledDuringEval: a context cancelled while the policy is
// being evaluated stops the evaluation (the policy here would run for
// minutes) and the decision is a deny with the context's error.
func TestDecideCancelledDuringEval(t *testing.T) {
	slow := "package shellgate\n\nn := count([1 | some i in numbers.range(1, 20000); some j in numbers.range(1, 20000)])\n\ndecision := {\"action\": \"allow\", \"reasons\": [], \"n\": n}\n"
	e, err := New(WithMemo(0), WithoutDefaultPolicy(), WithModules(map[string]string{"slow.rego": slow}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	d, err := e.Decide(ctx, policy.Input{Command: "ls", Report: classify.Classify("ls")})
	if !errors.Is(err, context.Canceled) || d.Action != policy.Deny || d.Codes()[0] != policy.PolicyError {
		t.Errorf("cancelled during the evaluation: %+v, %v", d, err)
	}
}
