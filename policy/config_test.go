package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/shellgate/shellgate/classify"
)

func TestParseConfig(t *testing.T) {
	src := `# a full config
mode: readonly
read_only_programs: [mytool]
grants:
  - npm test **
  - make lint
roots: [../shared, /abs, "~/notes"]
deny_reads: ["**/secret.txt"]
replace_default_deny_reads: true
policy_dirs: [policy]
`
	c, err := ParseConfig([]byte(src), "/proj/.shellgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Mode: "readonly", ReadOnlyPrograms: []string{"mytool"}, Grants: []string{"npm test **", "make lint"},
		Roots: []string{"/shared", "/abs", "~/notes"}, DenyReads: []string{"**/secret.txt"},
		ReplaceDefaultDenyReads: true, PolicyDirs: []string{"/proj/policy"}, Path: "/proj/.shellgate.yaml",
	}
	if diff := cmp.Diff(want, c, cmpopts.IgnoreUnexported(Config{})); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	if len(c.grantPatterns()) != 2 {
		t.Errorf("grants not parsed: %v", c.grantPatterns())
	}
}

// TestParseConfigShell: the shell key names the dialect requests without
// one are judged in; a path or a login shell's -zsh is reduced to it.
func TestParseConfigShell(t *testing.T) {
	for src, want := range map[string]string{
		"shell: zsh\n": "zsh", "shell: /bin/bash\n": "bash", "shell: dash\n": "sh", "mode: default\n": "",
	} {
		c, err := ParseConfig([]byte(src), "c.yaml")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if c.Shell != want {
			t.Errorf("%q: shell %q, want %q", src, c.Shell, want)
		}
	}
}

func TestParseConfigEmpty(t *testing.T) {
	for _, src := range []string{"", "\n# nothing\n", "---\n"} {
		c, err := ParseConfig([]byte(src), "c.yaml")
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if c.Mode != ModeDefault || len(c.Grants) != 0 {
			t.Errorf("%q: %+v", src, c)
		}
	}
}

func TestParseConfigErrors(t *testing.T) {
	cases := []struct {
		src, want string
	}{
		{"mode: default\ngrant: [x]\n", `c.yaml:2:1: unknown key "grant" (known keys: mode,`},
		{"mode: yolo\n", `c.yaml:1:7: mode "yolo" is not a mode (want default or readonly)`},
		{"shell: fish\n", `c.yaml:1:8: shell "fish" is not a shell (want bash, zsh or sh)`},
		{"shell: unknown\n", `c.yaml:1:8: shell "unknown" is not a shell (want bash, zsh or sh)`},
		{"mode: default\nmode: readonly\n", `c.yaml:2:1: key "mode" given twice`},
		{"grants:\n  - make lint\n  - \"** x\"\n", `c.yaml:3:5: grant "** x": the first word must be a program name`},
		{"grants:\n  - npm ** test\n", `c.yaml:2:5: grant "npm ** test": "**" may only be the last word`},
		{"grants:\n  - npm test > out\n", `c.yaml:2:5: grant "npm test > out": grant words are literal`},
		{"grants:\n  - /usr/bin/npm test\n", `c.yaml:2:5: grant "/usr/bin/npm test": the program must be a name`},
		{"grants:\n  - \"\"\n", `c.yaml:2:5: grant "": empty grant`},
		{"grants: npm test\n", "c.yaml:"},
		{"roots: [\"\"]\n", `c.yaml:1:9: roots: an empty root`},
		{"read_only_programs: [\"a b\"]\n", `c.yaml:1:22: read_only_programs: "a b" is not a program name`},
		{"remote_reads: [/usr/bin/gh]\n", `c.yaml:1:16: remote_reads: "/usr/bin/gh" is not a program name`},
		{"remote_reads: gh\n", "c.yaml:"},
		{"replace_default_deny_reads: maybe\n", "c.yaml:"},
		{"- a\n- b\n", "c.yaml:1:1: the config must be a mapping"},
		{"mode: [\n", "c.yaml: yaml:"},
		{"mode: default\n---\ndeny_reads: [\"*.pem\"]\n", "c.yaml:2:1: a second YAML document"},
		{"mode: default\n---\n", "c.yaml:2:1: a second YAML document"},
		{"mode: default\n---\nmode: [\n", "c.yaml: yaml:"},
	}
	for _, c := range cases {
		cfg, err := ParseConfig([]byte(c.src), "c.yaml")
		if err == nil {
			t.Errorf("%q: parsed", c.src)
			continue
		}
		if cfg != nil {
			t.Errorf("%q: a config beside the error: %+v", c.src, cfg)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %q, want it to contain %q", c.src, err, c.want)
		}
	}
}

