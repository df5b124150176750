package exitmeaning

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/internal/testenv"
	"mvdan.cc/sh/v3/syntax"
)

// want is a compact expectation: "ok: MESSAGE @PROGRAM" for a non-error,
// "error: MESSAGE @PROGRAM" for an error; notes are checked separately.
func short(m Meaning) string {
	s := "ok"
	if m.Error {
		s = "error"
	}
	if m.Message != "" {
		s += ": " + m.Message
	}
	if m.Program != "" {
		s += " @" + m.Program
	}
	return s
}

// interpretCases are TestInterpret's table: commands, statuses and what
// they mean, read as bash.
var interpretCases = []struct {
	cmd  string
	code int
	want string
}{
	// success is never an error
	{"grep foo f", 0, "ok"},
	{"false", 0, "ok"},
	{"anything at all", 0, "ok"},

	// the grep family and friends: 1 is no match, 2+ is an error
	{"grep foo f", 1, "ok: No matches found @grep"},
	{"grep foo f", 2, "error: grep reported an error @grep"},
	{"egrep 'a|b' f", 1, "ok: No matches found @egrep"},
	{"fgrep -r x .", 1, "ok: No matches found @fgrep"},
	{"grep -rn foo . | grep -v test", 1, "ok: No matches found @grep"},
	{"rg TODO src", 1, "ok: No matches found @rg"},
	{"rg TODO src", 2, "error: rg reported an error @rg"},
	{"ag pattern", 1, "ok: No matches found @ag"},
	{"ack pattern lib", 1, "ok: No matches found @ack"},
	{"zgrep x f.gz", 1, "ok: No matches found @zgrep"},
	{"git grep -n needle", 1, "ok: No matches found @git grep"},
	{"git grep -n needle", 128, "error: git stopped with a fatal error @git grep"},
	{"git -C repo grep needle", 1, "ok: No matches found @git grep"},

	// quoted separators do not split the command
	{"grep 'a;b' f", 1, "ok: No matches found @grep"},
	{`grep "a && b" f`, 1, "ok: No matches found @grep"},
	{"grep 'x|y' f", 1, "ok: No matches found @grep"},
	{`grep a\;b f`, 1, "ok: No matches found @grep"},
	{"echo 'grep x f; false'", 1, "error @echo"},
	{`grep "$(echo 'a;b')" f`, 1, "ok: No matches found @grep"},
	{"grep '#not a comment' f", 1, "ok: No matches found @grep"},

	// diff and cmp
	{"diff a b", 1, "ok: Files differ @diff"},
	{"diff a b", 2, "error: diff reported an error @diff"},
	{"diff -u a b | head -50", 1, "error @head"},
	{"cmp a b", 1, "ok: Files differ @cmp"},
	{"cmp -s a b", 1, "ok: Files differ @cmp"},
	{"cmp -s a b", 2, "error: cmp reported an error @cmp"},
	{"git diff --exit-code", 1, "ok: Files differ @git diff"},
	{"git diff --quiet HEAD", 1, "ok: Files differ @git diff"},
	{"git diff --no-index a b", 1, "ok: Files differ @git diff"},
	{"git status", 1, "error @git status"},
	{"git log --oneline", 129, "error: git usage error @git log"},

	// conditions
	{"test -f x", 1, "ok: Condition is false @test"},
	{"[ -f x ]", 1, "ok: Condition is false @["},
	{"[ -f x ]", 2, "error: [ reported an error @["},
	{"[[ -f x ]]", 1, "ok: Condition is false @[["},
	{"[[ $a == b ]]", 2, "error: [[ reported an error @[["},
	{"(( n > 3 ))", 1, "ok: Condition is false: the arithmetic result was 0 @(("},
	{"let 'x = 0'", 1, "ok: Condition is false: the arithmetic result was 0 @let"},
	{"! grep -q secret f", 1, "ok: Condition is false: the negated command succeeded"},

	// find, which, command -v, type, pgrep, jq -e
	{"find . -name '*.go'", 1, "ok: Some directories were inaccessible @find"},
	{"find / -name x 2>/dev/null", 1, "ok: Some directories were inaccessible @find"},
	{"which node", 1, "ok: Not found @which"},
	{"command -v node", 1, "ok: Not found @command"},
	{"command -V node", 1, "ok: Not found @command"},
	{"type node", 1, "ok: Not found @type"},
	{"pgrep -f server", 1, "ok: No processes matched @pgrep"},
	{"pkill -f server", 1, "ok: No processes matched @pkill"},
	{"jq -e .ok f.json", 1, "ok: The last output was false or null @jq"},
	{"jq --exit-status .ok f.json", 1, "ok: The last output was false or null @jq"},
	{"jq -re .ok f.json", 1, "ok: The last output was false or null @jq"},
	{"jq -e .ok f.json", 4, "error: jq produced no valid result @jq"},
	{"jq .ok f.json", 1, "error @jq"},

	// lists: the command whose status bash returns
	{"cd src && grep -rn foo .", 1, "ok: grep: No matches found (or cd failed) @grep"},
	{"grep -q x f && echo found", 1, "ok: No matches found @grep"},
	{"grep x f || echo none", 1, "error @echo"},
	{"make || grep x f", 1, "ok: No matches found @grep"},
	{"grep x f; ls", 2, "error @ls"},
	{"cd src && sed -n 1p f", 1, "error @sed"},
	{"cd src && cat f | head", 1, "error @head"},
	{"cd a && git diff --quiet && cat f", 1, "error: cat failed (or git diff: Files differ) @cat"},
	{"ls; grep x f", 1, "ok: No matches found @grep"},
	{"true && diff a b", 1, "ok: Files differ @diff"},
	{"grep x f && grep y g", 1, "ok: No matches found @grep"},
	{"a && b || grep x f", 1, "ok: No matches found @grep"},
	{"sleep 1 &", 1, "error"},
	{"grep x f; exit $?", 1, "ok: No matches found @grep"},
	{"grep x f; exit", 1, "ok: No matches found @grep"},

	// pipelines: the last stage, unless pipefail
	{"cat f | grep x", 1, "ok: No matches found @grep"},
	{"grep x f | wc -l", 1, "error @wc"},
	{"set -o pipefail; grep x f | sort", 1, "error: sort failed (or grep: No matches found) @sort"},
	{"set -euo pipefail; cat f | grep x", 1, "ok: grep: No matches found (or cat failed) @grep"},
	{"set -o pipefail; set +o pipefail; grep x f | wc -l", 1, "error @wc"},
	{"yes | head -1", 141, "error: Killed by signal SIGPIPE (13) @head"},

	// errexit
	{"set -e; grep x f; echo done", 1, "ok: No matches found @grep"},

	// wrappers unwrapped
	{"timeout 10 grep x f", 1, "ok: No matches found @grep"},
	{"timeout 10 grep x f", 124, "error: Timed out: timeout stopped the command @timeout"},
	{"timeout -k 5 -s KILL 10 rg x", 1, "ok: No matches found @rg"},
	{"timeout 10 rg x", 125, "error: timeout itself failed @timeout"},
	{"env LC_ALL=C grep x f", 1, "ok: No matches found @grep"},
	{"env -i PATH=/bin diff a b", 1, "ok: Files differ @diff"},
	{"env grep x f", 125, "error: env itself failed @env"},
	{"chroot /srv ls", 125, "error: chroot itself failed @chroot"},
	{"chroot /srv ls", 1, "error @chroot"},
	{"nice -n 10 grep x f", 1, "ok: No matches found @grep"},
	{"command grep x f", 1, "ok: No matches found @grep"},
	{"stdbuf -oL grep x f", 1, "ok: No matches found @grep"},
	{"sudo -u root grep x /etc/shadow", 1, "ok: No matches found @grep"},
	{"time grep x f", 1, "ok: No matches found @grep"},
	{"exec grep x f", 1, "ok: No matches found @grep"},
	{"nohup grep x f", 1, "ok: No matches found @grep"},
	{"timeout 5 env A=1 nice -n 3 grep -q 'a;b' f", 1, "ok: No matches found @grep"},
	{"find . -name '*.go' | xargs grep foo", 123, "error: grep (run by xargs) exited with a status from 1 to 125; for grep 1 means: No matches found @xargs"},
	{"xargs -0 rg foo", 125, "error: A command run by xargs was killed by a signal @xargs"},

	// path prefixes and assignments are skipped
	{"/usr/bin/grep x f", 1, "ok: No matches found @grep"},
	{"./bin/../grep x f", 1, "ok: No matches found @grep"},
	{"LC_ALL=C grep x f", 1, "ok: No matches found @grep"},
	{"A=1 B=2 /bin/diff a b", 1, "ok: Files differ @diff"},

	// nested structures
	{"(cd x && grep y z)", 1, "ok: grep: No matches found (or cd failed) @grep"},
	{"{ ls; grep y z; }", 1, "ok: No matches found @grep"},
	{"if [ -f x ]; then grep y x; fi", 1, "ok: No matches found @grep"},
	{"if test -d d; then diff a b; else grep q f; fi", 1, "ok: grep: No matches found (or diff: Files differ) @grep"},
	{"for f in a b; do grep x $f; done", 1, "ok: No matches found @grep"},
	{"while read l; do grep $l f; done < list", 1, "ok: No matches found @grep"},
	{"case $x in a) grep y f;; esac", 1, "ok: No matches found @grep"},
	{"bash -c 'grep x f'", 1, "ok: No matches found @grep"},
	{`sh -c "ls; diff a b"`, 1, "ok: Files differ @diff"},
	{"bash -lc 'cd x && rg y'", 1, "ok: rg: No matches found (or cd failed) @rg"},
	{"bash -c 'if then'", 2, "error: Shell syntax error @bash"},

	// generic meanings
	{"make", 2, "error @make"},
	{"npm test", 1, "error @npm test"},
	{"./run.sh", 126, "error: Command found but not executable (permission denied) @run.sh"},
	{"nosuchprogram", 127, "error: Command not found @nosuchprogram"},
	{"grep x f", 127, "error: Command not found @grep"},
	{"sleep 100", 137, "error: Killed by signal SIGKILL (9) @sleep"},
	{"sleep 100", 143, "error: Killed by signal SIGTERM (15) @sleep"},
	{"python3 app.py", 130, "error: Killed by signal SIGINT (2) @python3"},
	{"./crash", 139, "error: Killed by signal SIGSEGV (11) @crash"},
	{"./abort", 134, "error: Killed by signal SIGABRT (6) @abort"},
	{"make", 128, "error @make"},
	{"ssh host", 255, "error @ssh"},
	{"$CMD x", 1, "error"},
	{"x=$(grep a f)", 1, "error"},
	{"grep x f", 300, "error: Exit status 300 is outside 0-255"},
	{"grep x f", -1, "error: Exit status -1 is outside 0-255"},

	// catalog texts with a condition: "(with -q)"
	{"fd -q pattern", 1, "ok: " + catalogExit1("fd", "") + " @fd"},
	{"fd --quiet pattern", 1, "ok: " + catalogExit1("fd", "") + " @fd"},
	{"fd pattern", 1, "error @fd"},
	{"git diff-tree --quiet HEAD~1 HEAD", 1, "ok: " + catalogExit1("git", "diff-tree") + " @git diff-tree"},
	{"git diff-tree HEAD~1 HEAD", 1, "error @git diff-tree"},
	{"git show-ref --verify refs/heads/x", 1, "ok: " + catalogExit1("git", "show-ref") + " @git show-ref"},
	{"strace -f grep x f", 1, "ok: No matches found @grep"},
	{"parallel grep x ::: a b c", 2, "error: 2 of the jobs run by parallel failed @parallel"},
	{"parallel grep x ::: a b c", 101, "error: More than 100 of the jobs run by parallel failed @parallel"},
	{"xargs rg foo", 1, "error: xargs itself failed @xargs"},
	{"xargs git grep foo", 123, "error: git grep (run by xargs) exited with a status from 1 to 125; for git grep 1 means: No matches found @xargs"},
	{"xargs jq -e .a", 123, "error: jq (run by xargs) exited with a status from 1 to 125; for jq 1 means: The last output was false or null @xargs"},
	{"xargs jq .a", 123, "error: jq (run by xargs) exited with a status from 1 to 125 @xargs"},
	{"systemctl status nginx", 3, "ok: The unit is inactive @systemctl status"},
	{"systemctl status nginx", 4, "error: No such unit @systemctl status"},
	{"git reflog exists refs/x", 1, "ok: " + catalogExit1("git", "reflog exists") + " @git reflog"},
	{"git frobnicate x", 1, "error @git frobnicate"},
	{"git frobnicate x", 128, "error: git stopped with a fatal error @git frobnicate"},
	{"command -v node", 2, "error: command reported an error @command"},
	{"command grep x f", 2, "error: grep reported an error @grep"},
	{"echo a; false", 1, "error @false"},
	{"grep x f; echo done", 0, "ok"},

	// unparsable commands
	{"grep 'x f", 2, "error: Shell syntax error"},
	{"if then", 1, "error"},
	{"", 1, "error"},
}

