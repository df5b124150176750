package agentrules_test

import (
	"fmt"

	"github.com/shellgate/shellgate/agentrules"
	"github.com/shellgate/shellgate/classify"
)

// A Claude Code rule approves the segments it matches, one at a time.
func ExampleRules_Approve() {
	r, _, _ := agentrules.ParseClaudeRule("Bash(npm test)")
	r.Action = agentrules.ActionAllow
	rules := &agentrules.Rules{Agent: agentrules.Claude, Allow: []agentrules.Rule{r}}
	for _, cmd := range []string{"npm test", "npm test; rm -rf ~", "npm test --watch"} {
		rep := classify.Classify(cmd)
		fmt.Printf("%q: %d of %d segments approved\n", cmd, len(rules.Approve(cmd, rep)), len(rep.Segments))
	}
	// Output:
	// "npm test": 1 of 1 segments approved
	// "npm test; rm -rf ~": 1 of 2 segments approved
	// "npm test --watch": 0 of 1 segments approved
}
