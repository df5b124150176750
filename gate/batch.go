package gate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
)

// This file is shellgate check --batch as a library: the input format
// (ReadBatch), the answer of each line (BatchAnswer, whose JSON line is the
// contract) and the Batcher that decides a stream on every core, answers
// in input order.

// MaxBatchLine is the longest line ReadBatch accepts.
const MaxBatchLine = 8 << 20

// BatchItem is one command of a batch.
type BatchItem struct {
	// Line is its line number (from 1).
	Line    int
	Command string
	// Fields are the other fields of a JSONL input object (cwd, mode,
	// shell, ...), not yet read.
	Fields map[string]json.RawMessage
	// Err is set when the line could not be read as a command.
	Err error
}

// Batch input formats: one command per line, or one JSON object per line
// with "command" and optional "cwd", "mode" and "shell".
const (
	BatchLines = "lines"
	BatchJSONL = "jsonl"
)

// ReadBatch calls fn for each command on r: one per line (BatchLines, or
// ""), or one JSON object with a "command" field per line (BatchJSONL).
// Blank lines are skipped; a line that is not a command is an item with
// Err, naming the line. The error is fn's, or the reader's.
func ReadBatch(r io.Reader, format string, fn func(BatchItem) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), MaxBatchLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		it := BatchItem{Line: n}
		switch format {
		case "", BatchLines:
			it.Command = line
		case BatchJSONL:
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &obj); err != nil {
				it.Err = fmt.Errorf("line %d: %v", n, err)
			} else if raw, ok := obj["command"]; !ok {
				it.Err = fmt.Errorf("line %d: no \"command\" field", n)
			} else if err := json.Unmarshal(raw, &it.Command); err != nil {
				it.Err = fmt.Errorf("line %d: \"command\" is not a string", n)
			} else {
				delete(obj, "command")
				it.Fields = obj
			}
		default:
			return fmt.Errorf("unknown batch input format %q (want lines or jsonl)", format)
		}
		if err := fn(it); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading stdin: line %d: %w", n+1, err)
	}
	return nil
}

// BatchError is the answer for a batch line that could not be decided.
type BatchError struct {
	Line    int    `json:"line"`
	Command string `json:"command,omitempty"`
	Error   string `json:"error"`
}

// BatchAnswer is one line's answer: the decision, or why there is none.
type BatchAnswer struct {
	Item BatchItem
	// Result is the decision; nil when Err is set.
	Result *CheckResult
	// Err says why the line could not be decided: it is not a command,
	// or its cwd, mode or shell is not valid.
	Err *BatchError
	// JSON is the answer's JSON line, newline included: Result's or
	// Err's, without HTML escaping.
	JSON []byte
}

// Batcher decides a batch of commands (shellgate check --batch) on every
// core: a reader hands each item to a pool of workers, and each answer is
// written once the ones before it are, so answers come in input order
// whatever each costs. At most a few items per worker are in flight, so
// memory stays flat however long the stream. A Batcher is a value; Run
// may be called concurrently.
type Batcher struct {
	// Checker decides each command: a Pipeline's Batch, or a policy
	// bundle's engine.
	Checker Checker
	// Cwd is where a line that names no cwd runs, and what a relative
	// cwd is relative to (absolute).
	Cwd string
	// Mode and Shell apply to a line that names none; "" and
	// DialectUnknown leave them to the Checker (the config's).
	Mode  string
	Shell classify.Dialect
	// Workers is the number of lines decided at once (0: GOMAXPROCS).
	Workers int
	// Ready, when set, is waited for before the first answer is written
	// and before Run returns: its error ends the batch with no answer
	// written, and is Run's error (a policy compiled in the background,
	// see PipelineOptions.Background, that did not compile).
	Ready func() error
}

// Stream decides the commands on r (read by ReadBatch in format) and
// writes each answer's JSON line to w, in input order (see Run). The
// lines are buffered, and handed to w whenever every command read so far
// is answered: an agent that writes one command and waits gets its answer
// at once, and a long stream costs a write per buffer, not per line.
func (b *Batcher) Stream(ctx context.Context, r io.Reader, format string, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 32<<10)
	return b.run(ctx, func(yield func(BatchItem) error) error {
		return ReadBatch(r, format, yield)
	}, func(a BatchAnswer) error {
		_, err := bw.Write(a.JSON)
		return err
	}, bw.Flush)
}

