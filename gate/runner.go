package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Notes a run can carry.
const (
	// NoteClamped: the requested timeout was above the ceiling.
	NoteClamped = "clamped"
	// NoteUnconfirmedStop: the process group was sent SIGKILL and still
	// had a live member when the gate stopped waiting.
	NoteUnconfirmedStop = "unconfirmed-stop"
	// NoteBackgroundStopped: the shell ended while processes it started
	// were still running; they were stopped.
	NoteBackgroundStopped = "background-stopped"
	// NoteKilled: the group did not end on SIGTERM within the grace and
	// was sent SIGKILL.
	NoteKilled = "killed"
	// NoteOutputIncomplete: a process outside the group kept the output
	// pipe open; the gate stopped reading.
	NoteOutputIncomplete = "output-incomplete"
	// NoteSpillFailed: the spill file could not be written.
	NoteSpillFailed = "spill-failed"
)

// Stop says why the runner stopped a command.
type Stop string

// The reasons to stop a command.
const (
	StopNone      Stop = ""
	StopTimeout   Stop = "timeout"
	StopAborted   Stop = "aborted"
	StopOutputCap Stop = "output-cap"
)

// Spec is one command for a Runner.
type Spec struct {
	// Command is the command line.
	Command string
	// Shell is the shell that runs it, the dialect it was judged in:
	// "bash" or "" (bash), "zsh" (zsh -f: no startup files, so its
	// default options, which the judgment assumes) or "sh".
	Shell string
	// Dir is the working directory (absolute).
	Dir string
	// Env is the complete environment ("K=V"); see BuildEnv.
	Env []string
	// Timeout stops the whole process tree; 0 means no timeout.
	Timeout time.Duration
	// Grace is the time between SIGTERM and SIGKILL.
	Grace time.Duration
	// View bounds the output kept in memory.
	View ViewLimits
	// CaptureCap stops the command once this many bytes of output were
	// read; 0 means no cap.
	CaptureCap int64
	// SpillDir, when set, receives the whole cleaned output in a file,
	// kept when the view left something out.
	SpillDir string
	// Stream, when set, receives the cleaned output as it arrives (a
	// background job reads it); its errors are ignored.
	Stream io.Writer
	// Sandbox, when set and not full-access, is the confinement the
	// command must run under. A runner that cannot enforce it must not
	// start the command (it returns an error).
	Sandbox *Confinement
}

// Outcome is what a Runner reports about a command that was started.
type Outcome struct {
	// PID is the shell's process id, which is also its process group id.
	PID int
	// ExitCode is the shell's exit status, or -1 when it was killed by a
	// signal.
	ExitCode int
	// Signal names the signal that killed the shell ("SIGKILL").
	Signal string
	// Duration is the time from start until the output was read.
	Duration time.Duration
	// Output is the bounded view.
	Output Output
	// Sandbox is the confinement the command ran under, with the
	// operations the sandbox refused; nil when it ran unconfined.
	Sandbox *SandboxInfo
	// Stopped says why the runner stopped the command, if it did.
	Stopped Stop
	// Notes are the Note* values that apply.
	Notes []string
}

// Runner runs a command. Run returns an error only when the command could
// not be started; everything after the start is in the Outcome. A Runner
// must stop the whole process tree when ctx is done.
type Runner interface {
	Run(ctx context.Context, spec Spec) (Outcome, error)
}

// BashRunner runs `bash -c COMMAND` (zsh -f -c or sh -c when the spec's
// Shell says so) in its own process group, with stdin
// from /dev/null and stdout and stderr merged into one pipe (so output is
// in arrival order). A timeout, ctx and the capture cap stop the whole
// group: SIGTERM, then SIGKILL after the grace.
type BashRunner struct {
	// Bash is the shell's path; "" looks up "bash" on PATH once.
	Bash string
	// Subreaper makes this process the reaper of orphaned descendants
	// (Linux PR_SET_CHILD_SUBREAPER), so that the members of a stopped
	// group are reaped here and not left as zombies under an init that
	// does not reap. It changes the whole process: use it in a program of
	// its own (the shellgate CLI does), not inside a host that runs other
	// children.
	Subreaper bool
	// ConfirmWait is how long to wait for the group to end after SIGKILL
	// before noting unconfirmed-stop (default 2 s).
	ConfirmWait time.Duration

	once    sync.Once
	bash    string
	bashErr error
}

