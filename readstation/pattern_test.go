package readstation

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/pattern"

	"github.com/shellgate/shellgate/internal/testenv"
)

// needTool returns the path of a program the test drives (testenv.LookPath:
// skipped without it on a developer's machine, a failure in CI).
func needTool(t testing.TB, name string, candidates ...string) string {
	t.Helper()
	return testenv.LookPath(t, append([]string{name}, candidates...)...)
}

// patternNames are the entries the agreement tests create: dot files,
// letters of both cases, digits, and names holding metacharacters.
var patternNames = []string{
	"a", "b", "c", "abc", "abd", "Abc", "B2", "z9", "9z", "x.go", "y.txt", "main_test.go",
	".hidden", ".x", ".go", "..dots", "[a]", "a*b", "a?b", "!x", "^x", "-dash", "a b", "a]b",
	"a-b", "a\\b", "_u", "~t", "#h", "x(y)", "x|y", "<1>",
}

func makeEntries(t *testing.T, names []string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("needle\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// shellGlob is what the real shell expands pattern to in dir (nullglob:
// nothing when nothing matches).
func shellGlob(t *testing.T, shell, dir, pattern string, env ...string) []string {
	t.Helper()
	var cmd *exec.Cmd
	if filepath.Base(shell) == "zsh" {
		cmd = exec.Command(shell, "-f", "-c", `setopt nullglob; printf '%s\n' `+pattern)
	} else {
		cmd = exec.Command(shell, "-O", "nullglob", "-c", `printf '%s\n' `+pattern)
	}
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %q: %v", shell, pattern, err)
	}
	var got []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" {
			got = append(got, l)
		}
	}
	slices.Sort(got)
	return got
}

// stationGlob is what the station expands pattern to in dir, relative to
// dir, without "." and ".." (which the station adds for ".*" as bash did
// before 5.2's globskipdots).
func stationGlob(t *testing.T, dir, pattern string, mode globMode) ([]string, error) {
	t.Helper()
	ms, err := expandGlob(newFSCache(), escapeMeta(dir)+"/"+pattern, mode, 1000)
	if err != nil {
		return nil, err
	}
	var got []string
	for _, m := range ms {
		if rel := strings.TrimPrefix(m, dir+"/"); rel != "." && rel != ".." {
			got = append(got, rel)
		}
	}
	slices.Sort(got)
	return got, nil
}

// bashPatterns are patterns as they stand in a command (unquoted), each
// expanded by real bash and by the station.
var bashPatterns = []string{
	// * and ? against dot files.
	`*`, `?`, `??`, `.*`, `.?`, `*.go`, `.g*`, `?.go`, `*x*`, `**`, `[.]*`, `\.*`, `?hidden`,
	// Bracket classes.
	`[[:alpha:]]*`, `[[:digit:]]*`, `[[:upper:]]*`, `[[:lower:]]`, `[[:alnum:]][[:alnum:]]`,
	`[[:punct:]]*`, `[[:space:]]*`, `*[[:blank:]]*`, `[[:xdigit:]]*`,
	// Negation, both spellings.
	`[!a]*`, `[^a]*`, `[!ab]`, `[^[:alpha:]]*`, `[!.]*`, `[!]a]*`,
	// Ranges.
	`[a-c]*`, `[a-c]`, `[x-z]*`, `[0-9]*`, `[A-Z]*`, `[a-]*`, `[-a]*`,
	// Escapes and literal metacharacters.
	`\[a\]`, `a\*b`, `a\?b`, `\!x`, `a\\b`, `[[]a]`, `a[*]b`, `a[?]b`, `a[]]b`, `\a*`,
	// An unmatched bracket is literal.
	`a[`, `[a`, `a[b`,
	// Names with characters other dialects make operators.
	`^*`, `~*`, `\#*`, `x\(*`, `*\|*`, `\<*`,
}

// TestPatternAgreesWithBash: for every pattern, the station's expansion
// (its walk, matched by matchPattern) is what real bash prints, in the C
// and a UTF-8 locale.
func TestPatternAgreesWithBash(t *testing.T) {
	bash := needTool(t, "bash")
	dir := makeEntries(t, patternNames)
	for _, loc := range []string{"LC_ALL=C", "LC_ALL=C.UTF-8"} {
		for _, pat := range bashPatterns {
			want := shellGlob(t, bash, dir, pat, loc)
			if !pattern.HasMeta(pat, 0) {
				// Not a pattern to bash (an unmatched "["): the word as
				// written, which the station matches as a literal.
				if c := compilePattern(pat, synBash); !c.isLit || !slices.Equal(want, []string{c.lit}) {
					t.Errorf("%s %q: bash %q, station literal %v %q", loc, pat, want, c.isLit, c.lit)
				}
				continue
			}
			got, err := stationGlob(t, dir, pat, globMode{})
			if err != nil {
				t.Errorf("%s %q: station: %v; bash: %q", loc, pat, err, want)
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %q (-bash +station):\n%s", loc, pat, diff)
			}
		}
	}
}

