package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// brief is the part of a Case the loader tests compare.
type brief struct {
	Name    string
	Line    int
	Command string
	Mode    string
	Cwd     string
	Action  string
	Reasons []string
	Derived bool
}

func briefs(cs []Case) []brief {
	var out []brief
	for _, c := range cs {
		out = append(out, brief{c.Name, c.Line, c.Command, c.Mode, c.Cwd, c.Expect.Action, c.Expect.Reasons, c.Derived})
	}
	return out
}

// checkParse parses in as the file name and compares the cases, or the
// error's prefix when wantErr is set.
func checkParse(t *testing.T, parse func(string, []byte, Fixture) ([]Case, error), name, in string, want []brief, wantErr string) {
	t.Helper()
	got, err := parse(name, []byte(in), nil)
	if wantErr != "" {
		if err == nil || !strings.HasPrefix(err.Error(), wantErr) {
			t.Fatalf("error = %v, want prefix %q", err, wantErr)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, briefs(got), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
}

func TestParseSh(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []brief
		wantErr  string
	}{
		{
			name: "one command",
			in:   "ls -la # want allow\n",
			want: []brief{{"f.sh:1", 1, "ls -la", "default", "", "allow", nil, false}},
		},
		{
			name: "codes, comments, blank lines and trailing spaces",
			in:   "# a comment\n\necho hi > x   # want ask redirect-write  \n  cat y # want deny read-denied other.code\n",
			want: []brief{
				{"f.sh:3", 3, "echo hi > x", "default", "", "ask", []string{"redirect-write"}, false},
				{"f.sh:4", 4, "cat y", "default", "", "deny", []string{"read-denied", "other.code"}, false},
			},
		},
		{
			name: "the last want comment counts; a bash comment before it is part of the command",
			in:   "echo '# want deny' # want allow\ngrep x f # ; rm -rf y # want allow\n",
			want: []brief{
				{"f.sh:1", 1, "echo '# want deny'", "default", "", "allow", nil, false},
				{"f.sh:2", 2, "grep x f # ; rm -rf y", "default", "", "allow", nil, false},
			},
		},
		{
			name: "no space after the hash",
			in:   "ls #want allow\n",
			want: []brief{{"f.sh:1", 1, "ls", "default", "", "allow", nil, false}},
		},
		{
			name: "mode directive",
			in:   "ls # want allow\n#mode: readonly\nrm x # want deny\n#mode: default\nrm y # want ask\n",
			want: []brief{
				{"f.sh:1", 1, "ls", "default", "", "allow", nil, false},
				{"f.sh:3", 3, "rm x", "readonly", "", "deny", nil, false},
				{"f.sh:5", 5, "rm y", "default", "", "ask", nil, false},
			},
		},
		{
			name: "modes directive derives readonly cases",
			in:   "#modes: default readonly\nls # want allow\nrm x # want ask redirect-write\nrm -rf / # want deny\n",
			want: []brief{
				{"f.sh:2", 2, "ls", "default", "", "allow", nil, false},
				{"f.sh:2 [readonly]", 2, "ls", "readonly", "", "allow", nil, true},
				{"f.sh:3", 3, "rm x", "default", "", "ask", []string{"redirect-write"}, false},
				{"f.sh:3 [readonly]", 3, "rm x", "readonly", "", "deny", []string{"redirect-write"}, true},
				{"f.sh:4", 4, "rm -rf /", "default", "", "deny", nil, false},
				{"f.sh:4 [readonly]", 4, "rm -rf /", "readonly", "", "deny", nil, true},
			},
		},
		{name: "no want comment", in: "ls\n", wantErr: "f.sh:1: no trailing \"# want allow|ask|deny\" comment"},
		{name: "a word that is not want", in: "ls # wanted allow\n", wantErr: "f.sh:1: no trailing"},
		{name: "unknown action", in: "\nls # want maybe\n", wantErr: "f.sh:2: unknown action \"maybe\""},
		{name: "want without action", in: "ls # want \n", wantErr: "f.sh:1: no trailing"},
		{name: "upper-case code", in: "ls # want ask Redirect\n", wantErr: "f.sh:1: malformed want comment \"# want ask Redirect\""},
		{name: "no command", in: "# want allow\n   # want ask\n", want: nil},
		{name: "bad mode", in: "#mode: sometimes\n", wantErr: "f.sh:1: unknown mode \"sometimes\""},
		{name: "bad modes", in: "#modes: readonly\n", wantErr: "f.sh:1: #modes: must be \"default readonly\""},
		{name: "every problem is reported", in: "ls\ncat\n", wantErr: "f.sh:1: no trailing \"# want allow|ask|deny\" comment\nf.sh:2: no trailing"},
	} {
		t.Run(tc.name, func(t *testing.T) { checkParse(t, ParseSh, "f.sh", tc.in, tc.want, tc.wantErr) })
	}
}

func TestParseYAML(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []brief
		wantErr  string
	}{
		{
			name: "a list of cases, with the expect shorthand",
			in:   "- command: ls\n  expect: allow\n- command: rm x\n  mode: readonly\n  cwd: src\n  expect: {action: deny, reasons: [not-reversible]}\n",
			want: []brief{
				{"f.yaml:1", 1, "ls", "default", "", "allow", nil, false},
				{"f.yaml:3", 3, "rm x", "readonly", "src", "deny", []string{"not-reversible"}, false},
			},
		},
		{
			name: "a mapping with a mode and named cases",
			in:   "mode: readonly\ncases:\n  - name: listing\n    command: ls\n    expect: allow\n",
			want: []brief{{"f.yaml:3 listing", 3, "ls", "readonly", "", "allow", nil, false}},
		},
		{
			name: "multi-line command",
			in:   "- command: |-\n    cat <<'EOF'\n    hi\n    EOF\n  expect: allow\n",
			want: []brief{{"f.yaml:1", 1, "cat <<'EOF'\nhi\nEOF", "default", "", "allow", nil, false}},
		},
		{
			name: "an anchored fixture reused by alias",
			in:   "- command: ls\n  files: &fx {a.txt: x}\n  expect: allow\n- command: cat a.txt\n  files: *fx\n  expect: allow\n",
			want: []brief{
				{"f.yaml:1", 1, "ls", "default", "", "allow", nil, false},
				{"f.yaml:4", 4, "cat a.txt", "default", "", "allow", nil, false},
			},
		},
		{name: "a config the policy rejects", in: "config:\n  grant: [x]\ncases:\n  - command: ls\n    expect: allow\n", wantErr: "f.yaml:2: config: "},
		{name: "a config that is not a mapping", in: "config: [x]\ncases: []\n", wantErr: "f.yaml:1: config must be a mapping"},
		{name: "unknown key in a case", in: "- command: ls\n  expect: allow\n  expected: deny\n", wantErr: `f.yaml:3: unknown key "expected" in case`},
		{name: "unknown key in expect", in: "- command: ls\n  expect:\n    action: allow\n    reason: [x]\n", wantErr: `f.yaml:4: unknown key "reason" in expect`},
		{name: "unknown top-level key", in: "cases: []\nfixture: {}\n", wantErr: `f.yaml:2: unknown key "fixture"`},
		{name: "unknown action", in: "- command: ls\n  expect: permit\n", wantErr: `f.yaml:2: unknown action "permit"`},
		{name: "no command", in: "- expect: allow\n", wantErr: "f.yaml:1: case has no command"},
		{name: "empty command", in: "- command: ''\n  expect: allow\n", wantErr: "f.yaml:1: empty command"},
		{name: "no expect", in: "- command: ls\n", wantErr: "f.yaml:1: case has no expect"},
		{name: "expect without action", in: "- command: ls\n  expect: {reversible: true}\n", wantErr: "f.yaml:2: expect has no action"},
		{name: "reversible not a bool", in: "- command: ls\n  expect: {action: allow, reversible: yes please}\n", wantErr: "f.yaml:2: reversible must be true or false"},
		{name: "unknown read verdict", in: "- command: ls\n  expect:\n    action: allow\n    reads: {a: fine}\n", wantErr: `f.yaml:4: unknown read verdict "fine"`},
		{name: "exit code not an int", in: "- command: ls\n  expect:\n    action: allow\n    exit_meaning: {code: one, error: false}\n", wantErr: "f.yaml:4: code must be an integer"},
		{name: "exit meaning checks nothing", in: "- command: ls\n  expect:\n    action: allow\n    exit_meaning: {code: 1}\n", wantErr: "f.yaml:4: exit_meaning checks nothing"},
		{name: "unknown mode", in: "- command: ls\n  mode: strict\n  expect: allow\n", wantErr: `f.yaml:2: unknown mode "strict"`},
		{name: "duplicate key", in: "- command: ls\n  command: cat\n  expect: allow\n", wantErr: `f.yaml:2: duplicate key "command"`},
		{name: "a case that is not a mapping", in: "- ls\n", wantErr: "f.yaml:1: a case must be a mapping"},
		{name: "a scalar document", in: "hello\n", wantErr: "f.yaml:1: a corpus file is a list of cases"},
		{name: "empty file", in: "", wantErr: "f.yaml: empty file"},
		{name: "syntax error in a flow sequence", in: "- command: ls\n  expect:\n    action: [allow\n", wantErr: "f.yaml:3: did not find expected ',' or ']'"},
		{name: "tab indentation", in: "- command: ls\n\texpect: allow\n", wantErr: "f.yaml:2: found a tab character"},
		{name: "cwd leaving the workspace", in: "- command: ls\n  cwd: ../x\n  expect: allow\n", wantErr: `f.yaml:2: cwd: path "../x" leaves the workspace`},
		{name: "absolute fixture path", in: "- command: ls\n  files: {/etc/x: y}\n  expect: allow\n", wantErr: `f.yaml:2: files: path "/etc/x" is absolute`},
		{name: "unclean fixture path", in: "- command: ls\n  files: {a/../b: y}\n  expect: allow\n", wantErr: `f.yaml:2: files: path "a/../b" is not clean`},
		{name: "file entry without content", in: "- command: ls\n  files: {a: }\n  expect: allow\n", wantErr: `f.yaml:2: files: "a" has no content`},
		{name: "unknown key in a file entry", in: "- command: ls\n  files:\n    a: {link: b}\n  expect: allow\n", wantErr: `f.yaml:3: unknown key "link" in file entry`},
		{name: "two kinds in a file entry", in: "- command: ls\n  files:\n    a: {content: x, symlink: b}\n  expect: allow\n", wantErr: `f.yaml:3: files: "a" needs exactly one of content, symlink or dir`},
		{name: "bad file mode", in: "- command: ls\n  files:\n    a: {content: x, mode: rwx}\n  expect: allow\n", wantErr: `f.yaml:3: mode "rwx" is not octal`},
	} {
		t.Run(tc.name, func(t *testing.T) { checkParse(t, ParseYAML, "f.yaml", tc.in, tc.want, tc.wantErr) })
	}
}