func TestInterpret(t *testing.T) {
	tests := interpretCases
	if len(tests) < 80 {
		t.Fatalf("only %d cases", len(tests))
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s=%d", tt.cmd, tt.code), func(t *testing.T) {
			got := short(Interpret(tt.cmd, tt.code))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Interpret(%q, %d) mismatch (-want +got):\n%s", tt.cmd, tt.code, diff)
			}
		})
	}
}

// catalogExit1 is the catalog's meaning of exit status 1 for the program
// (the tables hold it, so a catalog without it stops the test binary).
func catalogExit1(name, sub string) string {
	p := classify.DefaultCatalog().Lookup(name)
	for _, s := range strings.Fields(sub) {
		if p != nil {
			p = p.Sub(s)
		}
	}
	if p == nil {
		panic(fmt.Sprintf("the catalog has no %s %s", name, sub))
	}
	m, ok := p.Exit["1"]
	if !ok {
		panic(fmt.Sprintf("the catalog has no meaning of exit status 1 for %s %s", name, sub))
	}
	return m.Message
}

func TestNotes(t *testing.T) {
	tests := []struct {
		cmd  string
		code int
		want []string
	}{
		{"grep x f | sort", 1, nil},
		{"set -o pipefail; grep x f | sort", 1, []string{NotePipefail}},
		{"set -e; ls; grep x f", 1, []string{NoteErrexit}},
		{"set -e -o pipefail; ls | wc; cat f | grep x", 1, []string{NoteErrexit, NotePipefail}},
	}
	for _, tt := range tests {
		got := Interpret(tt.cmd, tt.code).Notes
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Interpret(%q, %d).Notes (-want +got):\n%s", tt.cmd, tt.code, diff)
		}
	}
}

