package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/shellgate/shellgate/policy"
)

// addCaseSeeds adds the shipped corpus files with the given extensions,
// and extra, as seeds.
func addCaseSeeds(f *testing.F, exts []string, extra ...string) {
	f.Helper()
	for _, ext := range exts {
		files, err := filepath.Glob(filepath.Join("cases", "*"+ext))
		if err != nil {
			f.Fatal(err)
		}
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(data))
		}
	}
	for _, s := range extra {
		f.Add(s)
	}
}

// checkCases holds parsed cases to what the runner relies on, error or
// not: a known action and mode, a command, a line in the file, clean
// fixture paths and cwd. A case that breaks one was let through unchecked.
func checkCases(t *testing.T, name string, cases []Case) {
	t.Helper()
	for _, c := range cases {
		if !validActions[c.Expect.Action] {
			t.Fatalf("%s: action %q", c.Name, c.Expect.Action)
		}
		if !validModes[c.Mode] {
			t.Fatalf("%s: mode %q", c.Name, c.Mode)
		}
		if c.Command == "" {
			t.Fatalf("%s: no command", c.Name)
		}
		if c.File != name || c.Line < 1 || !strings.HasPrefix(c.Name, fmt.Sprintf("%s:%d", name, c.Line)) {
			t.Fatalf("case %q located at %s:%d", c.Name, c.File, c.Line)
		}
		if c.Cwd != "" && c.Cwd != "." && c.Cwd != "~" {
			if err := checkPath(c.Cwd); err != nil {
				t.Fatalf("%s: cwd: %v", c.Name, err)
			}
		}
		checkFixture(t, c.Fixture)
		for _, r := range c.Expect.Reasons {
			if r == "" {
				t.Fatalf("%s: an empty reason code", c.Name)
			}
		}
		for p, v := range c.Expect.Reads {
			if !validVerdict[v] {
				t.Fatalf("%s: read %q verdict %q", c.Name, p, v)
			}
		}
	}
}

func checkFixture(t *testing.T, fx Fixture) {
	t.Helper()
	for _, e := range fx {
		if err := checkPath(e.Path); err != nil {
			t.Fatalf("fixture entry: %v", err)
		}
		switch e.Kind {
		case KindFile, KindDir, KindSymlink:
		default:
			t.Fatalf("fixture entry %q: kind %q", e.Path, e.Kind)
		}
	}
}

// sameParse fails unless two parses of the same input agree.
func sameParse(t *testing.T, a, b []Case, errA, errB error) {
	t.Helper()
	if fmt.Sprint(errA) != fmt.Sprint(errB) {
		t.Fatalf("not deterministic: %v then %v", errA, errB)
	}
	if diff := cmp.Diff(a, b, cmpopts.IgnoreUnexported(policy.Config{})); diff != "" {
		t.Fatalf("not deterministic (-first +second):\n%s", diff)
	}
}

// FuzzParseSh: any .sh corpus file parses to valid cases and/or errors
// with a file:line, the same way twice, and every case is a line of the
// file that carries a want comment.
func FuzzParseSh(f *testing.F) {
	addCaseSeeds(f, []string{".sh"}, "ls # want allow\n#modes: default readonly\nrm x # want deny destructive\n",
		"#mode: yolo\n", "# want allow\n", "echo '# want deny' # want ask x\n", "ls # want maybe\n", "\r\n\t# want allow")
	f.Fuzz(func(t *testing.T, src string) {
		cases, err := ParseSh("t.sh", []byte(src), nil)
		cases2, err2 := ParseSh("t.sh", []byte(src), nil)
		sameParse(t, cases, cases2, err, err2)
		if err != nil && !strings.HasPrefix(err.Error(), "t.sh:") {
			t.Fatalf("error without the file: %v", err)
		}
		checkCases(t, "t.sh", cases)
		lines := strings.Split(src, "\n")
		for _, c := range cases {
			if c.Line > len(lines) || !strings.Contains(lines[c.Line-1], c.Command) || !wantStart.MatchString(lines[c.Line-1]) {
				t.Fatalf("case %q is not line %d (%q)", c.Command, c.Line, lines[min(c.Line, len(lines))-1])
			}
		}
	})
}

