package classify

import (
	"runtime"
	"strings"
	"testing"
)

// badInputCases are inputs no agent should send: each must give a clean
// report with a finding, never a panic, never reversible.
var badInputCases = []struct {
	name, in, code string
}{
	{"empty", "", "empty-command"},
	{"whitespace", " \t\n  ", "empty-command"},
	{"comment only", "# nothing", "empty-command"},
	{"invalid utf-8", "ls \xff\xfe", "invalid-utf8"},
	{"invalid utf-8 in a quote", "echo '\xc3'", "invalid-utf8"},
	{"nul byte", "ls\x00rm x", "nul-byte"},
	{"unterminated quote", "echo 'x", "parse-error"},
	{"stray fi", "fi", "parse-error"},
	{"1 MiB + 1 command", "ls " + strings.Repeat("a", 1<<20-2), "limit-length"},
	{"10000 nested $(", strings.Repeat("$(", 10000) + "ls" + strings.Repeat(")", 10000), "limit-nesting"},
	{"100000 a;", strings.Repeat("a;", 100000), "limit-segments"},
	{"100000 ls;", strings.Repeat("ls;", 100000), "limit-segments"},
	{"deep if", strings.Repeat("if true; then ", 300) + "ls" + strings.Repeat("; fi", 300), "limit-depth"},
	{"deep braces", strings.Repeat("{ ", 300) + "ls" + strings.Repeat("; }", 300), "limit-nesting"},
	{"deep subshells", strings.Repeat("(", 300) + "ls" + strings.Repeat(")", 300), "limit-nesting"},
	{"deep while", strings.Repeat("while true; do ", 300) + "ls" + strings.Repeat("; done", 300), "limit-depth"},
	{"60000 nested if", strings.Repeat("if true; then ", 60000) + "ls" + strings.Repeat(";fi", 60000), "limit-depth"},
	{"deep pipes in substitutions", strings.Repeat("echo $(ls | ", 120) + "ls" + strings.Repeat(")", 120), "limit-depth"},
	{"deep bash -c", "bash -c 'bash -c \"bash -c \\\"bash -c \\\\\\\"bash -c ls\\\\\\\"\\\"\"'", "limit-nested"},
	{"long pipeline", strings.Repeat("ls | ", 5000) + "ls", "limit-segments"},
	{"400000 words", "echo" + strings.Repeat(" a", 400000), "limit-words"},
	{"300000 redirects", "ls" + strings.Repeat(" <a", 300000), "limit-redirects"},
	{"200000 assignments", strings.Repeat("a=1 ", 200000) + "ls", "limit-words"},
}

func TestBadInput(t *testing.T) {
	for _, tc := range badInputCases {
		t.Run(tc.name, func(t *testing.T) {
			r := Classify(tc.in)
			if r.Reversible {
				t.Errorf("reversible, want not")
			}
			found := false
			for _, f := range r.Findings {
				found = found || f.Code == tc.code
			}
			if !found {
				t.Errorf("findings %s, want %s", shorten(verdict(r)), tc.code)
			}
			checkInvariants(t, tc.in, r)
		})
	}
}

// TestNotTooDeep checks that legitimate input is not refused by the
// nesting pre-check: a markdown heredoc full of code fences.
func TestNotTooDeep(t *testing.T) {
	md := "cat > README.md <<'EOF'\n" + strings.Repeat("```go\nx := a[0]\n```\n", 200) + "EOF"
	r := Classify(md)
	if !r.Parse.OK {
		t.Errorf("markdown heredoc: %s", verdict(r))
	}
	if got := verdict(r); got != "not reversible: redirect-write 4-15" {
		t.Errorf("markdown heredoc: %s", got)
	}
}

