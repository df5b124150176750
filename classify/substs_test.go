package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/internal/testenv"
)

// TestSubstitutionFacts holds Report.Substitutions to where each
// substitution's output lands.
func TestSubstitutionFacts(t *testing.T) {
	tests := []struct {
		in   string
		want []Substitution
	}{
		{`echo "$(git rev-parse HEAD)"`, []Substitution{{Kind: SubstCommand, Span: Span{6, 27}, Host: 1, Role: "text"}}},
		{"echo `date`", []Substitution{{Kind: SubstCommand, Span: Span{5, 11}, Host: 1, Role: "text", Split: true, ShiftRoles: []string{"text"}}}},
		// A pipe: never an option, and no read of its own.
		{`diff <(sort a) b`, []Substitution{{Kind: SubstProcessIn, Span: Span{5, 14}, Host: 1, Role: "tree"}}},
		{`tee >(cat)`, []Substitution{{Kind: SubstProcessOut, Span: Span{4, 10}, Host: 1, Role: "write"}}},
		// Quoted, before "--": one word that could be -r or -f FILE.
		{`grep "$(cat a)" b`, []Substitution{{Kind: SubstCommand, Span: Span{6, 14}, Host: 1, Role: "pattern", OptionLike: true,
			OptionEffects: []string{"pattern", "reads-file", "recursive"}}}},
		{`grep -- "$(cat a)" b`, []Substitution{{Kind: SubstCommand, Span: Span{9, 17}, Host: 1, Role: "pattern"}}},
		// Unquoted after "--": the later words are files grep reads.
		{`grep -- $(cat a) b`, []Substitution{{Kind: SubstCommand, Span: Span{8, 16}, Host: 1, Role: "pattern", Split: true, ShiftRoles: []string{"file"}}}},
		{`grep -e "$(cat a)" b`, []Substitution{{Kind: SubstCommand, Span: Span{9, 17}, Host: 1, Role: "option-value"}}},
		{`head -n $(cat a) b`, []Substitution{{Kind: SubstCommand, Span: Span{8, 16}, Host: 1, Role: "option-value", Split: true, OptionLike: true}}},
		// Nested: each lands in its own host.
		{`echo "$(echo "$(pwd)")"`, []Substitution{
			{Kind: SubstCommand, Span: Span{6, 22}, Host: 2, Role: "text"},
			{Kind: SubstCommand, Span: Span{14, 20}, Host: 1, Role: "text"},
		}},
		// Not an argument: no host.
		{`$(cat a) b`, []Substitution{{Kind: SubstCommand, Span: Span{0, 8}, Host: -1, Split: true}}},
		{`X=$(ls) true`, []Substitution{{Kind: SubstCommand, Span: Span{2, 7}, Host: -1, Split: true}}},
		{`cat < <(ls)`, []Substitution{{Kind: SubstProcessIn, Span: Span{6, 11}, Host: -1}}},
		{`for f in $(ls); do echo "$f"; done`, []Substitution{{Kind: SubstCommand, Span: Span{9, 14}, Host: -1, Split: true}}},
		// A script string with escapes: its spans are not exact.
		{`sh -c "echo \$(ls)"`, []Substitution{{Kind: SubstCommand, Span: Span{6, 19}, Host: -1, Split: true, ShiftRoles: []string{"text"}}}},
	}
	for _, tt := range tests {
		r := Classify(tt.in, WithDialect(DialectBash))
		if diff := cmp.Diff(tt.want, r.Substitutions); diff != "" {
			t.Errorf("Classify(%q).Substitutions (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestProcessSubstitutionNoRead: a <(…) operand is not a path read; the
// reads of the commands inside are.
func TestProcessSubstitutionNoRead(t *testing.T) {
	r := Classify(`diff <(sort a) <(sort b)`, WithDialect(DialectBash))
	var got []string
	for _, p := range r.Reads {
		got = append(got, p.Path)
	}
	if diff := cmp.Diff([]string{"a", "b"}, got); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
}

// TestSubstitutionShells runs the claims the substitution facts rest on in
// the real bash and zsh: a quoted $(…) is one word, which begins with "-"
// when the output does and is then an option of the program; after "--"
// it is not; an unquoted one is split into several words (in zsh too),
// and the later words of a pattern or of an option's value are operands
// read as files; a <(…) word is a path that begins with "/".
func TestSubstitutionShells(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"hostile": "-c\n",
		"list":    "x secret\n",
		"two":     "1 secret\n",
		"b":       "x\n-c\n",
		"secret":  "CANARY\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type claim struct {
		script string
		want   string
		shells []string // "" for both
	}
	claims := []claim{
		// The hostile output "-c" becomes grep's -c (count): one line, "1".
		{`grep "$(cat hostile)" x b`, "1\n", nil},
		// After --, it is the pattern.
		{`grep -- "$(cat hostile)" b`, "-c\n", nil},
		// Quoted: one word, not split.
		{`printf '<%s>' "$(cat list)"`, "<x secret>", nil},
		// Unquoted: two words (zsh splits a command substitution too);
		// the second is a file grep reads.
		{`grep -- $(cat list) b 2>&1; true`, "", nil},
		{`printf '<%s>' $(cat list)`, "<x><secret>", nil},
		// head -n $(…): the second word is a file head reads.
		{`head -n $(cat two) b`, "==> secret <==\nCANARY\n\n==> b <==\nx\n", nil},
		// A process substitution is a path.
		{`printf '%.1s' <(true)`, "/", nil},
	}
	for _, sh := range []string{"bash", "zsh"} {
		path := testenv.LookPath(t, sh)
		for _, c := range claims {
			if c.shells != nil && !slices.Contains(c.shells, sh) {
				continue
			}
			cmd := exec.Command(path, "-c", c.script)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C"}
			out, _ := cmd.CombinedOutput()
			got := string(out)
			if c.script == `grep -- $(cat list) b 2>&1; true` {
				// grep was given "secret" as a file: it prints its match
				// with the file name.
				if !strings.Contains(got, "secret:") && !strings.Contains(got, "b:x") {
					t.Errorf("%s -c %q: grep did not read the split word as a file: %q", sh, c.script, got)
				}
				continue
			}
			if got != c.want {
				t.Errorf("%s -c %q = %q, want %q", sh, c.script, got, c.want)
			}
		}
	}
}

// TestPositionalReads: a script run with arguments (sh -c SCRIPT NAME
// ARG...) reads its quoted "$N" as the Nth ARG: find's {} stays a read
// find produces, a static word is read as itself; an unquoted $1, a script
// that shifts, and $0 are left dynamic.
func TestPositionalReads(t *testing.T) {
	type read struct {
		Path, Kind, Dynamic string
		Producer            int
	}
	tests := []struct {
		in   string
		want []read
	}{
		{`find . -name '*.go' -exec sh -c 'head -1 "$1"' _ {} \;`, []read{{".", "literal", "", -1}, {"{}", "dynamic", "find-match", 0}}},
		{`find . -exec bash -c 'cat "${2}"' x {} README.md \;`, []read{{".", "literal", "", -1}, {"README.md", "literal", "", -1}}},
		{`find . -exec sh -c 'cat $1' _ {} \;`, []read{{".", "literal", "", -1}, {"$1", "dynamic", "param", -1}}},
		{`find . -exec sh -c 'shift; cat "$1"' _ {} x \;`, []read{{".", "literal", "", -1}, {`"$1"`, "dynamic", "param", -1}}},
		{`sh -c 'cat "$0"' a.txt`, []read{{`"$0"`, "dynamic", "param", -1}}},
		{`sh -c 'cat "$1"' _ a.txt`, []read{{"a.txt", "literal", "", -1}}},
		// A glob before it may be several words: "$2" is not b.txt.
		{`sh -c 'cat "$2"' _ *.txt b.txt`, []read{{`"$2"`, "dynamic", "param", -1}}},
	}
	for _, tt := range tests {
		r := Classify(tt.in, WithDialect(DialectBash))
		var got []read
		for _, p := range r.Reads {
			got = append(got, read{p.Path, p.Kind, p.Dynamic, p.Producer})
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Classify(%q).Reads (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestPositionalShells runs the claim bindPositional rests on in the real
// bash, zsh and sh: sh -c SCRIPT NAME ARG sets $0 to NAME and $1 to ARG,
// and find -exec hands the shell each match as that ARG.
func TestPositionalShells(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	find := testenv.LookPath(t, "find")
	for _, sh := range []string{"bash", "zsh", "sh"} {
		path := testenv.LookPath(t, sh)
		out, _ := exec.Command(path, "-c", `printf '<%s|%s>' "$0" "$1"`, "_", "x y").Output()
		if got, want := string(out), "<_|x y>"; got != want {
			t.Errorf("%s -c SCRIPT _ 'x y' printed %q, want %q", sh, got, want)
		}
		cmd := exec.Command(find, ".", "-name", "*.go", "-exec", path, "-c", `head -1 "$1"`, "_", "{}", ";")
		cmd.Dir = dir
		out, _ = cmd.Output()
		if got, want := string(out), "package a\n"; got != want {
			t.Errorf("find -exec %s -c 'head -1 \"$1\"' _ {} printed %q, want %q", sh, got, want)
		}
	}
}

// TestSubstitutionProducerShells runs, in real bash and zsh, what the
// station's checks of a $(producer) file operand stand on: the shell
// splits the output at IFS whitespace (both), bash expands a glob
// character in a word against the file system and zsh does not (without
// GLOB_SUBST), a word starting with "-" is an option of the reader, an
// empty output leaves the reader no operand (it reads stdin), and bash
// drops NUL separators (the names are joined) where zsh splits at them.
func TestSubstitutionProducerShells(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a b.md": "SPACED\n", "a": "A\n", "b.md": "B\n", "[x].md": "BRACKET\n", "x.md": "X\n", "-n.go": "1\n2\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	claims := []struct {
		script string
		want   map[string]string // by shell
	}{
		// "./a b.md" becomes ./a and b.md, two other files.
		{`cat $(find . -name 'a b.md')`, map[string]string{"bash": "A\nB\n", "zsh": "A\nB\n"}},
		// "[x].md" is a pattern bash matches to x.md; zsh passes it as is.
		{`cat $(find . -name '\[x\].md')`, map[string]string{"bash": "X\n", "zsh": "BRACKET\n"}},
		// The word -n.go is wc's -n... option, not a file (an error).
		{`wc -l $(printf -- '-n.go') </dev/null >/dev/null 2>&1; echo $?`, map[string]string{"bash": "1\n", "zsh": "1\n"}},
		{`wc -l -- $(printf -- '-n.go')`, map[string]string{"bash": "2 -n.go\n", "zsh": "2 -n.go\n"}},
		// No output, no operand: cat reads stdin.
		{`echo STDIN | cat $(find . -name none)`, map[string]string{"bash": "STDIN\n", "zsh": "STDIN\n"}},
		// NUL separators: bash drops them (the names are joined into one
		// word), zsh's IFS holds NUL (it splits there).
		{`printf '%s|' $(printf 'a\0b.md') 2>/dev/null`, map[string]string{"bash": "ab.md|", "zsh": "a|b.md|"}},
	}
	for _, sh := range []string{"bash", "zsh"} {
		path := testenv.LookPath(t, sh)
		for _, c := range claims {
			cmd := exec.Command(path, "-c", c.script)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C"}
			out, _ := cmd.Output()
			if got := string(out); got != c.want[sh] {
				t.Errorf("%s -c %q = %q, want %q", sh, c.script, got, c.want[sh])
			}
		}
	}
}

// TestSubstProducerBinding: the read of an unquoted $(...) file operand is
// bound to the one trusted producer it runs (Producer), and an output that
// may be empty while nothing feeds stdin is a stdin-read finding.
func TestSubstProducerBinding(t *testing.T) {
	tests := []struct {
		cmd      string
		producer string // the producer's name, "" when not bound
		stdin    bool
	}{
		{"wc -l $(git ls-files '*.go')", "git", true},
		{"wc -l $(git ls-files '*.go') < /dev/null", "git", false},
		{"cat $(find . -name '*.md') README.md", "find", false},
		{"git ls-files | head -1 | cat $(find .)", "find", false},
		{"head -5 $(rg --files -g '*.toml') </dev/null", "rg", false},
		{"cat `find .` </dev/null", "find", false},
		{"grep -n TODO $(git ls-files) </dev/null", "git", false},
		// A script string whose spans are exact: the same shell words.
		{"bash -c 'cat $(find .)' </dev/null", "find", false},
		// Not bound.
		{`cat "$(find .)" </dev/null`, "", false},
		{"cat x$(find .) </dev/null", "", false},
		{"cat $(find . -print0) </dev/null", "", false},
		{"cat $(git ls-files -s) </dev/null", "", false},
		{"cat $(git diff --name-only) </dev/null", "", false},
		{"cat $(grep -l x *.go) </dev/null", "", false},
		{"cat $(cat list) </dev/null", "", false},
		{"cat $(cd src; find .) </dev/null", "", false},
		{"cat $(GIT_DIR=x git ls-files) </dev/null", "", false},
		{"IFS=/; cat $(find .) </dev/null", "", false},
		{"cat $(timeout 5 find .) </dev/null", "", false},
	}
	for _, tc := range tests {
		r := Classify(tc.cmd)
		got, stdin := "", false
		for _, p := range r.Reads {
			if p.Dynamic == "command-substitution" && p.Producer >= 0 {
				got = r.Segments[p.Producer].Name
			}
		}
		for _, f := range r.Findings {
			if f.Code == "stdin-read" {
				stdin = true
			}
		}
		if got != tc.producer || stdin != tc.stdin {
			t.Errorf("%s: producer %q, stdin-read %v; want %q, %v", tc.cmd, got, stdin, tc.producer, tc.stdin)
		}
	}
}