// FuzzParseYAML: any YAML corpus file parses to valid cases and/or errors,
// the same way twice, with no panic on aliases, tags or odd nesting.
func FuzzParseYAML(f *testing.F) {
	addCaseSeeds(f, []string{".yaml"},
		"- command: ls\n  expect: allow\n", "cases:\n  - {command: x, expect: {action: ask, reasons: [a]}}\n",
		"a: &a [*a]\n", "cases: &c\n  - command: ls\n    expect: *c\n", "- command: !!binary aGk=\n  expect: allow\n",
		"files: {a: 1}\ncases: []\n", "config: {grants: [ls]}\ncases:\n  - command: ls\n    expect: allow\n",
		"- command: ls\n  cwd: ../x\n  expect: allow\n", "- {command: ls, expect: {reads: {a: ok}, reversible: yes}}\n")
	f.Fuzz(func(t *testing.T, src string) {
		cases, err := ParseYAML("t.yaml", []byte(src), nil)
		cases2, err2 := ParseYAML("t.yaml", []byte(src), nil)
		sameParse(t, cases, cases2, err, err2)
		if err != nil && !strings.HasPrefix(err.Error(), "t.yaml") {
			t.Fatalf("error without the file: %v", err)
		}
		checkCases(t, "t.yaml", cases)
	})
}

// FuzzParseFixture: any fixture file gives clean entries or an error.
func FuzzParseFixture(f *testing.F) {
	addCaseSeeds(f, []string{"fixture.yaml"}, "files:\n  a/b: x\n  ~/.ssh/id_rsa: k\n",
		"files:\n  l: {symlink: ~/x}\n  d/: {}\n", "files:\n  ../x: y\n", "files: [a]\n", "nope: 1\n", "files:\n  f: {content: x, mode: 0600}\n")
	f.Fuzz(func(t *testing.T, src string) {
		fx, err := ParseFixture("fixture.yaml", []byte(src))
		fx2, err2 := ParseFixture("fixture.yaml", []byte(src))
		if fmt.Sprint(err) != fmt.Sprint(err2) || fx.Key() != fx2.Key() {
			t.Fatalf("not deterministic: %v then %v", err, err2)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "fixture.yaml") {
			t.Fatalf("error without the file: %v", err)
		}
		checkFixture(t, fx)
	})
}

// FuzzExtract: any history or transcript gives commands and problems (a
// line that cannot be read is a problem, never a panic), the same way
// twice, each command located at a line of the input.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"ls\ngit status\n\n",
		`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":"ls"}}]},"cwd":"/w"}` + "\n",
		`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls\"],\"workdir\":\"/w\"}"}}` + "\n",
		`{"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"/bin/bash -lc 'ls -la'"}}` + "\n",
		`{"type":"local_shell_call","action":{"command":["ls","-l"],"working_directory":"/w"}}` + "\n",
		`{"command":"ls"}` + "\n" + `{"command":["a b","c"]}` + "\n{not json\n",
		`{"type":"function_call","name":"shell","arguments":"nope"}` + "\n",
		`{"message":{"content":[{"type":"tool_use","name":"Bash","input":{}}]}}` + "\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		cmds, problems, err := Extract(strings.NewReader(src))
		cmds2, problems2, err2 := Extract(strings.NewReader(src))
		if fmt.Sprint(cmds, problems, err) != fmt.Sprint(cmds2, problems2, err2) {
			t.Fatalf("not deterministic")
		}
		if err != nil {
			t.Fatalf("reading a string: %v", err)
		}
		lines := strings.Count(src, "\n") + 1
		for _, c := range cmds {
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("command %q at line %d of %d", c.Command, c.Line, lines)
			}
			switch c.Source {
			case "lines", "claude", "codex", "jsonl":
			default:
				t.Fatalf("source %q", c.Source)
			}
			if strings.TrimSpace(c.Command) == "" {
				t.Fatalf("an empty command from line %d (%s)", c.Line, c.Source)
			}
		}
		for _, p := range problems {
			if !strings.HasPrefix(p, "line ") {
				t.Fatalf("problem without a line: %q", p)
			}
		}
	})
}
