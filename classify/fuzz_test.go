package classify

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// seedLines reads the committed NL2Bash sample: one command per line,
// "#" lines are comments.
func seedLines(t testing.TB) []string {
	data, err := os.ReadFile("testdata/nl2bash-seeds.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" && !strings.HasPrefix(l, "# ") {
			out = append(out, l)
		}
	}
	return out
}

// FuzzClassify checks the invariants of STYLE.md on any input: no panic,
// deterministic, spans inside the input, unparsable never reversible, and
// monotone: wrapping a command that is not reversible never makes it so.
func FuzzClassify(f *testing.F) {
	for _, tc := range classifyCases {
		f.Add(tc.in)
	}
	for _, tc := range goldenCases {
		f.Add(tc.in)
	}
	for _, l := range seedLines(f) {
		f.Add(l)
	}
	for _, tc := range shellOptionCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := Classify(in)
		for _, fd := range r.Findings {
			if fd.Code == "internal-error" {
				t.Fatalf("Classify(%q) panicked inside: %s", in, fd.Message)
			}
		}
		checkInvariants(t, in, r)
		a, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("Classify(%q): marshal: %v", in, err)
		}
		b, _ := json.Marshal(Classify(in))
		if !bytes.Equal(a, b) {
			t.Fatalf("Classify(%q) is not deterministic:\n%s\n%s", in, a, b)
		}
		if r.Reversible || !wrappable(in, r) {
			return
		}
		for _, wrapped := range monotoneWraps(in) {
			if w := Classify(wrapped); w.Reversible {
				t.Fatalf("Classify(%q) is not reversible (%s) but Classify(%q) is", in, verdict(r), wrapped)
			}
		}
	})
}

// wrappable reports whether wrapping the text of in keeps its meaning: an
// unparsable command has none to keep (its stray ")" can close the
// wrapper: "a )#x" in "( a )#x )"), and a trailing backslash escapes what
// follows ("grep \\" + "; true" is grep ';' true).
func wrappable(in string, r *Report) bool {
	if !r.Parse.OK {
		return false
	}
	n := len(in) - len(strings.TrimRight(in, "\\"))
	return n%2 == 0
}

// monotoneWraps are the commands that must stay not reversible when in is.
// The parentheses get spaces so that "(0)" wraps to a subshell "( (0) )",
// not to the arithmetic command "((0))".
func monotoneWraps(in string) []string {
	return []string{in + "; true", "true && " + in, "( " + in + " )", "echo $( " + in + " )"}
}

// TestMonotone runs the monotone invariant over the whole table, so it is
// checked on every go test run, not only while fuzzing.
func TestMonotone(t *testing.T) {
	for _, tc := range classifyCases {
		r := Classify(tc.in)
		checkInvariants(t, tc.in, r)
		if r.Reversible || !wrappable(tc.in, r) {
			continue
		}
		for _, wrapped := range monotoneWraps(tc.in) {
			if Classify(wrapped).Reversible {
				t.Errorf("Classify(%q) is not reversible but Classify(%q) is", tc.in, wrapped)
			}
		}
	}
}