// TestNoPanic feeds hostile input; the walk must never panic and always
// say something for a non-zero status.
func TestNoPanic(t *testing.T) {
	inputs := []string{
		strings.Repeat("(", 10000),
		strings.Repeat("$(", 300) + strings.Repeat(")", 300),
		strings.Repeat("a | ", 5000) + "grep x",
		strings.Repeat("bash -c '", 10) + "grep x" + strings.Repeat("'", 10),
		"\x00grep x",
		"grep \xff\xfe",
		strings.Repeat("x", 2<<20),
		"bash -c",
		"exec",
		"timeout",
		"xargs",
		"set -o",
		"env -- ",
	}
	for _, in := range inputs {
		for _, code := range []int{1, 2, 124, 137} {
			m := Interpret(in, code)
			if !m.Error && m.Message == "" {
				t.Errorf("Interpret(%.40q, %d) = %+v: a non-zero status with no meaning and no error", in, code, m)
			}
		}
	}
}

func TestSignalName(t *testing.T) {
	got := []string{SignalName(9), SignalName(15), SignalName(34), SignalName(64), SignalName(99)}
	want := []string{"SIGKILL (9)", "SIGTERM (15)", "SIGRTMIN+0 (34)", "SIGRTMIN+30 (64)", "signal 99"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

// TestCatalogEdit checks that the catalog alone decides what a status
// means: a program added by a catalog file gets its meanings, conditions
// and wrapping from the entry, and an entry replaced without them leaves
// only the generic meanings.
func TestCatalogEdit(t *testing.T) {
	ext, err := classify.ParseCatalog([]byte(`
programs:
  - name: frob
    doc: frobs files
    options:
      - names: [--check, -c]
      - names: [--verbose, -v]
    exit:
      1: Nothing to frob
      2: {message: Frobbed with warnings, when: [--check]}
      3-5: {message: "Frob jammed ({code})", error: true}
    operands: [file...]
  - name: runfrob
    doc: runs a command under frob's supervision
    categories: [wrapper]
    stop_at_operand: true
    exit_status: command
    exit:
      99:
        message: A command failed
        command: "{command} failed under runfrob"
        error: true
    operands: [command]
  - name: grep
    doc: a grep that says nothing about its statuses
    operands: [pattern, file...]
  - name: chatty
    doc: prints, and does not fail
    exit_status: zero
    operands: [text...]
`), "ext.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := classify.DefaultCatalog().Extend(ext)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd  string
		code int
		want string
	}{
		{"frob a b", 1, "ok: Nothing to frob @frob"},
		{"frob a b", 2, "error: frob reported an error @frob"},
		{"frob --check a", 2, "ok: Frobbed with warnings @frob"},
		{"frob -vc a", 2, "ok: Frobbed with warnings @frob"},
		{"frob a", 4, "error: Frob jammed (4) @frob"},
		{"frob a", 127, "error: Command not found @frob"},
		{"runfrob frob a", 1, "ok: Nothing to frob @frob"},
		{"runfrob frob a", 99, "error: frob failed under runfrob; for frob 1 means: Nothing to frob @runfrob"},
		{"runfrob", 99, "error: A command failed @runfrob"},
		{"grep x f", 1, "error @grep"},
		{"frob a && chatty done", 1, "ok: Nothing to frob @frob"},
		{"unknownprog x", 1, "error @unknownprog"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s=%d", tt.cmd, tt.code), func(t *testing.T) {
			got := short(Interpret(tt.cmd, tt.code, WithCatalog(cat)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Interpret(%q, %d) mismatch (-want +got):\n%s", tt.cmd, tt.code, diff)
			}
		})
	}
	// The default catalog is untouched by the extension.
	if got := short(Interpret("grep x f", 1)); got != "ok: No matches found @grep" {
		t.Errorf("default catalog: grep x f = %q", got)
	}
}

// TestReadmeCatalogExample checks the README's catalog entry for frob: as
// printed, it gives frob its exit meanings.
func TestReadmeCatalogExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const start = "```yaml\nprograms:\n  - name: frob\n"
	i := strings.Index(string(readme), start)
	if i < 0 {
		t.Fatal("the README has no catalog example for frob")
	}
	src := string(readme[i+len("```yaml\n"):])
	src = src[:strings.Index(src, "```")]
	ext, err := classify.ParseCatalog([]byte(src), "README.md")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := classify.DefaultCatalog().Extend(ext)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cmd  string
		code int
		want string
	}{
		{"frob a", 1, "ok: Nothing to frob @frob"},
		{"frob --check a", 2, "ok: Frobbed with warnings @frob"},
		{"frob a", 2, "error: frob reported an error @frob"},
		{"frob a", 4, "error: Frob jammed (4) @frob"},
	} {
		if got := short(Interpret(tt.cmd, tt.code, WithCatalog(cat))); got != tt.want {
			t.Errorf("Interpret(%q, %d) = %q, want %q", tt.cmd, tt.code, got, tt.want)
		}
	}
}

