package fleet

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoImportUpThePipeline: the fleet is a policy source of the one
// pipeline, below it: it imports neither gate nor anything that does
// (DESIGN's package table reads straight down). It runs go list, which
// is there wherever the tests build.
func TestNoImportUpThePipeline(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, up := range []string{"gate", "serve", "mcpserver", "hook", "cmd/shellgate"} {
			if p == "github.com/shellgate/shellgate/"+up {
				t.Errorf("rego/fleet depends on %s", p)
			}
		}
	}
}
