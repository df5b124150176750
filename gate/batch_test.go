package gate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/internal/testenv"
	"github.com/shellgate/shellgate/policy"
)

// batchWorkspace is a workspace (a .git, a README.md, a sub directory)
// in a fresh home, and the pipeline of the default config.
func batchWorkspace(t testing.TB) (string, *Pipeline) {
	t.Helper()
	ws := testenv.Project(t, "ws", map[string]string{".git/": "", "sub/": "", "README.md": "hi\n"})
	pl, err := NewPipeline(PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ws, pl
}

// batchCommands are n commands of varied cost: one-word ones, and
// pipelines and loops of a few dozen segments.
func batchCommands(n int) []string {
	out := make([]string, n)
	for i := range out {
		switch i % 5 {
		case 0:
			out[i] = "ls"
		case 1:
			out[i] = fmt.Sprintf("rm -rf build%d", i)
		case 2:
			out[i] = strings.Repeat(fmt.Sprintf("grep -rn TODO%d . | head -3 && ", i), 1+i%10) + "true"
		case 3:
			out[i] = fmt.Sprintf("cat README.md ~/.ssh/id_rsa %d", i)
		default:
			out[i] = fmt.Sprintf("for f in *.go; do wc -l \"$f\" %d; done > out%d.txt", i, i)
		}
	}
	return out
}

// items are the commands as batch items, lines numbered from 1.
func items(cmds []string) func(func(BatchItem) error) error {
	return func(yield func(BatchItem) error) error {
		for i, c := range cmds {
			if err := yield(BatchItem{Line: i + 1, Command: c}); err != nil {
				return err
			}
		}
		return nil
	}
}

// slowSome is the pipeline's batch, made slower on every seventh line,
// so that the lines after it finish first on other workers and an
// unordered writer would put them first.
type slowSome struct{ *Batch }

func (s slowSome) Check(ctx context.Context, req policy.Request) (CheckResult, error) {
	var line int
	fmt.Sscanf(req.Command[strings.LastIndexByte(req.Command, ' ')+1:], "%d", &line)
	if line%7 == 0 {
		time.Sleep(2 * time.Millisecond)
	}
	return s.Batch.Check(ctx, req)
}

// TestBatcherOrder: a batch decided on many workers gives the answers the
// pipeline gives one by one, in input order, byte for byte, however long
// each takes.
func TestBatcherOrder(t *testing.T) {
	ws, pl := batchWorkspace(t)
	cmds := batchCommands(200)
	for i := range cmds {
		cmds[i] += fmt.Sprintf(" # %d", i)
	}
	ctx := context.Background()
	want := oneByOne(t, pl, ws, cmds)
	actions := map[policy.Action]int{}
	for _, workers := range []int{1, 2, 8, 32} {
		var got bytes.Buffer
		n := 0
		b := Batcher{Checker: slowSome{pl.Batch()}, Defaults: policy.Request{Cwd: ws}, Workers: workers}
		err := b.Run(ctx, items(cmds), func(a BatchAnswer) error {
			n++
			if a.Item.Line != n || a.Result == nil || a.Result.Command != cmds[n-1] {
				return fmt.Errorf("answer %d is for line %d (%+v)", n, a.Item.Line, a.Result)
			}
			actions[a.Result.Action]++
			got.Write(a.JSON)
			return nil
		})
		if err != nil {
			t.Fatalf("%d workers: %v", workers, err)
		}
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("%d workers differ from one by one (-want +got):\n%s", workers, diff)
		}
	}
	for _, a := range []policy.Action{policy.Allow, policy.Ask, policy.Deny} {
		if actions[a] == 0 {
			t.Errorf("no %s in the batch: %v", a, actions)
		}
	}
}

