package classify

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
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

// TestCatalogProgramsDocumented checks that every program has a doc line and
// that every subcommand off the read-only allowlist says what it does: the
// not-read-only finding quotes it.
func TestCatalogProgramsDocumented(t *testing.T) {
	var walk func(path string, p *Program, top bool)
	walk = func(path string, p *Program, top bool) {
		if (top || !p.ReadOnly) && strings.TrimSpace(p.Doc) == "" {
			t.Errorf("%s: no doc", path)
		}
		for _, s := range p.Subcommands {
			walk(path+" "+s.Name, s, false)
		}
	}
	for _, p := range DefaultCatalog().Programs {
		walk(p.Name, p, true)
	}
}

// TestCatalogRoleKeys checks every operand-role mapping of the embedded
// catalog for unknown keys. Role.UnmarshalYAML decodes mappings itself, so
// the decoder's KnownFields check does not reach them; a misspelt "efect:"
// would otherwise be dropped without a word.
func TestCatalogRoleKeys(t *testing.T) {
	known := map[string]bool{}
	rt := reflect.TypeOf(OperandSpec{})
	for i := 0; i < rt.NumField(); i++ {
		if tag := strings.Split(rt.Field(i).Tag.Get("yaml"), ",")[0]; tag != "" {
			known[tag] = true
		}
	}
	var root yaml.Node
	if err := yaml.Unmarshal(defaultCatalogYAML, &root); err != nil {
		t.Fatal(err)
	}
	checked := 0
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == "operands" && v.Kind == yaml.SequenceNode {
					for _, r := range v.Content {
						if r.Kind != yaml.MappingNode {
							continue
						}
						checked++
						for j := 0; j < len(r.Content); j += 2 {
							if !known[r.Content[j].Value] {
								t.Errorf("line %d: operand role has unknown key %q", r.Content[j].Line, r.Content[j].Value)
							}
						}
					}
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&root)
	if checked == 0 {
		t.Error("no operand-role mappings found")
	}
}

// TestCatalogValidateRejects feeds small broken catalogs to ParseCatalog:
// each must fail with an error that names the offending part.
func TestCatalogValidateRejects(t *testing.T) {
	tests := []refusedCatalog{
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
			name: "hidden input: unknown format",
			yaml: "programs:\n  - name: foo\n    hidden_inputs: [{file: a.ini, format: ini, keys: [a]}]\n",
			want: []string{"foo", `a.ini: unknown format "ini"`},
		},
		{
			name: "hidden input: keys without format",
			yaml: "programs:\n  - name: foo\n    hidden_inputs: [{file: a.toml, keys: [build.rustc]}]\n",
			want: []string{"foo", "a.toml: keys, value and fold_case need a format"},
		},
		{
			name: "hidden input: format without keys",
			yaml: "programs:\n  - name: foo\n    hidden_inputs: [{file: a.toml, format: toml}]\n",
			want: []string{"foo", "a.toml: format without keys"},
		},
		{
			name: "hidden input: format and match",
			yaml: "programs:\n  - name: foo\n    hidden_inputs: [{file: a.toml, format: toml, keys: [a], match: x, key: a}]\n",
			want: []string{"foo", "a.toml: format reads the file's keys in place of match"},
		},
		{
			name: "hidden input: a key that is not a path",
			yaml: "programs:\n  - name: foo\n    hidden_inputs: [{file: a.json, format: json, keys: [\"users..exec\", \"a.b*\"]}]\n",
			want: []string{"foo", `key "users..exec" is not a dotted path`, `key "a.b*" is not a dotted path`},
		},
		{
			name: "hidden input: value that does not compile",
			yaml: "programs:\n  - name: foo\n    hidden_inputs: [{file: a.json, format: json, keys: [a], value: '('}]\n",
			want: []string{"foo", "a.json: value: error parsing regexp"},
		},
		{
			name: "null program",
			yaml: "programs:\n  - name: foo\n  - ~\n",
			want: []string{"program 2 is empty (null)"},
		},
		{
			name: "null option",
			yaml: "programs:\n  - name: foo\n    options: [~]\n",
			want: []string{"foo", "option 1 is empty (null)"},
		},
		{
			name: "null subcommand",
			yaml: "programs:\n  - name: foo\n    subcommands:\n      - name: bar\n      - null\n",
			want: []string{"foo", "subcommand 2 is empty (null)"},
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
			name: "helper that is a path",
			yaml: "programs:\n  - name: foo\n    helpers: [/bin/sh]\n",
			want: []string{"foo", `helpers: "/bin/sh" is not a program name`},
		},
		{
			name: "blank cache row",
			yaml: "programs:\n  - name: foo\n    caches: ['']\n",
			want: []string{"foo", `caches: "" is not a row`},
		},
		{
			name: "blank opens row",
			yaml: "programs:\n  - name: foo\n    opens: [' ']\n",
			want: []string{"foo", `opens: " " is not a row`},
		},
		{
			name: "unless names an unknown option",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [--numeric, -n]\n    unless: [{options: [-n], effect: network, doc: resolves}]\n",
			want: []string{"foo", `unless: "-n" is not the first name of an option of the program or its parents`},
		},
		{
			name: "unless without a doc",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [--numeric, -n]\n    unless: [{options: [--numeric], effect: network}]\n",
			want: []string{"foo", "unless: effect network has no doc"},
		},
		{
			name: "blank unconfirmed reason",
			yaml: "programs:\n  - name: foo\n    unconfirmed: '  '\n",
			want: []string{"foo", "unconfirmed: the reason is blank"},
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
			name: "option that runs its value without carries",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [--eval]\n        value: required\n        effects: [exec]\n        doc: runs code\n",
			want: []string{"foo", "--eval", "say what the value carries"},
		},
		{
			name: "unknown option carries",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [--eval]\n        value: required\n        effects: [exec]\n        carries: spells\n        doc: runs code\n",
			want: []string{"foo", "--eval", `unknown carries "spells"`},
		},
		{
			name: "command option without carries",
			yaml: "programs:\n  - name: foo\n    syntax: long\n    options:\n      - names: [-run]\n        effects: [exec, command]\n        terminator: [';']\n        doc: runs a command\n",
			want: []string{"foo", "-run", "needs carries: command"},
		},
		{
			name: "judged on an option that takes no command",
			yaml: "programs:\n  - name: foo\n    syntax: long\n    options:\n      - names: [-x]\n        judged: true\n",
			want: []string{"foo", "-x", "judged and in_match_dir are for command options"},
		},
		{
			name: "judged interactive command option",
			yaml: "programs:\n  - name: foo\n    syntax: long\n    options:\n      - names: [-ok]\n        carries: command\n        effects: [exec, command, interactive]\n        terminator: [';']\n        judged: true\n        doc: asks, then runs a command\n",
			want: []string{"foo", "-ok", "cannot be judged"},
		},
		{
			name: "script value that carries nothing",
			yaml: "programs:\n  - name: foo\n    options:\n      - names: [-e]\n        value: required\n        value_role: sed\n        carries: none\n",
			want: []string{"foo", "-e", "carries cannot be none"},
		},
		{
			name: "operand that runs without carries",
			yaml: "programs:\n  - name: foo\n    operands: [{role: any, effect: exec, doc: runs it}]\n",
			want: []string{"foo", "operand any runs something"},
		},
		{
			name: "unknown operand carries",
			yaml: "programs:\n  - name: foo\n    operands: [{role: text, carries: magic}]\n",
			want: []string{"foo", `unknown carries "magic"`},
		},
		{
			name: "not YAML",
			yaml: "programs: [\n",
			want: []string{"bad.yaml"},
		},
	}
	checkRefused(t, tests)
}

