package classify

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// zshCases are commands read as zsh: the verdict with every finding's code
// and span, and whether the command is reversible when its shell is not
// known (read as both bash and zsh). What each case claims about zsh is
// confirmed against the real zsh in gate's TestConfirmZsh.
var zshCases = []struct {
	in, want string
	unknown  bool
}{
	// glob qualifiers that run code, with any delimiter, mixed with others
	{in: "ls *(e:'touch x':)", want: "not reversible: zsh-glob-qualifier-exec 4-18"},
	{in: "ls *(e/touch x/)", want: "not reversible: zsh-glob-qualifier-exec 4-16"},
	{in: "wc -l src/*(e{touch x})", want: "not reversible: zsh-glob-qualifier-exec 11-23"},
	{in: "ls *(+make)", want: "not reversible: zsh-glob-qualifier-exec 4-11"},
	{in: "ls *(oe:x:)", want: "not reversible: zsh-glob-qualifier-exec 4-11"},
	{in: "ls -d *(/e:'touch x':)", want: "not reversible: zsh-glob-qualifier-exec 7-22"},
	{in: "ls *(.,e:x:)", want: "not reversible: zsh-glob-qualifier-exec 4-12"},
	{in: "ls *(#qe:x:)", want: "not reversible: zsh-glob-qualifier-exec 4-12"},
	// a qualifier makes any word a pattern: no * needed, quoted or not
	{in: "ls a.txt(e:'touch x':)", want: "not reversible: zsh-glob-qualifier-exec 8-22"},
	{in: "ls $var(e:x:)", want: "not reversible: param-value 3-7 zsh-glob-qualifier-exec 7-13"},
	{in: "echo 'a'(e:x:)", want: "not reversible: zsh-glob-qualifier-exec 8-14"},
	{in: `ls "*(e:x:)"`, want: "reversible", unknown: true},
	{in: `ls \*\(e:x:\)`, want: "reversible", unknown: true},
	// qualifiers whose words are not the matches
	{in: "ls *(N)", want: "not reversible: zsh-glob-qualifier 4-7"},
	{in: "ls *(P:-rf:)", want: "not reversible: zsh-glob-qualifier 4-12"},
	{in: "ls *(:s/a/b/)", want: "not reversible: zsh-glob-qualifier 4-13"},
	{in: "ls *(Z)", want: "not reversible: zsh-glob-qualifier 4-7"},
	// qualifiers that only select: the read station expands the pattern
	// (D: with dot files, so cat *(D.) reads .env and is denied there)
	{in: "ls *(u:root:)", want: "reversible", unknown: true},
	{in: "ls *(om[1,3])", want: "reversible", unknown: true},
	{in: "ls *(.L+10)", want: "reversible", unknown: true},
	{in: "ls *(#q.)", want: "reversible", unknown: true},
	{in: "cat *(D.)", want: "reversible", unknown: true},
	{in: "cat .e*(.)", want: "reversible", unknown: true},
	{in: "ls **/*.go", want: "reversible", unknown: true},
	{in: "cat **/*.pem", want: "reversible", unknown: true},
	{in: "ls ***/x", want: "reversible", unknown: true},
	// zsh patterns the station does not expand
	{in: "ls (a|b)", want: "not reversible: zsh-glob-pattern 3-8"},
	{in: "ls *.(c|h)", want: "not reversible: zsh-glob-pattern 5-10"},
	{in: "ls <1-10>", want: "not reversible: zsh-glob-pattern 3-9"},
	{in: "ls (#i)foo", want: "not reversible: zsh-glob-pattern 3-7"},
	{in: "cat * (D)", want: "not reversible: zsh-glob-pattern 6-9"},
	{in: "ls *(#q.)(#qe:'touch x':)", want: "not reversible: zsh-glob-pattern 4-9 zsh-glob-qualifier-exec 9-25"},
	{in: "ls *(e:x:)/foo", want: "not reversible: zsh-glob-pattern 4-10"},
	// EXTENDED_GLOB is off (zsh's default; Claude Code sets it off): ^ and ~
	// are plain characters, so git's HEAD~1 is a word
	{in: "git diff HEAD~1 -- src", want: "reversible", unknown: true},
	// = expansion
	{in: "echo =ls", want: "not reversible: zsh-equals-expansion 5-8"},
	{in: "[ a == b ]", want: "not reversible: zsh-equals-expansion 4-6 unexpected-operand 4-6 unexpected-operand 7-8 unexpected-operand 9-10"},
	// parameter flags, $~var, modifiers, subscript flags
	{in: "echo ${(e)var}", want: "not reversible: zsh-param-eval 5-14 param-value 5-14"},
	{in: "echo ${(%)var}", want: "not reversible: zsh-param-eval 5-14 param-value 5-14"},
	{in: "echo ${(s:/:)PATH}", want: "not reversible: zsh-param-flags 5-18"},
	{in: "echo $~var", want: "not reversible: zsh-glob-subst 5-10 param-value 5-10"},
	{in: "echo ${~var}", want: "not reversible: zsh-glob-subst 5-12 param-value 5-12"},
	{in: "echo ${var:h}", want: "not reversible: zsh-param-modifier 5-13 param-value 5-13"},
	{in: "echo ${a[(e)x]}", want: "not reversible: zsh-subscript-flags 5-15 param-value 5-15 unsafe-expansion 5-15"},
	// history modifiers after $var, also in double quotes
	{in: "echo $SHA:h", want: "not reversible: zsh-history-modifier 5-11 param-value 5-9"},
	{in: `echo "$SHA:app.js"`, want: "not reversible: zsh-history-modifier 5-18 param-value 6-10"},
	{in: `x=a; for f in x; do echo "$f:s/x/.env/"; done`, want: "not reversible: assignment 0-3 zsh-history-modifier 25-39"},
	{in: `echo "$SHA:"`, want: "not reversible: param-value 6-10"},
	{in: `echo "${HOME}:x"`, want: "reversible", unknown: true},
	// tied arrays as loop variables
	{in: "for path in .; do ls; done", want: "not reversible: zsh-special-variable 4-8"},
	{in: "for cdpath in /tmp; do cd x; done", want: "not reversible: zsh-special-variable 4-10"},
	{in: "for fpath in .; do ls; done", want: "not reversible: zsh-special-variable 4-9"},
	{in: "for manpath in .; do ls; done", want: "not reversible: zsh-special-variable 4-11"},
	{in: "for module_path in .; do ls; done", want: "not reversible: zsh-special-variable 4-15"},
	{in: "PATH=. ls", want: "not reversible: env-assignment 0-6"},
	{in: "path+=(.); ls", want: "not reversible: assignment 0-9"},
	{in: "for f in *.go; do wc -l $f; done", want: "reversible", unknown: true},
	// a redirection alone runs $READNULLCMD or $NULLCMD
	{in: "< .env", want: "not reversible: zsh-null-command 0-6"},
	{in: "> out", want: "not reversible: zsh-null-command 0-5 redirect-write 0-5"},
	{in: "echo $(<notes.txt)", want: "not reversible: command-substitution 5-18"},
	// functions that run at once or that zsh calls by itself
	{in: "() { ls }", want: "not reversible: zsh-anonymous-function 0-3 function-definition 0-3"},
	{in: "function { ls }", want: "not reversible: zsh-anonymous-function 0-9 function-definition 0-9"},
	{in: "chpwd() { ls }", want: "not reversible: zsh-hook-function 0-8 function-definition 0-8"},
	{in: "TRAPEXIT() { ls }", want: "not reversible: zsh-hook-function 0-11 function-definition 0-11"},
	{in: "command_not_found_handler() { ls }", want: "not reversible: zsh-hook-function 0-28 function-definition 0-28"},
	// syntax mvdan.cc/sh does not parse yet fails closed
	{in: "{ ls } always { ls }", want: "not reversible: parse-error 7-8"},
	{in: "for i (1 2 3) ls", want: "not reversible: parse-error 0-1"},
	// zsh builtins: the catalog's zsh-only entries
	{in: "repeat 3 ls", want: "not reversible: not-read-only 0-11"},
	{in: "r", want: "not reversible: not-read-only 0-1"},
	{in: "noglob ls *", want: "reversible"},
	{in: "nocorrect ls", want: "reversible"},
	{in: "- ls", want: "not reversible: unknown-program 0-1"},
	{in: "autoload -Uz compinit", want: "not reversible: not-read-only 0-21"},
	{in: "zmodload zsh/files", want: "not reversible: not-read-only 0-18"},
	{in: "emulate -c 'ls' sh", want: "not reversible: set-option 8-10 set-option 11-15 set-option 16-18"},
	{in: "print -P '%~'", want: "not reversible: zsh-prompt-expansion 7-8"},
	{in: "print -r -- hello", want: "reversible"},
	{in: "whence -v ls", want: "reversible"},
	{in: "setopt extendedglob", want: "not reversible: set-option 7-19"},
	{in: "hash foo=/bin/rm", want: "not reversible: not-read-only 0-16"},
	// cd OLD NEW and the directory stack: where it goes is not known
	{in: "cd a b && cat x", want: "not reversible: unexpected-operand 5-6 device-read 14-15"},
	{in: "cd +1 && cat x", want: "not reversible: device-read 13-14"},
	// each shell's script in its own dialect, whatever the outer one
	{in: "zsh -c 'ls *(e:x:)'", want: "not reversible: zsh-glob-qualifier-exec 12-18"},
	{in: "zsh -f -c 'cat *(D.)'", want: "reversible", unknown: true},
	{in: "sh -c 'ls *(e:x:)'", want: "not reversible: parse-error 6-18"},
	{in: "bash -c 'ls *(e:x:)'", want: "reversible", unknown: true},
	{in: "zsh -o globsubst -c 'ls'", want: "not reversible: set-option 5-16"},
	{in: "ksh -c 'ls'", want: "not reversible: not-read-only 0-11"},
	// plain reads agents send stay reversible in zsh
	{in: "git log --oneline -5", want: "reversible", unknown: true},
	{in: "git status && git diff --stat", want: "reversible", unknown: true},
	{in: "git grep -n TODO -- src", want: "reversible", unknown: true},
	{in: "rg -n TODO src", want: "reversible", unknown: true},
	{in: "find . -name '*.go'", want: "reversible", unknown: true},
	{in: "ls -la", want: "reversible", unknown: true},
	{in: "head -20 README.md", want: "reversible", unknown: true},
	{in: "wc -l *.go", want: "reversible", unknown: true},
	{in: "jq .name package.json", want: "reversible", unknown: true},
	{in: "sed -n 1,10p a.txt", want: "reversible", unknown: true},
	{in: "git show HEAD:README.md", want: "reversible", unknown: true},
	{in: `echo "$HOME"`, want: "reversible", unknown: true},
}

