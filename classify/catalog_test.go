package classify

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEmbeddedCatalogValid checks that the embedded catalog parses and
// validates, and that it covers at least 150 program names.
func TestEmbeddedCatalogValid(t *testing.T) {
	c, err := ParseCatalog(defaultCatalogYAML, "catalog.yaml")
	if err != nil {
		t.Fatalf("embedded catalog: %v", err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if DefaultCatalog() == nil {
		t.Fatal("DefaultCatalog returned nil")
	}
	names := map[string]bool{}
	for _, p := range c.Programs {
		names[p.Name] = true
		for _, a := range p.Aliases {
			names[a] = true
		}
	}
	if len(c.Programs) < 150 {
		t.Errorf("catalog has %d programs, want at least 150", len(c.Programs))
	}
	if len(names) < 150 {
		t.Errorf("catalog has %d program names, want at least 150", len(names))
	}
	for n := range names {
		if c.Lookup(n) == nil {
			t.Errorf("Lookup(%q) = nil", n)
		}
	}
}

// TestCatalogProgramsDocumented checks that every program and subcommand has
// a doc line, and that every program off the allowlist says what it does.
func TestCatalogProgramsDocumented(t *testing.T) {
	var walk func(path string, p *Program)
	walk = func(path string, p *Program) {
		if p.parent == nil && strings.TrimSpace(p.Doc) == "" {
			t.Errorf("%s: no doc", path)
		}
		if p.parent != nil && !p.ReadOnly && strings.TrimSpace(p.Doc) == "" && !p.parent.ReadOnly {
			// subcommands of a program off the allowlist inherit its doc
			return
		}
		for _, s := range p.Subcommands {
			walk(path+" "+s.Name, s)
		}
	}
	for _, p := range DefaultCatalog().Programs {
		walk(p.Name, p)
	}
}

// TestCatalogValidateRejects feeds small broken catalogs to ParseCatalog:
// each must fail with an error that names the offending part.
func TestCatalogValidateRejects(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // substrings of the error
	}{
		{
			name: "unknown program effect",
			yaml: "programs:\n  - name: foo\n    effects: [explode]\n",
			want: []string{"foo", `unknown effect "explode"`},
		},
		{
			name: "unknown option effect",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [--boom]\n        effects: [kaboom]\n        doc: x\n",
			want: []string{"foo", "--boom", `unknown effect "kaboom"`},
		},
		{
			name: "unknown else effect",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [--mode]\n        value: required\n        match: '^a$'\n        else: sideways\n",
			want: []string{"foo", "--mode", `unknown effect "sideways"`},
		},
		{
			name: "unknown operand role",
			yaml: "programs:\n  - name: foo\n    operands: [filez...]\n",
			want: []string{"foo", `unknown operand role "filez"`},
		},
		{
			name: "unknown option operand role",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [-x]\n        operands: [thing]\n",
			want: []string{"foo -x", `unknown operand role "thing"`},
		},
		{
			name: "unknown operand effect",
			yaml: "programs:\n  - name: foo\n    operands: [{role: file, effect: melt, doc: x}]\n",
			want: []string{"foo", `unknown effect "melt"`},
		},
		{
			name: "dangerous operand effect without doc",
			yaml: "programs:\n  - name: foo\n    operands: [{role: file, effect: write}]\n",
			want: []string{"foo", `effect "write" has no doc`},
		},
		{
			name: "unknown program category",
			yaml: "programs:\n  - name: foo\n    categories: [fun]\n",
			want: []string{"foo", `unknown category "fun"`},
		},
		{
			name: "unknown option category",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [-q]\n        categories: [quiet]\n",
			want: []string{"foo", "-q", `unknown category "quiet"`},
		},
		{
			name: "duplicate program",
			yaml: "programs:\n  - name: foo\n  - name: foo\n",
			want: []string{`duplicate name "foo"`},
		},
		{
			name: "duplicate alias",
			yaml: "programs:\n  - name: foo\n    aliases: [bar]\n  - name: baz\n    aliases: [bar]\n",
			want: []string{"baz", `duplicate name "bar"`},
		},
		{
			name: "alias clashes with a name",
			yaml: "programs:\n  - name: foo\n  - name: bar\n    aliases: [foo]\n",
			want: []string{"bar", `duplicate name "foo"`},
		},
		{
			name: "duplicate option",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [--all, -a]\n      - names: [--append, -a]\n",
			want: []string{"foo", `duplicate option "-a"`},
		},
		{
			name: "duplicate subcommand",
			yaml: "programs:\n  - name: foo\n    subcommands:\n      - name: run\n      - name: go\n        aliases: [run]\n",
			want: []string{"foo", `duplicate subcommand "run"`},
		},
		{
			name: "duplicate option in a subcommand",
			yaml: "programs:\n  - name: foo\n    subcommands:\n      - name: run\n        options:\n          - names: [-v]\n          - names: [-v]\n",
			want: []string{"foo run", `duplicate option "-v"`},
		},
		{
			name: "dangerous option without doc",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [--out]\n        value: required\n        effects: [writes-file]\n",
			want: []string{"foo", "dangerous option --out has no doc"},
		},
		{
			name: "dangerous else without doc",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [--mode]\n        value: required\n        match: '^safe$'\n        else: exec\n",
			want: []string{"foo", "dangerous option --mode has no doc"},
		},
		{
			name: "bad option regexp",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [--mode]\n        value: required\n        match: '(['\n",
			want: []string{"foo", "--mode", "match"},
		},
		{
			name: "bad operand regexp",
			yaml: "programs:\n  - name: foo\n    operands: [{role: text, match: 'a)'}]\n",
			want: []string{"foo", "operand text", "match"},
		},
		{
			name: "unknown YAML key in a program",
			yaml: "programs:\n  - name: foo\n    readonly: true\n",
			want: []string{"readonly"},
		},
		{
			name: "unknown YAML key in an option",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [-x]\n        takes: value\n",
			want: []string{"takes"},
		},
		{
			name: "unknown top-level key",
			yaml: "programz:\n  - name: foo\n",
			want: []string{"programz"},
		},
		{
			name: "unknown syntax",
			yaml: "programs:\n  - name: foo\n    syntax: dos\n",
			want: []string{"foo", `unknown syntax "dos"`},
		},
		{
			name: "unknown stdin mode",
			yaml: "programs:\n  - name: foo\n    stdin: sometimes\n",
			want: []string{"foo", `unknown stdin "sometimes"`},
		},
		{
			name: "unknown option value kind",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [-n]\n        value: maybe\n",
			want: []string{"foo", "-n", `unknown value kind "maybe"`},
		},
		{
			name: "option with no names",
			yaml: "programs:\n  - name: foo\n    options:\n      - value: required\n",
			want: []string{"foo", "option with no names"},
		},
		{
			name: "program with no name",
			yaml: "programs:\n  - doc: nameless\n",
			want: []string{"program with no name"},
		},
		{
			name: "default subcommand not listed",
			yaml: "programs:\n  - name: foo\n    default: bar\n    subcommands:\n      - name: baz\n",
			want: []string{"foo", `default subcommand "bar" is not listed`},
		},
		{
			name: "numeric option without gnu syntax",
			yaml: "programs:\n  - name: foo\n    syntax: long\n    numeric_option: -n\n",
			want: []string{"foo", "numeric_option needs gnu syntax"},
		},
		{
			name: "long-syntax command option without terminator",
			yaml: "programs:\n  - name: foo\n    syntax: long\n    options:\n      - names: [-run]\n        effects: [exec, command]\n        doc: runs a command\n",
			want: []string{"foo", "-run", "needs a terminator"},
		},
		{
			name: "not YAML",
			yaml: "programs: [\n",
			want: []string{"bad.yaml"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseCatalog([]byte(tt.yaml), "bad.yaml")
			if err == nil {
				t.Fatalf("ParseCatalog accepted:\n%s", tt.yaml)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// TestCatalogSpot classifies commands that exercise the catalog's entries and
// checks the verdict and the finding codes.
func TestCatalogSpot(t *testing.T) {
	tests := []struct {
		cmd   string
		rev   bool
		codes []string
	}{
		// coreutils: files and text
		{"stat -c %s go.mod", true, nil},
		{"stat --printf='%n\\n' *.go", true, nil},
		{"du -sh .", true, nil},
		{"du -h --max-depth=1 /tmp", true, nil},
		{"du --files0-from=list.txt", true, nil},
		{"df -h", true, nil},
		{"df --output=source,size .", true, nil},
		{"file -b --mime-type README.md", true, nil},
		{"file -C -m magic", false, []string{"file-compile"}},
		{"realpath --relative-to=. ../x", true, nil},
		{"readlink -f /proc/self/exe", true, nil},
		{"basename /a/b.txt .txt", true, nil},
		{"dirname /a/b/c", true, nil},
		{"nl -ba main.go", true, nil},
		{"paste -sd, list.txt", true, nil},
		{"join -t, a.csv b.csv", true, nil},
		{"comm -12 a b", true, nil},
		{"fold -w 80 README", true, nil},
		{"fmt -72 notes.txt", true, nil},
		{"rev names", true, nil},
		{"tac log.txt", true, nil},
		{"od -An -tx1 bin", true, nil},
		{"hexdump -C bin | head", true, nil},
		{"xxd -l 64 bin", true, nil},
		{"xxd bin out.hex", false, []string{"write-operand"}},
		{"strings -n 8 a.out", true, nil},
		{"cut -d: -f1 /etc/passwd", true, nil},
		{"tr a-z A-Z < in.txt", true, nil},
		{"tr -d '\\r'", false, []string{"stdin-read"}},
		{"column -t -s, data.csv", true, nil},
		{"expand -t 4 x.go", true, nil},
		{"numfmt --to=iec 1048576", true, nil},
		{"shuf -n 3 words", true, nil},
		{"shuf -i 1-10", true, nil},
		{"shuf -o out.txt words", false, []string{"shuf-output"}},
		{"shuf -r -e a b", false, []string{"shuf-repeat"}},
		{"base64 -d blob.b64", true, nil},
		{"sha256sum go.sum", true, nil},
		{"md5sum -c sums.md5", true, nil},
		{"cksum -a sha256 file", true, nil},
		{"seq 1 10", true, nil},
		{"seq -s, 0 0.5 3", true, nil},
		{"seq inf", false, []string{"unexpected-operand"}},
		{"yes", false, []string{"follow-option"}},
		{"cmp -s a b", true, nil},
		{"ls -p", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			r := Classify(tt.cmd)
			var codes []string
			for _, f := range r.Findings {
				codes = append(codes, f.Code)
			}
			sort.Strings(codes)
			if r.Reversible != tt.rev {
				t.Errorf("Classify(%q).Reversible = %v, want %v (findings %v)", tt.cmd, r.Reversible, tt.rev, r.Findings)
			}
			if diff := cmp.Diff(tt.codes, codes); diff != "" {
				t.Errorf("Classify(%q) finding codes (-want +got):\n%s", tt.cmd, diff)
			}
		})
	}
}