// TestCatalogSpot classifies commands that exercise the catalog's entries and
// checks the verdict and the finding codes (sorted; spans are covered by the
// walker's own tables).
func TestCatalogSpot(t *testing.T) {
	type tc struct {
		cmd   string
		rev   bool
		codes []string
	}
	notRO := []string{"not-read-only"}
	tests := []tc{
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
		{"shuf -r words", false, []string{"shuf-repeat"}},
		{"base64 -d blob.b64", true, nil},
		{"sha256sum go.sum", true, nil},
		{"md5sum -c sums.md5", true, nil},
		{"cksum -a sha256 file", true, nil},
		{"seq 1 10", true, nil},
		{"seq -s, 0 0.5 3", true, nil},
		{"seq inf", false, []string{"unexpected-operand"}},
		{"seq 1 99999999999", false, []string{"unexpected-operand"}},
		{"yes", false, []string{"follow-option"}},
		{"yes | head -3", false, []string{"follow-option"}},
		{"cmp -s a b", true, nil},
		{"ls -p", true, nil},
		{"sort --compress-program=gzip f", false, []string{"sort-exec"}},
		{"sort -uo out.txt in.txt", false, []string{"sort-output"}},

		// search tools
		{"rg -n TODO src", true, nil},
		{"rg --files", true, nil},
		{"rg --type-list", true, nil},
		{"rg -l -g '*.go' 'func main'", true, nil},
		{"rg --pre cat foo", false, []string{"rg-pre"}},
		{"rg --pre=x foo", false, []string{"rg-pre"}},
		{"rg --hostname-bin=sh foo", false, []string{"rg-hostname-bin"}},
		{"ag -l foo src", true, nil},
		{"ag --pager less foo", false, []string{"ag-pager"}},
		{"ack -i foo", true, nil},
		{"ack --pager=less foo", false, []string{"ack-pager"}},
		{"fd -e go", true, nil},
		{"fdfind -H -t f conf", true, nil},
		{"fd -x rm", false, []string{"fd-exec"}},
		{"fd --exec-batch wc -l", false, []string{"fd-exec"}},
		{"jq -r .name package.json", true, nil},
		{"jq -e '.ok' status.json", true, nil},
		{"jq --arg x 1 .a f.json", true, nil},
		{"curl -s x | jq .", false, []string{"network", "not-read-only"}},
		{"yq -y . a.yaml", true, nil},
		{"yq -i .a=1 f.yaml", false, []string{"yq-in-place"}},
		{"tree -L 2", true, nil},
		{"tree -a -I node_modules src", true, nil},
		{"tree -o out.txt", false, []string{"tree-output"}},
		// With no terminal less, more and man print and end (issue 25).
		{"less README", true, nil},
		{"more README", true, nil},
		{"less +F README", false, []string{"stdin-read", "unexpected-operand", "unexpected-operand"}},
		{"most README", false, []string{"interactive"}},
		{"man ls", true, nil},
		{"man -P cat ls", true, nil},
		{"man -P less ls", false, []string{"man-pager"}},
		{"watch ls", false, []string{"follow-option", "not-read-only"}},
		{"journalctl -u ssh -n 50", true, nil},
		{"journalctl -u ssh", false, []string{"journal-read"}},
		{"journalctl -f", false, []string{"follow-option", "journal-read"}},
		{"journalctl -n 5 -f", false, []string{"follow-option"}},
		{"journalctl --vacuum-time=1d", false, []string{"journal-read", "journalctl-write"}},
		{"journalctl --cursor-file=c", false, []string{"journal-read", "journalctl-write"}},

		// system information
		{"ps aux", true, nil},
		{"npm --no-update-notifier config get registry", true, nil},
		{"npm --no-update-notifier config list", true, nil},
		{"npm --no-update-notifier config get //registry.npmjs.org/:_authToken", false, []string{"config-secret"}},
		{"npm --no-update-notifier config get registry _auth", false, []string{"config-secret"}},
		{"npm --no-update-notifier config get a b c d e", false, []string{"config-secret"}},
		{"ps -eo pid,cmd", true, nil},
		{"ps -p 1 -o comm=", true, nil},
		{"pgrep -f node", true, nil},
		{"pidof sshd", true, nil},
		{"lsof -i :8080", false, []string{"lsof-resolve"}},
		{"lsof -n -i :8080", true, nil},
		{"lsof -r 1", false, []string{"follow-option", "lsof-resolve"}},
		{"id -u", true, nil},
		{"whoami", true, nil},
		{"groups", true, nil},
		{"uname -a", true, nil},
		{"uptime -p", true, nil},
		{"free -h", true, nil},
		{"free -s 1", false, []string{"follow-option"}},
		{"printenv HOME", true, nil},
		{"printenv GITHUB_TOKEN", false, []string{"env-print"}},
		{"printenv -0", false, []string{"env-print"}},
		{"locale -a", true, nil},
		{"hostname", true, nil},
		{"hostname -I", true, nil},
		{"hostname newname", false, []string{"hostname-set"}},
		{"hostname -F /etc/hostname", false, []string{"hostname-set"}},
		{"date", true, nil},
		{"date +%s", true, nil},
		{"date -d yesterday +%F", true, nil},
		{"date -s now", false, []string{"date-set"}},
		{"date 010112002025", false, []string{"date-set"}},
		{"nproc", true, nil},
		{"lscpu", true, nil},
		{"lsblk -f", true, nil},
		{"getconf PAGESIZE", true, nil},
		{"type ls", true, nil},
		{"whereis ls", true, nil},
		{"getent passwd root", true, nil},
		{"dmesg | tail", true, nil},
		{"dmesg -w", false, []string{"follow-option"}},
		{"dmesg -C", false, []string{"dmesg-clear"}},

		// archives
		{"tar -tzf a.tgz", true, nil},
		{"tar -tvf a.tar src/x.go", true, nil},
		{"tar xzf a.tgz", false, []string{"tar-old-style"}},
		{"tar tzf a.tgz", true, nil},
		{"tar tvf a.tar src/x.go", true, nil},
		{"tar tf backup:a.tar", false, []string{"tar-old-style"}},
		{"tar tv a.tar", false, []string{"tar-old-style"}},
		{"tar -xzf a.tgz", false, []string{"tar-extract"}},
		{"tar --to-command=sh -xf a.tar", false, []string{"tar-exec", "tar-extract"}},
		{"tar -I zstd -tf a.tar.zst", false, []string{"tar-exec"}},
		{"tar --use-compress=zstd -tf a.tar.zst", false, []string{"tar-exec"}},
		{"tar -cf a.tar --remove-files dir/", false, []string{"tar-create", "tar-remove-files"}},
		{"gzip -c file", true, nil},
		{"gunzip -t a.gz", true, nil},
		{"gzip -dc a.gz | head", true, nil},
		{"zcat a.gz", true, nil},
		{"bzcat a.bz2", true, nil},
		{"xz -l a.xz", true, nil},
		{"zstd -c -o out.zst in", false, []string{"compress-output"}},
		{"zip -T -TT 'sh -c id' a.zip f", false, []string{"not-read-only", "unknown-option", "zip-test-command"}},
		{"zip -r a.zip dir", false, notRO},
		{"unzip -l a.zip", true, nil},
		{"unzip -p a.zip README", true, nil},
		{"unzip a.zip", false, []string{"unzip-extract"}},
		{"unzip -d out a.zip", false, []string{"unzip-extract", "unzip-extract"}},
		{"zipinfo a.zip", true, nil},

		// interpreters
		{"node --version", true, nil},
		{"node -e 1", false, []string{"interpreter"}},
		{"node app.js", false, []string{"interpreter"}},
		{"node --check app.js", true, nil},
		{"java -version", true, nil},
		{"java -jar x.jar", false, []string{"interpreter"}},
		{"perl -e 1", false, []string{"interpreter", "not-read-only"}},
		{"ruby script.rb", false, []string{"interpreter", "not-read-only"}},
		{"python -m pytest", false, []string{"interpreter"}},
		{"deno --version", true, nil},
		{"deno lint src", true, nil},
		{"deno run main.ts", false, notRO},
		{"deno types", true, nil},
		{"deno check main.ts", false, []string{"network"}}, // downloads the remote modules it imports
		{"deno info main.ts", false, []string{"network"}},
		{"bun --version", true, nil},
		{"bun check", false, []string{"interpreter"}}, // bun NAME runs the package.json script NAME
		{"bun lint src", false, []string{"interpreter", "interpreter"}},
		{"go list ./...", true, nil},
		{"go list -m all", true, nil},
		{"go list -m golang.org/x/text@v0.3.0", false, []string{"network"}}, // a module query asks the proxy
		{"go list ./... example.com/m@latest", false, []string{"network"}},

		{`sed "s/x/$HOME/" notes.txt`, true, nil},
		{`sed "s/x/$USER/" notes.txt`, false, []string{"dynamic-script"}},
		{`sed "1r $HOMEX" n`, false, []string{"dynamic-script", "param-value"}},
		{`sed "1w $HOME/x" n`, false, []string{"sed-write"}},
		{`sed "s/x/\$HOME/" n`, true, nil}, // a static word: the script holds $HOME itself
		// compilers and make: read-only only as a version or help probe
		{"gcc --version", true, nil},
		{"clang --help", true, nil},
		{"gcc main.c", false, notRO},
		{"cc -O2 -o x main.c", false, []string{"unknown-option", "unknown-option", "not-read-only", "not-read-only"}},
		{"rustc --version", true, nil},
		{"rustc -V", true, nil},
		{"rustc main.rs", false, notRO},
		{"make --version", true, nil},
		{"make -v", true, nil},
		{"make", false, notRO},
		{"make test", false, notRO},
		{"make -k", false, notRO},
		{"make -n install", false, []string{"not-read-only", "not-read-only"}},
		{"make -C sub", false, []string{"exec-option"}},
		{"make --version all", false, []string{"unexpected-operand"}},

		// Go
		{"go version", true, nil},
		{"go env GOPATH", true, nil},
		{"go env -w GOFLAGS=-mod=mod", false, []string{"go-env-write"}},
		{"go list ./...", true, nil},
		{"go list -m all", true, nil},
		{"go list -f '{{.Dir}}' ./...", true, nil},
		{"go list -m -u all", false, []string{"network"}},
		{"go doc fmt.Println", true, nil},
		{"go vet ./...", false, notRO},
		{"go vet --vettool=/tmp/x ./...", false, []string{"go-vettool", "not-read-only"}},
		{"go mod graph", true, nil},
		{"go mod why -m golang.org/x/text", false, []string{"not-read-only", "unknown-option"}},
		{"go mod edit -json", true, nil},
		{"go mod edit -fmt", false, []string{"go-mod-edit-write", "unknown-option"}},
		{"go build ./...", false, notRO},
		{"go build -o bin/x .", false, []string{"not-read-only", "write-option"}},
		{"go test ./...", false, notRO},
		{"go run .", false, notRO},
		{"go generate ./...", false, notRO},
		{"go mod tidy", false, notRO},
		{"go mod download", false, notRO},
		{"go fmt ./...", false, notRO},
		{"go get golang.org/x/text", false, notRO},
		{"gofmt -l .", true, nil},
		{"gofmt -d main.go", true, nil},
		{"gofmt -w main.go", false, []string{"gofmt-write"}},

		// JavaScript, Python and Rust packaging
		{"npm --no-update-notifier ls", true, nil},
		{"npm ls", false, []string{"npm-update-check"}},
		{"npm --no-update-notifier ls --depth=0", true, nil},
		{"npm --version", true, nil},
		{"npm --no-update-notifier config get registry", true, nil},
		{"npm config set x y", false, notRO},
		{"npm test", false, notRO},
		{"npm run build", false, notRO},
		{"npm install", false, notRO},
		{"npm i lodash", false, notRO},
		{"npm view react version", false, []string{"network"}},
		{"npx prettier .", false, notRO},
		{"pnpm list", true, nil},
		{"pnpm install", false, notRO},
		{"yarn", false, notRO},
		{"yarn list", true, nil},
		{"yarn test", false, notRO},
		{"pip list", false, []string{"pip-version-check"}},
		{"pip --disable-pip-version-check list", true, nil},
		{"pip3 show requests", true, nil},
		{"pip freeze", true, nil},
		{"pip list --outdated", false, []string{"network", "pip-version-check"}},
		{"pip install requests", false, notRO},
		{"cargo --version", true, nil},
		{"cargo tree", false, []string{"cargo-fetch", "cargo-lock-write"}},
		{"cargo tree --offline", false, []string{"cargo-lock-write"}},
		{"cargo tree --frozen", true, nil},
		{"cargo --frozen metadata --format-version 1", true, nil},
		{"cargo metadata --offline --locked --no-deps", true, nil},
		{"aws ec2 describe-instances --output json", true, nil},
		{"aws ec2 run-instances --image-id x", false, []string{"remote-write"}},
		{"aws secretsmanager get-secret-value --secret-id x", false, []string{"remote-secret"}},
		{"gcloud container clusters list", true, nil},
		{"az vm show -g rg -n vm", true, nil},
		{"cargo build", false, notRO},
		{"cargo test", false, notRO},
		{"cargo check", false, notRO},
		{"cargo fmt", false, notRO},
		{"cargo search serde", false, []string{"network"}},
		{"make", false, notRO},
		{"make -n", false, notRO},
		{"make -C sub test", false, []string{"exec-option", "not-read-only"}},
		{"pytest -q tests", false, []string{"exec-option", "not-read-only", "unknown-option"}},

		// containers
		{"docker ps -a", true, nil},
		{"docker images", true, nil},
		{"docker inspect abc", false, []string{"not-read-only", "env-print"}},
		{"docker history abc", true, nil},
		{"docker logs web", true, nil},
		{"docker logs --tail 100 web", true, nil},
		{"docker logs -f web", false, []string{"follow-option"}},
		{"docker stats", false, []string{"follow-option"}},
		{"docker rm web", false, notRO},
		{"docker compose ps", true, nil},
		{"docker compose logs -f", false, []string{"follow-option"}},
		{"docker container ls", true, nil},
		{"docker image ls", true, nil},
		{"docker image rm x", false, notRO},
		{"docker system df", true, nil},
		{"docker -H tcp://h:2375 ps", false, []string{"network"}},
		{"podman ps", true, nil},
		{"kubectl get pods", true, nil},
		{"kubectl get pods -A -o wide", true, nil},
		{"kubectl -n kube-system get svc", true, nil},
		{"kubectl get pods -w", false, []string{"follow-option"}},
		{"kubectl describe pod x", true, nil},
		{"kubectl logs pod/x", true, nil},
		{"kubectl logs -f pod/x", false, []string{"follow-option"}},
		{"kubectl delete pod x", false, notRO},
		{"kubectl config view", true, nil},
		{"kubectl config use-context prod", false, notRO},
		{"kubectl --kubeconfig k get pods", false, []string{"kubectl-kubeconfig"}},
		{"kubectl rollout status deploy/x", true, nil},
		{"kubectl auth can-i get pods", true, nil},
		{"kubectl version --client", true, nil},

		// git
		{"git log --oneline -5", true, nil},
		{"git log -p --stat -- a.go", true, nil},
		{"git log --graph --decorate --all --date-order", true, nil},
		{"git log --output=x", false, []string{"git-output"}},
		{"git log --out=x", false, []string{"git-output"}},
		{"git log --textconv", false, []string{"git-textconv"}},
		{"git -c core.pager=less log", false, []string{"git-config-override"}},
		{"git --config-env=core.pager=X log", false, []string{"git-config-override"}},
		{"git -C sub status", true, nil},
		{"git diff --exit-code", true, nil},
		{"git diff HEAD~1 --stat", true, nil},
		{"git diff -M --diff-filter=AM --name-only", true, nil},
		{"git diff --ext-diff", false, []string{"git-ext-diff"}},
		{"git show HEAD:go.mod", true, nil},
		{"git whatchanged -3", true, nil},
		{"git branch -a", true, nil},
		{"git branch newb", false, []string{"git-branch-write"}},
		{"git stash", false, notRO},
		{"git stash list", true, nil},
		{"git stash show -p", true, nil},
		{"git stash pop", false, notRO},
		{"git config user.name", true, nil},
		{"git config user.name bob", false, []string{"git-config-write"}},
		{"git reflog", true, nil},
		{"git reflog -5", true, nil},
		{"git reflog delete x", false, notRO},
		{"git show-ref --tags", true, nil},
		{"git for-each-ref --format='%(refname)'", true, nil},
		{"git ls-tree -r HEAD", true, nil},
		{"git merge-base --is-ancestor a b", true, nil},
		{"git check-ignore -v x", true, nil},
		{"git name-rev HEAD", true, nil},
		{"git diff-tree -r HEAD", true, nil},
		{"git diff-tree --textconv -p HEAD", false, []string{"git-textconv"}},
		{"git symbolic-ref HEAD", true, nil},
		{"git symbolic-ref HEAD refs/heads/x", false, []string{"git-ref-write"}},
		{"git ls-remote origin", false, []string{"network"}},
		{"git verify-commit HEAD", false, []string{"exec-option", "not-read-only"}},
		{"git version", true, nil},
		{"git help log", false, []string{"interactive"}},
		{"git rebase main", false, notRO},
		{"git pull", false, notRO},
		{"git switch main", false, notRO},
		{"git format-patch -o out HEAD~1", false, []string{"not-read-only", "write-option"}},
		{"git archive --remote=x HEAD", false, []string{"network", "not-read-only"}},
		{"git difftool", false, []string{"interactive", "not-read-only"}},
		{"git worktree list", true, nil},
		{"git worktree add ../x", false, notRO},
		{"git grep -n foo", true, nil},
		{"git grep -O foo", false, []string{"git-pager"}},
		{"git grep --textconv foo", false, []string{"git-textconv"}},
		{"git blame --contents x.go -- a.go", true, nil},
		{"git describe --match 'v*' --abbrev=0", true, nil},
		{"git rev-list --count --since=1.week HEAD", true, nil},
		{"git ls-files --error-unmatch a.go", true, nil},
		{"git rev-parse --git-common-dir", true, nil},
		{"git shortlog -sn --all", true, nil},
		{"git remote", true, nil},
		{"git remote -v", true, nil},
		{"git remote get-url origin", true, nil},
		{"git cat-file -p HEAD", true, nil},
		{"git cat-file --filters HEAD:x", false, []string{"git-filters"}},
		{"git tag -l 'v*'", true, nil},
		{"git tag -v v1", false, []string{"git-signature"}},
		{"git tag -a v1 -m msg", false, []string{"git-tag-write", "git-tag-write", "git-tag-write"}},

		// shell builtins
		{"eval 'ls -l'", false, notRO},
		{"source ./env.sh", false, []string{"not-read-only", "source"}},
		{". ~/.bashrc", false, []string{"not-read-only", "source"}},
		{"exec ls", false, notRO},
		{"alias", true, nil},
		{"alias ll='ls -l'", false, []string{"declaration"}},
		{"unalias ll", false, notRO},
		{"trap 'echo bye' EXIT", false, notRO},
		{"set -euo pipefail", true, nil},
		{"awk 'BEGIN{print 1+2}'", true, nil},
		{"awk 'BEGIN { print \"}\" } # note'", true, nil},
		{"awk 'BEGIN{x=1} {print}'", false, []string{"stdin-read"}},
		{"awk '{print}'", false, []string{"stdin-read"}},
		// a BEGIN-only program reads no input unless a plain getline reads it
		{"awk 'BEGIN { getline; print }'", false, []string{"stdin-read"}},
		{"awk 'BEGIN { while ((getline l) > 0) n++ }'", false, []string{"stdin-read"}},
		{"awk 'function f(x) { return x * 2 } BEGIN { print f(2) }'", true, nil},
		{"awk 'BEGIN { for (k in ENVIRON) print k, ENVIRON[k] }'", false, []string{"env-print"}},
		{"sed -e '1{e touch pwned' -e '}' f", false, []string{"sed-exec"}},
		{"sed -e 's/a/b/' -e '3w out' f", false, []string{"sed-write"}},
		{"sed -e 's/a/b/' -e 3p f", true, nil},
		{"sort -o\"$OUT\" f", false, []string{"param-value", "sort-output"}},
		{"grep -e\"$P\" f", false, []string{"param-value"}},
		{"env", false, []string{"env-print"}},
		{"set", false, []string{"env-print"}},
		{"ps eww", false, []string{"env-print"}},
		{"jq env a.json", false, []string{"env-print"}},
		{"jq '.env | keys' a.json", true, nil},
		{`jq -r '"\(.a) \(env.HOME)"' a.json`, false, []string{"env-print"}},
		{"yq 'load(\".env\")' a.yaml", false, []string{"jq-load"}},
		{`jq 'import "x" as $x; $x' a.json`, false, []string{"jq-load"}},
		{`jq '"env" + .a' a.json`, true, nil},
		{"jq -n '{a: 1}'", true, nil},
		{"jq -n '[inputs]' a.json", true, nil},
		{"jq -n input", false, []string{"stdin-read"}},
		{"jq '.a'", false, []string{"stdin-read"}},
		{"ps aux", true, nil},
		{"npm --no-update-notifier config get registry", true, nil},
		{"npm --no-update-notifier config list", true, nil},
		{"npm --no-update-notifier config get //registry.npmjs.org/:_authToken", false, []string{"config-secret"}},
		{"npm --no-update-notifier config get registry _auth", false, []string{"config-secret"}},
		{"npm --no-update-notifier config get a b c d e", false, []string{"config-secret"}},
		{"echo $GITHUB_TOKEN", false, []string{"param-value"}},
		{"echo $HOME $PWD", true, nil},
		{"for f in a b; do echo $f; done", true, nil},
		{"git rev-list HEAD -5", true, nil},
		{"set -e; set +x; set -o errexit", true, nil},
		{"set -o vi", false, []string{"set-option"}},
		{"set -a", false, []string{"set-option"}},
		{"set -- a b", false, []string{"unexpected-operand", "unexpected-operand"}},
		{"unset FOO", false, notRO},
		{"shopt -s extglob", false, []string{"set-option"}},
		{"read line < f", false, []string{"declaration"}},
		{"read x", false, []string{"declaration", "stdin-read"}},
		{"umask", true, nil},
		{"umask 022", false, []string{"declaration"}},
		{"ulimit -n", true, nil},
		{"ulimit -n 4096", false, []string{"declaration"}},
		{"wait", true, nil},
		{"jobs -l", true, nil},
		{"exit 0", true, nil},
		{"builtin echo hi", true, nil},
		{"wait -p PATH", false, []string{"declaration"}},
		{"for PATH in .; do ls; done", false, []string{"assignment"}},
		{"for GLOBIGNORE in x; do cat *; done", false, []string{"assignment"}},
		{"for fileName in a; do cat a; done", false, []string{"assignment"}},
		{"for file in a; do cat a; done", true, nil},

		// wrappers
		{"nohup ls", false, notRO},
		{"setsid ls", false, notRO},
		{"ionice -c3 ls", true, nil},
		{"ionice -p 1", false, []string{"ionice-set"}},
		{"chrt -f 10 ls", false, notRO},
		{"taskset -c 0 ls", true, nil},
		{"taskset -p 1", false, []string{"taskset-set"}},
		{"flock /tmp/l ls", false, notRO},
		{"unbuffer ls", true, nil},
		{"parallel echo ::: a b", false, notRO},
		{"strace -f ls", true, nil},
		{"strace -o t.txt ls", false, []string{"strace-output"}},
		{"strace -p 1", false, []string{"follow-option"}},
		{"timeout 5 tail -f log", false, []string{"follow-option"}},
		{"env -S 'ls -l'", false, []string{"env-split"}},
		{"find . -name '*.go' | xargs grep -l foo", true, nil},

		// network
		{"ssh host ls", false, []string{"network", "not-read-only"}},
		{"scp a host:b", false, []string{"network", "not-read-only"}},
		{"rsync -a src/ dst/", false, notRO},
		{"rsync -e 'ssh -p 22' a h:b", false, []string{"not-read-only", "rsync-program"}},
		{"nc host 80", false, []string{"network", "not-read-only"}},
		{"ping host", false, []string{"network"}},
		{"ping -c 1 host", false, []string{"network"}},
		{"dig example.com", false, []string{"network"}},

		// writers, services, packages, interactive and privileged programs
		{"chown bob f", false, notRO},
		{"chgrp -R staff d", false, notRO},
		{"ln -s a b", false, notRO},
		{"install -m 755 a /usr/local/bin/a", false, notRO},
		{"truncate -s 0 log", false, notRO},
		{"shred -u secret", false, notRO},
		{"rmdir d", false, notRO},
		{"unlink f", false, notRO},
		{"mktemp -d", false, notRO},
		{"split -l 100 big", false, notRO},
		{"split --filter='sh -c x' big", false, []string{"not-read-only", "split-filter"}},
		{"patch -p1 < x.diff", false, notRO},
		{"kill 123", false, notRO},
		{"kill -9 123", false, notRO},
		{"pkill -f node", false, notRO},
		{"killall node", false, notRO},
		{"crontab -l", false, notRO},
		{"crontab -r", false, []string{"crontab-write", "not-read-only"}},
		{"systemctl status ssh", false, []string{"systemctl-pager"}},
		{"systemctl status ssh --no-pager", true, nil},
		{"systemctl list-units --failed", true, nil},
		{"systemctl restart ssh", false, notRO},
		{"apt list --installed", true, nil},
		{"apt-cache policy curl", true, nil},
		{"apt-get install -y curl", false, notRO},
		{"apt update", false, notRO},
		{"dpkg -l", true, nil},
		{"dpkg --configure -a", false, []string{"unknown-option", "unknown-option"}},
		{"dpkg-query -W curl", true, nil},
		{"yum install x", false, notRO},
		{"brew list", true, nil},
		{"brew install x", false, notRO},
		{"vim f", false, []string{"interactive", "not-read-only"}},
		{"nano f", false, []string{"interactive", "not-read-only"}},
		{"top", false, []string{"follow-option", "interactive"}},
		{"htop", false, []string{"interactive"}},
		{"tmux", false, []string{"interactive", "not-read-only"}},
		{"su -", false, []string{"not-read-only", "privilege"}},
		{"doas ls", false, []string{"not-read-only", "privilege"}},
		{"passwd", false, []string{"not-read-only", "privilege"}},
		{"mount /dev/sda1 /mnt", false, notRO},
		{"tee out.txt < in", false, notRO},
		// more read-only tools and opaque groups
		{"who", true, nil},
		{"w -h", true, nil},
		{"last -5", true, nil},
		{"pstree -p", true, nil},
		{"cal 2025", true, nil},
		{"echo 2+2 | bc", true, nil},
		{"bc", false, []string{"stdin-read"}},
		{"expr 1 + 2", true, nil},
		{"pr -2 f", true, nil},
		{"iconv -f latin1 -t utf8 f", true, nil},
		{"iconv -o out f", false, []string{"iconv-output"}},
		{"apropos grep", true, nil},
		{"netstat -tlnp", true, nil},
		{"netstat -c", false, []string{"follow-option", "netstat-resolve"}},
		{"netstat -tlnp", true, nil},
		{"ss -tlnp", true, nil},
		{"ss -K dst 1.2.3.4", false, []string{"ss-kill"}},
		{"ip a", true, nil},
		{"ip -4 addr show dev eth0", true, nil},
		{"ip route", true, nil},
		{"ip addr add 1.2.3.4/24 dev eth0", false, []string{"ip-write"}},
		{"ip link set eth0 down", false, []string{"ip-write"}},
		{"ip monitor", false, []string{"follow-option"}},
		{"ifconfig eth0", true, nil},
		{"ifconfig eth0 down", false, []string{"ifconfig-set"}},
		{"readelf -h a.out", true, nil},
		{"nm -C lib.so", true, nil},
		{"objdump -d a.out", true, nil},
		{"ldd /bin/ls", false, []string{"ldd-exec", "not-read-only"}},
		{"lsusb", true, nil},
		{"sqlfluff lint x.sql --dialect ansi", false, notRO},
		{"pip install -q -e .", false, notRO},
		{"finger bob", false, []string{"network"}},
		{"md5 -q f", true, nil},
		{"hg status", false, []string{"not-read-only"}}, // .hg/hgrc extensions and hooks run,
		{"hg log -l 5", false, []string{"not-read-only"}},
		{"hg commit -m x", false, notRO},
		{"svn status", true, nil},
		{"svn log", false, []string{"network"}},
		{"rpm -qa", false, notRO},
		{"blkid", true, nil},
		{"pv f | wc -l", true, nil},
		{"fold -80 f", true, nil},
		{"perl -pi -e s/a/b/ f", false, []string{"interpreter", "not-read-only", "perl-in-place"}},
		{"top -b -n 1", true, nil},
		{"top -b", false, []string{"follow-option"}},
		{"brew --prefix", true, nil},
		{"zgrep foo a.gz", true, nil},
		{"dig -x 1.2.3.4", false, []string{"network"}},
		{"nc -l 8080", false, []string{"network", "not-read-only"}},
		{"curl -fsSL https://x -o out", false, []string{"network", "not-read-only", "write-option"}},
		{"curl -K cfg https://x", false, []string{"curl-config", "network", "not-read-only"}},
		{"curl -sI https://x", false, []string{"network", "not-read-only"}},
		{"wget -b https://x", false, []string{"network", "not-read-only", "wget-background"}},
		{"env -v ls", true, nil},
		{"lsof -n +D /tmp", true, nil},
		{"lsof -n +r 1", false, []string{"unexpected-operand", "unexpected-operand"}},
		{"ag -A 3 foo", true, nil},
		{"ag -A --pager less foo", false, []string{"ag-pager"}},
		// GNU long-option abbreviations of dangerous options are those options
		{"sort --compress=gzip f", false, []string{"sort-exec"}},
		{"tar --to-comm=sh -xf a.tar", false, []string{"tar-exec", "tar-extract"}},
		{"man --pag=less ls", false, []string{"man-pager"}},
		{"fd --exec-b wc", false, []string{"fd-exec"}},
		{"rg --pr x foo", false, []string{"unknown-option"}},
		{"who am i", true, nil},
		{"who /var/log/wtmp", true, nil},
		{"ps --no-heading", true, nil},
		{"find . -name x -exec cp {} /tmp \\;", false, []string{"not-read-only"}},
		{"find . -name x -exec grep -n x {} +", true, nil},
		{"bash --rcfile x -i", false, []string{"shell-startup", "shell-startup"}},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			r := Classify(tt.cmd)
			var codes []string
			for _, f := range r.Findings {
				codes = append(codes, f.Code)
			}
			sort.Strings(codes)
			want := append([]string(nil), tt.codes...)
			sort.Strings(want)
			if r.Reversible != tt.rev {
				t.Errorf("Classify(%q).Reversible = %v, want %v (findings %v)", tt.cmd, r.Reversible, tt.rev, r.Findings)
			}
			if diff := cmp.Diff(want, codes); diff != "" {
				t.Errorf("Classify(%q) finding codes (-want +got):\n%s", tt.cmd, diff)
			}
		})
	}
	if len(tests) < 150 {
		t.Errorf("only %d spot cases, want at least 150", len(tests))
	}
}

