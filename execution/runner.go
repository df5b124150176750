package execution

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
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
	// ReportDir asks for the shell's final working directory
	// (Outcome.FinalDir): where a later command of the same session
	// should run.
	ReportDir bool
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
	// FinalDir is the shell's physical working directory when it exited,
	// when the spec asked for it and the shell reported one well-formed
	// absolute path; "" otherwise. The command could have written it
	// itself: a caller judges it before it uses it.
	FinalDir string
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

// Run implements Runner: it starts the command, reads its output until
// every writer is gone (stopping the group on the timeout, a cancelled
// ctx or the capture cap), waits for the shell and makes the outcome.
func (r *BashRunner) Run(ctx context.Context, spec Spec) (Outcome, error) {
	r.init()
	if r.bashErr != nil {
		return Outcome{}, fmt.Errorf("bash: %w", r.bashErr)
	}
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	x, cleanup, err := r.start(spec)
	if err != nil {
		return Outcome{}, err
	}
	defer cleanup()
	x.read(ctx)
	x.wait(ctx)
	x.unconfine()
	return x.outcome(), nil
}

// running is one command BashRunner started: what reading its output,
// waiting for it and making its outcome share.
type running struct {
	r    *BashRunner
	spec Spec
	cmd  *exec.Cmd
	pr   *os.File // the read end of the merged output
	// spill receives the whole output (nil: none).
	spill *os.File
	// dir receives the shell's final directory (nil: not asked).
	dir   *os.File
	col   *collector
	out   Outcome
	notes []string
	sb    *SandboxInfo
	sets  *confinedSets
	// undo puts back what the command did to protected paths once it is
	// gone; undone are those refusals.
	undo   func() []SandboxDenial
	undone []SandboxDenial
	pgid   int
	start  time.Time
	// deadline is the timeout's (zero: none).
	deadline       time.Time
	grace, confirm time.Duration
	// shellGone says the shell exited (not yet reaped).
	shellGone bool
	waitErr   error
}

// shellCommand is the program and arguments that run spec's command in
// spec's shell.
func (r *BashRunner) shellCommand(spec Spec) (string, []string, error) {
	switch spec.Shell {
	case "", "bash":
		return r.bash, []string{"-c", spec.Command}, nil
	case "zsh", "sh":
		p, err := exec.LookPath(spec.Shell)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", spec.Shell, err)
		}
		if spec.Shell == "zsh" {
			return p, []string{"-f", "-c", spec.Command}, nil
		}
		return p, []string{"-c", spec.Command}, nil
	}
	return "", nil, fmt.Errorf("unknown shell %q", spec.Shell)
}

// start starts spec's command in a process group of its own, confined
// when spec.Sandbox says so, its output merged into one pipe (and a spill
// file in spec.SpillDir). cleanup releases what the run holds once its
// outcome is made.
func (r *BashRunner) start(spec Spec) (x *running, cleanup func(), err error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	x = &running{r: r, spec: spec, pr: pr}
	if spec.SpillDir != "" {
		if x.spill, err = os.CreateTemp(spec.SpillDir, "shellgate-output-*.txt"); err != nil {
			x.notes = append(x.notes, NoteSpillFailed)
			x.spill = nil
		}
	}
	abandon := func() {
		pr.Close()
		pw.Close()
		if x.spill != nil {
			x.spill.Close()
			os.Remove(x.spill.Name())
		}
		if x.dir != nil {
			x.dir.Close()
		}
	}
	shell, args, err := r.shellCommand(spec)
	if err != nil {
		abandon()
		return nil, nil, err
	}
	var extra []*os.File
	if spec.ReportDir && dirReportPrefix(spec.Shell) != "" {
		if x.dir, err = openDirReport(); err != nil {
			abandon()
			return nil, nil, err
		}
		args[len(args)-1] = dirReportPrefix(spec.Shell) + args[len(args)-1]
		extra = make([]*os.File, dirReportFD-2)
		extra[len(extra)-1] = x.dir
	}
	cmd := exec.Command(shell, args...)
	cmd.ExtraFiles = extra
	cmd.Dir = spec.Dir
	cmd.Env = spec.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin = nil // /dev/null
	cmd.Stdout = pw
	cmd.Stderr = pw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	x.cmd = cmd
	startCmd := cmd.Start
	x.undo = func() []SandboxDenial { return nil }
	if c := spec.Sandbox; c != nil && c.Mode != SandboxFullAccess {
		// Only the descriptors the command is given reach it.
		if err := inheritedCloseOnExec(); err != nil {
			abandon()
			return nil, nil, fmt.Errorf("the sandbox could not be set up, so nothing ran: the runner's inherited descriptors could not be kept from the command: %w", err)
		}
		startCmd, x.sb, x.sets, x.undo, err = prepareConfined(cmd, c, r.bash)
		if err != nil {
			abandon()
			return nil, nil, fmt.Errorf("the sandbox could not be set up, so nothing ran: %w", err)
		}
		x.sets.network = c.Network
		// The Linux confinement sets the limits itself; elsewhere a bash
		// sets them before it becomes the command's shell.
		if x.sb.Limits == nil {
			lim := c.Limits.withDefaults()
			if err := withLimits(cmd, r.bash, lim); err == nil {
				x.sb.Limits = &lim
				x.sb.Isolation = append(x.sb.Isolation, "rlimits")
			}
		}
	}
	x.start = time.Now()
	if err := startCmd(); err != nil {
		abandon()
		x.unconfine()
		return nil, nil, err
	}
	pw.Close()
	x.pgid = cmd.Process.Pid
	x.out = Outcome{PID: x.pgid, Sandbox: x.sb}
	var sw io.Writer
	if x.spill != nil {
		sw = x.spill
	}
	x.col = newCollector(spec.View, spec.CaptureCap, sw)
	x.col.stream = spec.Stream
	x.grace, x.confirm = spec.Grace, r.ConfirmWait
	if x.grace <= 0 {
		x.grace = 2 * time.Second
	}
	if x.confirm <= 0 {
		x.confirm = 2 * time.Second
	}
	if spec.Timeout > 0 {
		x.deadline = x.start.Add(spec.Timeout)
	}
	return x, func() {
		x.col.release()
		x.unconfine()
		if x.dir != nil {
			x.dir.Close()
		}
	}, nil
}