// TestDialect: a command is read in the language of the shell that ran
// it. noglob is a zsh precommand modifier that returns the status of the
// command it runs, and no program in bash; the real shells confirm the
// statuses (zsh: grep's 1, no match; bash: 127, noglob not found), and
// each is read in its own dialect.
func TestDialect(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/f", []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		shell   classify.Dialect
		cmd     string
		code    int // the status the real shell returns
		want    string
		asBash  string // the same status read as bash
		program string
	}{
		{classify.DialectZsh, "noglob grep beta f", 1, "ok: No matches found @grep", "error @noglob", "zsh"},
		{classify.DialectBash, "noglob grep beta f", 127, "error: Command not found @noglob", "error: Command not found @noglob", "bash"},
		{classify.DialectBash, "zsh -c 'noglob grep beta f'", 1, "ok: No matches found @grep", "ok: No matches found @grep", "bash"},
		{classify.DialectZsh, "bash -c 'noglob grep beta f'", 127, "error: Command not found @noglob", "error: Command not found @noglob", "zsh"},
	}
	for _, tc := range tests {
		t.Run(string(tc.shell)+" "+tc.cmd, func(t *testing.T) {
			sh := testenv.LookPath(t, tc.program)
			testenv.LookPath(t, "zsh", "bash")
			cmd := exec.Command(sh, "-c", tc.cmd)
			cmd.Dir = dir
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir}
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Fatalf("%s -c %q exited %d, want %d", tc.program, tc.cmd, code, tc.code)
			}
			got := []string{short(Interpret(tc.cmd, code, WithDialect(tc.shell))), short(Interpret(tc.cmd, code))}
			if diff := cmp.Diff([]string{tc.want, tc.asBash}, got); diff != "" {
				t.Errorf("in %s, and as bash (-want +got):\n%s", tc.shell, diff)
			}
		})
	}
}

