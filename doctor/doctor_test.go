package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/hook"
)

func TestMatcherCovers(t *testing.T) {
	for _, tt := range []struct {
		m, tool string
		want    bool
	}{
		{"", "Bash", true},
		{"*", "Bash", true},
		{"Bash", "Bash", true},
		{"Edit|Bash", "Bash", true},
		{"Edit", "Bash", false},
		{"Bashful", "Bash", false},
		{"Ba.*", "Bash", true},
		{"run_shell_.*", "run_shell_command", true},
		{".*shell", "run_shell_command", false},
		{"(", "Bash", false},
	} {
		if got := matcherCovers(tt.m, tt.tool); got != tt.want {
			t.Errorf("matcherCovers(%q, %q) = %v, want %v", tt.m, tt.tool, got, tt.want)
		}
	}
}

func TestParseSettings(t *testing.T) {
	for _, tt := range []struct {
		agent hook.Agent
		in    string
		want  string // "" for ok, else a substring of the error
	}{
		{hook.Claude, `{"hooks": {}}`, ""},
		{hook.Claude, `{"hooks": {}} // c`, "not valid JSON"},
		{hook.Gemini, "{\n // c \"x\n \"hooks\": {} /* a // b */\n}", ""},
		{hook.Gemini, `{"url": "http://x/*y*/"}`, ""},
		{hook.Claude, `{"hooks": {},}`, "not valid JSON"},
		{hook.Cursor, `[1]`, "not a JSON object"},
		{hook.Codex, `{} {}`, "data after"},
		{hook.Codex, ``, "not valid JSON"},
	} {
		_, err := parseSettings(tt.agent, []byte(tt.in))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %q: %v", tt.agent, tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %q: error %v, want %q", tt.agent, tt.in, err, tt.want)
		}
	}
}

func TestParseHookCommand(t *testing.T) {
	env := func(k string) string { return map[string]string{"PATH": "/bin"}[k] }
	vars := map[string]string{"CLAUDE_PROJECT_DIR": "/p q"}
	for _, tt := range []struct {
		in, want, err string
	}{
		{`shellgate-hook claude`, "shellgate-hook|claude", ""},
		{`'/opt/my tools/shellgate-hook' claude --policy "$CLAUDE_PROJECT_DIR/.shellgate"`, "/opt/my tools/shellgate-hook|claude|--policy|/p q/.shellgate", ""},
		{`/x/shellgate-hook codex || printf '%s\n' '{}'`, "/x/shellgate-hook|codex", ""},
		{`$NOPE/shellgate-hook claude`, "", "cannot tell what"},
		{`$(which shellgate-hook) claude`, "", "cannot tell what"},
		{`shellgate-hook 'claude`, "", "does not parse"},
		{``, "", "runs no program"},
	} {
		argv, err := parseHookCommand(tt.in, env, vars)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, strings.Join(argv, "|")); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestHookArgs(t *testing.T) {
	for _, tt := range []struct {
		argv      []string
		agent     string
		flagPaths []string
	}{
		{[]string{"shellgate-hook", "claude"}, "claude", nil},
		{[]string{"/b/shellgate", "hook", "gemini", "--policy", "/p", "--config=/c.yaml"}, "gemini", []string{"/p", "/c.yaml"}},
		{[]string{"shellgate-hook", "--mode", "readonly", "cursor"}, "cursor", nil},
		{[]string{"shellgate-hook"}, "", nil},
	} {
		agent, flags := hookArgs(tt.argv)
		if agent != tt.agent {
			t.Errorf("%q: agent %q, want %q", tt.argv, agent, tt.agent)
		}
		var paths []string
		for _, fp := range flagPaths(flags) {
			paths = append(paths, fp.path)
		}
		if diff := cmp.Diff(tt.flagPaths, paths); diff != "" {
			t.Errorf("%q: flag paths (-want +got):\n%s", tt.argv, diff)
		}
	}
}

// TestRunOddSettings: settings of any shape give a report, never a panic,
// and never an active gate unless a real shellgate hook is there.
func TestRunOddSettings(t *testing.T) {
	for _, in := range []string{
		`{"hooks": []}`,
		`{"hooks": {"PreToolUse": {}}}`,
		`{"hooks": {"PreToolUse": [1, "x", null, {"matcher": 3, "hooks": "no"}]}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": 7}]}]}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "http", "command": "shellgate-hook claude", "onFailure": "block"}]}]}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "shellgate-hook claude", "onFailure": "block", "async": true}]}]}}`,
		`null`,
		"\xff\xfe",
	} {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
		os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(in), 0o644)
		r := Run(Options{Dir: dir, Socket: filepath.Join(dir, "run", "engine.sock"), Version: "v", Getenv: func(string) string { return "" }})
		if r.OK || len(r.Gates) != 1 || r.Gates[0].Active {
			t.Errorf("%q: ok %v, gates %+v", in, r.OK, r.Gates)
		}
	}
}

// TestGeminiUserHookNeedsFolderTrust: in a folder Gemini CLI does not
// trust, it runs no hook from its settings, the user's included.
func TestGeminiUserHookNeedsFolderTrust(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	bin := filepath.Join(home, "shellgate-hook")
	os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755)
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"hooks": {"BeforeTool": [{"matcher": "run_shell_command",
		"hooks": [{"name": "shellgate", "type": "command", "command": "`+bin+` gemini", "timeout": 120000}]}]}}`), 0o644)
	o := Options{Dir: dir, Home: home, Socket: filepath.Join(dir, "s"), Getenv: func(string) string { return "" }}
	if r := Run(o); r.OK || len(r.Gates) != 1 || r.Gates[0].Active {
		t.Fatalf("untrusted folder: ok %v, gates %+v", r.OK, r.Gates)
	}
	os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(`{"`+filepath.Dir(dir)+`": "TRUST_FOLDER"}`), 0o644)
	if r := Run(o); !r.OK || !r.Gates[0].Active {
		t.Fatalf("trusted folder: ok %v, gates %+v, agents %+v", r.OK, r.Gates, r.Agents)
	}
}