func (r *BashRunner) init() {
	r.once.Do(func() {
		if r.Bash != "" {
			r.bash = r.Bash
		} else {
			r.bash, r.bashErr = exec.LookPath("bash")
		}
		if r.Subreaper {
			setSubreaper()
		}
	})
}

// Run implements Runner.
func (r *BashRunner) Run(ctx context.Context, spec Spec) (Outcome, error) {
	r.init()
	if r.bashErr != nil {
		return Outcome{}, fmt.Errorf("bash: %w", r.bashErr)
	}
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return Outcome{}, err
	}
	var spill *os.File
	var notes []string
	if spec.SpillDir != "" {
		spill, err = os.CreateTemp(spec.SpillDir, "shellgate-output-*.txt")
		if err != nil {
			notes = append(notes, NoteSpillFailed)
			spill = nil
		}
	}
	shell, args := r.bash, []string{"-c", spec.Command}
	switch spec.Shell {
	case "", "bash":
	case "zsh", "sh":
		p, err := exec.LookPath(spec.Shell)
		if err != nil {
			return Outcome{}, fmt.Errorf("%s: %w", spec.Shell, err)
		}
		shell = p
		if spec.Shell == "zsh" {
			args = []string{"-f", "-c", spec.Command}
		}
	default:
		return Outcome{}, fmt.Errorf("unknown shell %q", spec.Shell)
	}
	cmd := exec.Command(shell, args...)
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin = nil // /dev/null
	cmd.Stdout = pw
	cmd.Stderr = pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	startCmd := cmd.Start
	var sb *SandboxInfo
	var sets *confinedSets
	if c := spec.Sandbox; c != nil && c.Mode != SandboxFullAccess {
		var cleanup func()
		startCmd, sb, sets, cleanup, err = prepareConfined(cmd, c, r.bash)
		if err != nil {
			pr.Close()
			pw.Close()
			if spill != nil {
				spill.Close()
				os.Remove(spill.Name())
			}
			return Outcome{}, fmt.Errorf("the sandbox could not be set up, so nothing ran: %w", err)
		}
		sets.network = c.Network
		defer cleanup()
	}
	start := time.Now()
	if err := startCmd(); err != nil {
		pr.Close()
		pw.Close()
		if spill != nil {
			spill.Close()
			os.Remove(spill.Name())
		}
		return Outcome{}, err
	}
	pw.Close()
	pgid := cmd.Process.Pid
	out := Outcome{PID: pgid, Sandbox: sb}

	var sw io.Writer
	if spill != nil {
		sw = spill
	}
	col := newCollector(spec.View, spec.CaptureCap, sw)
	col.stream = spec.Stream
	defer col.release()

	grace := spec.Grace
	if grace <= 0 {
		grace = 2 * time.Second
	}
	confirm := r.ConfirmWait
	if confirm <= 0 {
		confirm = 2 * time.Second
	}
	var deadline time.Time
	if spec.Timeout > 0 {
		deadline = start.Add(spec.Timeout)
	}
	stop := func(why Stop) {
		out.Stopped = why
		killed, ok := stopGroup(pgid, grace, confirm, r.Subreaper)
		if killed {
			notes = append(notes, NoteKilled)
		}
		if !ok {
			notes = append(notes, NoteUnconfirmedStop)
		}
	}
	shellGone := false // the shell exited (not yet reaped)
	stopLeftovers := func() {
		if groupAlive(pgid, r.Subreaper) {
			// The shell is gone but something it started still runs.
			notes = append(notes, NoteBackgroundStopped)
			if _, ok := stopGroup(pgid, grace, confirm, r.Subreaper); !ok {
				notes = append(notes, NoteUnconfirmedStop)
			}
		}
	}

	// This goroutine reads the merged output itself, with a read deadline
	// that wakes it for the timeout, for a cancelled ctx (AfterFunc) and
	// every pollEvery to see whether the shell ended while something else
	// holds the pipe. A trivial command costs no extra goroutine.
	wake := context.AfterFunc(ctx, func() { _ = pr.SetReadDeadline(time.Now()) })
	defer wake()
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	buf := *bp
	var drainUntil time.Time // set once nothing more is waited for but the pipe
	for {
		next := time.Now().Add(pollEvery)
		if !deadline.IsZero() && out.Stopped == StopNone && deadline.Before(next) {
			next = deadline
		}
		if !drainUntil.IsZero() && drainUntil.Before(next) {
			next = drainUntil
		}
		_ = pr.SetReadDeadline(next)
		n, err := pr.Read(buf)
		if n > 0 && !col.write(buf[:n]) && out.Stopped == StopNone {
			stop(StopOutputCap) // the reading goes on, to drain the pipe
			drainUntil = time.Now().Add(grace)
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			break // EOF: every writer is gone
		}
		now := time.Now()
		switch {
		case !drainUntil.IsZero() && !now.Before(drainUntil):
			// Something outside the group holds the pipe.
			notes = append(notes, NoteOutputIncomplete)
		case out.Stopped == StopNone && ctx.Err() != nil:
			stop(StopAborted)
			drainUntil = time.Now().Add(grace)
			continue
		case out.Stopped == StopNone && !deadline.IsZero() && !now.Before(deadline):
			stop(StopTimeout)
			drainUntil = time.Now().Add(grace)
			continue
		case drainUntil.IsZero() && exitedNoReap(pgid):
			shellGone = true
			if out.Stopped == StopNone {
				stopLeftovers()
			}
			drainUntil = time.Now().Add(grace)
			continue
		default:
			continue
		}
		break
	}
	pr.Close()

	// The output is closed; the shell may still run (it closed its
	// output, or ignored a stop): wait for it under the same limits.
	var waitErr error
	if shellGone || exitedNoReap(pgid) {
		waitErr = cmd.Wait()
	} else {
		exited := make(chan struct{})
		go func() {
			waitErr = cmd.Wait()
			close(exited)
		}()
		var timer <-chan time.Time
		if !deadline.IsZero() && out.Stopped == StopNone {
			t := time.NewTimer(time.Until(deadline))
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-exited:
		case <-timer:
			stop(StopTimeout)
		case <-ctx.Done():
			if out.Stopped == StopNone {
				stop(StopAborted)
			}
		}
		<-exited
	}
	if out.Stopped == StopNone && !shellGone {
		stopLeftovers()
	}
	out.Duration = time.Since(start)
	out.Output = col.finish()
	if col.capHit && out.Stopped == StopNone {
		out.Stopped = StopOutputCap
	}
	if spill != nil {
		if !col.spillOK {
			notes = append(notes, NoteSpillFailed)
		}
		spill.Close()
		if out.Output.Truncated() && col.spillOK {
			out.Output.SpillPath = spill.Name()
		} else {
			os.Remove(spill.Name())
		}
	}
	out.ExitCode = -1
	if st := cmd.ProcessState; st != nil {
		out.ExitCode = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			out.Signal = signalName(ws.Signal())
		}
	} else if waitErr != nil && !errors.Is(waitErr, os.ErrProcessDone) {
		notes = append(notes, "wait: "+waitErr.Error())
	}
	out.Notes = notes
	if sb != nil {
		sb.Denied = detectDenials(&out.Output, sets, spec.Dir)
		addMarkers(&out.Output, sb.Denied, sb.Mode)
	}
	return out, nil
}

