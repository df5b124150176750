package gate

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/exitmeaning"
	"github.com/shellgate/shellgate/policy"
)

// Result is the outcome of Gate.Run.
type Result struct {
	// Status is ok, failed (ran, exited non-zero), timeout or error.
	Status Status `json:"status"`
	// Code says why, for status error.
	Code Code `json:"code,omitempty"`
	// Message says what happened, for a person, when it was not a plain
	// exit.
	Message string `json:"message,omitempty"`
	// Command is the command as requested.
	Command string `json:"command"`
	// Decision is the policy's decision; nil when the request stopped
	// before it (bad input, bad cwd).
	Decision *Decision `json:"decision,omitempty"`
	// Approved is set when a person approved an ask.
	Approved bool `json:"approved,omitempty"`
	// Run describes the run; nil when nothing ran.
	Run *RunInfo `json:"run,omitempty"`
	// Output is the bounded output view; nil when nothing ran.
	Output *execution.Output `json:"output,omitempty"`
	// Notes are the Note* values that apply ("clamped", ...).
	Notes []string `json:"notes,omitempty"`
	// Meaning is what the exit status means; nil unless the command ran
	// to its own end.
	Meaning *exitmeaning.Meaning `json:"meaning,omitempty"`
	// Sandbox is the confinement the command ran under (mode, mechanism,
	// Landlock ABI, network, the operations it refused), or why it was
	// not confined; nil when the request stopped before a run was set up.
	Sandbox *execution.SandboxInfo `json:"sandbox,omitempty"`
	// JobID names the background job a Gate.Start started (status
	// running).
	JobID string `json:"job_id,omitempty"`
}

// RunInfo describes a command that ran.
type RunInfo struct {
	Command string `json:"command"`
	Cwd     string `json:"cwd"`
	// ExitCode is the exit status, -1 when the shell was killed by a signal.
	ExitCode int `json:"exit_code"`
	// Signal names the signal that killed the shell.
	Signal string `json:"signal,omitempty"`
	// Duration is how long it ran (JSON: duration_ms).
	Duration time.Duration `json:"-"`
	// TimeoutMS is the timeout in force.
	TimeoutMS int64 `json:"timeout_ms"`
	// FinalDir is the directory the shell ended in, when the request
	// asked for it (Request.ReportDir) and the shell reported one; the
	// command could have written it itself, so a caller judges it before
	// running anything there.
	FinalDir string `json:"final_cwd,omitempty"`

	pid int // the shell's pid, its process group id
}

// ShellStatus is the status a shell would report: the exit code, or
// 128+N when signal N killed the command; -1 when neither is known.
func (r *RunInfo) ShellStatus() int {
	if r.ExitCode >= 0 {
		return r.ExitCode
	}
	if n := unix.SignalNum(r.Signal); n > 0 {
		return 128 + int(n)
	}
	return -1
}

// MarshalJSON writes the duration in milliseconds.
func (r RunInfo) MarshalJSON() ([]byte, error) {
	type plain RunInfo
	return json.Marshal(struct {
		plain
		DurationMS float64 `json:"duration_ms"`
	}{plain(r), float64(r.Duration.Microseconds()) / 1000})
}

func (r Result) fail(c Code, msg string) Result {
	r.Status = StatusError
	r.Code = c
	r.Message = msg
	return r
}

// Ran reports whether the command was started.
func (r Result) Ran() bool { return r.Run != nil }

// StatusLine is the first line of Text: the exit code first for a command
// that ran ("Exit code 1 · 0.4 s — No matches found"), else the refusal
// or error.
func (r Result) StatusLine() string {
	switch {
	case r.Status == StatusRunning:
		return "Running in the background as " + r.JobID
	case r.Status == StatusTimeout && r.Run != nil:
		return fmt.Sprintf("Timed out · %s — %s", fmtDuration(r.Run.Duration), r.Message)
	case r.Status == StatusError && r.Run != nil:
		return fmt.Sprintf("Stopped (%s) · %s — %s", r.Code, fmtDuration(r.Run.Duration), r.Message)
	case r.Status == StatusError:
		s := fmt.Sprintf("Not run (%s) — %s", r.Code, r.Message)
		if r.Decision != nil && (r.Code == CodeDenied || r.Code == CodeNotApproved) && len(r.Decision.Reasons) > 0 {
			s += ": " + reasonsText(r.Decision.Reasons)
		}
		return s
	case r.Run != nil:
		code := fmt.Sprintf("Exit code %d", r.Run.ExitCode)
		if r.Run.ExitCode < 0 && r.Run.Signal != "" {
			code = "Killed by " + r.Run.Signal
		}
		s := code + " · " + fmtDuration(r.Run.Duration)
		if r.Meaning != nil && r.Meaning.Message != "" {
			s += " — " + r.Meaning.Message
		}
		return s
	}
	return string(r.Status)
}

func reasonsText(rs []policy.Reason) string {
	parts := make([]string, 0, len(rs))
	for _, x := range rs {
		parts = append(parts, x.Code+" ("+x.Message+")")
	}
	return strings.Join(parts, "; ")
}

// Text is the result for a model or a person: the status line, the notes,
// then the output view.
func (r Result) Text() string {
	var b strings.Builder
	b.WriteString(r.StatusLine())
	b.WriteByte('\n')
	if len(r.Notes) > 0 {
		b.WriteString("Notes: " + strings.Join(r.Notes, ", ") + "\n")
	}
	if r.Output != nil {
		s := r.Output.String()
		b.WriteString(s)
		if s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// fmtDuration formats a duration for the status line: "0.4 s", "12 ms",
// "2 min 5 s".
func fmtDuration(d time.Duration) string {
	switch {
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	return fmt.Sprintf("%d min %d s", int(d.Minutes()), int(d.Seconds())%60)
}
