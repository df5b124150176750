package gate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
)

// StatusRunning is the status of a Result that started a background job
// (Gate.Start): the command runs; Result.JobID names it.
const StatusRunning Status = "running"

// JobReadBytes bounds the output one Job.Read returns: what arrived since
// the last read, at most this much (the newest); the rest is counted as
// dropped, and the whole output is in the job's spill file.
var JobReadBytes = 64 << 10

// Job is a command running in the background, started by Gate.Start. It
// is safe for concurrent use.
type Job struct {
	id      string
	command string
	cancel  context.CancelFunc
	done    chan struct{}

	mu        sync.Mutex
	unread    []byte
	dropped   int64
	total     int64
	spill     *os.File
	spillPath string
	spillErr  bool
	result    *Result
}

// JobOutput is what Job.Read returns.
type JobOutput struct {
	// ID names the job.
	ID string `json:"job_id"`
	// Output is the cleaned output since the last read (at most
	// JobReadBytes: the newest bytes).
	Output string `json:"output"`
	// DroppedBytes counts what arrived since the last read and is not in
	// Output; it is in SpillPath.
	DroppedBytes int64 `json:"dropped_bytes,omitempty"`
	// SpillPath is the file that holds the job's whole output.
	SpillPath string `json:"spill_path,omitempty"`
	// Running is true until the command ended.
	Running bool `json:"running"`
	// Result is the command's result once it ended (exit code first, its
	// meaning, the sandbox); nil while it runs.
	Result *Result `json:"result,omitempty"`
}

// ID returns the job's id: 128 random bits, not guessable.
func (j *Job) ID() string { return j.id }

// Command returns the job's command.
func (j *Job) Command() string { return j.command }

// jobStream is the job's Spec.Stream.
type jobStream struct{ j *Job }

// Write receives the cleaned output as it arrives.
func (w jobStream) Write(p []byte) (int, error) {
	j := w.j
	j.mu.Lock()
	defer j.mu.Unlock()
	j.total += int64(len(p))
	if j.spill != nil && !j.spillErr {
		if _, err := j.spill.Write(p); err != nil {
			j.spillErr = true
		}
	}
	j.unread = append(j.unread, p...)
	if over := len(j.unread) - JobReadBytes; over > 0 {
		j.dropped += int64(over)
		j.unread = append(j.unread[:0], j.unread[over:]...)
	}
	return len(p), nil
}

// Read returns the output since the last read, and the result once the
// command ended (the output then includes everything it wrote).
func (j *Job) Read() JobOutput {
	var res *Result
	select {
	case <-j.done:
		res = j.result
	default:
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	out := JobOutput{ID: j.id, Output: string(j.unread), DroppedBytes: j.dropped, Running: res == nil, Result: res}
	if j.dropped > 0 && !j.spillErr {
		out.SpillPath = j.spillPath
	}
	j.unread, j.dropped = nil, 0
	return out
}

// Done is closed when the command ended.
func (j *Job) Done() <-chan struct{} { return j.done }

// Wait waits for the command to end and returns its result.
func (j *Job) Wait() Result {
	<-j.done
	return *j.result
}

// Kill stops the job's whole process tree (SIGTERM, SIGKILL after the
// grace) and waits for it to end.
func (j *Job) Kill() Result {
	j.cancel()
	return j.Wait()
}

// Close kills the job and removes its spill file.
func (j *Job) Close() {
	j.Kill()
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.spillPath != "" {
		os.Remove(j.spillPath)
	}
}

// Start checks the request like Run and, when it may run, starts it in
// the background and returns at once: a Result with status running and
// the job's id, and the Job. The decision, the approval and the
// confinement are those of Run; no timeout applies (Kill stops it), the
// capture cap does. The job's whole output is spilled to a file (in the
// spill dir, else the temp dir) that Close removes. When the request must
// not run, the Job is nil and the Result says why.
func (g *Gate) Start(ctx context.Context, req Request) (*Job, Result) {
	p, res, ok := g.prepare(ctx, req, true)
	if !ok {
		return nil, res
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, res.fail(CodeSpawnFailed, "no job id: "+err.Error())
	}
	j := &Job{id: "job-" + hex.EncodeToString(b[:]), command: req.Command, done: make(chan struct{})}
	dir := g.limits.SpillDir
	if f, err := os.CreateTemp(dir, "shellgate-job-*.txt"); err == nil {
		j.spill, j.spillPath = f, f.Name()
	} else {
		j.spillErr = true
	}
	p.spec.Stream = jobStream{j}
	jctx, cancel := context.WithCancel(context.Background())
	j.cancel = cancel
	started := make(chan struct{})
	base := res // the goroutine's copy: res is changed below
	go func() {
		defer close(j.done)
		defer cancel()
		close(started)
		r := g.execute(jctx, p, base)
		if r.Code == CodeAborted && r.Run != nil {
			r.Message = "stopped by bash_kill (Job.Kill); the process group was stopped"
		}
		j.mu.Lock()
		j.result = &r
		if j.spill != nil {
			j.spill.Close()
		}
		j.mu.Unlock()
	}()
	<-started
	res.Status = StatusRunning
	res.JobID = j.id
	res.Message = fmt.Sprintf("started in the background as %s", j.id)
	return j, res
}