// SandboxSupport implements Confiner: Landlock on Linux (the ABI the
// kernel offers), Seatbelt on macOS, nothing elsewhere.
func (r *BashRunner) SandboxSupport() SandboxSupport {
	r.init()
	return sandboxSupport(r.bash)
}

// pollEvery is how often a run that is still reading checks whether the
// shell ended while a process it started holds the pipe open.
const pollEvery = 50 * time.Millisecond

// readBufs are the pipe read buffers, reused across runs: a run of a
// trivial command should not allocate (and make the collector scan) 100 KB.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// stopGroup sends SIGTERM to the group, waits up to grace for it to end,
// then SIGKILL and waits up to confirm. It reports whether SIGKILL was
// needed and whether the group was seen to end.
func stopGroup(pgid int, grace, confirm time.Duration, reap bool) (killed, ok bool) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	if waitGone(pgid, grace, reap) {
		return false, true
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return true, waitGone(pgid, confirm, reap)
}

// waitGone polls until no live process is left in the group.
func waitGone(pgid int, d time.Duration, reap bool) bool {
	deadline := time.Now().Add(d)
	sleep := time.Millisecond
	for {
		if !groupAlive(pgid, reap) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(sleep)
		if sleep < 20*time.Millisecond {
			sleep *= 2
		}
	}
}

func signalName(s syscall.Signal) string {
	if n := int(s); n > 0 && n < len(sigNames) && sigNames[n] != "" {
		return sigNames[n]
	}
	return fmt.Sprintf("signal %d", int(s))
}

var sigNames = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT",
	7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2",
	13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
}
