package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMerge(t *testing.T) {
	const cmd = "/opt/bin/shellgate-hook claude"
	tests := []struct {
		name     string
		agent    Agent
		existing string
		want     string
		changed  bool
	}{
		{"claude new file", Claude, "", `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/bin/shellgate-hook claude",
            "timeout": 30,
            "onFailure": "block"
          }
        ]
      }
    ],
    "PostToolUseFailure": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/bin/shellgate-hook claude",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
`, true},
		{"claude keeps other settings, hooks and key order", Claude, `{
  "model": "opus",
  "permissions": {"allow": ["Bash(npm test:*)"], "deny": []},
  "hooks": {
    "PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "./lint.sh"}]}],
    "PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "shellgate-hook claude"}, {"type": "command", "command": "./log.sh"}]}]
  },
  "env": {"A": "1", "B": 2.50}
}`, `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm test:*)"
    ],
    "deny": []
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "./lint.sh"
          }
        ]
      },
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/bin/shellgate-hook claude",
            "timeout": 30,
            "onFailure": "block"
          }
        ]
      }
    ],
    "PostToolUseFailure": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./log.sh"
          }
        ]
      },
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/bin/shellgate-hook claude",
            "timeout": 30
          }
        ]
      }
    ]
  },
  "env": {
    "A": "1",
    "B": 2.50
  }
}
`, true},
		{"claude upgrades an older shellgate entry", Claude, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/opt/bin/shellgate-hook claude","timeout":30}]}],"PostToolUseFailure":[{"matcher":"Bash","hooks":[{"type":"command","command":"/opt/bin/shellgate-hook claude","timeout":30}]}]}}`, `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/bin/shellgate-hook claude",
            "timeout": 30,
            "onFailure": "block"
          }
        ]
      }
    ],
    "PostToolUseFailure": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/bin/shellgate-hook claude",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
`, true},
		{"claude keeps an entry with more fields", Claude, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/opt/bin/shellgate-hook claude","timeout":30,"onFailure":"block","statusMessage":"gate"}]}],"PostToolUseFailure":[{"matcher":"Bash","hooks":[{"type":"command","command":"/opt/bin/shellgate-hook claude","timeout":30}]}]}}`, `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/bin/shellgate-hook claude",
            "timeout": 30,
            "onFailure": "block",
            "statusMessage": "gate"
          }
        ]
      }
    ],
    "PostToolUseFailure": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/bin/shellgate-hook claude",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
`, false},
		{"cursor new file", Cursor, "", `{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [
      {
        "command": "/opt/bin/shellgate-hook claude"
      }
    ]
  }
}
`, true},
		{"cursor replaces an old shellgate entry", Cursor, `{"version":1,"hooks":{"beforeShellExecution":[{"command":"shellgate hook cursor"},{"command":"./audit.sh"}],"afterFileEdit":[{"command":"./fmt.sh"}]}}`, `{
  "version": 1,
  "hooks": {
    "beforeShellExecution": [
      {
        "command": "./audit.sh"
      },
      {
        "command": "/opt/bin/shellgate-hook claude"
      }
    ],
    "afterFileEdit": [
      {
        "command": "./fmt.sh"
      }
    ]
  }
}
`, true},
		{"gemini", Gemini, `{"general":{"vimMode":true}}`, `{
  "general": {
    "vimMode": true
  },
  "hooks": {
    "BeforeTool": [
      {
        "matcher": "run_shell_command",
        "hooks": [
          {
            "name": "shellgate",
            "type": "command",
            "command": "/opt/bin/shellgate-hook claude",
            "timeout": 120000
          }
        ]
      }
    ],
    "AfterTool": [
      {
        "matcher": "run_shell_command",
        "hooks": [
          {
            "name": "shellgate",
            "type": "command",
            "command": "/opt/bin/shellgate-hook claude",
            "timeout": 120000
          }
        ]
      }
    ]
  }
}
`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, err := Merge(tt.agent, []byte(tt.existing), cmd)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(out)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if changed != tt.changed {
				t.Errorf("changed = %v", changed)
			}
			// Idempotent: merging again changes nothing.
			again, changed, err := Merge(tt.agent, out, cmd)
			if err != nil || changed || string(again) != string(out) {
				t.Errorf("second merge: changed=%v err=%v\n%s", changed, err, again)
			}
		})
	}
}

func TestMergeErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"hooks": [1]}`, `"hooks" is not a JSON object`},
		{`{"hooks": {"PreToolUse": {}}}`, `hooks.PreToolUse is not a JSON array`},
		{`[1,2]`, `not a JSON object`},
		{`{"a": 1,}`, `not valid JSON`},
		{`// comment
{"a": 1}`, `not valid JSON`},
		{`{"a":1} {"b":2}`, `not valid JSON`},
	} {
		_, _, err := Merge(Claude, []byte(tt.in), "shellgate-hook claude")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestInstall(t *testing.T) {
	dir := t.TempDir()
	path := SettingsPath(Claude, ScopeProject, dir, "/nonexistent")
	if want := filepath.Join(dir, ".claude", "settings.json"); path != want {
		t.Fatalf("path %s", path)
	}
	r, err := Install(Claude, path, "shellgate-hook claude", false)
	if err != nil || !r.Changed || r.Backup != "" {
		t.Fatalf("new file: %+v %v", r, err)
	}
	orig := []byte(`{"model":"opus"}`)
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o600)
	r, err = Install(Claude, path, "shellgate-hook claude", true)
	if err != nil || !r.Changed {
		t.Fatalf("dry run: %+v %v", r, err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(orig) {
		t.Errorf("dry run wrote the file")
	}
	r, err = Install(Claude, path, "shellgate-hook claude", false)
	if err != nil || !r.Changed || r.Backup != path+BackupSuffix {
		t.Fatalf("existing file: %+v %v", r, err)
	}
	if b, _ := os.ReadFile(r.Backup); string(b) != string(orig) {
		t.Errorf("backup holds %q", b)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %04o, want the original 0600", fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	if string(b) != string(r.Content) || !strings.HasPrefix(string(b), "{\n  \"model\": \"opus\",\n  \"hooks\"") {
		t.Errorf("file:\n%s", b)
	}
	r, err = Install(Claude, path, "shellgate-hook claude", false)
	if err != nil || r.Changed || r.Backup != "" {
		t.Errorf("again: %+v %v", r, err)
	}
	os.WriteFile(path, []byte("{broken"), 0o644)
	if _, err := Install(Claude, path, "shellgate-hook claude", false); err == nil {
		t.Errorf("broken file: no error")
	}
	if b, _ := os.ReadFile(path); string(b) != "{broken" {
		t.Errorf("broken file was touched")
	}
}

func TestIsShellgateCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"shellgate-hook claude":                        true,
		`"/opt/x/shellgate-hook" codex --ask-as defer`: true,
		"shellgate hook cursor":                        true,
		"shellgate check ls":                           false,
		"./lint.sh":                                    false,
		"":                                             false,
	} {
		if got := IsShellgateCommand(cmd); got != want {
			t.Errorf("%q: %v", cmd, got)
		}
	}
}