// TestPatternAgreesWithZsh: zsh (no startup files, default options) reads
// the same patterns the same way, save those with a character its options
// could make an operator, which the station does not match (they are not
// established).
func TestPatternAgreesWithZsh(t *testing.T) {
	zsh := needTool(t, "zsh")
	dir := makeEntries(t, patternNames)
	for _, pat := range bashPatterns {
		got, err := stationGlob(t, dir, pat, globMode{zsh: true})
		if zshOperator(pat) != 0 {
			if !errors.Is(err, errUncertain) {
				t.Errorf("%q: zsh may read an operator in it, but the station matched it: %q, %v", pat, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: station: %v", pat, err)
			continue
		}
		want := shellGlob(t, zsh, dir, pat, "LC_ALL=C.UTF-8")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (-zsh +station):\n%s", pat, diff)
		}
	}
}

// TestPatternFailsClosed: what the station cannot match with certainty
// is an error wrapping errUncertain, never a guess.
func TestPatternFailsClosed(t *testing.T) {
	for _, tc := range []struct {
		pat, name string
		syn       patternSyntax
	}{
		{`a\`, "a", synBash},                        // a lone trailing backslash
		{`[[:nope:]]`, "a", synBash},                // an unknown class
		{`[[.a.]]`, "a", synBash},                   // collating symbol
		{`[z-a]`, "a", synBash},                     // a reversed range
		{`?`, "é", synBash},                         // one byte or one character: the locale's call
		{`[[:alpha:]]`, "é", synFnmatch},            // what the class holds: the locale's call
		{`@(a|b)`, "a", synBash},                    // extended pattern
		{`!(a)`, "b", synBash},                      // extended pattern
		{`^a*`, "b", synZsh},                        // extendedglob negation
		{`a*~ab`, "ab", synZsh},                     // extendedglob exclusion
		{`a#`, "aa", synZsh},                        // extendedglob repetition
		{`(a|b)*`, "a", synZsh},                     // zsh grouping
		{`<1-9>*`, "1", synZsh},                     // zsh numeric range
		{`[a`, "[a", synZsh},                        // zsh: bad pattern
		{strings.Repeat("[", 3) + "a", "a", synZsh}, // unclosed brackets
	} {
		ok, err := matchPattern(tc.pat, tc.name, tc.syn, false)
		if !errors.Is(err, errUncertain) || ok {
			t.Errorf("matchPattern(%q, %q, %d) = %v, %v; want not certain", tc.pat, tc.name, tc.syn, ok, err)
		}
	}
}

// grepPatterns are --exclude and --exclude-dir values.
var grepPatterns = []string{
	`*`, `.*`, `*.go`, `?`, `??`, `[!a]*`, `[^a]*`, `[[:digit:]]*`, `[[:upper:]]*`, `[a-c]*`,
	`\[a\]`, `a\*b`, `[.]*`, `*(y)`, `x(y)`, `a[`, `[]a]*`, `[!]a]*`, `*[[:space:]]*`, `.h*`,
	`[[:punct:]]*`, `a\\b`, `*.txt`, `abc`,
}

// TestExcludeAgreesWithGrep: a name the station's grep --exclude matching
// excludes is one real grep skips, and one it keeps is one grep reads
// (fnmatch without flags: "*" matches a leading dot).
func TestExcludeAgreesWithGrep(t *testing.T) {
	grep := needTool(t, "grep")
	dir := makeEntries(t, patternNames)
	sub := t.TempDir()
	for _, n := range patternNames {
		if err := os.MkdirAll(filepath.Join(sub, n), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, n, "f"), []byte("needle\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(dir, opt, pat string) map[string]bool {
		// No operand: grep searches "." and never excludes the root.
		cmd := exec.Command(grep, "-rl", opt+"="+pat, "needle")
		cmd.Dir = dir
		cmd.Env = []string{"LC_ALL=C.UTF-8"}
		out, err := cmd.Output()
		if err != nil && cmd.ProcessState.ExitCode() != 1 {
			t.Fatalf("grep %s=%q: %v", opt, pat, err)
		}
		read := map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			if l != "" {
				read[strings.Split(strings.TrimPrefix(l, "./"), "/")[0]] = true
			}
		}
		return read
	}
	for _, pat := range grepPatterns {
		for _, k := range []struct {
			opt, enc, dir string
			isDir         bool
		}{{"--exclude", "f", dir, false}, {"--exclude-dir", "d", sub, true}} {
			read := run(k.dir, k.opt, pat)
			x := decodeExclusions(k.enc + pat + "\x00")
			for _, n := range patternNames {
				skipped := x.skips([]string{n}, k.isDir)
				if skipped == read[n] {
					t.Errorf("%s=%q, %q: station skips it: %v; grep reads it: %v", k.opt, pat, n, skipped, read[n])
				}
			}
		}
	}
}

// TestFindNameAgreesWithFind: the one -name pattern the station honours
// for what find prints is matched as real find matches it.
func TestFindNameAgreesWithFind(t *testing.T) {
	find := needTool(t, "find")
	dir := makeEntries(t, patternNames)
	for _, pat := range grepPatterns {
		cmd := exec.Command(find, ".", "-mindepth", "1", "-name", pat)
		cmd.Dir = dir
		cmd.Env = []string{"LC_ALL=C.UTF-8"}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("find -name %q: %v", pat, err)
		}
		var want []string
		for _, l := range strings.Split(string(out), "\n") {
			if l != "" {
				want = append(want, strings.TrimPrefix(l, "./"))
			}
		}
		slices.Sort(want)
		var got []string
		for _, n := range patternNames {
			ok, err := matchPattern(pat, n, synFnmatch, true)
			if err != nil {
				t.Fatalf("-name %q, %q: %v", pat, n, err)
			}
			if ok {
				got = append(got, n)
			}
		}
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("-name %q (-find +station):\n%s", pat, diff)
		}
	}
}
