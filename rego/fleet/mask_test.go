package fleet

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/open-policy-agent/opa/v1/rego"
)

// TestDefaultMask evaluates the default mask as OPA's decision-log plugin
// does (data.system.log.mask on the event) and applies its operations the
// way the plugin does: erase paths, upsert values.
func TestDefaultMask(t *testing.T) {
	pq, err := rego.New(rego.Query("data.system.log.mask"), rego.Module("mask.rego", DefaultMask)).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		command string
		secrets []string
		reason  string
		want    string // the masked command
	}{
		{"assignment", "TOKEN=abc123 make deploy", []string{"abc123"}, "TOKEN=abc123 sets the environment", "TOKEN=*** make deploy"},
		{"quoted", `TOKEN='a"b c' ls`, []string{`'a"b c'`, `a"b c`}, `TOKEN='a"b c' is an assignment`, "TOKEN=*** ls"},
		{"digit secret keeps spans", "X=1 ls", []string{"1"}, "X=1", "X=*** ls"},
		{"denied read", "cat ~/.ssh/id_rsa", []string{"~/.ssh/id_rsa", "/home/u/.ssh/id_rsa"}, "reads /home/u/.ssh/id_rsa", "cat ***"},
		{"no secrets", "ls -la", nil, "fine", "ls -la"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secrets := []any{}
			for _, s := range tc.secrets {
				secrets = append(secrets, s)
			}
			event := map[string]any{
				"input":  map[string]any{"command": tc.command, "cwd": "/w", "secrets": secrets},
				"result": map[string]any{"action": "ask", "reasons": []any{map[string]any{"code": "c", "message": tc.reason, "span": []any{json.Number("0"), json.Number("12")}}}},
			}
			rs, err := pq.Eval(context.Background(), rego.EvalInput(event))
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 {
				t.Fatalf("mask undefined: %v", rs)
			}
			ops, _ := rs[0].Expressions[0].Value.([]any)
			for _, op := range ops {
				switch o := op.(type) {
				case string:
					if o != "/input/secrets" {
						t.Fatalf("unexpected erase %q", o)
					}
					delete(event["input"].(map[string]any), "secrets")
				case map[string]any:
					key := strings.TrimPrefix(o["path"].(string), "/")
					event[key] = o["value"]
				}
			}
			b, _ := json.Marshal(event)
			for _, str := range stringsIn(event) {
				for _, s := range tc.secrets {
					if strings.Contains(str, s) {
						t.Errorf("masked event still shows %q in %q: %s", s, str, b)
					}
				}
			}
			in := event["input"].(map[string]any)
			if _, ok := in["secrets"]; ok {
				t.Errorf("secrets not erased: %s", b)
			}
			if diff := cmp.Diff(tc.want, in["command"]); diff != "" {
				t.Errorf("command (-want +got):\n%s", diff)
			}
			span := event["result"].(map[string]any)["reasons"].([]any)[0].(map[string]any)["span"]
			if got, _ := json.Marshal(span); string(got) != "[0,12]" {
				t.Errorf("span changed: %s", got)
			}
		})
	}
}

// stringsIn lists every string (keys and values) in v.
func stringsIn(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case map[string]any:
		var out []string
		for k, e := range x {
			out = append(append(out, k), stringsIn(e)...)
		}
		return out
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, stringsIn(e)...)
		}
		return out
	}
	return nil
}