// zshCodes are the finding codes only the zsh reading emits.
var zshCodes = []string{
	"zsh-glob-qualifier-exec", "zsh-glob-qualifier", "zsh-glob-pattern", "zsh-equals-expansion",
	"zsh-param-eval", "zsh-param-flags", "zsh-glob-subst", "zsh-param-modifier", "zsh-subscript-flags",
	"zsh-history-modifier", "zsh-special-variable", "zsh-null-command", "zsh-anonymous-function",
	"zsh-hook-function", "zsh-prompt-expansion",
}

func TestClassifyZsh(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range zshCases {
		r := Classify(tc.in, WithDialect(DialectZsh))
		if diff := diffString(tc.want, verdict(r)); diff != "" {
			t.Errorf("zsh: Classify(%q) (-want +got):\n%s", tc.in, diff)
		}
		for _, f := range r.Findings {
			seen[f.Code] = true
		}
		u := Classify(tc.in)
		if u.Reversible != tc.unknown {
			t.Errorf("unknown dialect: Classify(%q) reversible=%v, want %v (%s)", tc.in, u.Reversible, tc.unknown, verdict(u))
		}
		if b := Classify(tc.in, WithDialect(DialectBash)); u.Reversible != (b.Reversible && r.Reversible) {
			t.Errorf("%q: unknown dialect reversible=%v, bash %v, zsh %v", tc.in, u.Reversible, b.Reversible, r.Reversible)
		}
		for _, f := range u.Findings {
			if f.Dialect == "zsh" && !strings.HasPrefix(f.Message, "zsh: ") && !strings.HasPrefix(f.Message, "in zsh, ") {
				t.Errorf("%q: the zsh reading's %s does not say so: %q", tc.in, f.Code, f.Message)
			}
		}
	}
	for _, c := range zshCodes {
		if !seen[c] {
			t.Errorf("no zsh case produces finding code %q", c)
		}
	}
}

