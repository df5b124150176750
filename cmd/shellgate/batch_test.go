package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/internal/testenv"
)

// batchInput is a --batch --input jsonl stream of n lines mixing allowed,
// asked and denied commands, other cwds and modes, and lines that are not
// commands.
func batchInput(n int) (string, []string) {
	shapes := []string{
		`{"command":"cat README.md"}`,
		`{"command":"rm -rf /"}`,
		`{"command":"ls","cwd":"sub"}`,
		`{"command":"touch x%d","mode":"readonly"}`,
		`not json`,
		`{"command":"grep -rn TODO%d . | head -%d"}`,
		`{"command":"echo %d > out.txt"}`,
		`{"command":"cat ~/.ssh/id_rsa %d"}`,
		`{"command":"ls","mode":"bogus"}`,
		`{"command":"for f in *.go; do wc -l \"$f\" %d; done"}`,
	}
	var lines, cmds []string
	for i := 0; i < n; i++ {
		s := shapes[i%len(shapes)]
		if strings.Contains(s, "%d") {
			s = strings.ReplaceAll(s, "%d", fmt.Sprint(i))
		}
		lines = append(lines, s)
		var obj struct{ Command string }
		if json.Unmarshal([]byte(s), &obj) == nil {
			cmds = append(cmds, obj.Command)
		} else {
			cmds = append(cmds, "")
		}
	}
	return strings.Join(lines, "\n") + "\n", cmds
}

func batchProject(t *testing.T) string {
	t.Helper()
	return testenv.Project(t, "ws", map[string]string{".git/": "", "sub/": "", "README.md": "hi\n"})
}

// TestCheckBatchOrder: --batch decides on every core, yet its answers are
// the ones a single worker gives, byte for byte, in input order.
func TestCheckBatchOrder(t *testing.T) {
	ws := batchProject(t)
	in, cmds := batchInput(300)
	batch := func(procs int) string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var out, errOut bytes.Buffer
		if code := run([]string{"check", "--batch", "--input", "jsonl", "--cwd", ws}, strings.NewReader(in), &out, &errOut); code != exitOK {
			t.Fatalf("GOMAXPROCS=%d: exit %d: %s", procs, code, errOut.String())
		}
		return out.String()
	}
	serial := batch(1)
	lines := strings.Split(strings.TrimSuffix(serial, "\n"), "\n")
	if len(lines) != len(cmds) {
		t.Fatalf("%d lines out for %d in", len(lines), len(cmds))
	}
	actions := map[string]int{}
	for i, l := range lines {
		var obj struct {
			Command, Action, Error string
			Line                   int
		}
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		if cmds[i] != "" && obj.Command != cmds[i] {
			t.Fatalf("line %d answers %q, want %q", i+1, obj.Command, cmds[i])
		}
		if cmds[i] == "" && obj.Line != i+1 {
			t.Fatalf("line %d: error for line %d: %s", i+1, obj.Line, l)
		}
		if obj.Error != "" {
			if obj.Action != "deny" {
				t.Fatalf("line %d: an error line's action is %q, want deny: %s", i+1, obj.Action, l)
			}
			obj.Action = "error"
		}
		actions[obj.Action]++
	}
	for _, a := range []string{"allow", "ask", "deny", "error"} {
		if actions[a] == 0 {
			t.Errorf("no %q answer in the stream: %v", a, actions)
		}
	}
	for _, procs := range []int{2, 8} {
		if diff := cmp.Diff(serial, batch(procs)); diff != "" {
			t.Errorf("GOMAXPROCS=%d differs from one worker (-1 +%d):\n%s", procs, procs, diff)
		}
	}
}

// failWriter fails every write after the first n.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(p), nil
}

// TestCheckBatchWriteError: a stdout that fails stops the batch with the
// error (no hang, no further lines), whatever the number of workers.
func TestCheckBatchWriteError(t *testing.T) {
	ws := batchProject(t)
	// Answers are written a buffer at a time: enough lines for several.
	in, _ := batchInput(1000)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var errOut bytes.Buffer
	w := &failWriter{n: 1}
	code := run([]string{"check", "--batch", "--input", "jsonl", "--cwd", ws}, strings.NewReader(in), w, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "disk full") {
		t.Errorf("exit %d, stderr %q; want %d and the write error", code, errOut.String(), exitUsage)
	}
	if w.n != 0 {
		t.Errorf("%d writes left unused", w.n)
	}
	// A reader that fails is reported too.
	errOut.Reset()
	code = run([]string{"check", "--batch", "--cwd", ws}, io.MultiReader(strings.NewReader("ls\n"), errReader{}), io.Discard, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "broken pipe") {
		t.Errorf("exit %d, stderr %q; want %d and the read error", code, errOut.String(), exitUsage)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestMedian: the benchmarks' median of an odd and an even count.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{9, 1, 1, 1, 9}, 1},
	} {
		if got := median(append([]float64(nil), c.in...)); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
