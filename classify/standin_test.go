package classify

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shellgate/shellgate/internal/corpusdata"
)

// withBothReadings makes Classify read a command of unknown shell as zsh
// too, whatever the bash reading proved: the way the stand-in is checked.
func withBothReadings() Option { return func(cfg *config) { cfg.bothReadings = true } }

// standInInputs are the commands the stand-in is checked on: the test
// tables, the fuzz seeds and, when it is there, the shared corpus.
func standInInputs(t testing.TB) []string {
	var in []string
	for _, tc := range classifyCases {
		in = append(in, tc.in)
	}
	for _, tc := range goldenCases {
		in = append(in, tc.in)
	}
	for _, tc := range zshCases {
		in = append(in, tc.in)
	}
	in = append(in, seedLines(t)...)
	in = append(in, benchCommands...)
	// Commands each place the stand-in watches must notice.
	in = append(in, "noglob rm -rf /", "echo =ls", "ls **", "ls -d *", "cd a b", "cd -2",
		"for path in .; do ls; done", "eval 'echo x'", "bash -c 'ls *(e:x:)'", "zsh -c 'echo =ls'",
		"sh -c 'ls'", "echo a&|b", "echo a &! b", "coproc ls", "ls 'a(b)' \"c(d)\"", "x=~/a ls")
	if t, ok := t.(*testing.T); ok {
		if dirExists(corpusdata.Dir()) {
			for _, name := range corpusdata.Files {
				in = append(in, readCorpus(t, name)...)
			}
		}
	}
	return in
}

func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// checkZshSameParse fails when zshSameParse accepts a command that bash
// and zsh parse into different trees (or that one of them cannot parse).
func checkZshSameParse(t *testing.T, in string) bool {
	t.Helper()
	if !zshSameParse(in) {
		return false
	}
	b, errB := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(in), "")
	z, errZ := syntax.NewParser(syntax.Variant(syntax.LangZsh), syntax.KeepComments(true)).Parse(strings.NewReader(in), "")
	// Bash may refuse what zsh takes (an empty list: for 0 do done): the
	// stand-in is then not used (classifyBash wants a parsed bash
	// reading), and both readings are made. The other way would stand a
	// bash reading in for a zsh parse error.
	if errB == nil && errZ != nil {
		t.Errorf("zshSameParse(%q), but bash parses it and zsh says %v", trunc(in), errZ)
		return true
	}
	if errB != nil {
		return true
	}
	if errB == nil && !reflect.DeepEqual(b, z) {
		var sb, sz strings.Builder
		syntax.DebugPrint(&sb, b)
		syntax.DebugPrint(&sz, z)
		t.Errorf("zshSameParse(%q), but the trees differ (-bash +zsh):\n%s", trunc(in), cmp.Diff(sb.String(), sz.String()))
	}
	return true
}

// checkStandIn fails when Classify, for a command of unknown shell, gives
// another report than reading it in both shells and merging does.
func checkStandIn(t *testing.T, in string) {
	t.Helper()
	got, want := Classify(in), Classify(in, withBothReadings())
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Classify(%q) with the bash reading standing in for zsh differs (-both readings +stand-in):\n%s", trunc(in), diff)
	}
}

// TestZshSameParse checks zshSameParse against the two parsers, and counts
// how many commands it lets the bash reading stand in for the zsh one.
func TestZshSameParse(t *testing.T) {
	in := standInInputs(t)
	same := 0
	for _, c := range in {
		if checkZshSameParse(t, c) {
			same++
		}
	}
	t.Logf("%d of %d commands parse the same in bash and zsh by their bytes", same, len(in))
	for _, c := range []string{"ls (x)", "a[1]=x", "ls <1-3>", "echo a &! b", "echo a &| b", "coproc x", "ls >! f", "f() { ls; }", "echo $x", "ls # c"} {
		if zshSameParse(c) {
			t.Errorf("zshSameParse(%q) = true, want false", c)
		}
	}
}

// TestZshStandIn checks that the bash reading standing in for the zsh one
// changes no report: Classify equals the merge of both readings on every
// table, seed and corpus command.
func TestZshStandIn(t *testing.T) {
	in := standInInputs(t)
	stood := 0
	for _, c := range in {
		checkStandIn(t, c)
		cfg := config{limits: DefaultLimits}
		cfg.cat, _ = defaultCatalog()
		if _, ok := classifyBash(c, &cfg, nil); ok {
			stood++
		}
	}
	t.Logf("the bash reading stood in for zsh on %d of %d commands", stood, len(in))
	// Each place the stand-in watches ends it.
	for _, c := range []string{"noglob ls", "echo =ls", "ls **", "cd a b", "for path in .; do ls; done", "eval 'ls'"} {
		cfg := config{limits: DefaultLimits}
		cfg.cat, _ = defaultCatalog()
		if !zshSameParse(c) {
			t.Errorf("zshSameParse(%q) = false: the case does not reach the walk", c)
		}
		if _, ok := classifyBash(c, &cfg, nil); ok {
			t.Errorf("the bash reading of %q stands in for zsh, which reads it otherwise", c)
		}
	}
}

// FuzzZshStandIn checks zshSameParse against the parsers and the stand-in
// against reading both shells, on any input.
func FuzzZshStandIn(f *testing.F) {
	for _, c := range standInInputs(f) {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, in string) {
		checkScanShape(t, in)
		if checkZshSameParse(t, in) {
			checkStandIn(t, in)
		}
	})
}

// TestZshSameParseEdges: unterminated quotes and escapes at the end are
// refused, never read past.
func TestZshSameParseEdges(t *testing.T) {
	for _, c := range []string{`"a\`, `"a`, `'a`, `a\`, `"\`, `"`, `'`, `\`, "{", "a {", "a {}x", "a &>!f"} {
		if zshSameParse(c) {
			t.Errorf("zshSameParse(%q) = true, want false", c)
		}
	}
	for _, c := range []string{`"a\"b"`, `'a"b'`, `a\ b`, "find . -exec rm {} +", "a 2>&1 | b", "a && b || c; d &"} {
		if !zshSameParse(c) {
			t.Errorf("zshSameParse(%q) = false, want true", c)
		}
	}
}

// TestScanShape checks the one-pass scan against segmentEstimate and
// maxNesting.
func TestScanShape(t *testing.T) {
	for _, c := range append(standInInputs(t), "((((", "`a` `b`", "a&&b||c;;d\n\ne", "```", "$($($(", "a 2>&1 &>f >&2 &") {
		checkScanShape(t, c)
	}
}

func checkScanShape(t *testing.T, c string) {
	t.Helper()
	if segs, nesting := scanShape(c); segs != segmentEstimate(c) || nesting != maxNesting(c) {
		t.Errorf("scanShape(%q) = %d, %d; want %d, %d", trunc(c), segs, nesting, segmentEstimate(c), maxNesting(c))
	}
}
