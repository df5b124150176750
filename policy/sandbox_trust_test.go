package policy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/trust"
)

// TestSandboxKeyUntrusted: an untrusted project config may narrow the
// sandbox to read-only, and nothing else: a wider setting is ignored and
// listed.
func TestSandboxKeyUntrusted(t *testing.T) {
	for _, tc := range []struct {
		value, want string
		ignored     []string
	}{
		{"read-only", "read-only", nil},
		{"auto", "", nil},
		{"workspace-write", "", []string{"sandbox: workspace-write"}},
		{"full-access", "", []string{"sandbox: full-access"}},
		{"off", "", []string{"sandbox: off"}},
	} {
		dir := t.TempDir()
		t.Setenv("HOME", dir)
		p := filepath.Join(dir, ConfigFileName)
		if err := os.WriteFile(p, []byte("sandbox: "+tc.value+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := LoadConfigFrom(p, SourceProject)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ResolveWith(c, &trust.Store{Version: trust.Version}, filepath.Join(dir, "trust.json"), nil)
		if err != nil {
			t.Fatal(err)
		}
		var ignored []string
		for _, u := range r.Untrusted {
			ignored = append(ignored, u.Ignored...)
		}
		if r.Config.Sandbox != tc.want || !cmp.Equal(ignored, tc.ignored) {
			t.Errorf("sandbox: %s: in effect %q, ignored %q; want %q, %q", tc.value, r.Config.Sandbox, ignored, tc.want, tc.ignored)
		}
	}
}
