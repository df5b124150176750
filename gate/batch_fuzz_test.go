package gate

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// FuzzReadBatch: any batch input gives, per non-blank line in order,
// the line as the command ("lines") or the decoded command or an error
// naming the line ("jsonl"); never a panic, and the same items twice.
func FuzzReadBatch(f *testing.F) {
	for _, s := range []string{
		"ls\n\ngit status\r\n", `{"command":"ls","cwd":"/w"}` + "\n" + `{"cmd":"x"}` + "\n{\n" + `{"command":1}` + "\n",
		`{"command":"a\nb"}`, "\xff\x00\n", `{"command":"ls","command":"rm"}`, `[]`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, in string, jsonl bool) {
		format := "lines"
		if jsonl {
			format = "jsonl"
		}
		read := func() []BatchItem {
			var items []BatchItem
			if err := ReadBatch(strings.NewReader(in), format, func(it BatchItem) error {
				items = append(items, it)
				return nil
			}); err != nil {
				t.Fatalf("reading a string: %v", err)
			}
			return items
		}
		items := read()
		if a, b := fmt.Sprintf("%+v", items), fmt.Sprintf("%+v", read()); a != b {
			t.Fatalf("not deterministic:\n%s\n%s", a, b)
		}
		last := 0
		for _, it := range items {
			if it.Line <= last {
				t.Fatalf("line %d after line %d", it.Line, last)
			}
			last = it.Line
			if it.Err != nil {
				if !jsonl || !strings.HasPrefix(it.Err.Error(), fmt.Sprintf("line %d: ", it.Line)) || it.Command != "" {
					t.Fatalf("item %+v", it)
				}
				continue
			}
			if !jsonl {
				if strings.TrimSpace(it.Command) == "" || strings.Contains(it.Command, "\n") || !strings.Contains(in, it.Command) {
					t.Fatalf("line %d: command %q", it.Line, it.Command)
				}
				continue
			}
			if _, ok := it.Fields["command"]; ok {
				t.Fatalf("line %d: command left among the fields", it.Line)
			}
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(strings.Split(strings.ReplaceAll(in, "\r\n", "\n"), "\n")[it.Line-1]), &obj); err != nil {
				t.Fatalf("line %d accepted but is not a JSON object: %v", it.Line, err)
			}
		}
	})
}
