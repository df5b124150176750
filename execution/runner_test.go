package execution

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testRunner reaps orphans, so that "no process of the group remains" can
// be checked with kill(-pgid, 0) even under an init that does not reap.
var testRunner = &BashRunner{Subreaper: true}

func runSpec(t *testing.T, ctx context.Context, s Spec) Outcome {
	t.Helper()
	if s.Dir == "" {
		s.Dir = t.TempDir()
	}
	if s.Env == nil {
		s.Env = BuildEnv(os.Environ(), nil, nil)
	}
	out, err := testRunner.Run(ctx, s)
	if err != nil {
		t.Fatalf("Run(%q): %v", s.Command, err)
	}
	return out
}

// assertGroupGone checks with kill(-pgid, 0) that no process of the
// command's group is left.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if pgid <= 0 {
		t.Fatalf("no pid")
	}
	if err := syscall.Kill(-pgid, 0); err != syscall.ESRCH {
		t.Errorf("kill(-%d, 0) = %v, want ESRCH: a process of the group remains", pgid, err)
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

func TestRunMergedOutputAndExit(t *testing.T) {
	out := runSpec(t, context.Background(), Spec{Command: "echo out; echo err >&2; echo out2; exit 3"})
	if diff := cmp.Diff("out\nerr\nout2\n", out.Output.Head); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if out.ExitCode != 3 || out.Stopped != StopNone || out.Signal != "" {
		t.Errorf("outcome = %+v, want exit 3, not stopped", out)
	}
	if out.Output.TotalLines != 3 || out.Output.TotalBytes != 13 {
		t.Errorf("totals = %d lines %d bytes, want 3 and 13", out.Output.TotalLines, out.Output.TotalBytes)
	}
	assertGroupGone(t, out.PID)
}

func TestRunStdinIsClosed(t *testing.T) {
	out := runSpec(t, context.Background(), Spec{Command: "cat; echo rc=$?", Timeout: 5 * time.Second})
	if out.Output.Head != "rc=0\n" || out.Stopped != StopNone {
		t.Errorf("cat with closed stdin: %+v", out)
	}
}

func TestRunTimeoutStopsWholeTree(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "grandchild-survived")
	// A background grandchild (in a subshell, so it is orphaned when the
	// shell dies) that would leave a marker, and a sleeping shell.
	cmd := "(sleep 2; touch " + marker + ") & sleep 60"
	start := time.Now()
	out := runSpec(t, context.Background(), Spec{Command: cmd, Dir: dir, Timeout: 300 * time.Millisecond, Grace: 500 * time.Millisecond})
	if out.Stopped != StopTimeout {
		t.Errorf("Stopped = %q, want timeout", out.Stopped)
	}
	if d := time.Since(start); d > 30*time.Second { // not the 60 s of the sleep
		t.Errorf("took %v", d)
	}
	assertGroupGone(t, out.PID)
	time.Sleep(2500 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the grandchild survived the timeout and wrote %s", marker)
	}
}

func TestRunTrappedTermEndsByKill(t *testing.T) {
	// The timeout leaves bash ample time to set the trap first, even on a
	// loaded machine.
	out := runSpec(t, context.Background(), Spec{
		Command: "trap '' TERM; sleep 60 & sleep 60",
		Timeout: 5 * time.Second, Grace: 300 * time.Millisecond,
	})
	if out.Stopped != StopTimeout || out.Signal != "SIGKILL" || !slices.Contains(out.Notes, NoteKilled) {
		t.Errorf("outcome = %+v, want timeout, SIGKILL, note killed", out)
	}
	if slices.Contains(out.Notes, NoteUnconfirmedStop) {
		t.Errorf("notes = %v: the stop was not confirmed", out.Notes)
	}
	assertGroupGone(t, out.PID)
}

// cancelOnceExists returns a context that is cancelled once path exists
// (the command under test made it: it is running), or when the test ends.
func cancelOnceExists(t *testing.T, path string) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for {
			if _, err := os.Stat(path); err == nil {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	return ctx
}

func TestRunContextCancelStopsTree(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	ctx := cancelOnceExists(t, started)
	out := runSpec(t, ctx, Spec{Command: "sleep 60 & sleep 60 & touch started; wait", Dir: dir, Grace: time.Second})
	if out.Stopped != StopAborted {
		t.Errorf("Stopped = %q, want aborted", out.Stopped)
	}
	assertGroupGone(t, out.PID)
}

func TestRunBackgroundLeftoverStopped(t *testing.T) {
	for _, cmd := range []string{
		"sleep 60 >/dev/null 2>&1 & echo started", // the pipe closes with the shell
		"sleep 60 & echo started",                 // the leftover holds the pipe
	} {
		start := time.Now()
		out := runSpec(t, context.Background(), Spec{Command: cmd, Grace: time.Second})
		if out.ExitCode != 0 || out.Output.Head != "started\n" || !slices.Contains(out.Notes, NoteBackgroundStopped) || out.Stopped != StopNone {
			t.Errorf("%q: outcome = %+v, want exit 0, the output and note %s", cmd, out, NoteBackgroundStopped)
		}
		if d := time.Since(start); d > 30*time.Second { // not the 60 s of the sleep
			t.Errorf("%q took %v", cmd, d)
		}
		assertGroupGone(t, out.PID)
	}
}

func TestRunOutputCapBoundedMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out := runSpec(t, context.Background(), Spec{Command: "yes", CaptureCap: 10 << 20, Timeout: 60 * time.Second})
	runtime.ReadMemStats(&after)
	if out.Stopped != StopOutputCap {
		t.Fatalf("Stopped = %q, want output-cap", out.Stopped)
	}
	if out.Output.TotalBytes != 10<<20 {
		t.Errorf("TotalBytes = %d, want exactly the cap %d", out.Output.TotalBytes, 10<<20)
	}
	if n := len(out.Output.Head) + len(out.Output.Tail); n > DefaultViewLimits.MaxBytes {
		t.Errorf("view holds %d bytes, over %d", n, DefaultViewLimits.MaxBytes)
	}
	// 10 MiB went through; what was allocated must not grow with it.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("allocated %d bytes while reading 10 MiB", alloc)
	}
	assertGroupGone(t, out.PID)
}