func shorten(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// TestBadInputMemory bounds, loosely, what a hostile input may allocate in
// total, and what its report keeps alive.
func TestBadInputMemory(t *testing.T) {
	for _, tc := range []struct {
		name  string
		in    string
		limit uint64 // bytes allocated, loosely
	}{
		{"1 MiB word", "ls " + strings.Repeat("a", 1<<20-10), 64 << 20},
		{"10000 nested $(", strings.Repeat("$(", 10000) + "ls" + strings.Repeat(")", 10000), 4 << 20},
		{"100000 a;", strings.Repeat("a;", 100000), 128 << 20},
		{"1 MiB of a;", strings.Repeat("a;", 1<<19-1), 256 << 20},
		{"1 MiB of newlines", strings.Repeat("\n", 1<<20-1), 64 << 20},
		{"deep if", strings.Repeat("if true; then ", 300) + "ls" + strings.Repeat("; fi", 300), 16 << 20},
		{"400000 words", "echo" + strings.Repeat(" a", 400000), 128 << 20},
		{"300000 redirects", "ls" + strings.Repeat(" <a", 300000), 128 << 20},
		{"200000 assignments", strings.Repeat("a=1 ", 200000) + "ls", 128 << 20},
		{"300000 [[ ! ]]", "[[ " + strings.Repeat("! ", 300000) + "x ]]", 64 << 20},
		{"300000 +1", "echo $(( 1" + strings.Repeat("+1", 300000) + " ))", 128 << 20},
		{"60000 nested if", strings.Repeat("if true; then ", 60000) + "ls" + strings.Repeat(";fi", 60000), 256 << 20},
		// bash and zsh read it differently (=x), so the readings are merged.
		{"15000 globs, readings differ", "cat =x" + strings.Repeat(" *.go", 15000), 128 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			r := Classify(tc.in)
			runtime.ReadMemStats(&after)
			if got := after.TotalAlloc - before.TotalAlloc; got > tc.limit {
				t.Errorf("allocated %d bytes, want at most %d", got, tc.limit)
			}
			if testing.Verbose() {
				t.Logf("allocated %d bytes", after.TotalAlloc-before.TotalAlloc)
			}
			// What the report keeps is bounded by the limits, whatever
			// the input: the AST is walked statement by statement.
			var kept runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&kept)
			if kept.HeapAlloc > before.HeapAlloc && kept.HeapAlloc-before.HeapAlloc > 16<<20 {
				t.Errorf("the report keeps %d bytes, want at most 16 MiB", kept.HeapAlloc-before.HeapAlloc)
			}
			if n := len(r.Segments); n > DefaultLimits.MaxSegments {
				t.Errorf("%d segments, over the limit", n)
			}
			if n := len(r.Findings); n > DefaultLimits.MaxFindings+10 {
				t.Errorf("%d findings, over the limit", n)
			}
		})
	}
}

// TestAllocsShort keeps a short command cheap.
func TestAllocsShort(t *testing.T) {
	DefaultCatalog()
	n := testing.AllocsPerRun(50, func() { Classify("git status") })
	if n > 200 {
		t.Errorf("git status: %.0f allocations per run, want at most 200", n)
	}
}

// checkInvariants asserts what holds for every report.
func checkInvariants(t *testing.T, in string, r *Report) {
	t.Helper()
	n := len(in)
	bad := func(what string, s Span) {
		if s.Start < 0 || s.End > n || s.Start > s.End {
			t.Errorf("%q: %s span %v outside [0,%d]", trunc(in), what, s, n)
		}
	}
	for _, f := range r.Findings {
		bad("finding "+f.Code, f.Span)
		if f.Segment < -1 || f.Segment >= len(r.Segments) {
			t.Errorf("%q: finding %s names segment %d of %d", trunc(in), f.Code, f.Segment, len(r.Segments))
		}
	}
	for i, s := range r.Segments {
		bad("segment", s.Span)
		if s.Index != i {
			t.Errorf("%q: segment %d has index %d", trunc(in), i, s.Index)
		}
		if s.Parent >= i {
			t.Errorf("%q: segment %d has parent %d", trunc(in), i, s.Parent)
		}
		for _, a := range s.Args {
			bad("arg", a.Span)
		}
		for _, o := range s.Options {
			bad("option", o.Span)
		}
		for _, a := range s.Assigns {
			bad("assign", a.Span)
		}
		for _, c := range s.Code {
			bad("code "+c.Via, c.Span)
			if c.Carries == "" || c.Carries == CarriesNone || !knownCarries[c.Carries] {
				t.Errorf("%q: segment %d: code %+v carries %q", trunc(in), i, c, c.Carries)
			}
		}
		if r.Reversible && !s.ReadOnly {
			t.Errorf("%q: reversible with segment %d not read-only", trunc(in), i)
		}
	}
	for _, rd := range r.Redirects {
		bad("redirect", rd.Span)
	}
	for _, p := range append(append([]PathRef{}, r.Reads...), r.Writes...) {
		bad("path", p.Span)
	}
	for _, c := range r.Cd {
		bad("cd", c.Span)
	}
	if r.Parse.Span != nil {
		bad("parse error", *r.Parse.Span)
	}
	if !r.Parse.OK && r.Reversible {
		t.Errorf("%q: unparsable but reversible", trunc(in))
	}
	if r.Reversible && len(r.Findings) > 0 {
		t.Errorf("%q: reversible with findings", trunc(in))
	}
	if !r.Reversible && len(r.Findings) == 0 {
		t.Errorf("%q: not reversible without a finding", trunc(in))
	}
}

func trunc(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}
