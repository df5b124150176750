package hook

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGeminiFolderTrust(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "work", "proj")
	if err := os.MkdirAll(filepath.Join(proj, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", "")
	file := filepath.Join(home, ".gemini", "trustedFolders.json")
	set := func(content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, file, dir string
		want            bool
		why             string
	}{
		{"no file", "", proj, false, "does not exist"},
		{"the folder", `{"` + proj + `": "TRUST_FOLDER"}`, proj, true, "TRUST_FOLDER"},
		{"a folder inside", `{"` + proj + `": "TRUST_FOLDER"}`, filepath.Join(proj, "sub"), true, "TRUST_FOLDER"},
		{"a sibling", `{"` + proj + `x": "TRUST_FOLDER"}`, proj, false, "no rule"},
		{"parent rule", `{"` + filepath.Join(home, "work", "other") + `": "TRUST_PARENT"}`, proj, true, "TRUST_PARENT"},
		{"longest rule wins", `{"` + filepath.Join(home, "work") + `": "TRUST_FOLDER", "` + proj + `": "DO_NOT_TRUST"}`, proj, false, "DO_NOT_TRUST"},
		{"longest rule wins, trusted", `{"` + filepath.Join(home, "work") + `": "DO_NOT_TRUST", "` + proj + `": "TRUST_FOLDER"}`, proj, true, "TRUST_FOLDER"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(file)
			if tt.file != "" {
				set(tt.file)
			}
			got, err := GeminiFolderTrust(home, tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if got.Trusted != tt.want || !strings.Contains(got.Why, tt.why) {
				t.Errorf("got %+v, want trusted=%v and %q in why", got, tt.want, tt.why)
			}
		})
	}
	t.Run("corrupt file", func(t *testing.T) {
		set("{nope")
		if _, err := GeminiFolderTrust(home, proj); err == nil {
			t.Errorf("no error for a corrupt file")
		}
	})
	t.Run("folder trust off", func(t *testing.T) {
		os.Remove(file)
		os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"security":{"folderTrust":{"enabled":false}}}`), 0o600)
		defer os.Remove(filepath.Join(home, ".gemini", "settings.json"))
		got, err := GeminiFolderTrust(home, proj)
		if err != nil || !got.Trusted {
			t.Errorf("got %+v, %v", got, err)
		}
	})
}
