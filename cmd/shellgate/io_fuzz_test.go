package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzReadBatch: any --batch input gives, per non-blank line in order,
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
		read := func() []batchItem {
			var items []batchItem
			if err := readBatch(strings.NewReader(in), format, func(it batchItem) error {
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

// FuzzUnderline: for any command and span, underline prints nothing (a
// span outside the command) or a line of the command and, under it, at
// least one caret after spaces only.
func FuzzUnderline(f *testing.F) {
	f.Add("touch marker; rm -rf /", 14, 22)
	f.Add("a\nbb\nccc", 3, 8)
	f.Add("é\tx", 2, 1)
	f.Add("", 0, 0)
	f.Add("x", -1, 5)
	f.Fuzz(func(t *testing.T, cmd string, start, end int) {
		out := underline(cmd, start, end, "  ")
		if start < 0 || start > len(cmd) {
			if out != "" {
				t.Fatalf("span %d outside %q: %q", start, cmd, out)
			}
			return
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 2 || !strings.HasSuffix(out, "\n") {
			t.Fatalf("want two lines, got %q", out)
		}
		text, marks := strings.TrimPrefix(lines[0], "  "), strings.TrimPrefix(lines[1], "  ")
		if !strings.Contains("\n"+cmd+"\n", "\n"+text+"\n") {
			t.Fatalf("%q is not a line of %q", text, cmd)
		}
		carets := strings.TrimLeft(marks, " ")
		if carets == "" || strings.Trim(carets, "^") != "" {
			t.Fatalf("marks %q", marks)
		}
		if n := len(marks) - len(carets); n > utf8.RuneCountInString(text) {
			t.Fatalf("marks start at %d, past the line %q", n, text)
		}
	})
}