// TestInterpretParsed: interpreting the report and statements the
// classifier already made (as the gate does after a run) means what
// interpreting the command afresh means, in each dialect, and parses
// nothing of its own.
func TestInterpretParsed(t *testing.T) {
	for _, d := range []classify.Dialect{classify.DialectBash, classify.DialectZsh} {
		for _, tt := range interpretCases {
			var stmts []*syntax.Stmt
			rep := classify.Classify(tt.cmd, classify.WithDialect(d), classify.WithStatements(func(s *syntax.Stmt) { stmts = append(stmts, s) }))
			want := Interpret(tt.cmd, tt.code, WithDialect(d))
			got := InterpretParsed(rep, stmts, tt.code)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s %q=%d: parsed vs afresh (-want +got):\n%s", d, tt.cmd, tt.code, diff)
			}
		}
	}
	// The statements are the ones read: given no statements the report's
	// command is read afresh, and the meaning is the same.
	rep := classify.Classify("noglob grep x f", classify.WithDialect(classify.DialectZsh))
	if got := short(InterpretParsed(rep, nil, 1)); got != "ok: No matches found @grep" {
		t.Errorf("no statements: %s", got)
	}
	both := classify.Classify("noglob grep x f")
	if got := short(InterpretParsed(both, nil, 1)); got != "error @noglob" {
		t.Errorf("two readings: %s, want bash's", got)
	}
}
