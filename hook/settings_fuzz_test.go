package hook

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzMerge: whatever settings file is there, Merge refuses it or returns
// a JSON object that keeps every top-level key, holds the hook command,
// and is a fixed point (merging it again changes nothing).
func FuzzMerge(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"theme":"dark","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"other"}]}]}}`,
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"shellgate-hook claude --mode readonly"}]}]}}`,
		`{"version":1,"hooks":{"beforeShellExecution":[{"command":"x"}]}}`, `{"hooks":[]}`, `[]`, `{"a":1}{}`,
		`{"hooks":{"PreToolUse":{}}}`, `{"hooks":{"PreToolUse":[1,"x",null]}}`, `{"a":1e999,"b":"\u00e9","a":2}`,
	} {
		for i := range Agents {
			f.Add(i, s)
		}
	}
	const command = "shellgate-hook AGENT"
	f.Fuzz(func(t *testing.T, agentIdx int, existing string) {
		agent := Agents[(agentIdx%len(Agents)+len(Agents))%len(Agents)]
		out, changed, err := Merge(agent, []byte(existing), command)
		if err != nil {
			if out != nil || changed {
				t.Fatalf("output beside the error %v", err)
			}
			return
		}
		var o map[string]json.RawMessage
		if err := json.Unmarshal(out, &o); err != nil {
			t.Fatalf("output is not a JSON object: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), `"`+command+`"`) {
			t.Fatalf("the command is not in\n%s", out)
		}
		if strings.TrimSpace(existing) != "" {
			var in map[string]json.RawMessage
			if json.Unmarshal([]byte(existing), &in) == nil {
				for k := range in {
					if _, ok := o[k]; !ok {
						t.Fatalf("key %q dropped", k)
					}
				}
			}
		}
		again, changed2, err := Merge(agent, out, command)
		if err != nil || changed2 || !bytes.Equal(again, out) {
			t.Fatalf("not a fixed point (changed=%v, err=%v):\n%s\nthen\n%s", changed2, err, out, again)
		}
	})
}

// TestMergeDeepNesting: a deeply nested settings file is an error, not a
// stack overflow.
func TestMergeDeepNesting(t *testing.T) {
	for _, p := range []struct{ open, close string }{{"[", "]"}, {`{"a":`, "}"}} {
		deep := `{"x":` + strings.Repeat(p.open, 20_000) + "1" + strings.Repeat(p.close, 20_000) + "}"
		if _, _, err := Merge(Claude, []byte(deep), "shellgate-hook claude"); err == nil {
			t.Errorf("%s×20000: merged", p.open)
		}
	}
}