// unconfine undoes, once, what the command did to protected paths (the
// command and everything it started are gone by now).
func (x *running) unconfine() {
	if x.undo != nil {
		x.undone = x.undo()
		x.undo = nil
	}
}

// limitScript sets the resource limits (hard and soft) in a bash that
// then becomes the command's shell; $1.. are the shell and its arguments.
const limitScript = `ulimit -S -H -u "$SHELLGATE_LIMIT_PROCS" -d "$SHELLGATE_LIMIT_DATA" -f "$SHELLGATE_LIMIT_FSIZE" || { echo "shellgate: the sandbox's resource limits could not be set" >&2; exit 126; }; unset SHELLGATE_LIMIT_PROCS SHELLGATE_LIMIT_DATA SHELLGATE_LIMIT_FSIZE; exec "$@"`

// withLimits makes cmd start through a bash that sets lim first
// (setrlimit is per process, so the gate's own process cannot set them
// for one child): bash -c limitScript shellgate-limits SHELL ARGS...
// RLIMIT_NPROC counts all of the user's processes, so the process limit
// is what the user runs now plus lim.Processes.
func withLimits(cmd *exec.Cmd, bash string, lim ResourceLimits) error {
	if bash == "" {
		return errors.New("no bash")
	}
	val := func(v int64, unit int64) string {
		if v < 0 {
			return "unlimited"
		}
		return strconv.FormatInt(v*unit, 10)
	}
	procs := "unlimited"
	if n := userProcesses(); lim.Processes >= 0 && n >= 0 {
		procs = strconv.Itoa(n + lim.Processes)
	}
	cmd.Args = append([]string{"shellgate-limits", "-c", limitScript, "shellgate-limits", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = bash
	cmd.Env = append(cmd.Env,
		"SHELLGATE_LIMIT_PROCS="+procs,
		"SHELLGATE_LIMIT_DATA="+val(lim.MemoryMB, 1024),    // KiB
		"SHELLGATE_LIMIT_FSIZE="+val(lim.FileSizeMB, 1024), // 1024-byte blocks
	)
	return nil
}

// stop stops the process group for why.
func (x *running) stop(why Stop) {
	x.out.Stopped = why
	killed, ok := stopGroup(x.pgid, x.grace, x.confirm, x.r.Subreaper)
	if killed {
		x.notes = append(x.notes, NoteKilled)
	}
	if !ok {
		x.notes = append(x.notes, NoteUnconfirmedStop)
	}
}

// stopLeftovers stops what the shell started and left running once it
// is gone.
func (x *running) stopLeftovers() {
	if groupAlive(x.pgid, x.r.Subreaper) {
		x.notes = append(x.notes, NoteBackgroundStopped)
		if _, ok := stopGroup(x.pgid, x.grace, x.confirm, x.r.Subreaper); !ok {
			x.notes = append(x.notes, NoteUnconfirmedStop)
		}
	}
}

// read reads the merged output until every writer is gone, with a read
// deadline that wakes it for the timeout, for a cancelled ctx (AfterFunc)
// and every pollEvery to see whether the shell ended while something else
// holds the pipe. A trivial command costs no extra goroutine.
func (x *running) read(ctx context.Context) {
	pr := x.pr
	defer pr.Close()
	wake := context.AfterFunc(ctx, func() { _ = pr.SetReadDeadline(time.Now()) })
	defer wake()
	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	buf := *bp
	var drainUntil time.Time // set once nothing more is waited for but the pipe
	for {
		next := time.Now().Add(pollEvery)
		if !x.deadline.IsZero() && x.out.Stopped == StopNone && x.deadline.Before(next) {
			next = x.deadline
		}
		if !drainUntil.IsZero() && drainUntil.Before(next) {
			next = drainUntil
		}
		_ = pr.SetReadDeadline(next)
		n, err := pr.Read(buf)
		if n > 0 && !x.col.write(buf[:n]) && x.out.Stopped == StopNone {
			x.stop(StopOutputCap) // the reading goes on, to drain the pipe
			drainUntil = time.Now().Add(x.grace)
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return // EOF: every writer is gone
		}
		if !x.woken(ctx, &drainUntil) {
			return
		}
	}
}

// woken handles a read deadline: it stops the group for a cancelled ctx
// or the timeout, notices the shell's end, and says whether to go on
// reading (false once the drain after a stop or the shell's end is over).
func (x *running) woken(ctx context.Context, drainUntil *time.Time) bool {
	now := time.Now()
	switch {
	case !drainUntil.IsZero() && !now.Before(*drainUntil):
		// Something outside the group holds the pipe.
		x.notes = append(x.notes, NoteOutputIncomplete)
		return false
	case x.out.Stopped == StopNone && ctx.Err() != nil:
		x.stop(StopAborted)
		*drainUntil = time.Now().Add(x.grace)
	case x.out.Stopped == StopNone && !x.deadline.IsZero() && !now.Before(x.deadline):
		x.stop(StopTimeout)
		*drainUntil = time.Now().Add(x.grace)
	case drainUntil.IsZero() && exitedNoReap(x.pgid):
		x.shellGone = true
		if x.out.Stopped == StopNone {
			x.stopLeftovers()
		}
		*drainUntil = time.Now().Add(x.grace)
	}
	return true
}

// wait waits for the shell once its output is closed: it may still run
// (it closed its output, or ignored a stop), so under the same limits.
func (x *running) wait(ctx context.Context) {
	var waitErr error
	if x.shellGone || exitedNoReap(x.pgid) {
		waitErr = x.cmd.Wait()
	} else {
		exited := make(chan struct{})
		go func() {
			waitErr = x.cmd.Wait()
			close(exited)
		}()
		var timer <-chan time.Time
		if !x.deadline.IsZero() && x.out.Stopped == StopNone {
			t := time.NewTimer(time.Until(x.deadline))
			defer t.Stop()
			timer = t.C
		}
		select {
		case <-exited:
		case <-timer:
			x.stop(StopTimeout)
		case <-ctx.Done():
			if x.out.Stopped == StopNone {
				x.stop(StopAborted)
			}
		}
		<-exited
	}
	if x.out.Stopped == StopNone && !x.shellGone {
		x.stopLeftovers()
	}
	x.out.Duration = time.Since(x.start)
	x.waitErr = waitErr
}

// outcome is the run's outcome once the shell was waited for: the
// output's view (and its spill file), the exit status, the notes and
// what the sandbox refused.
func (x *running) outcome() Outcome {
	out := x.out
	out.Output = x.col.finish()
	if x.col.capHit && out.Stopped == StopNone {
		out.Stopped = StopOutputCap
	}
	if x.spill != nil {
		if !x.col.spillOK {
			x.notes = append(x.notes, NoteSpillFailed)
		}
		x.spill.Close()
		if out.Output.Truncated() && x.col.spillOK {
			out.Output.SpillPath = x.spill.Name()
		} else {
			os.Remove(x.spill.Name())
		}
	}
	out.ExitCode = -1
	if st := x.cmd.ProcessState; st != nil {
		out.ExitCode = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			out.Signal = signalName(ws.Signal())
		}
	} else if x.waitErr != nil && !errors.Is(x.waitErr, os.ErrProcessDone) {
		x.notes = append(x.notes, "wait: "+x.waitErr.Error())
	}
	out.Notes = x.notes
	if x.dir != nil {
		out.FinalDir = readDirReport(x.dir)
		x.dir.Close()
	}
	if x.sb != nil {
		// What the guard undid is certain: it comes first.
		x.sb.Denied = append([]SandboxDenial(nil), x.undone...)
		for _, d := range detectDenials(&out.Output, x.sets, x.spec.Dir) {
			if d.Op == "memory" && slices.ContainsFunc(x.sb.Denied, func(s SandboxDenial) bool { return s.Op == "memory" }) {
				continue // the filter recorded it already
			}
			if len(x.sb.Denied) < maxDenials {
				x.sb.Denied = append(x.sb.Denied, d)
			}
		}
		var protectedOf func(string) string
		if x.sets != nil {
			protectedOf = x.sets.protectedOf
		}
		addMarkers(&out.Output, x.sb.Denied, x.sb.Mode, protectedOf)
	}
	return out
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
