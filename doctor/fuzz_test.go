package doctor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shellgate/shellgate/hook"
)

// FuzzExamine: any settings file, for any agent, gives a report and never
// a panic; a gate is active only with a shellgate hook command in it.
func FuzzExamine(f *testing.F) {
	for _, s := range []string{
		`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "shellgate-hook claude", "onFailure": "block"}]}]}}`,
		`{"hooks": {"beforeShellExecution": [{"command": "shellgate-hook cursor"}]}}`,
		"{\n// c\n\"hooks\": {\"BeforeTool\": [{\"matcher\": \"run_.*\", \"hooks\": [{\"type\": \"command\", \"command\": \"'$X' gemini\", \"timeout\": 1e9}]}]}}",
		`{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "command", "command": "shellgate-hook claude $(x)"}]}]}}`,
		`/* unterminated`,
	} {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, settings string, which uint8) {
		a := hook.Agents[int(which)%len(hook.Agents)]
		dir := t.TempDir()
		o := Options{Dir: dir, Getenv: func(string) string { return "" }}
		path := o.settingsPath(a, ScopeProject)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(settings), 0o644)
		ag := o.examine(a, ScopeProject, path)
		if len(ag.Checks) == 0 {
			t.Fatal("no checks")
		}
		if ag.Active {
			root, err := parseSettings(a, []byte(settings))
			if err != nil {
				t.Fatalf("active with settings that do not parse: %v", err)
			}
			if found, _, _ := findEntries(a, root); len(found) == 0 {
				t.Fatal("active without a shellgate hook")
			}
		}
	})
}
