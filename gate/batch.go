package gate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

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
	switch format {
	case "", BatchLines, BatchJSONL:
	default:
		return fmt.Errorf("unknown batch input format %q (want lines or jsonl)", format)
	}
	br := bufio.NewReaderSize(r, 64*1024)
	n := 0
	for {
		line, long, err := readLine(br)
		if err != nil && (err != io.EOF || line == nil && !long) {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("reading stdin: line %d: %w", n+1, err)
		}
		n++
		if long {
			// One line too long to read is answered with an error, and
			// the batch goes on with the next.
			if ferr := fn(BatchItem{Line: n, Err: fmt.Errorf("line %d is longer than %d bytes", n, MaxBatchLine)}); ferr != nil {
				return ferr
			}
		} else if strings.TrimSpace(string(line)) != "" {
			if ferr := fn(batchItem(n, string(line), format)); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// readLine reads one line (without its newline, or a final CR of a CRLF
// line: bufio.Scanner's lines) of at most MaxBatchLine bytes; a longer one
// is read to its end and dropped (long). err is io.EOF after the last line.
func readLine(br *bufio.Reader) (line []byte, long bool, err error) {
	for {
		chunk, e := br.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > MaxBatchLine+1 {
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case e == bufio.ErrBufferFull:
			continue
		case e != nil && e != io.EOF:
			return nil, false, e
		}
		if long {
			return nil, true, e
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if e == io.EOF && len(line) == 0 {
			return nil, false, io.EOF
		}
		if len(line) > MaxBatchLine {
			return nil, true, e
		}
		return line, false, e
	}
}

// batchItem reads one non-blank line of a batch as a command.
func batchItem(n int, line, format string) BatchItem {
	it := BatchItem{Line: n}
	if format == BatchJSONL {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			it.Err = fmt.Errorf("line %d: %v", n, err)
		} else if raw, ok := obj["command"]; !ok {
			it.Err = fmt.Errorf("line %d: no \"command\" field", n)
		} else if string(bytes.TrimSpace(raw)) == "null" {
			it.Err = fmt.Errorf("line %d: \"command\" is null", n)
		} else if err := json.Unmarshal(raw, &it.Command); err != nil {
			it.Err = fmt.Errorf("line %d: \"command\" is not a string", n)
		} else {
			delete(obj, "command")
			it.Fields = obj
		}
		return it
	}
	it.Command = line
	return it
}

// BatchError is the answer for a batch line that could not be decided.
type BatchError struct {
	Line    int    `json:"line"`
	Command string `json:"command,omitempty"`
	// Action is always "deny": a line that could not be decided is not
	// allowed, in the batch as in the hook.
	Action string `json:"action"`
	Error  string `json:"error"`
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
// core: a pool of workers take turns reading the next item and decide it,
// and each answer is written once the ones before it are, so answers come
// in input order whatever each costs. At most a few items per worker are
// in flight, so memory stays flat however long the stream. A Batcher is a
// value; Run may be called concurrently.
type Batcher struct {
	// Checker decides each command: a Pipeline's Batch, or a policy
	// bundle's engine.
	Checker Checker
	// Defaults is what a line leaves open (policy.Request.Defaults):
	// its Cwd is where a line that names no cwd runs, and what a relative
	// cwd is relative to (absolute); its Mode and Shell apply to a line
	// that names none ("" and DialectUnknown leave them to the Checker:
	// the config's).
	Defaults policy.Request
	// Workers is the number of lines decided at once (0: GOMAXPROCS).
	Workers int
	// Ready, when set, is waited for before the first answer is written
	// and before Run returns: its error ends the batch with no answer
	// written, and is Run's error (a policy compiled in the background,
	// see PipelineOptions.Background, that did not compile).
	Ready func() error
	// Pending, when set, reports whether the Checker's policy is still
	// compiling in the background (see Pipeline.Compiling). When it is as
	// a run starts, the run starts more workers, each for one line: the
	// lines are classified and judged on the cores the compilation leaves
	// idle, each then waiting for the policy to decide it.
	Pending func() bool
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

// Run decides every item read hands to its yield function and calls
// write with each answer, in input order, one call at a time. It stops at
// the first error of read, of write or of a decision (a cancelled
// context), and returns it; answers after it are not written.
func (b *Batcher) Run(ctx context.Context, read func(yield func(BatchItem) error) error, write func(BatchAnswer) error) error {
	return b.run(ctx, read, write, nil)
}

// batchWindow is how many items may be read ahead of the last answer
// written, per worker: enough that a slow command (or a worker the system
// does not run for a while) does not stall the workers behind it, few
// enough that memory stays flat. batchWindowBytes bounds the commands in
// flight too, for long lines (up to MaxBatchLine each): past it, a worker
// waits for the answers before it to be written.
const (
	batchWindow      = 64
	batchWindowBytes = 4 << 20
)

// errBatchStopped ends read once the batch stops.
var errBatchStopped = errors.New("batch stopped")

// batchRun is one Run: the workers take turns reading the next item
// (under in), decide it, and put its answer in its place (under out);
// the worker whose answer is next in input order writes it, and the
// answers after it that are done. No goroutine but the workers: no hand
// over to a reader or a writer that waits for a core.
type batchRun struct {
	b      *Batcher
	ctx    context.Context
	cancel context.CancelFunc
	ready  func() error
	write  func(BatchAnswer) error
	flush  func() error

	in   sync.Mutex
	next func() (BatchItem, bool) // the reader, pulled (under in)
	read atomic.Int64             // items read
	eof  bool                     // under in
	// bytes are the bytes of the commands read and not yet written.
	bytes atomic.Int64

	out     sync.Mutex
	room    *sync.Cond // signalled when written grows or the run fails
	done    []batchDone
	written atomic.Int64 // answers written (grows under out)
	failed  atomic.Bool  // err is set
	err     error        // the first error of a decision or a write
	first   bool         // the first answer is not written yet
}

// batchDone is the answer of an item read, until it is written.
type batchDone struct {
	set  bool
	size int // of the command
	a    BatchAnswer
	err  error
}

// run is Run; flush, when set, is called whenever every item read so far
// is answered and written, and at the end.
func (b *Batcher) run(ctx context.Context, read func(yield func(BatchItem) error) error, write func(BatchAnswer) error, flush func() error) error {
	workers := b.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	r := &batchRun{b: b, write: write, flush: flush, first: true, ready: func() error { return nil }}
	if b.Ready != nil {
		r.ready = sync.OnceValue(b.Ready)
	}
	r.ctx, r.cancel = context.WithCancel(ctx)
	defer r.cancel()
	r.room = sync.NewCond(&r.out)
	r.done = make([]batchDone, batchWindow*workers)
	var readErr error
	next, stop := iter.Pull(func(yield func(BatchItem) bool) {
		err := read(func(it BatchItem) error {
			if !yield(it) {
				return errBatchStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errBatchStopped) {
			readErr = err
		}
	})
	r.next = next
	var wg sync.WaitGroup
	early := 0
	if b.Pending != nil && b.Pending() {
		early = len(r.done) * 3 / 4
	}
	for w := 0; w < workers+early; w++ {
		wg.Add(1)
		once := w >= workers
		go func() {
			defer wg.Done()
			r.work(once)
		}()
	}
	wg.Wait()
	stop()
	if err := r.ready(); err != nil {
		return err
	}
	if r.err != nil {
		return r.err
	}
	if readErr != nil {
		return readErr
	}
	if r.flush != nil {
		if err := r.flush(); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// work reads, decides and answers items until there are none or the run
// fails, or after one item when once is set (a worker started while the
// policy compiles: see Batcher.Pending).
func (r *batchRun) work(once bool) {
	for {
		n, it, ok := r.take()
		if !ok {
			return
		}
		a, err := r.b.Answer(r.ctx, it)
		r.put(n, len(it.Command), a, err)
		if once {
			return
		}
	}
}

// take reads the next item once there is room for its answer; n is its
// place. It is false at the end of the input or once the run failed.
func (r *batchRun) take() (n int64, it BatchItem, ok bool) {
	r.in.Lock()
	defer r.in.Unlock()
	if r.eof {
		return 0, it, false
	}
	n = r.read.Load()
	full := func() bool {
		w := r.written.Load()
		return n-w >= int64(len(r.done)) || (n > w && r.bytes.Load() >= batchWindowBytes)
	}
	if full() {
		r.out.Lock()
		for r.err == nil && full() {
			r.room.Wait()
		}
		r.out.Unlock()
	}
	if r.failed.Load() || r.ctx.Err() != nil {
		r.eof = true
		return 0, it, false
	}
	if it, ok = r.next(); !ok {
		r.eof = true
		return 0, it, false
	}
	r.bytes.Add(int64(len(it.Command)))
	r.read.Store(n + 1)
	return n, it, true
}

// put keeps the answer of item n (of a command of size bytes), and writes
// every answer that is next in input order.
func (r *batchRun) put(n int64, size int, a BatchAnswer, err error) {
	r.out.Lock()
	defer r.out.Unlock()
	r.done[n%int64(len(r.done))] = batchDone{set: true, size: size, a: a, err: err}
	wrote := false
	for r.err == nil {
		w := r.written.Load()
		d := &r.done[w%int64(len(r.done))]
		if !d.set {
			break
		}
		err := d.err
		if err == nil && r.first {
			r.first = false
			err = r.ready()
		}
		if err == nil {
			err = r.write(d.a)
		}
		r.bytes.Add(-int64(d.size))
		*d = batchDone{}
		r.written.Store(w + 1)
		wrote = true
		r.fail(err)
	}
	if wrote {
		r.room.Broadcast()
	}
	// Every item read so far is answered: hand the answers on before
	// the next input, which may be a while.
	if wrote && r.err == nil && r.flush != nil && r.written.Load() == r.read.Load() {
		r.fail(r.flush())
	}
}

// fail records the run's first error (under out) and stops it.
func (r *batchRun) fail(err error) {
	if err == nil || r.err != nil {
		return
	}
	r.err = err
	r.failed.Store(true)
	r.cancel()
	r.room.Broadcast()
}

// Answer decides one item: its cwd, mode and shell fields are read and
// checked (a bad one is an answer with Err, as is an item with Err), and
// the Checker decides. The error is for a cancelled context or an answer
// that cannot be encoded.
func (b *Batcher) Answer(ctx context.Context, it BatchItem) (BatchAnswer, error) {
	a := BatchAnswer{Item: it}
	fail := func(e BatchError) (BatchAnswer, error) {
		e.Action = "deny"
		a.Err = &e
		var err error
		a.JSON, err = jsonLine(e)
		return a, err
	}
	if it.Err != nil {
		return fail(BatchError{Line: it.Line, Error: it.Err.Error()})
	}
	if err := ValidateCommand(it.Command); err != nil {
		return fail(BatchError{Line: it.Line, Command: it.Command, Error: fmt.Sprintf("line %d: %v", it.Line, err)})
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
	req, err := policy.ParseRequest(it.Command, cwd, mode, shell, b.Defaults.Cwd)
	if err != nil {
		return fail(BatchError{Line: it.Line, Command: it.Command, Error: err.Error()})
	}
	res, err := b.Checker.Check(ctx, req.Defaults(b.Defaults))
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
	e := lineEncoders.Get().(*lineEncoder)
	e.buf.Reset()
	err := e.enc.Encode(v)
	line := bytes.Clone(e.buf.Bytes())
	if e.buf.Cap() <= 64<<10 {
		// A huge answer's buffer is left to the collector.
		lineEncoders.Put(e)
	}
	if err != nil {
		return nil, err
	}
	return line, nil
}

// lineEncoder is an encoder writing to its own buffer, reused from answer
// to answer: an answer costs one allocation of its exact size, not the
// buffer's growth.
type lineEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var lineEncoders = sync.Pool{New: func() any {
	e := &lineEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}