// TestBatcherWriteError: a write that fails stops the batch with that
// error: nothing is written after it, the reader stops, the workers see
// the context cancelled, and Run returns (no hang) whatever the workers.
func TestBatcherWriteError(t *testing.T) {
	ws, pl := batchWorkspace(t)
	cmds := batchCommands(2000)
	full := errors.New("disk full")
	for _, workers := range []int{1, 4, 16} {
		var writes, read atomic.Int64
		b := Batcher{Checker: pl.Batch(), Defaults: policy.Request{Cwd: ws}, Workers: workers}
		err := b.Run(context.Background(), func(yield func(BatchItem) error) error {
			return items(cmds)(func(it BatchItem) error {
				read.Add(1)
				return yield(it)
			})
		}, func(a BatchAnswer) error {
			if writes.Add(1) == 5 {
				return full
			}
			return nil
		})
		if !errors.Is(err, full) {
			t.Errorf("%d workers: Run = %v, want the write error", workers, err)
		}
		if writes.Load() != 5 {
			t.Errorf("%d workers: %d writes, want none after the failing fifth", workers, writes.Load())
		}
		// In flight at most: the window of each worker.
		if max := int64(5 + batchWindow*workers); read.Load() > max {
			t.Errorf("%d workers: %d lines read after the error (at most %d in flight)", workers, read.Load(), max)
		}
	}
	// A context cancelled by the caller ends the batch with its error.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := Batcher{Checker: pl.Batch(), Defaults: policy.Request{Cwd: ws}}
	if err := b.Run(ctx, items(cmds), func(BatchAnswer) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: Run = %v", err)
	}
	// A reader that fails ends it with the reader's error, after the
	// lines read before it are answered.
	broken := errors.New("broken pipe")
	n := 0
	err := b.Run(context.Background(), func(yield func(BatchItem) error) error {
		if err := yield(BatchItem{Line: 1, Command: "ls"}); err != nil {
			return err
		}
		return broken
	}, func(BatchAnswer) error { n++; return nil })
	if !errors.Is(err, broken) || n != 1 {
		t.Errorf("reader error: Run = %v after %d answers; want the error after 1", err, n)
	}
}

