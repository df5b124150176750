package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/agentrules"
)

// TestTrustAgentSettings: `shellgate trust DIR` pins the project's agent
// settings that allow commands (no .shellgate.yaml needed), and their
// allow rules count from then on, until the file changes.
func TestTrustAgentSettings(t *testing.T) {
	proj := trustHome(t)
	writeFiles(t, proj, map[string]string{
		".claude/settings.json": `{"permissions": {"allow": ["Bash(make:*)"]}}`,
		".gemini/settings.json": `{"tools": {"allowed": []}}`,
	})
	src := agentrules.Source{Agent: agentrules.Claude, Env: agentrules.Env{"HOME": filepath.Dir(proj)}, Cwd: proj}
	allowed := func() []string {
		var out []string
		for _, r := range agentrules.Load(src).Allow {
			out = append(out, r.Text)
		}
		return out
	}
	if got := allowed(); len(got) != 0 {
		t.Fatalf("an untrusted project's rules count: %q", got)
	}
	var out, errb strings.Builder
	if code := run([]string{"trust", proj}, strings.NewReader(""), &out, &errb); code != exitOK {
		t.Fatalf("trust: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if want := "trusted " + filepath.Join(proj, ".claude", "settings.json"); !strings.Contains(out.String(), want) || strings.Contains(out.String(), ".gemini") {
		t.Errorf("trust printed %q, want %q and no .gemini file (it allows nothing)", out.String(), want)
	}
	if diff := cmp.Diff([]string{"Bash(make:*)"}, allowed()); diff != "" {
		t.Errorf("after trust (-want +got):\n%s", diff)
	}
	writeFiles(t, proj, map[string]string{".claude/settings.json": `{"permissions": {"allow": ["Bash(make:*)", "Bash"]}}`})
	if got := allowed(); len(got) != 0 {
		t.Errorf("a changed file's rules still count: %q", got)
	}
}