func TestRunHugeLineWithoutNewline(t *testing.T) {
	out := runSpec(t, context.Background(), Spec{Command: "head -c 5000000 /dev/zero | tr '\\0' a"})
	o := out.Output
	if o.TotalBytes != 5000000 || o.TotalLines != 1 {
		t.Fatalf("totals = %d bytes %d lines", o.TotalBytes, o.TotalLines)
	}
	if len(o.Head) != 6000 || len(o.Tail) != 24000 || o.OmittedBytes != 5000000-30000 || o.OmittedLines != 0 {
		t.Errorf("head %d tail %d omitted %d/%d", len(o.Head), len(o.Tail), o.OmittedBytes, o.OmittedLines)
	}
	if strings.Trim(o.Head+o.Tail, "a") != "" {
		t.Errorf("view holds something other than the line")
	}
}

func TestRunBinaryOutput(t *testing.T) {
	out := runSpec(t, context.Background(), Spec{Command: `printf 'a\000b\377\376c\033[31mred\033[0m\033]0;title\007\r\nz'; head -c 65536 /dev/urandom >/dev/null`})
	want := "a\uFFFDb\uFFFD\uFFFDcred\nz"
	if diff := cmp.Diff(want, out.Output.Head); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	out = runSpec(t, context.Background(), Spec{Command: "head -c 200000 /dev/urandom"})
	if !strings.ContainsRune(out.Output.Head, '\uFFFD') || !utf8Valid(out.Output.Head+out.Output.Tail) {
		t.Errorf("random bytes were not decoded with replacement")
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestRunSpill(t *testing.T) {
	spill := t.TempDir()
	out := runSpec(t, context.Background(), Spec{Command: "seq 1 100000", SpillDir: spill})
	o := out.Output
	if o.SpillPath == "" {
		t.Fatalf("no spill path: %+v", o.OmissionLine())
	}
	b, err := os.ReadFile(o.SpillPath)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) != o.TotalBytes || !bytes.HasSuffix(b, []byte("\n99999\n100000\n")) {
		t.Errorf("spill file has %d bytes, want %d", len(b), o.TotalBytes)
	}
	if o.TotalLines != 100000 || !strings.HasPrefix(o.Head, "1\n2\n") || !strings.HasSuffix(o.Tail, "100000\n") {
		t.Errorf("view: %d lines head %.10q tail ...%q", o.TotalLines, o.Head, o.Tail[len(o.Tail)-8:])
	}
	if !strings.Contains(o.String(), "left out; full output: "+o.SpillPath) {
		t.Errorf("omission line: %q", o.OmissionLine())
	}
	// A small output leaves no spill file behind.
	out = runSpec(t, context.Background(), Spec{Command: "echo hi", SpillDir: spill})
	if out.Output.SpillPath != "" {
		t.Errorf("spill path for a small output: %q", out.Output.SpillPath)
	}
	if ents, _ := os.ReadDir(spill); len(ents) != 1 {
		t.Errorf("spill dir has %d files, want 1", len(ents))
	}
}

func TestRunSpawnFailed(t *testing.T) {
	r := &BashRunner{}
	_, err := r.Run(context.Background(), Spec{Command: "true", Dir: filepath.Join(t.TempDir(), "missing")})
	if err == nil {
		t.Fatal("no error for a missing directory")
	}
	_, err = (&BashRunner{Bash: "/nonexistent/bash"}).Run(context.Background(), Spec{Command: "true", Dir: t.TempDir()})
	if err == nil {
		t.Fatal("no error for a missing shell")
	}
}

// A process that leaves the group (setsid) cannot be stopped with it; if
// it holds the output pipe, the runner stops reading after the grace and
// says so instead of waiting for it.
func TestRunEscapedProcessHoldsPipe(t *testing.T) {
	start := time.Now()
	out := runSpec(t, context.Background(), Spec{Command: "setsid sleep 30 & echo started", Grace: 300 * time.Millisecond})
	if d := time.Since(start); d > 20*time.Second { // not the 30 s of the sleep
		t.Errorf("waited %v for a process outside the group", d)
	}
	if out.ExitCode != 0 || out.Output.Head != "started\n" || !slices.Contains(out.Notes, NoteOutputIncomplete) {
		t.Errorf("outcome = %+v, want exit 0, the output, note %s", out, NoteOutputIncomplete)
	}
}

// groupAlive counts live members only: a zombie (exited, not yet reaped)
// is not a process that still runs.
func TestGroupAlive(t *testing.T) {
	cmd := exec.Command("sleep", "1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	if !groupAlive(pgid, false) {
		t.Error("a sleeping group is not alive")
	}
	if waitGone(pgid, 20*time.Millisecond, false) {
		t.Error("waitGone saw a sleeping group end")
	}
	if !waitGone(pgid, 5*time.Second, false) {
		t.Error("the group did not end")
	}
	// sleep has exited and is a zombie until Wait: not alive, but still
	// there for kill(-pgid, 0).
	if err := syscall.Kill(-pgid, 0); err != nil {
		t.Errorf("kill(-pgid, 0) = %v before the zombie was reaped", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if groupAlive(pgid, false) {
		t.Error("a reaped group is alive")
	}
}