// TestBatcherLineFields: a JSONL line's cwd, mode and shell apply to that
// line; a bad one, or a line that is not a command, is an error answer in
// its place, and the lines around it are decided.
func TestBatcherLineFields(t *testing.T) {
	ws, pl := batchWorkspace(t)
	in := strings.Join([]string{
		`{"command":"ls","cwd":"sub"}`,
		`{"command":"touch x","mode":"readonly"}`,
		`{"command":"ls","mode":"bogus"}`,
		`not json`,
		`{"command":"ls","cwd":1}`,
		``,
		`{"command":"ls","shell":"fish"}`,
		`{"command":"ls","shell":"zsh","cwd":"` + ws + `"}`,
		`{"cmd":"ls"}`,
		`{"command":"touch x"}`,
		`{"command":null}`,
		`{"command":"` + strings.Repeat("a", MaxBatchLine) + `"}`,
		`{"command":"ls"}`,
	}, "\n") + "\n"
	type answer struct {
		Line                         int
		Command, Action, Mode, Shell string
		Cwd, Error                   string
	}
	var got []answer
	b := Batcher{Checker: pl.Batch(), Defaults: policy.Request{Cwd: ws, Mode: policy.ModeDefault}, Workers: 3}
	var out bytes.Buffer
	if err := b.Stream(context.Background(), strings.NewReader(in), BatchJSONL, &out); err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var a answer
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("answer %d: %v: %s", i, err, l)
		}
		got = append(got, a)
	}
	bad := `line 4: invalid character 'o' in literal null (expecting 'u')`
	want := []answer{
		{Command: "ls", Action: "allow", Mode: "default", Shell: "bash+zsh", Cwd: filepath.Join(ws, "sub")},
		{Command: "touch x", Action: "deny", Mode: "readonly", Shell: "bash+zsh", Cwd: ws},
		{Line: 3, Command: "ls", Action: "deny", Error: `mode "bogus": want default or readonly`},
		{Line: 4, Action: "deny", Error: bad},
		{Line: 5, Command: "ls", Action: "deny", Error: `"cwd" is not a string`},
		{Line: 7, Command: "ls", Action: "deny", Error: `unknown shell "fish" (want bash, zsh or sh)`},
		{Command: "ls", Action: "allow", Mode: "default", Shell: "zsh", Cwd: ws},
		{Line: 9, Action: "deny", Error: `line 9: no "command" field`},
		{Command: "touch x", Action: "ask", Mode: "default", Shell: "bash+zsh", Cwd: ws},
		// null is no command (as in the hook); a line too long to read is
		// answered and the batch goes on.
		{Line: 11, Action: "deny", Error: `line 11: "command" is null`},
		{Line: 12, Action: "deny", Error: fmt.Sprintf("line 12 is longer than %d bytes", MaxBatchLine)},
		{Command: "ls", Action: "allow", Mode: "default", Shell: "bash+zsh", Cwd: ws},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

// slowFirst is the pipeline's batch, slow on the first of
// TestBatcherLongLines's commands.
type slowFirst struct{ *Batch }

func (s slowFirst) Check(ctx context.Context, req policy.Request) (CheckResult, error) {
	if strings.HasPrefix(req.Command, "echo 0a") {
		time.Sleep(300 * time.Millisecond)
	}
	return s.Batch.Check(ctx, req)
}

// TestBatcherLongLines: long commands are bounded in flight by their
// bytes (batchWindowBytes, and one line more), not only by their number.
func TestBatcherLongLines(t *testing.T) {
	ws, pl := batchWorkspace(t)
	const size = 512 << 10
	cmds := make([]string, 40)
	for i := range cmds {
		cmds[i] = fmt.Sprintf("echo %d%s", i, strings.Repeat("a", size))
	}
	var read, written, most atomic.Int64
	// The first is slow: the workers behind it run ahead as far as the
	// window lets them.
	b := Batcher{Checker: slowFirst{pl.Batch()}, Defaults: policy.Request{Cwd: ws}, Workers: 4}
	err := b.Run(context.Background(), func(yield func(BatchItem) error) error {
		return items(cmds)(func(it BatchItem) error {
			if n := read.Add(1) - written.Load(); n > most.Load() {
				most.Store(n)
			}
			return yield(it)
		})
	}, func(a BatchAnswer) error {
		written.Add(1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if written.Load() != int64(len(cmds)) {
		t.Fatalf("%d answers for %d commands", written.Load(), len(cmds))
	}
	if max := int64(batchWindowBytes/size + 2); most.Load() > max {
		t.Errorf("%d long lines in flight at once; want at most %d", most.Load(), max)
	}
}

// TestBatcherStreamFlushes: Stream buffers its answers but hands each on
// once every command read so far is answered, so that an agent that
// writes one command and waits for its answer gets it.
func TestBatcherStreamFlushes(t *testing.T) {
	ws, pl := batchWorkspace(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		b := Batcher{Checker: pl.Batch(), Defaults: policy.Request{Cwd: ws}}
		done <- b.Stream(context.Background(), inR, BatchLines, outW)
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	for _, c := range []string{"ls", "rm -rf /", "cat README.md"} {
		if _, err := io.WriteString(inW, c+"\n"); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			l, _ := answers.ReadString('\n')
			got <- l
		}()
		select {
		case l := <-got:
			var a struct{ Command string }
			if err := json.Unmarshal([]byte(l), &a); err != nil || a.Command != c {
				t.Fatalf("answer to %q: %q (%v)", c, l, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("no answer to %q while the input stays open", c)
		}
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(answers); len(rest) != 0 {
		t.Errorf("more output after the last answer: %q", rest)
	}
}

// TestBatcherBackgroundPolicy: with the policy compiled in the background
// (PipelineOptions.Background), the answers are those of a pipeline
// compiled first, byte for byte; and a policy that does not compile fails
// the batch with its error and no line written, even for a line that
// needs no policy, or with no line at all.
func TestBatcherBackgroundPolicy(t *testing.T) {
	ws, pl := batchWorkspace(t)
	in := "{\"command\":\"ls\"}\nnot json\n{\"command\":\"rm -rf /\"}\n{\"command\":\"echo hi > out.txt\"}\n"
	stream := func(p *Pipeline, in string) (string, error) {
		b := Batcher{Checker: p.Batch(), Defaults: policy.Request{Cwd: ws}, Ready: p.Compiled, Pending: p.Compiling, Workers: 2}
		var out bytes.Buffer
		err := b.Stream(context.Background(), strings.NewReader(in), BatchJSONL, &out)
		return out.String(), err
	}
	want, err := stream(pl, in)
	if err != nil {
		t.Fatal(err)
	}
	bg, err := NewPipeline(PipelineOptions{Background: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := stream(bg, in)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("background compilation answers differently (-first +background):\n%s", diff)
	}
	if strings.Count(got, "\n") != 4 {
		t.Errorf("want 4 answers, got %q", got)
	}
	bad := map[string]string{"bad.rego": "package shellgate\n\nallow if {\n"}
	for _, in := range []string{"not json\n", in, ""} {
		p, err := NewPipeline(PipelineOptions{Background: true, Modules: bad})
		if err != nil {
			t.Fatalf("NewPipeline: %v; want the error from Compiled", err)
		}
		out, err := stream(p, in)
		if err == nil || !strings.Contains(err.Error(), "policy: ") || !strings.Contains(err.Error(), "bad.rego") {
			t.Errorf("input %q: Stream = %v; want the policy's error", in, err)
		}
		if out != "" {
			t.Errorf("input %q: written with a broken policy: %q", in, out)
		}
		if e := p.Engine(); e != nil {
			t.Errorf("Engine() = %v for a policy that did not compile", e)
		}
	}
	// Without Background, the same policy fails NewPipeline.
	if _, err := NewPipeline(PipelineOptions{Modules: bad}); err == nil {
		t.Error("NewPipeline compiled a broken policy")
	}
}

// compiling is the pipeline's batch behind a policy that compiles until
// release is closed: a line's Check counts it as entered, then waits for
// the policy, as a pipeline compiling in the background does after its
// classification and read station.
type compiling struct {
	*Batch
	entered atomic.Int64
	release chan struct{}
}

func (c *compiling) Check(ctx context.Context, req policy.Request) (CheckResult, error) {
	c.entered.Add(1)
	<-c.release
	return c.Batch.Check(ctx, req)
}

func (c *compiling) pending() bool {
	select {
	case <-c.release:
		return false
	default:
		return true
	}
}

// TestBatcherPending: while the policy compiles (Batcher.Pending), a run
// on two workers takes more lines than two, each waiting for the policy,
// so that idle cores classify and judge them; within the window, and the
// answers are the one-by-one answers in input order.
func TestBatcherPending(t *testing.T) {
	ws, pl := batchWorkspace(t)
	cmds := batchCommands(300)
	ctx := context.Background()
	want := oneByOne(t, pl, ws, cmds)
	c := &compiling{Batch: pl.Batch(), release: make(chan struct{})}
	const workers = 2
	window := int64(workers * batchWindow)
	var atRelease atomic.Int64
	go func() {
		deadline := time.Now().Add(20 * time.Second)
		for c.entered.Load() < window*3/4+workers && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		atRelease.Store(c.entered.Load())
		close(c.release)
	}()
	var got bytes.Buffer
	b := Batcher{Checker: c, Defaults: policy.Request{Cwd: ws}, Workers: workers, Pending: c.pending}
	n := 0
	err := b.Run(ctx, items(cmds), func(a BatchAnswer) error {
		n++
		if a.Item.Line != n {
			return fmt.Errorf("answer %d is for line %d", n, a.Item.Line)
		}
		got.Write(a.JSON)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if e := atRelease.Load(); e <= workers || e > window {
		t.Errorf("%d lines taken while the policy compiled on %d workers; want more than %d, at most the window (%d)", e, workers, workers, window)
	}
	if diff := cmp.Diff(want.String(), got.String()); diff != "" {
		t.Errorf("answers differ from one by one (-want +got):\n%s", diff)
	}
}

// BenchmarkBatcher decides 2,000 commands of varied cost through a
// Batcher on GOMAXPROCS workers and on one; cmds/s is the throughput
// (compare the two in one run: the ratio is what every core buys).
func BenchmarkBatcher(b *testing.B) {
	ws, pl := batchWorkspace(b)
	cmds := batchCommands(2000)
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			for n := 0; n < b.N; n++ {
				bt := Batcher{Checker: pl.Batch(), Defaults: policy.Request{Cwd: ws}, Workers: workers}
				lines := 0
				if err := bt.Run(context.Background(), items(cmds), func(a BatchAnswer) error {
					lines++
					return nil
				}); err != nil || lines != len(cmds) {
					b.Fatalf("%v after %d answers", err, lines)
				}
			}
			b.ReportMetric(float64(len(cmds)*b.N)/b.Elapsed().Seconds(), "cmds/s")
		})
	}
}

// oneByOne is the JSON lines of cmds checked one at a time, in order: what
// a batch must answer.
func oneByOne(t *testing.T, pl *Pipeline, ws string, cmds []string) *bytes.Buffer {
	t.Helper()
	var want bytes.Buffer
	for _, c := range cmds {
		res, err := pl.Check(context.Background(), policy.Request{Command: c, Cwd: ws})
		if err != nil {
			t.Fatal(err)
		}
		b, err := jsonLine(res)
		if err != nil {
			t.Fatal(err)
		}
		want.Write(b)
	}
	return &want
}

// TestReadBatchLines: lines as bufio.Scanner split them (a final line
// without a newline, CRLF, blank lines skipped), a line of exactly
// MaxBatchLine bytes read, one byte more answered with an error and the
// next line read.
func TestReadBatchLines(t *testing.T) {
	at := strings.Repeat("b", MaxBatchLine)
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n\n", nil},
		{"ls", []string{"1:ls"}},
		{"ls\r\npwd\n", []string{"1:ls", "2:pwd"}},
		{"ls\n\n  \npwd", []string{"1:ls", "4:pwd"}},
		{at + "\nls\n", []string{"1:" + at[:8], "2:ls"}},
		{at + "b\nls", []string{fmt.Sprintf("1!line 1 is longer than %d bytes", MaxBatchLine), "2:ls"}},
		{"ls\n" + at + "bb", []string{"1:ls", fmt.Sprintf("2!line 2 is longer than %d bytes", MaxBatchLine)}},
	}
	for i, tc := range tests {
		var got []string
		err := ReadBatch(strings.NewReader(tc.in), BatchLines, func(it BatchItem) error {
			if it.Err != nil {
				got = append(got, fmt.Sprintf("%d!%v", it.Line, it.Err))
				return nil
			}
			c := it.Command
			if len(c) > 8 {
				c = c[:8]
			}
			got = append(got, fmt.Sprintf("%d:%s", it.Line, c))
			return nil
		})
		if err != nil {
			t.Errorf("case %d: %v", i, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("case %d (-want +got):\n%s", i, diff)
		}
	}
}
