package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/shellgate/shellgate/internal/testenv"
)

// TestFilesThatAreFIFOs puts a FIFO (with no writer: opening it to read
// would wait forever) where each command reads a config, a policy, a
// bundle file or an agent's settings: every command returns, and says the
// file is a FIFO where it reports the file at all. A read that blocked
// would hang the test.
func TestFilesThatAreFIFOs(t *testing.T) {
	tests := []struct {
		name string
		fifo string // relative to the home (the project is home/proj)
		args []string
		// say: the output must say it is a FIFO (else returning is
		// enough: the file is skipped).
		say bool
		// setup runs before the FIFO is made (home, project).
		setup func(t *testing.T, home, proj string)
	}{
		{name: "install claude: settings", fifo: ".claude/settings.json", args: []string{"install", "claude", "--user"}, say: true},
		{name: "install gemini: settings", fifo: ".gemini/settings.json", args: []string{"install", "gemini", "--user"}, say: true},
		{name: "install codex: config", fifo: ".codex/config.toml", args: []string{"install", "codex", "--user"}, say: true},
		{name: "doctor: claude settings", fifo: ".claude/settings.json", args: []string{"doctor", "--dir", "proj"}},
		{name: "check --config", fifo: "proj/cfg.yaml", args: []string{"check", "--cwd", "proj", "--config", "proj/cfg.yaml", "ls"}, say: true},
		{name: "check: project config", fifo: "proj/.shellgate.yaml", args: []string{"check", "--cwd", "proj", "ls"}, say: true},
		{name: "check --policy: a module", fifo: "pol/x.rego", args: []string{"check", "--cwd", "proj", "--policy", "pol", "ls"}, say: true},
		{name: "classify --catalog", fifo: "cat.yaml", args: []string{"classify", "--catalog", "cat.yaml", "ls"}, say: true},
		{name: "policy fmt", fifo: "pol/y.rego", args: []string{"policy", "fmt", "pol/y.rego"}, say: true},
		{name: "policy bundle: its config", fifo: "b/shellgate.yaml", args: []string{"policy", "bundle", "-o", "out.tar.gz", "b"}, say: true},
		{name: "test: a corpus file", fifo: "c.yaml", args: []string{"test", "c.yaml"}, say: true},
		{name: "trust --list: a trusted config replaced", fifo: "proj/.shellgate.yaml", args: []string{"trust", "--list"},
			setup: func(t *testing.T, home, proj string) {
				if err := os.WriteFile(filepath.Join(proj, ".shellgate.yaml"), []byte("mode: default\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				var out, errb bytes.Buffer
				if code := run([]string{"trust", proj}, strings.NewReader(""), &out, &errb); code != exitOK {
					t.Fatalf("trust: exit %d: %s%s", code, out.String(), errb.String())
				}
				if err := os.Remove(filepath.Join(proj, ".shellgate.yaml")); err != nil {
					t.Fatal(err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proj := testenv.Project(t, "proj", map[string]string{".git/": ""})
			home := filepath.Dir(proj)
			t.Setenv("CODEX_HOME", "")
			t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".state"))
			t.Chdir(home)
			if err := os.MkdirAll(filepath.Join(home, "pol"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(home, "b"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "b", "p.rego"), []byte("package shellgate.user\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.setup != nil {
				tt.setup(t, home, proj)
			}
			fifo := filepath.Join(home, tt.fifo)
			if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := run(tt.args, strings.NewReader(""), &out, &errb)
			all := out.String() + errb.String()
			if tt.say && !strings.Contains(all, "FIFO") {
				t.Errorf("shellgate %s: exit %d, does not say the file is a FIFO:\n%s", strings.Join(tt.args, " "), code, all)
			}
		})
	}
}