// batchSlot is one item on its way: a worker fills a or err and closes
// done.
type batchSlot struct {
	it   BatchItem
	done chan struct{}
	a    BatchAnswer
	err  error
}

// Run decides every item read hands to its yield function and calls
// write with each answer, in input order, from one goroutine. It stops at
// the first error of read, of write or of a decision (a cancelled
// context), and returns it; answers after it are not written.
func (b *Batcher) Run(ctx context.Context, read func(yield func(BatchItem) error) error, write func(BatchAnswer) error) error {
	return b.run(ctx, read, write, nil)
}

// run is Run; flush, when set, is called whenever every answer so far is
// written and the writer would wait for the next item, and at the end.
func (b *Batcher) run(ctx context.Context, read func(yield func(BatchItem) error) error, write func(BatchAnswer) error, flush func() error) error {
	ready := func() error { return nil }
	if b.Ready != nil {
		ready = sync.OnceValue(b.Ready)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := b.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan *batchSlot, workers)
	order := make(chan *batchSlot, 4*workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range jobs {
				s.a, s.err = b.Answer(ctx, s.it)
				close(s.done)
			}
		}()
	}
	var werr error
	fail := func(err error) {
		if werr == nil && err != nil {
			werr = err
			cancel()
		}
	}
	written := make(chan struct{})
	go func() {
		defer close(written)
		first := true
		for {
			var s *batchSlot
			var ok bool
			select {
			case s, ok = <-order:
			default:
				// Every answer so far is written: hand them on
				// before waiting for more input.
				if flush != nil && werr == nil {
					fail(flush())
				}
				s, ok = <-order
			}
			if !ok {
				break
			}
			<-s.done
			if werr != nil {
				continue
			}
			if first {
				first = false
				if err := ready(); err != nil {
					fail(err)
					continue
				}
			}
			if s.err == nil {
				s.err = write(s.a)
			}
			fail(s.err)
		}
		if flush != nil && werr == nil {
			fail(flush())
		}
	}()
	err := read(func(it BatchItem) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		s := &batchSlot{it: it, done: make(chan struct{})}
		order <- s
		jobs <- s
		return nil
	})
	close(jobs)
	close(order)
	wg.Wait()
	<-written
	if rerr := ready(); rerr != nil {
		return rerr
	}
	if werr != nil {
		return werr
	}
	return err
}

// Answer decides one item: its cwd, mode and shell fields are read and
// checked (a bad one is an answer with Err, as is an item with Err), and
// the Checker decides. The error is for a cancelled context or an answer
// that cannot be encoded.
func (b *Batcher) Answer(ctx context.Context, it BatchItem) (BatchAnswer, error) {
	a := BatchAnswer{Item: it}
	fail := func(e BatchError) (BatchAnswer, error) {
		a.Err = &e
		var err error
		a.JSON, err = jsonLine(e)
		return a, err
	}
	if it.Err != nil {
		return fail(BatchError{Line: it.Line, Error: it.Err.Error()})
	}
	var cwd, mode, shell string
	for _, f := range []struct {
		k   string
		dst *string
	}{{"cwd", &cwd}, {"mode", &mode}, {"shell", &shell}} {
		if raw, ok := it.Fields[f.k]; ok {
			if err := json.Unmarshal(raw, f.dst); err != nil {
				return fail(BatchError{Line: it.Line, Command: it.Command, Error: fmt.Sprintf("%q is not a string", f.k)})
			}
		}
	}
	if mode != "" && !policy.ValidMode(mode) {
		return fail(BatchError{Line: it.Line, Command: it.Command, Error: fmt.Sprintf("mode %q: want default or readonly", mode)})
	}
	dialect, err := classify.ParseDialect(shell)
	if err != nil {
		return fail(BatchError{Line: it.Line, Command: it.Command, Error: err.Error()})
	}
	switch {
	case cwd == "":
		cwd = b.Cwd
	case !filepath.IsAbs(cwd):
		cwd = filepath.Join(b.Cwd, cwd)
	}
	if mode == "" {
		mode = b.Mode
	}
	if dialect == classify.DialectUnknown {
		dialect = b.Shell
	}
	res, err := b.Checker.Check(ctx, it.Command, cwd, mode, dialect)
	if err != nil {
		return a, err
	}
	a.Result = &res
	a.JSON, err = jsonLine(res)
	return a, err
}

// jsonLine is v as one line of JSON, without HTML escaping, with its
// newline.
func jsonLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
