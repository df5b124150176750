package corpus

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/internal/catalogtest"
)

// TestGateCheckerExitMeaning: a corpus case's exit_meaning is read as the
// gate reads it: with the gate's catalog (frob's exit 3) and in the case's
// shell (zsh's noglob runs grep).
func TestGateCheckerExitMeaning(t *testing.T) {
	cat := catalogtest.Extend(t, catalogtest.Frob)
	chk, err := NewGateChecker(gate.WithCwd(t.TempDir()), gate.WithCatalog(cat))
	if err != nil {
		t.Fatal(err)
	}
	type meaning struct {
		Error   bool
		Message string
	}
	tests := []struct {
		cmd, shell string
		code       int
		want       meaning
	}{
		{"frob f", "bash", 3, meaning{true, "Frob jammed"}},
		{"noglob grep x f", "zsh", 1, meaning{false, "No matches found"}},
		{"noglob grep x f", "bash", 1, meaning{true, ""}},
		{"noglob grep x f", "unknown", 1, meaning{true, ""}},
	}
	for _, tc := range tests {
		var got meaning
		got.Error, got.Message = chk.ExitMeaning(tc.cmd, tc.shell, tc.code)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s in %s, exit %d (-want +got):\n%s", tc.cmd, tc.shell, tc.code, diff)
		}
	}
}
