package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestInstallExitStatus: install exits 0 only when the agent will run the
// hook; 1 (as doctor does) when it will not, with why on stderr; 70 when
// what the agent does could not be established.
func TestInstallExitStatus(t *testing.T) {
	home, proj := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(proj, ".git"), 0o755)
	t.Setenv("HOME", home)
	t.Setenv("CODEX_HOME", "")
	t.Setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", "")
	t.Chdir(proj)
	write := func(name, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name  string
		setup func()
		args  []string
		want  int
	}{
		{"codex, no flag: the user's hooks, active", nil, []string{"codex"}, exitOK},
		{"codex project, untrusted", nil, []string{"codex", "--project"}, exitNotActive},
		{"codex hooks off", func() { write(filepath.Join(home, ".codex", "config.toml"), "[features]\nhooks = false\n") }, []string{"codex"}, exitNotActive},
		{"codex config not TOML", func() { write(filepath.Join(home, ".codex", "config.toml"), "a =\n") }, []string{"codex"}, exitInternal},
		{"codex, CODEX_HOME missing", func() { t.Setenv("CODEX_HOME", filepath.Join(home, "nope")) }, []string{"codex", "--user"}, exitNotActive},
		{"gemini, untrusted folder", nil, []string{"gemini"}, exitNotActive},
		{"gemini, trusted folder", func() { write(filepath.Join(home, ".gemini", "trustedFolders.json"), `{"`+proj+`": "TRUST_FOLDER"}`) }, []string{"gemini"}, exitOK},
		{"claude", nil, []string{"claude"}, exitOK},
		{"cursor", nil, []string{"cursor"}, exitOK},
		{"unknown agent", nil, []string{"vim"}, exitUsage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(filepath.Join(home, ".codex"))
			os.RemoveAll(filepath.Join(home, ".gemini"))
			t.Setenv("CODEX_HOME", "")
			if tt.setup != nil {
				tt.setup()
			}
			var out, errb bytes.Buffer
			args := append([]string{"install"}, tt.args...)
			args = append(args, "--command", "shellgate-hook "+tt.args[0])
			if got := runMain(args, &out, &errb); got != tt.want {
				t.Errorf("install %v: exit %d, want %d\n%s%s", tt.args, got, tt.want, out.String(), errb.String())
			}
		})
	}
}