func TestFindConfig(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	deep := filepath.Join(dir, "proj", "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	// Nothing anywhere: the defaults.
	if p, err := FindConfig(deep); err != nil || p != "" {
		t.Fatalf("FindConfig = %q, %v", p, err)
	}
	// The user config dir.
	user := filepath.Join(dir, "xdg", "shellgate", "config.yaml")
	os.MkdirAll(filepath.Dir(user), 0o755)
	os.WriteFile(user, []byte("mode: readonly\n"), 0o644)
	if p, _ := FindConfig(deep); p != user {
		t.Errorf("FindConfig = %q, want the user config %q", p, user)
	}
	// The nearest parent with .shellgate.yaml wins.
	top := filepath.Join(dir, "proj", ConfigFileName)
	os.WriteFile(top, []byte("grants: [make lint]\n"), 0o644)
	if p, _ := FindConfig(deep); p != top {
		t.Errorf("FindConfig = %q, want %q", p, top)
	}
	near := filepath.Join(dir, "proj", "a", ConfigFileName)
	os.WriteFile(near, []byte("mode: default\n"), 0o644)
	if p, _ := FindConfig(deep); p != near {
		t.Errorf("FindConfig = %q, want %q", p, near)
	}
	c, err := LoadConfigFor("", deep)
	if err != nil || c.Path != near {
		t.Errorf("LoadConfigFor = %+v, %v", c, err)
	}
	// --config wins over everything.
	c, err = LoadConfigFor(user, deep)
	if err != nil || c.Mode != ModeReadonly {
		t.Errorf("explicit: %+v, %v", c, err)
	}
	if _, err := LoadConfigFor(filepath.Join(dir, "missing.yaml"), deep); err == nil {
		t.Error("a missing --config file loaded")
	}
}

func TestClassifyOptions(t *testing.T) {
	c := &Config{ReadOnlyPrograms: []string{"mytool", "cat"}}
	if _, err := c.ClassifyOptions(nil); err != nil {
		t.Fatal(err)
	}
	bad := &Config{ReadOnlyPrograms: []string{"rm"}, Path: "x.yaml"}
	if _, err := bad.ClassifyOptions(nil); err == nil || !strings.Contains(err.Error(), "x.yaml: read_only_programs: rm is in the catalog and is not read-only") {
		t.Errorf("rm as read-only: %v", err)
	}
}

func TestBoundary(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", filepath.Join(dir, "home"))
	os.MkdirAll(filepath.Join(dir, "ws", ".git"), 0o755)
	os.MkdirAll(filepath.Join(dir, "ws", "sub"), 0o755)
	c := &Config{Roots: []string{"/extra"}, DenyReads: []string{"**/secret.txt"}}
	b, err := c.Boundary(filepath.Join(dir, "ws", "sub"), "/more")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{filepath.Join(dir, "ws"), "/extra", "/more"}, b.Roots); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	if n := len(b.DenyRows); n < 10 || b.DenyRows[n-1] != "**/secret.txt" {
		t.Errorf("deny rows %v", b.DenyRows)
	}
	c.ReplaceDefaultDenyReads = true
	b, _ = c.Boundary(filepath.Join(dir, "ws"))
	if diff := cmp.Diff([]string{"**/secret.txt"}, b.DenyRows); diff != "" {
		t.Errorf("replaced rows (-want +got):\n%s", diff)
	}
	c.DenyReads = []string{"!negated"}
	if _, err := c.Boundary(filepath.Join(dir, "ws")); err == nil || !strings.Contains(err.Error(), "deny_reads") {
		t.Errorf("bad row: %v", err)
	}
	if _, err := c.Boundary(filepath.Join(dir, "nope")); err == nil {
		t.Error("a missing cwd made a boundary")
	}
}

// TestConfigProject: a config shellgate finds in the project is marked
// Project; the user's config and a named one are not. A project grant with
// a wildcard over code does not cover a segment where it covers code; the
// same grant from the user does.
func TestConfigProject(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("HOME", filepath.Join(dir, "home"))
	proj := filepath.Join(dir, "proj")
	other := filepath.Join(dir, "other")
	user := filepath.Join(dir, "xdg", "shellgate", "config.yaml")
	for _, d := range []string{proj, other, filepath.Dir(user)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const grants = "grants:\n  - python3 **\n  - env **\n"
	for _, f := range []string{filepath.Join(proj, ConfigFileName), user} {
		if err := os.WriteFile(f, []byte(grants), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name, explicit, cwd string
		project             bool
	}{
		{"found in the project", "", proj, true},
		{"the user's config", "", other, false},
		{"named with --config", filepath.Join(proj, ConfigFileName), other, false},
	}
	code := classify.Classify(`python3 -c 'import os'`)
	plain := classify.Classify(`python3 --version`)
	wrapped := classify.Classify(`env python3 --version`)
	for _, c := range cases {
		cfg, err := LoadConfigFor(c.explicit, c.cwd)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (cfg.Source == SourceProject) != c.project {
			t.Errorf("%s: Source = %q, want project %v", c.name, cfg.Source, c.project)
		}
		wantCode := "python3 **"
		if c.project {
			wantCode = ""
		}
		if got := cfg.GrantFor(&code.Segments[0]); got != wantCode {
			t.Errorf("%s: grant for python3 -c = %q, want %q", c.name, got, wantCode)
		}
		if got := cfg.GrantFor(&plain.Segments[0]); got != "python3 **" {
			t.Errorf("%s: grant for python3 --version = %q", c.name, got)
		}
		g, refused := cfg.grantFor(&wrapped.Segments[0])
		if c.project && (g != "" || !strings.Contains(refused, `the grant "env **" of the project config`) || !strings.Contains(refused, "the command operand of env is a command")) {
			t.Errorf("%s: env python3: grant %q, refused %q", c.name, g, refused)
		}
		problems := cfg.GrantProblems(nil)
		if len(problems) != 2 || !strings.HasSuffix(problems[0].Where, ":2:5") || !strings.HasSuffix(problems[1].Where, ":3:5") {
			t.Errorf("%s: GrantProblems = %+v", c.name, problems)
		}
	}
}