// TestCatalogPaths checks the paths the catalog's option and operand roles
// put into Reads and Writes: "R path" is a read ("R* path" a recursive
// one), "W path" a write, in report order.
func TestCatalogPaths(t *testing.T) {
	tests := []struct {
		cmd  string
		want []string
	}{
		// the names in list.txt are read; the implicit "." is conservative
		{"du --files0-from=list.txt", []string{"R list.txt", "R list.txt", "R* ."}},
		{"du -sh src docs", []string{"R* src", "R* docs"}},
		{"du -s", []string{"R* ."}},
		{"stat -c %s go.mod", []string{"R go.mod"}},
		{"file -m magic.mgc -f names.txt", []string{"R magic.mgc", "R names.txt"}},
		{"rg -n TODO src", []string{"R* src"}},
		{"rg --ignore-file .myignore foo", []string{"R .myignore", "R* ."}},
		{"rg -f patterns.txt lib", []string{"R patterns.txt", "R* lib"}},
		{"rg --files", []string{"R* ."}},
		{"fd -e go . cmd", []string{"R* cmd"}},
		{"fd -e go main", []string{"R* ."}},
		{"jq -r .name package.json", []string{"R package.json"}},
		{"jq -f prog.jq data.json", []string{"R prog.jq", "R data.json"}},
		{"jq --args . a b", nil},
		{"tree -L 2 src", []string{"R* src"}},
		{"journalctl --file system.journal", []string{"R system.journal"}},
		{"sed '1r /etc/shadow' notes.txt", []string{"R /etc/shadow", "R notes.txt"}},
		{"sed -n -e '1R secret' -e p notes.txt", []string{"R notes.txt", "R secret"}},
		{"git diff --no-index old.txt new.txt", []string{"R* old.txt", "R* new.txt"}}, // directories compare recursively
		{"grep --file=$HOME/.netrc notes.txt", []string{"R ~/.netrc", "R notes.txt"}},
		{"dd if=$HOME/.ssh/id_rsa", []string{"R ~/.ssh/id_rsa"}},
		{"watch rm -rf ~", []string{"W ~"}},
		{"find / -exec rm {} +", []string{"R* /", "W {}"}},
		{"tar -xzf a.tgz -C /", []string{"R a.tgz", "R /", "W /"}},
		{"tar -C /srv -czf a.tgz dir", []string{"R /srv", "R a.tgz", "R* dir"}},
		{"git -C / clean -fdx", []string{"R /", "W /"}},
		{"git -C /etc status", []string{"R /etc", "R ."}},
		{"git -C a -C b clean -f", []string{"R a", "R b", "W b"}},
		{"git worktree add ../wt", []string{"W ../wt"}},
		{"cd /tmp && tar -xzf a.tgz", []string{"R /tmp", "R a.tgz", "W ."}},
		{"tar -xzf a.tgz", []string{"R a.tgz"}},
		{"cd sub && git clean -f", []string{"R sub", "W ."}},
		{"cd /tmp && cp x /srv/y", []string{"R /tmp", "R x", "W /srv/y"}}, // cp names what it writes: not its directory
		{"git hash-object ~/.ssh/id_rsa", []string{"R ~/.ssh/id_rsa"}},
		{"git hash-object -w --path=x a.txt", []string{"R a.txt"}},
		// a double-quoted sed script whose only expansion is $HOME
		{`sed "1r $HOME/.ssh/id_rsa" notes.txt`, []string{"R ~/.ssh/id_rsa", "R notes.txt"}},
		{`sed "1R ${HOME}/x" n`, []string{"R ~/x", "R n"}},
		{`sed "1r x$HOME" n`, []string{"R x$HOME", "R n"}},
		// awk's getline < "file" reads the file when its name is a plain string
		{`awk 'BEGIN { while ((getline l < "/etc/shadow") > 0) print l }'`, []string{"R /etc/shadow"}},
		{`awk 'BEGIN { getline < "a"; getline x < "b" }'`, []string{"R a", "R b"}},
		{`awk 'BEGIN { getline < f }'`, nil},
		// getline < "a" "b": mawk and gawk open "a", busybox "ab"
		// (TestAwkRealDialects), so neither is named
		{`awk 'BEGIN { getline < "a" "b" }'`, nil},
		{`awk 'BEGIN { getline < ("a" "b") }'`, nil},
		{`awk 'BEGIN { x = (getline < "a") "b" }'`, []string{"R a"}},
		// every awk decodes the escape (TestAwkRealDialects)
		{`awk 'BEGIN { getline < "\x2fetc/shadow" }'`, []string{"R /etc/shadow"}},
		{`awk 'BEGIN { getline < "a\\nb" }'`, nil},
		// curl sends a file named after @ (or < in a form field)
		{"curl -d @data.json https://x", []string{"R data.json"}},
		{"curl -d a=1 https://x", nil},
		{"curl -d @- https://x", nil},
		{"curl --data-raw @x https://x", nil},
		{"curl -F 'f=@a.txt;type=text/plain' -F 'g=<b.txt' https://x", []string{"R a.txt", "R b.txt"}},
		{"curl -F key=@$HOME/.ssh/id_rsa https://x", []string{"R ~/.ssh/id_rsa"}},
		{`curl --data-binary @"$HOME/.netrc" https://x`, []string{"R ~/.netrc"}},
		{`curl -d "$X" https://x`, []string{`R "$X"`}},
		{"curl --data-urlencode name@notes.txt https://x", []string{"R notes.txt"}},
		{"git blame --contents=$X main.go", []string{"R $X", "R main.go"}},
		{"date -r go.mod", []string{"R go.mod"}},
		{"date -f dates.txt", []string{"R dates.txt"}},
		{"cmp a b", []string{"R a", "R b"}},
		{"xxd bin out.hex", []string{"R bin", "W out.hex"}},
		{"shuf -o out.txt words", []string{"W out.txt", "R words"}},
		{"sort -o out.txt in.txt", []string{"W out.txt", "R in.txt"}},
		{"tar -tf a.tar src/x.go", []string{"R a.tar"}},
		{"tar -C /srv -czf a.tgz dir", []string{"R /srv", "R a.tgz", "R* dir"}},
		{"gzip -c file", []string{"R file"}},
		{"gzip file", []string{"W file"}},
		{"unzip -l a.zip", []string{"R a.zip"}},
		{"cp -r a b", []string{"R* a", "W b"}},
		{"ln -s target link", []string{"W link"}},
		{"install -m 755 a /usr/local/bin/a", []string{"R a", "W /usr/local/bin/a"}},
		{"truncate -s 0 log", []string{"W log"}},
		{"shred -u secret", []string{"W secret"}},
		{"chown -R bob dir", []string{"W dir"}},
		{"git log --output=log.txt", []string{"W log.txt"}},
		{"curl -o page.html https://x", []string{"W page.html"}},
		{"wget -P downloads https://x", []string{"W downloads"}},
		{"strace -o t.txt ls", []string{"W t.txt", "R ."}},
		{"make -f build.mk", []string{"R build.mk"}},
		{"git blame --contents x.go -- a.go", []string{"R x.go", "R a.go"}},
		{"git ls-files -X .gitignore", []string{"R .gitignore"}},
		{"source ./env.sh", []string{"R ./env.sh"}},
		{"man -l page.1", []string{"R page.1"}},
		{"lsof +D /var/log", []string{"R +D", "R /var/log"}},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			r := Classify(tt.cmd)
			var got []string
			for _, p := range r.Reads {
				k := "R "
				if p.Recursive {
					k = "R* "
				}
				got = append(got, k+p.Path)
			}
			for _, p := range r.Writes {
				got = append(got, "W "+p.Path)
			}
			// reads first, then writes: order the want the same way
			var want []string
			for _, w := range tt.want {
				if strings.HasPrefix(w, "R") {
					want = append(want, w)
				}
			}
			for _, w := range tt.want {
				if strings.HasPrefix(w, "W") {
					want = append(want, w)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Classify(%q) paths (-want +got):\n%s", tt.cmd, diff)
			}
		})
	}
}