// TestZshGlobReads: a glob qualifier is taken off the pattern the read
// station expands, D lets it match dot files, and ** is recursive.
func TestZshGlobReads(t *testing.T) {
	for _, tc := range []struct {
		in, path       string
		dots, globstar bool
	}{
		{"cat *(D.)", "*", true, false},
		{"cat .e*(.)", ".e*", false, false},
		{"cat src/*.go(#q.)", "src/*.go", false, false},
		{"cat **/*.pem", "**/*.pem", false, true},
		{"cat **/*(D)", "**/*", true, true},
		{"cat a.txt(.)", "a.txt", false, false},
	} {
		r := Classify(tc.in, WithDialect(DialectZsh))
		if len(r.Reads) != 1 {
			t.Errorf("%q: reads %+v", tc.in, r.Reads)
			continue
		}
		got := r.Reads[0]
		if got.Kind != "glob" || got.Path != tc.path || got.Dots != tc.dots || got.Globstar != tc.globstar {
			t.Errorf("%q: read %s %q dots=%v globstar=%v, want glob %q dots=%v globstar=%v", tc.in, got.Kind, got.Path, got.Dots, got.Globstar, tc.path, tc.dots, tc.globstar)
		}
	}
}

// TestMergeReadings: the unknown dialect keeps the bash reading and adds,
// named, what only the zsh reading found: its findings (zsh: ...), and the
// reads zsh makes that bash does not.
func TestMergeReadings(t *testing.T) {
	r := Classify("cat *(D.) && for path in .; do ls; done")
	if r.Dialect != "bash+zsh" || r.Reversible {
		t.Fatalf("dialect %q reversible %v", r.Dialect, r.Reversible)
	}
	var zshOnly []string
	for _, f := range r.Findings {
		if f.Dialect == "zsh" {
			zshOnly = append(zshOnly, f.Code)
		}
	}
	if diff := diffString("zsh-special-variable", strings.Join(zshOnly, " ")); diff != "" {
		t.Errorf("zsh-only findings (-want +got):\n%s", diff)
	}
	dots := false
	for _, p := range r.Reads {
		dots = dots || p.Dots
	}
	if !dots {
		t.Errorf("the zsh reading's read of *(D.) with dot files is missing: %+v", r.Reads)
	}
	// Segments only zsh runs are added: noglob is a zsh wrapper.
	r = Classify("noglob rm -rf /")
	var names []string
	for _, s := range r.Segments {
		names = append(names, s.Name)
	}
	if diff := diffString("noglob rm", strings.Join(names, " ")); diff != "" {
		t.Errorf("segments (-want +got):\n%s", diff)
	}
	if len(r.Segments) == 2 && r.Segments[1].Parent != 0 {
		t.Errorf("rm's parent is %d, want noglob (0)", r.Segments[1].Parent)
	}
	for _, d := range []Dialect{DialectBash, DialectZsh, DialectSh} {
		if got := Classify("ls", WithDialect(d)).Dialect; got != string(d) {
			t.Errorf("WithDialect(%s): dialect %q", d, got)
		}
	}
}

