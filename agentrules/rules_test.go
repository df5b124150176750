package agentrules

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/trust"
)

// approved is what Approve says of command under rules: "-" when nothing
// is approved, else each approved segment's text and rule, "seg=rule",
// in segment order.
func approved(rs *Rules, command string) string {
	rep := classify.Classify(command)
	m := rs.Approve(command, rep)
	if len(m) == 0 {
		return "-"
	}
	var idx []int
	for i := range m {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var out []string
	for _, i := range idx {
		out = append(out, segmentText(command, rep.Segments[i])+"="+m[i].Rule)
	}
	return strings.Join(out, " ")
}

func claudeRules(t *testing.T, allow, block []string) *Rules {
	t.Helper()
	rs := &Rules{Agent: Claude}
	for _, a := range allow {
		r, ok, err := ParseClaudeRule(a)
		if err != nil || !ok {
			t.Fatalf("ParseClaudeRule(%q): ok %v, %v", a, ok, err)
		}
		r.Action = ActionAllow
		rs.Allow = append(rs.Allow, r)
	}
	for _, b := range block {
		r, ok, err := ParseClaudeRule(b)
		if err != nil || !ok {
			t.Fatalf("ParseClaudeRule(%q): ok %v, %v", b, ok, err)
		}
		r.Action = ActionBlock
		rs.Block = append(rs.Block, r)
	}
	return rs
}

func TestClaudeApprove(t *testing.T) {
	tests := []struct {
		allow, block []string
		cmd, want    string
	}{
		// Exact rules match the segment's text exactly.
		{allow: []string{"Bash(npm test)"}, cmd: "npm test", want: "npm test=Bash(npm test)"},
		{allow: []string{"Bash(npm test)"}, cmd: "npm test --watch", want: "-"},
		{allow: []string{"Bash(npm test)"}, cmd: "npm  test", want: "-"},
		// One segment at a time: the rule approves npm test, not rm.
		{allow: []string{"Bash(npm test)"}, cmd: "npm test; rm -rf ~", want: "npm test=Bash(npm test)"},
		{allow: []string{"Bash(npm test)"}, cmd: "npm test && curl x | sh", want: "npm test=Bash(npm test)"},
		{allow: []string{"Bash(npm test)"}, cmd: "echo $(npm test)", want: "npm test=Bash(npm test)"},
		{allow: []string{"Bash(npm test)"}, cmd: "timeout 5 npm test", want: "npm test=Bash(npm test)"},
		// An assignment in front is part of the text: not matched.
		{allow: []string{"Bash(npm test)"}, cmd: "NODE_OPTIONS=--require=x npm test", want: "-"},
		// Prefix rules: the prefix, then a space or the end.
		{allow: []string{"Bash(npm run:*)"}, cmd: "npm run build", want: "npm run build=Bash(npm run:*)"},
		{allow: []string{"Bash(npm run:*)"}, cmd: "npm run", want: "npm run=Bash(npm run:*)"},
		{allow: []string{"Bash(npm run:*)"}, cmd: "npm runx", want: "-"},
		{allow: []string{"Bash(npm run:*)"}, cmd: "npm  run\tbuild", want: "npm  run\tbuild=Bash(npm run:*)"},
		{allow: []string{"Bash(git:*)"}, cmd: "git status && git push", want: "git status=Bash(git:*) git push=Bash(git:*)"},
		// Wildcards.
		{allow: []string{"Bash(npm *)"}, cmd: "npm", want: "npm=Bash(npm *)"},
		{allow: []string{"Bash(npm *)"}, cmd: "npm ci", want: "npm ci=Bash(npm *)"},
		{allow: []string{"Bash(npm *)"}, cmd: "npmx", want: "-"},
		{allow: []string{"Bash(git * main)"}, cmd: "git push origin main", want: "git push origin main=Bash(git * main)"},
		{allow: []string{"Bash(git * main)"}, cmd: "git push origin main2", want: "-"},
		// An escaped star is no wildcard: the rule is exact, backslash
		// and all (Claude Code compares the text).
		{allow: []string{`Bash(echo \*)`}, cmd: `echo \*`, want: `echo \*=Bash(echo \*)`},
		{allow: []string{`Bash(echo \*)`}, cmd: "echo *", want: "-"},
		{allow: []string{`Bash(echo \*)`}, cmd: "echo hi", want: "-"},
		// The whole tool.
		{allow: []string{"Bash"}, cmd: "make && make install", want: "make=Bash make install=Bash"},
		{allow: []string{"Bash(*)"}, cmd: "make", want: "make=Bash(*)"},
		// A deny or ask rule of the agent that matches withholds every
		// approval.
		{allow: []string{"Bash(npm:*)"}, block: []string{"Bash(npm publish:*)"}, cmd: "npm publish", want: "-"},
		{allow: []string{"Bash(npm:*)"}, block: []string{"Bash(npm publish:*)"}, cmd: "npm test && npm publish", want: "-"},
		{allow: []string{"Bash(npm:*)"}, block: []string{"Bash(npm publish:*)"}, cmd: "npm test", want: "npm test=Bash(npm:*)"},
		{allow: []string{"Bash(npm:*)"}, block: []string{"Bash(rm *)"}, cmd: "npm test; rm x", want: "-"},
		{allow: []string{"Bash"}, block: []string{"Bash"}, cmd: "ls", want: "-"},
		// An unparsable command gets nothing.
		{allow: []string{"Bash"}, cmd: "npm test 'unclosed", want: "-"},
	}
	for _, tt := range tests {
		rs := claudeRules(t, tt.allow, tt.block)
		if got := approved(rs, tt.cmd); got != tt.want {
			t.Errorf("allow %q block %q, %q: got %q, want %q", tt.allow, tt.block, tt.cmd, got, tt.want)
		}
	}
}

func TestParseClaudeRule(t *testing.T) {
	tests := []struct {
		in   string
		want string // kind:text, "other", or "error"
	}{
		{"Bash", "all:"},
		{"Bash()", "all:"},
		{"Bash(*)", "all:"},
		{"Bash(npm test)", "exact:npm test"},
		{"Bash(npm run:*)", "prefix:npm run"},
		{"Bash(npm *)", "wildcard:npm *"},
		{`Bash(echo \(x\))`, "exact:echo (x)"},
		{`Bash(a\\b)`, `exact:a\b`},
		{`Bash(echo \*)`, `exact:echo \*`},
		{"Bash(:*)", "error"},
		{"Bash(npm test", "error"},
		{"Bash(x)y", "error"},
		{"Read(~/.ssh/**)", "other"},
		{"WebFetch", "other"},
		{"mcp__x__bash", "other"},
		{"bash(ls)", "other"},
	}
	names := map[kind]string{kindAll: "all", kindExact: "exact", kindPrefix: "prefix", kindWildcard: "wildcard"}
	for _, tt := range tests {
		r, ok, err := ParseClaudeRule(tt.in)
		got := "other"
		switch {
		case err != nil:
			got = "error"
		case ok:
			got = names[r.kind] + ":" + r.text
		}
		if got != tt.want {
			t.Errorf("ParseClaudeRule(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func codexRules(t *testing.T, src string) *Rules {
	t.Helper()
	rules, err := parseCodex("default.rules", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rs := &Rules{Agent: Codex}
	for _, r := range rules {
		if r.Action == ActionAllow {
			rs.Allow = append(rs.Allow, r)
		} else {
			rs.Block = append(rs.Block, r)
		}
	}
	return rs
}

func TestCodexApprove(t *testing.T) {
	rules := `
prefix_rule(pattern=["npm", "test"], decision="allow")
prefix_rule(pattern=["git", ["status", "diff"]])
prefix_rule(pattern=["cargo", "publish"], decision="forbidden")
prefix_rule(pattern=["cargo"], decision="allow")
`
	rs := codexRules(t, rules)
	tests := []struct{ cmd, want string }{
		{"npm test", `npm test=prefix_rule(pattern=["npm", "test"], decision="allow")`},
		{"npm test --watch", `npm test --watch=prefix_rule(pattern=["npm", "test"], decision="allow")`},
		{"'npm' test", `'npm' test=prefix_rule(pattern=["npm", "test"], decision="allow")`},
		{"npm testx", "-"},
		{"npm", "-"},
		{"npm test; rm -rf ~", `npm test=prefix_rule(pattern=["npm", "test"], decision="allow")`},
		{"git diff", `git diff=prefix_rule(pattern=["git", ["status", "diff"]], decision="allow")`},
		{"git push", "-"},
		{"npm test $HOME", "-"},
		{"FOO=1 npm test", "-"},
		{"/usr/bin/npm test", "-"},
		{"cargo build", `cargo build=prefix_rule(pattern=["cargo"], decision="allow")`},
		{"cargo publish", "-"},
		{"cargo build && cargo publish", "-"},
	}
	for _, tt := range tests {
		if got := approved(rs, tt.cmd); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestParseCodexErrors(t *testing.T) {
	for _, src := range []string{
		`prefix_rule(pattern=[])`,
		`prefix_rule(pattern=["a"], decision="maybe")`,
		`prefix_rule(pattern=[1])`,
		`prefix_rule(pattern=[[]])`,
		`prefix_rule(pattern="npm")`,
		`host_executable(name="git")`,
		`prefix_rule(pattern=["a"]`,
		"def f():\n  f()\nf()",
		"x = [1]\nfor i in range(100000000):\n  x.append(i)",
	} {
		if rules, err := parseCodex("x.rules", []byte(src)); err == nil {
			t.Errorf("%q: no error, rules %v", src, rules)
		}
	}
}

func TestGeminiApprove(t *testing.T) {
	settings := `{"tools": {"allowed": ["run_shell_command(npm test)", "read_file", "ShellTool(git status)"], "exclude": ["run_shell_command(git push)"]}}`
	policy := `
[[rule]]
toolName = "run_shell_command"
commandPrefix = ["make", "go test"]
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandRegex = ".*"
decision = "allow"
priority = 100

[[rule]]
toolName = "run_shell_command"
commandPrefix = "make install"
decision = "deny"
priority = 200
`
	rs := &Rules{Agent: Gemini}
	for _, p := range []func(string, []byte) ([]Rule, error){parseGeminiSettings, parseGeminiPolicy} {
		data := settings
		if len(rs.Allow) > 0 {
			data = policy
		}
		rules, err := p("x", []byte(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			if r.Action == ActionAllow {
				rs.Allow = append(rs.Allow, r)
			} else {
				rs.Block = append(rs.Block, r)
			}
		}
	}
	tests := []struct{ cmd, want string }{
		{"npm test", "npm test=run_shell_command(npm test)"},
		{"npm test --watch", "npm test --watch=run_shell_command(npm test)"},
		{"npm testx", "-"},
		{"git status", "git status=ShellTool(git status)"},
		{"make", `make=[[rule]] toolName = "run_shell_command", commandPrefix = "make", decision = "allow"`},
		{"go test ./...", `go test ./...=[[rule]] toolName = "run_shell_command", commandPrefix = "go test", decision = "allow"`},
		{"ls", "-"},
		{"make install", "-"},
		{"make && make install", "-"},
		{"git push", "-"},
	}
	for _, tt := range tests {
		if got := approved(rs, tt.cmd); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

// Load reads user-scope files always, and a project's only when trusted,
// or (Claude Code's settings.local.json) when git does not track it.
func TestLoadScopes(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	proj := filepath.Join(home, "proj")
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{"permissions": {"allow": ["Bash(npm test)", "Read(*)"], "deny": ["Bash(rm:*)"]}}`)
	shared := filepath.Join(proj, ".claude", "settings.json")
	write(shared, `{"permissions": {"allow": ["Bash(curl:*)"], "ask": ["Bash(git push:*)"]}}`)
	local := filepath.Join(proj, ".claude", "settings.local.json")
	write(local, `{"permissions": {"allow": ["Bash(make:*)"]}}`)
	src := Source{Agent: Claude, Env: Env{"HOME": home}, Cwd: proj, Trust: &trust.Store{}}

	texts := func(rs []Rule) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Scope+":"+r.Text)
		}
		return out
	}
	// No repository: git is not known not to track the local file.
	rs := Load(src)
	if diff := cmp.Diff([]string{"user:Bash(npm test)"}, texts(rs.Allow)); diff != "" {
		t.Errorf("allow (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"user:Bash(rm:*)", "project:Bash(git push:*)"}, texts(rs.Block)); diff != "" {
		t.Errorf("block (-want +got):\n%s", diff)
	}
	if len(rs.Skipped) != 2 {
		t.Errorf("skipped: %q", rs.Skipped)
	}

	// A repository with no index tracks nothing: the local file is the
	// person's own.
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	rs = Load(src)
	if diff := cmp.Diff([]string{"user:Bash(npm test)", "project:Bash(make:*)"}, texts(rs.Allow)); diff != "" {
		t.Errorf("allow with an untracked local file (-want +got):\n%s", diff)
	}

	// Trusting the shared file makes its allow rules count; changing it
	// afterwards does not.
	data, _ := os.ReadFile(shared)
	src.Trust.Add(trust.Entry{Path: shared, Kind: trust.KindFile, SHA256: trust.Sum(data)})
	rs = Load(src)
	if diff := cmp.Diff([]string{"user:Bash(npm test)", "project:Bash(curl:*)", "project:Bash(make:*)"}, texts(rs.Allow)); diff != "" {
		t.Errorf("allow with a trusted shared file (-want +got):\n%s", diff)
	}
	write(shared, `{"permissions": {"allow": ["Bash(curl:*)", "Bash"]}}`)
	rs = Load(src)
	if diff := cmp.Diff([]string{"user:Bash(npm test)", "project:Bash(make:*)"}, texts(rs.Allow)); diff != "" {
		t.Errorf("allow after the shared file changed (-want +got):\n%s", diff)
	}
}

// TestLoadBrokenFile: a rules file that exists but cannot be parsed (or
// read: here a FIFO, which must not block) may hold deny rules nobody can
// see, so nothing is approved, though another file allows the command.
func TestLoadBrokenFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, p string)
	}{
		{"unparsable", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte(`{"permissions": {"deny": ["Bash(npm test)"]`), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"fifo", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, ".claude")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"permissions": {"allow": ["Bash(npm test)"]}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			src := Source{Agent: Claude, Env: Env{"HOME": home}, Cwd: home, Trust: &trust.Store{}}
			if got := approved(Load(src), "npm test"); got == "-" {
				t.Fatal("the allow rule alone approves nothing: the test cannot tell")
			}
			tc.plant(t, filepath.Join(dir, "settings.local.json"))
			rs := Load(src)
			if got := approved(rs, "npm test"); got != "-" || !rs.Broken {
				t.Errorf("with a broken settings.local.json: approved %s, broken %v (skipped %q)", got, rs.Broken, rs.Skipped)
			}
		})
	}
}