// TestCatalogExtend loads a user catalog over the embedded one: a new
// program becomes known, a replaced program takes the user's spec whole, and
// the rest of the embedded catalog stays.
func TestCatalogExtend(t *testing.T) {
	user, err := ParseCatalog([]byte(`
harmless_env: [MYTOOL_COLOR]
programs:
  - name: mytool
    doc: a project's read-only report tool
    read_only: true
    options:
      - names: [--json]
      - names: [--out]
        value: required
        effects: [writes-file]
        doc: writes the report to a file
    operands: [file...]
  - name: rg
    doc: ripgrep, allowed only without options here
    read_only: true
    operands: [pattern, tree...]
`), "user.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ext, err := DefaultCatalog().Extend(user)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd   string
		cat   *Catalog
		codes []string
	}{
		{"mytool --json report.txt", DefaultCatalog(), []string{"unknown-program"}},
		{"mytool --json report.txt", ext, nil},
		{"MYTOOL_COLOR=1 mytool x", ext, nil},
		{"mytool --out r.txt", ext, []string{"write-option"}},
		{"rg -n foo", DefaultCatalog(), nil},
		{"rg -n foo", ext, []string{"unknown-option"}},
		{"rg foo src", ext, nil},
		{"du -sh .", ext, nil},
		{"git log --output=x", ext, []string{"git-output"}},
	}
	for _, tt := range tests {
		r := Classify(tt.cmd, WithCatalog(tt.cat))
		var codes []string
		for _, f := range r.Findings {
			codes = append(codes, f.Code)
		}
		sort.Strings(codes)
		if diff := cmp.Diff(tt.codes, codes); diff != "" {
			t.Errorf("Classify(%q) finding codes (-want +got):\n%s", tt.cmd, diff)
		}
		if r.Reversible != (len(tt.codes) == 0) {
			t.Errorf("Classify(%q).Reversible = %v", tt.cmd, r.Reversible)
		}
	}
	if DefaultCatalog().Lookup("mytool") != nil {
		t.Error("Extend changed the embedded catalog")
	}
}

