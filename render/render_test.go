package render_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/render"
)

func TestUnderline(t *testing.T) {
	for _, tc := range []struct {
		cmd        string
		start, end int
		want       string
	}{
		{"sort -o out.txt data.txt", 5, 15, "sort -o out.txt data.txt\n     ^^^^^^^^^^\n"},
		{"ls\nrm -rf x", 3, 11, "rm -rf x\n^^^^^^^^\n"}, // the span's own line
		{"a b\nc", 2, 5, "a b\n  ^\n"},                  // cut at the end of its first line
		{"é\tx", 3, 4, "é\tx\n  ^\n"},                   // é and the tab are a column each
		{"ls", 2, 2, "ls\n  ^\n"},                       // an empty span gets one caret
		{"ls", 1, 0, "ls\n ^\n"},                        // end before start: empty
		{"ls", 3, 4, ""},                                // outside
		{"ls", -1, 1, ""},                               // outside
	} {
		if diff := cmp.Diff(tc.want, render.Underline(tc.cmd, tc.start, tc.end, "")); diff != "" {
			t.Errorf("Underline(%q, %d, %d) (-want +got):\n%s", tc.cmd, tc.start, tc.end, diff)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{"ls": "ls", "cat <<EOF\nx\nEOF": "cat <<EOF …", "": ""} {
		if got := render.OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecision(t *testing.T) {
	cmd := "npm test && cat ~/.ssh/id_rsa"
	d := policy.Decision{
		Action: policy.Deny,
		Reasons: []policy.Reason{
			{Code: "read-denied", Message: "~/.ssh/id_rsa matches a deny row", Span: &classify.Span{Start: 16, End: 29}, Rule: "read-denied (x.rego:3)"},
			{Code: "internal", Message: "no span"},
		},
		SuggestedGrants: []policy.Grant{{Pattern: "npm test"}},
		NoGrants:        []policy.NoGrant{{Segment: 1, Span: &classify.Span{Start: 12, End: 29}, Why: "a read is denied"}, {Segment: 7, Why: "out of range"}},
	}
	st := &readstation.Station{Reads: []readstation.Read{{Path: "~/.ssh/id_rsa", Resolved: "/h/.ssh/id_rsa", Verdict: readstation.VerdictDenied, Row: "~/.ssh/**"}}}
	var b strings.Builder
	render.Decision(&b, cmd, d, st)
	want := `deny: npm test && cat ~/.ssh/id_rsa
  read-denied: ~/.ssh/id_rsa matches a deny row
    npm test && cat ~/.ssh/id_rsa
                    ^^^^^^^^^^^^^
    rule: read-denied (x.rego:3)
  internal: no span
reads:
  denied          /h/.ssh/id_rsa (row ~/.ssh/**)
suggested grant: npm test
no grant for cat ~/.ssh/id_rsa: a read is denied
no grant for segment 7: out of range
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("Decision (-want +got):\n%s", diff)
	}
}

func TestReport(t *testing.T) {
	var b strings.Builder
	render.Report(&b, classify.Classify("cd src && sed -i s/a/b/ *.go > out.txt", classify.WithDialect(classify.DialectBash)))
	for _, want := range []string{
		"reversible: no\n",
		"segments:\n  [0] cd (",
		"read:  src\n",
		"write: *.go (glob) in src\n",
		"write: out.txt in src\n",
		"findings:\n",
		"  sed-in-place: ",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

// A reason shown to a person: the command with the reason's span
// underlined and the rule that fired.
func ExampleDecision() {
	cmd := "sort -o out.txt data.txt"
	d := policy.Decision{Action: policy.Ask, Reasons: []policy.Reason{{
		Code: "sort-output", Message: "sort -o: writes the sorted output to a file",
		Span: &classify.Span{Start: 5, End: 15}, Rule: "not-reversible",
	}}}
	render.Decision(os.Stdout, cmd, d, nil)
	// Output:
	// ask: sort -o out.txt data.txt
	//   sort-output: sort -o: writes the sorted output to a file
	//     sort -o out.txt data.txt
	//          ^^^^^^^^^^
	//     rule: not-reversible
}

func ExampleUnderline() {
	fmt.Print(render.Underline("git status && rm -rf build", 14, 26, "  "))
	// Output:
	//   git status && rm -rf build
	//                 ^^^^^^^^^^^^
}
