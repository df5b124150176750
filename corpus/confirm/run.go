package confirm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Limits bound one run.
type Limits struct {
	// Timeout stops the whole process tree (default 10 s).
	Timeout time.Duration
	// OutputCap is the most output kept; more stops the run (default 1 MiB).
	OutputCap int
}

// Outcome is what one traced run did.
type Outcome struct {
	// Output is stdout and stderr together, at most the cap.
	Output []byte
	// Capped is set when the output reached the cap and the run was stopped.
	Capped bool
	// TimedOut is set when the timeout stopped the run.
	TimedOut bool
	// Exit is the shell's exit status (-1 when it was stopped).
	Exit int
	// Trace is the parsed strace log.
	Trace    *Trace
	Duration time.Duration
}

// capWriter keeps at most max bytes and calls stop once when more arrive.
type capWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	max    int
	capped bool
	stop   func()
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.max - w.buf.Len(); room < len(p) {
		if room > 0 {
			w.buf.Write(p[:room])
		}
		if !w.capped {
			w.capped = true
			w.stop()
		}
		return len(p), nil
	}
	return w.buf.Write(p)
}

// Run runs command with bash -c under strace in dir, with env (TMPDIR is
// set to a fresh directory under tmp), stdin from /dev/null, bounded by
// lim. strace writes its log to a file under tmp, parsed when the run ends.
func Run(ctx context.Context, strace, command, dir, tmp string, env []string, lim Limits) (*Outcome, error) {
	if lim.Timeout <= 0 {
		lim.Timeout = 10 * time.Second
	}
	if lim.OutputCap <= 0 {
		lim.OutputCap = 1 << 20
	}
	runTmp, err := os.MkdirTemp(tmp, "run")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(runTmp)
	logFile := filepath.Join(tmp, filepath.Base(runTmp)+".strace")
	defer os.Remove(logFile)
	args := append(append([]string{}, StraceArgs...), "-o", logFile, "bash", "--norc", "--noprofile", "-c", command)
	ctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	cmd := exec.Command(strace, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, env...), "TMPDIR="+runTmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer devnull.Close()
	cmd.Stdin = devnull
	var once sync.Once
	kill := func() {
		once.Do(func() {
			if cmd.Process != nil {
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			}
		})
	}
	out := &capWriter{max: lim.OutputCap, stop: kill}
	cmd.Stdout, cmd.Stderr = out, out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			kill()
		case <-done:
		}
	}()
	werr := cmd.Wait()
	close(done)
	// A process that left the group's leader behind is stopped too.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	o := &Outcome{Duration: time.Since(start), Exit: -1}
	out.mu.Lock()
	o.Output, o.Capped = append([]byte(nil), out.buf.Bytes()...), out.capped
	out.mu.Unlock()
	o.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	var ee *exec.ExitError
	switch {
	case werr == nil:
		o.Exit = 0
	case errors.As(werr, &ee):
		o.Exit = ee.ExitCode()
	default:
		return nil, werr
	}
	f, err := os.Open(logFile)
	if err != nil {
		return nil, fmt.Errorf("the strace log: %w", err)
	}
	defer f.Close()
	tr, err := ParseTrace(f)
	if err != nil {
		return nil, fmt.Errorf("the strace log: %w", err)
	}
	o.Trace = tr
	return o, nil
}