// TestCatalogExit1 checks that the programs whose exit status 1 is not a
// failure say what it means.
func TestCatalogExit1(t *testing.T) {
	c := DefaultCatalog()
	for _, path := range [][]string{
		{"grep"}, {"egrep"}, {"fgrep"}, {"zgrep"}, {"rg"}, {"ag"}, {"ack"},
		{"diff"}, {"cmp"}, {"test"}, {"["}, {"find"}, {"which"}, {"command"},
		{"pgrep"}, {"pidof"}, {"jq"}, {"lsof"}, {"expr"}, {"type"}, {"id"},
		{"git", "grep"}, {"git", "diff"}, {"git", "merge-base"}, {"git", "check-ignore"},
		{"git", "show-ref"}, {"git", "diff-tree"}, {"systemctl", "status"},
	} {
		p := c.Lookup(path[0])
		for _, sub := range path[1:] {
			if p != nil {
				p = p.Sub(sub)
			}
		}
		if p == nil {
			t.Errorf("%v: not in the catalog", path)
			continue
		}
		if m, ok := p.Exit["1"]; !ok || strings.TrimSpace(m.Message) == "" {
			t.Errorf("%v: no meaning for exit status 1", path)
		}
	}
}

// refusedCatalog is a catalog file ParseCatalog must refuse, and what its
// error must mention.
type refusedCatalog struct {
	name string
	yaml string
	want []string // substrings of the error
}

// checkRefused parses each catalog file (as bad.yaml) and fails unless it
// is refused with an error that mentions every want.
func checkRefused(t *testing.T, tests []refusedCatalog) {
	t.Helper()
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

// TestPrintenvHarmless: the names printenv may print without asking are
// exactly the catalog's harmless_vars (the operand match repeats the list).
func TestPrintenvHarmless(t *testing.T) {
	c := DefaultCatalog()
	p := c.Lookup("printenv")
	if p == nil || len(p.Operands) == 0 {
		t.Fatal("printenv is not catalogued with operands")
	}
	want := "^(" + strings.Join(c.HarmlessVars, "|") + ")$"
	for i, o := range p.Operands {
		if o.Match != want {
			t.Errorf("printenv operand %d matches %q, want the harmless_vars %q", i, o.Match, want)
		}
	}
}
