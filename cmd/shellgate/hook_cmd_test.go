package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/hook"
)

const echoDenyModule = `package shellgate

deny contains {"code": "no-echo", "message": "no echoing", "span": seg.span, "segment": i} if {
	some i, seg in input.report.segments
	seg.name == "echo"
}
`

const unrelatedModule = `package shellgate

deny contains {"code": "no-such", "message": "never fires", "span": seg.span, "segment": i} if {
	some i, seg in input.report.segments
	seg.name == "no-such-program-anywhere"
}
`

// TestGateCacheSeesChangeDuringBuild: a config or policy file changed
// while the gate is being built (the policy compiles for a while) is
// picked up at the next decision, not stamped as already built.
func TestGateCacheSeesChangeDuringBuild(t *testing.T) {
	write := func(t *testing.T, p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("config", func(t *testing.T) {
		ws := mcpWorkspace(t)
		cfg := filepath.Join(ws, ".shellgate.yaml")
		write(t, cfg, "mode: default\n")
		c := newGateCache(hook.Flags{Config: cfg})
		once := false
		c.afterBuild = func() {
			if !once {
				once = true
				write(t, cfg, "mode: readonly # changed while building\n")
			}
		}
		if _, err := c.gateFor(ws); err != nil {
			t.Fatal(err)
		}
		g, err := c.gateFor(ws)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff("readonly", g.Config().Mode); diff != "" {
			t.Errorf("mode after the config changed during the build (-want +got):\n%s", diff)
		}
	})
	t.Run("policy", func(t *testing.T) {
		ws := mcpWorkspace(t)
		dir := filepath.Join(t.TempDir(), "pol")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		mod := filepath.Join(dir, "p.rego")
		write(t, mod, unrelatedModule)
		c := newGateCache(hook.Flags{Policy: []string{dir}})
		once := false
		c.afterBuild = func() {
			if !once {
				once = true
				write(t, mod, echoDenyModule)
			}
		}
		ctx := context.Background()
		if _, err := c.Decide(ctx, hook.Query{Command: "echo hi", Cwd: ws}); err != nil {
			t.Fatal(err)
		}
		v, err := c.Decide(ctx, hook.Query{Command: "echo hi", Cwd: ws})
		if err != nil {
			t.Fatal(err)
		}
		got := []string{v.Action}
		for _, r := range v.Reasons {
			got = append(got, r.Code)
		}
		if diff := cmp.Diff([]string{"deny", "no-echo"}, got); diff != "" {
			t.Errorf("decision after the policy changed during the build (-want +got):\n%s", diff)
		}
	})
}