func TestParseYAMLExpect(t *testing.T) {
	in := `
- command: cat a
  files:
    a: "x\n"
    d/: ~
    s: {symlink: ~/.ssh}
    x: {content: "#!/bin/sh\n", mode: "0755"}
    e: {dir: true, mode: "0000"}
  expect:
    action: allow
    reasons: [r1, r2]
    reversible: true
    reads: {a: ok, "~/.ssh/id_rsa": denied}
    exit_meaning: {code: 1, error: false, message: No matches found}
`
	cs, err := ParseYAML("f.yaml", []byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	f, yes := false, true
	want := Expect{
		Action:      "allow",
		Reasons:     []string{"r1", "r2"},
		Reversible:  &yes,
		Reads:       map[string]string{"a": "ok", "~/.ssh/id_rsa": "denied"},
		ExitMeaning: &ExitMeaning{Code: 1, Error: &f, Message: "No matches found"},
	}
	if diff := cmp.Diff(want, cs[0].Expect); diff != "" {
		t.Errorf("expect (-want +got):\n%s", diff)
	}
	wantFx := Fixture{
		{Path: "a", Kind: KindFile, Content: "x\n"},
		{Path: "d", Kind: KindDir},
		{Path: "s", Kind: KindSymlink, Target: "~/.ssh"},
		{Path: "x", Kind: KindFile, Content: "#!/bin/sh\n", Perm: 0o755},
		{Path: "e", Kind: KindDir, Perm: permNone},
	}
	if diff := cmp.Diff(wantFx, cs[0].Fixture); diff != "" {
		t.Errorf("fixture (-want +got):\n%s", diff)
	}
}

func TestParseYAMLConfig(t *testing.T) {
	in := "config:\n  grants: [\"npm test **\"]\ncases:\n  - command: npm test\n    expect: allow\n  - command: ls\n    expect: allow\n"
	cs, err := ParseYAML("f.yaml", []byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Config == nil || cs[0].Config != cs[1].Config {
		t.Fatalf("cases = %+v, want two sharing one config", cs)
	}
	if diff := cmp.Diff([]string{"npm test **"}, cs[0].Config.Grants); diff != "" {
		t.Errorf("grants (-want +got):\n%s", diff)
	}
	if cs[0].ConfigKey == "" {
		t.Error("no config key")
	}
	plain, err := ParseYAML("g.yaml", []byte("- command: ls\n  expect: allow\n"), nil)
	if err != nil || plain[0].Config != nil || plain[0].ConfigKey != "" {
		t.Errorf("a file without config: %+v, %v", plain, err)
	}
}

func TestLoadFS(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("fixture.yaml", "files:\n  a.txt: hello\n")
	write("a.sh", "cat a.txt # want allow\n")
	write("b.yaml", "- command: ls\n  expect: allow\n- command: cat b\n  files: {b: x}\n  expect: allow\n")
	write("sub/c.sh", "ls # want allow\n")
	write("notes.txt", "not a corpus file\n")
	cs, err := LoadPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, strings.TrimPrefix(c.Name, dir+"/")+" "+c.Fixture.Key())
	}
	fx := Fixture{{Path: "a.txt", Kind: KindFile, Content: "hello"}}.Key()
	want := []string{
		"a.sh:1 " + fx,
		"b.yaml:1 " + fx,
		"b.yaml:3 " + Fixture{{Path: "b", Kind: KindFile, Content: "x"}}.Key(),
		"sub/c.sh:1 ",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}

	// A single file uses its directory's fixture.
	cs, err = LoadPath(filepath.Join(dir, "a.sh"))
	if err != nil || len(cs) != 1 || cs[0].Fixture.Key() != fx {
		t.Errorf("LoadPath(a.sh) = %v, %v; want one case with the directory's fixture", cs, err)
	}
	// A bad fixture file is reported with its name and line.
	write("fixture.yaml", "files:\n  a.txt: hello\nextra: 1\n")
	if _, err := LoadPath(dir); err == nil || !strings.Contains(err.Error(), "fixture.yaml:3: unknown key \"extra\"") {
		t.Errorf("bad fixture: error = %v", err)
	}
	if _, err := LoadPath(filepath.Join(dir, "notes.txt")); err == nil || !strings.Contains(err.Error(), "not a corpus file") {
		t.Errorf("notes.txt: error = %v", err)
	}
}