func TestParseDialect(t *testing.T) {
	for in, want := range map[string]Dialect{
		"": DialectUnknown, "unknown": DialectUnknown, "auto": DialectUnknown, "bash": DialectBash,
		"/bin/zsh": DialectZsh, "-zsh": DialectZsh, "/usr/bin/dash": DialectSh, "sh": DialectSh,
	} {
		got, err := ParseDialect(in)
		if err != nil || got != want {
			t.Errorf("ParseDialect(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"fish", "/bin/tcsh", "zsh5"} {
		if _, err := ParseDialect(bad); err == nil {
			t.Errorf("ParseDialect(%q): no error", bad)
		}
	}
}

// TestZshQualifiers reads qualifier lists on their own.
func TestZshQualifiers(t *testing.T) {
	for _, tc := range []struct {
		q, code string
		dots    bool
	}{
		{".", "", false}, {"D", "", true}, {"D.", "", true}, {"#qD", "", true}, {"/", "", false},
		{"om[1,3]", "", false}, {"Lk+10", "", false}, {"mh-1", "", false}, {"f755", "", false},
		{"f:u+x:", "", false}, {"u:root:", "", false}, {"g0", "", false}, {"^@", "", false},
		{"e:x:", "zsh-glob-qualifier-exec", false}, {"e{x}", "zsh-glob-qualifier-exec", false},
		{"+f", "zsh-glob-qualifier-exec", false}, {"Oe:x:", "zsh-glob-qualifier-exec", false},
		{"o+f", "zsh-glob-qualifier-exec", false}, {"D.e/x/", "zsh-glob-qualifier-exec", true},
		{"N", "zsh-glob-qualifier", false}, {"P:x:", "zsh-glob-qualifier", false},
		{":t", "zsh-glob-qualifier", false}, {"Z", "zsh-glob-qualifier", false},
		{"[1", "zsh-glob-qualifier", false}, {"oZ", "zsh-glob-qualifier", false}, {"u:x", "zsh-glob-qualifier", false},
	} {
		code, _, dots := zshQualifierCheck(tc.q)
		if code != tc.code || dots != tc.dots {
			t.Errorf("zshQualifierCheck(%q) = %q dots=%v, want %q dots=%v", tc.q, code, dots, tc.code, tc.dots)
		}
	}
}

// FuzzClassifyZsh checks the invariants on the zsh reading: no panic,
// deterministic, spans inside the input, unparsable never reversible,
// monotone; and that the unknown dialect is reversible only when both
// the bash and the zsh reading are.
func FuzzClassifyZsh(f *testing.F) {
	for _, tc := range zshCases {
		f.Add(tc.in)
	}
	for _, tc := range classifyCases {
		f.Add(tc.in)
	}
	for _, tc := range shellOptionCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		z := WithDialect(DialectZsh)
		r := Classify(in, z)
		for _, fd := range r.Findings {
			if fd.Code == "internal-error" {
				t.Fatalf("Classify(%q) as zsh panicked inside: %s", in, fd.Message)
			}
		}
		checkInvariants(t, in, r)
		a, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("Classify(%q): marshal: %v", in, err)
		}
		b, _ := json.Marshal(Classify(in, z))
		if !bytes.Equal(a, b) {
			t.Fatalf("Classify(%q) as zsh is not deterministic:\n%s\n%s", in, a, b)
		}
		u := Classify(in)
		checkInvariants(t, in, u)
		if u.Reversible && (!r.Reversible || !Classify(in, WithDialect(DialectBash)).Reversible) {
			t.Fatalf("Classify(%q) is reversible in the unknown dialect but not in both readings", in)
		}
		if r.Reversible || !wrappable(in, r) {
			return
		}
		for _, wrapped := range monotoneWraps(in) {
			if w := Classify(wrapped, z); w.Reversible {
				t.Fatalf("zsh: Classify(%q) is not reversible (%s) but Classify(%q) is", in, verdict(r), wrapped)
			}
		}
	})
}

func diffString(want, got string) string {
	if want == got {
		return ""
	}
	return "- " + want + "\n+ " + got
}
