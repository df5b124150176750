package hook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzHandle: whatever the payload, Handle answers (no panic), exits 0,
// prints nothing or one JSON object, and allows only what the decider
// allowed.
func FuzzHandle(f *testing.F) {
	for _, tmpl := range []string{claudePre, claudePlan, claudePostFail, claudePostOK, codexPre, geminiPre, cursorPre} {
		for _, cmd := range []string{"ls", "rm -rf /", "npm i", "", "boom", `a"b\c`} {
			f.Add(0, string(payload(tmpl, cmd)))
		}
	}
	f.Add(1, claudeEdit)
	f.Add(2, geminiRead)
	f.Add(3, `{"command":null}`)
	f.Add(0, `{"tool_input":"ls"}`)
	f.Add(0, "\x00\xff")
	f.Fuzz(func(t *testing.T, agentIdx int, in string) {
		if agentIdx < 0 {
			agentIdx = -agentIdx
		}
		agent := Agents[agentIdx%len(Agents)]
		allowed := false
		d := DeciderFunc(func(_ context.Context, q Query) (Verdict, error) {
			if strings.HasPrefix(q.Command, "ls") {
				allowed = true
				return Verdict{Action: Allow}, nil
			}
			return Verdict{Action: Deny, Reasons: []Reason{{Code: "x", Message: q.Command}}}, nil
		})
		ans := Handle(context.Background(), agent, []byte(in), Flags{}, d, explain)
		if ans.Exit != 0 {
			t.Fatalf("exit %d", ans.Exit)
		}
		out := strings.TrimSpace(string(ans.Stdout))
		if out == "" {
			return
		}
		var o map[string]any
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatalf("not a JSON object: %q", out)
		}
		if !allowed && (strings.Contains(out, `"permissionDecision":"allow"`) ||
			strings.Contains(out, `"decision":"allow"`) || strings.Contains(out, `"permission":"allow"`)) {
			t.Fatalf("allowed what the decider did not: %s", out)
		}
	})
}