// TestParseShell: #shell: in a .sh file and shell: in a YAML file (and per
// case) name the shell the cases are judged for; unknown is "".
func TestParseShell(t *testing.T) {
	sh := "ls # want allow\n#shell: zsh\nls *(.) # want allow\n#shell: unknown\nls # want allow\n"
	cases, err := ParseSh("a.sh", []byte(sh), Fixture{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cases {
		got = append(got, c.Shell)
	}
	if diff := cmp.Diff([]string{"", "zsh", ""}, got); diff != "" {
		t.Errorf(".sh shells (-want +got):\n%s", diff)
	}
	y := "shell: zsh\ncases:\n  - command: ls\n    expect: allow\n  - command: ls\n    shell: bash\n    expect: allow\n"
	cases, err = ParseYAML("a.yaml", []byte(y), Fixture{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[0].Shell != "zsh" || cases[1].Shell != "bash" {
		t.Errorf("yaml shells: %+v", cases)
	}
	for _, bad := range []string{"#shell: fish\nls # want allow\n"} {
		if _, err := ParseSh("b.sh", []byte(bad), Fixture{}); err == nil || !strings.Contains(err.Error(), `unknown shell "fish"`) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := ParseYAML("b.yaml", []byte("cases:\n  - command: ls\n    shell: csh\n    expect: allow\n"), Fixture{}); err == nil {
		t.Error("shell: csh parsed")
	}
}
