package serve

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/internal/catalogtest"
)

// TestGatesExplainExit: the hooks' exit explainer reads the command in the
// shell the agent ran it in, with the catalog of the gate for its cwd (a
// catalog that adds frob and what its exit 3 means), as Run does.
func TestGatesExplainExit(t *testing.T) {
	ws := workspace(t)
	cat := catalogtest.Extend(t, catalogtest.Frob)
	frobGate, err := gate.New(gate.WithCwd(ws), gate.WithCatalog(cat))
	if err != nil {
		t.Fatal(err)
	}
	gates := NewGates(hook.Flags{})
	withFrob := func(q hook.Query, code int) string {
		return explainWith(func(string) (*gate.Gate, error) { return frobGate, nil }, q, code)
	}
	tests := []struct {
		name    string
		explain hook.Explainer
		shell   string
		cmd     string
		code    int
		want    string
	}{
		{"zsh: noglob runs grep", Explainer(gates), "zsh", "noglob grep x f", 1, "exit 1 from grep means No matches found, not an error"},
		{"bash: noglob is no program", Explainer(gates), "bash", "noglob grep x f", 1, ""},
		{"shell not known: bash", Explainer(gates), "", "noglob grep x f", 1, ""},
		{"no gate: zsh all the same", ExplainExit, "zsh", "noglob grep x f", 1, "exit 1 from grep means No matches found, not an error"},
		{"the gate's catalog", withFrob, "bash", "frob f", 3, "exit 3 from frob: Frob jammed"},
		{"the default catalog has no frob", Explainer(gates), "bash", "frob f", 3, ""},
		{"a decider without one", Explainer(deciderFunc(nil)), "zsh", "noglob grep x f", 1, "exit 1 from grep means No matches found, not an error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.explain(hook.Query{Command: tc.cmd, Cwd: ws, Mode: hook.ModeDefault, Shell: tc.shell}, tc.code)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
