package execution

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// clean runs the cleaner over in, split into chunks of every size from 1
// to len(in), and checks that every split gives the same text.
func clean(t *testing.T, in string) string {
	t.Helper()
	var want string
	for size := 1; size <= max(1, len(in)); size++ {
		var c cleaner
		var out []byte
		for i := 0; i < len(in); i += size {
			out = c.write(out, []byte(in[i:min(i+size, len(in))]))
		}
		out = c.flush(out)
		if size == 1 {
			want = string(out)
		} else if string(out) != want {
			t.Fatalf("clean(%q) in chunks of %d = %q, in chunks of 1 = %q", in, size, out, want)
		}
	}
	return want
}

func TestCleaner(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\n", "plain\n"},
		{"tab\there", "tab\there"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"\x1b[1;32;40mbold\x1b[m", "bold"},
		{"\x1b[?25lhide\x1b[?25h", "hide"},
		{"\x1b[2K\x1b[1Gline", "line"},
		{"\x1b]0;window title\x07after", "after"},
		{"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"\x1bPdevice\x1b\\x", "x"},
		{"\x1b(Bcharset", "charset"},
		{"\x1b7save\x1b8", "save"},
		{"\xc2\x9b31mC1 CSI", "C1 CSI"},
		{"crlf\r\nline", "crlf\nline"},
		{"progress 10%\rprogress 20%\rdone\n", "progress 10%\nprogress 20%\ndone\n"},
		{"trailing cr\r", "trailing cr\n"},
		{"nul\x00bell\x07bs\b", "nul\uFFFDbell\uFFFDbs\uFFFD"},
		{"bad \xff\xfe utf8", "bad \uFFFD\uFFFD utf8"},
		{"split é ü 日本 🎉", "split é ü 日本 🎉"},
		{"cut \xe6\x97", "cut \uFFFD"},
		{"\x1b[31", ""},
		{"\x1b[" + strings.Repeat("1;", 100) + "mtext", strings.Repeat("1;", 100)[63:] + "mtext"},
		{"esc at end\x1b", "esc at end"},
		{"", ""},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, clean(t, tt.in)); diff != "" {
			t.Errorf("clean(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func view(l ViewLimits, chunks ...string) Output {
	v := newViewer(l)
	for _, c := range chunks {
		v.write([]byte(c))
	}
	return v.output()
}

func lines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

func TestViewer(t *testing.T) {
	small := ViewLimits{MaxBytes: 100, MaxLines: 10, HeadRatio: 0.2}
	tests := []struct {
		name   string
		lim    ViewLimits
		chunks []string
		want   Output
	}{
		{"fits", small, []string{"a\n", "b\n"}, Output{Head: "a\nb\n", TotalBytes: 4, TotalLines: 2}},
		{"no final newline", small, []string{"a\nb"}, Output{Head: "a\nb", TotalBytes: 3, TotalLines: 2}},
		{"exactly the line limit", small, []string{lines(1, 10)}, Output{Head: lines(1, 10), TotalBytes: 21, TotalLines: 10}},
		{"over the line limit", small, []string{lines(1, 30)},
			Output{Head: lines(1, 2), Tail: lines(23, 30), TotalBytes: 81, TotalLines: 30, OmittedBytes: 81 - 4 - 24, OmittedLines: 20}},
		{"over the line limit, one byte at a time", small, strings.Split(lines(1, 30), ""),
			Output{Head: lines(1, 2), Tail: lines(23, 30), TotalBytes: 81, TotalLines: 30, OmittedBytes: 81 - 4 - 24, OmittedLines: 20}},
		{"one long line", small, []string{strings.Repeat("x", 1000)},
			Output{Head: strings.Repeat("x", 20), Tail: strings.Repeat("x", 80), TotalBytes: 1000, TotalLines: 1, OmittedBytes: 900}},
		{"runes are not split", small, []string{strings.Repeat("é", 500)},
			Output{Head: strings.Repeat("é", 10), Tail: strings.Repeat("é", 40), TotalBytes: 1000, TotalLines: 1, OmittedBytes: 900}},
		{"runes are not split at odd budgets", ViewLimits{MaxBytes: 101, MaxLines: 10, HeadRatio: 0.21}, []string{strings.Repeat("é", 500)},
			Output{Head: strings.Repeat("é", 10), Tail: strings.Repeat("é", 40), TotalBytes: 1000, TotalLines: 1, OmittedBytes: 900}},
	}
	for _, tt := range tests {
		got := view(tt.lim, tt.chunks...)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if !utf8.ValidString(got.Head) || !utf8.ValidString(got.Tail) {
			t.Errorf("%s: the view splits a rune", tt.name)
		}
	}
}

// TestViewerProperties checks, for many lengths and chunkings of text
// with 1- to 4-byte runes, that the head is a prefix and the tail a suffix
// of the text, both within budget and whole runes, and that the counts add
// up.
func TestViewerProperties(t *testing.T) {
	lim := ViewLimits{MaxBytes: 100, MaxLines: 10, HeadRatio: 0.2}
	runes := []string{"a", "é", "日", "🎉", "\n"}
	for n := 1; n <= 700; n += 7 {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteString(runes[(i*7+n)%len(runes)])
		}
		text := b.String()
		for _, chunk := range []int{1, 3, 64, len(text)} {
			var chunks []string
			// chunks end at rune boundaries, as the cleaner's output does
			for rest := text; rest != ""; {
				k := min(chunk, len(rest))
				for k < len(rest) && !utf8.RuneStart(rest[k]) {
					k++
				}
				chunks = append(chunks, rest[:k])
				rest = rest[k:]
			}
			o := view(lim, chunks...)
			switch {
			case !strings.HasPrefix(text, o.Head) || !strings.HasSuffix(text, o.Tail):
				t.Fatalf("len %d chunk %d: head/tail are not prefix/suffix", n, chunk)
			case !utf8.ValidString(o.Head) || !utf8.ValidString(o.Tail):
				t.Fatalf("len %d chunk %d: split rune", n, chunk)
			case o.Truncated() && (len(o.Head) > 20 || len(o.Tail) > 80):
				t.Fatalf("len %d chunk %d: head %d tail %d over budget", n, chunk, len(o.Head), len(o.Tail))
			case o.TotalBytes != int64(len(text)) || o.OmittedBytes != o.TotalBytes-int64(len(o.Head)+len(o.Tail)):
				t.Fatalf("len %d chunk %d: counts %+v", n, chunk, o)
			case !o.Truncated() && o.Head != text:
				t.Fatalf("len %d chunk %d: not truncated but head is not the text", n, chunk)
			}
		}
	}
}

func TestOutputString(t *testing.T) {
	o := Output{Head: "a\n", Tail: "z\n", OmittedBytes: 10, OmittedLines: 5, SpillPath: "/tmp/out.txt"}
	want := "a\n[... 5 lines, 10 bytes left out; full output: /tmp/out.txt ...]\nz\n"
	if diff := cmp.Diff(want, o.String()); diff != "" {
		t.Error(diff)
	}
}

func FuzzCleaner(f *testing.F) {
	for _, s := range []string{"\x1b[31mred", "a\r\nb", "\xff", "\x1b]0;t\x07", "é"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, in string, size int) {
		if size <= 0 || size > 64 {
			size = 7
		}
		var c cleaner
		var out []byte
		for i := 0; i < len(in); i += size {
			out = c.write(out, []byte(in[i:min(i+size, len(in))]))
		}
		out = c.flush(out)
		if !utf8.Valid(out) {
			t.Fatalf("invalid UTF-8 out of %q", in)
		}
		if strings.ContainsAny(string(out), "\x1b\r\x00") {
			t.Fatalf("control characters left in %q -> %q", in, out)
		}
	})
}
