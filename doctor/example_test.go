package doctor_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shellgate/shellgate/doctor"
)

// A project whose Claude Code settings name a hook binary that is not
// there: the gate is not active, and the failed check says how to fix it.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "doctor")
	defer os.RemoveAll(dir)
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(`{"hooks": {"PreToolUse": [
		{"matcher": "Bash", "hooks": [{"type": "command", "command": "/nonexistent/shellgate-hook claude", "onFailure": "block"}]}]}}`), 0o644)

	r := doctor.Run(doctor.Options{Dir: dir, Socket: filepath.Join(dir, "run", "engine.sock"), Version: "v1"})
	for _, a := range r.Agents {
		for _, c := range a.Checks {
			fmt.Printf("%s %s ok=%v", a.Agent, c.Name, c.OK)
			if !c.OK {
				fmt.Printf(" fix: %s", c.Fix)
			}
			fmt.Println()
		}
	}
	fmt.Println("gate active:", r.Gates[0].Active, "exit 0:", r.OK)
	// Output:
	// claude settings ok=true
	// claude hook ok=true
	// claude agent ok=true
	// claude command ok=false fix: shellgate install claude
	// claude fail-closed ok=true
	// claude enabled ok=true
	// gate active: false exit 0: false
}
