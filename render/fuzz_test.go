package render_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shellgate/shellgate/render"
)

// FuzzUnderline: for any command and span, Underline prints nothing (a
// span outside the command) or a line of the command and, under it, at
// least one caret after spaces only.
func FuzzUnderline(f *testing.F) {
	f.Add("touch marker; rm -rf /", 14, 22)
	f.Add("a\nbb\nccc", 3, 8)
	f.Add("é\tx", 2, 1)
	f.Add("", 0, 0)
	f.Add("x", -1, 5)
	f.Fuzz(func(t *testing.T, cmd string, start, end int) {
		out := render.Underline(cmd, start, end, "  ")
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
