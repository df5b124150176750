package gate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/policy"
)

func newGate(t *testing.T, dir string, opts ...Option) *Gate {
	t.Helper()
	g, err := New(append([]Option{WithCwd(dir), WithRunner(testRunner)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func approve(ok bool) Approver {
	return ApproverFunc(func(context.Context, *Decision) (bool, error) { return ok, nil })
}

// conflictModule makes every evaluation fail: a complete rule with two
// values is an evaluation error in OPA.
const conflictModule = `package shellgate

boom := 1 if { input.command }
boom := 2 if { input.command }

ask contains {"code": "boom", "message": "boom", "segment": -1} if { boom == 1 }
`

// TestNeverRunsUnlessAllowedOrApproved proves with a marker file that a
// command the policy did not allow, or a person did not approve, or that
// changed since the check, never starts.
func TestNeverRunsUnlessAllowedOrApproved(t *testing.T) {
	tests := []struct {
		name     string
		cmd      string // MARKER is replaced by the marker's path
		mode     string
		approver func(dir string) Approver
		opts     []Option
		wantCode Code
		wantRan  bool
	}{
		{name: "deny", cmd: "touch MARKER; rm -rf /", wantCode: CodeDenied},
		{name: "deny in readonly mode", cmd: "touch MARKER", mode: policy.ModeReadonly, approver: func(string) Approver { return approve(true) }, wantCode: CodeDenied},
		{name: "ask without approver", cmd: "touch MARKER", wantCode: CodeNotApproved},
		{name: "ask refused", cmd: "touch MARKER", approver: func(string) Approver { return approve(false) }, wantCode: CodeNotApproved},
		{name: "approver error", cmd: "touch MARKER", approver: func(string) Approver {
			return ApproverFunc(func(context.Context, *Decision) (bool, error) { return true, errors.New("no terminal") })
		}, wantCode: CodeNotApproved},
		{name: "approver panics", cmd: "touch MARKER", approver: func(string) Approver {
			return ApproverFunc(func(context.Context, *Decision) (bool, error) { panic("approver bug") })
		}, wantCode: CodeNotApproved},
		{name: "changed since check", cmd: "cat data.txt && touch MARKER", approver: func(dir string) Approver {
			return ApproverFunc(func(context.Context, *Decision) (bool, error) {
				// While the person looks, data.txt becomes a link to a secret.
				p := filepath.Join(dir, "data.txt")
				if err := os.Remove(p); err != nil {
					return false, err
				}
				return true, os.Symlink("/etc/shadow", p)
			})
		}, wantCode: CodeChangedSinceCheck},
		{name: "policy error", cmd: "touch MARKER", approver: func(string) Approver { return approve(true) },
			opts: []Option{WithPolicyModules(map[string]string{"conflict.rego": conflictModule})}, wantCode: CodeDenied},
		{name: "bad mode", cmd: "touch MARKER", mode: "yolo", approver: func(string) Approver { return approve(true) }, wantCode: CodeInvalidInput},
		// The positive control: the same marker appears when approved.
		{name: "approved runs", cmd: "touch MARKER", approver: func(string) Approver { return approve(true) }, wantRan: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("data\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(dir, "MARKER")
			g := newGate(t, dir, tt.opts...)
			req := Request{Command: strings.ReplaceAll(tt.cmd, "MARKER", marker), Mode: tt.mode}
			if tt.approver != nil {
				req.Approver = tt.approver(dir)
			}
			res := g.Run(context.Background(), req)
			_, statErr := os.Stat(marker)
			ran := statErr == nil
			if ran != tt.wantRan || res.Ran() != tt.wantRan {
				t.Fatalf("marker exists = %v, Ran = %v, want %v; result:\n%s", ran, res.Ran(), tt.wantRan, res.Text())
			}
			if tt.wantRan {
				if res.Status != StatusOK || !res.Approved {
					t.Errorf("status %s approved %v, want ok and approved", res.Status, res.Approved)
				}
				return
			}
			if res.Status != StatusError || res.Code != tt.wantCode {
				t.Errorf("status %s code %s, want error %s; %s", res.Status, res.Code, tt.wantCode, res.StatusLine())
			}
			if tt.name == "policy error" && !slices.Contains(res.Decision.Codes(), policy.PolicyError) {
				t.Errorf("codes %v, want %s", res.Decision.Codes(), policy.PolicyError)
			}
		})
	}
}

func TestRunResultStatuses(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "afile"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The timeout case runs under a 0.3 s clamp; the others get a minute,
	// since a loaded machine can take longer than 0.3 s to run grep.
	short := newGate(t, dir, WithLimits(Limits{MaxTimeout: 300 * time.Millisecond, Grace: 200 * time.Millisecond}))
	long := newGate(t, dir, WithLimits(Limits{MaxTimeout: time.Minute, Grace: 200 * time.Millisecond}))
	tests := []struct {
		req        Request
		status     Status
		code       Code
		statusLine string // prefix; the duration is cut out
		notes      []string
	}{
		{req: Request{Command: "grep -n beta f.txt"}, status: StatusOK, statusLine: "Exit code 0 · "},
		{req: Request{Command: "grep -n 'gamma;delta' f.txt"}, status: StatusFailed, statusLine: "Exit code 1 · — No matches found"},
		{req: Request{Command: "grep -n x missing.txt"}, status: StatusFailed, statusLine: "Exit code 2 · — grep reported an error"},
		{req: Request{Command: "sleep 5", TimeoutMS: 5000}, status: StatusTimeout, notes: []string{execution.NoteClamped}, statusLine: "Timed out · — timed out after 0.3 s; the process group was stopped"},
		{req: Request{Command: "echo hi", Cwd: "afile"}, status: StatusError, code: CodeCwdNotADirectory},
		{req: Request{Command: "echo hi", Cwd: "nope"}, status: StatusError, code: CodeCwdNotFound},
		{req: Request{Command: "echo hi", Cwd: "/nonexistent/dir"}, status: StatusError, code: CodeCwdNotFound},
		{req: Request{Command: "  "}, status: StatusError, code: CodeInvalidInput},
		{req: Request{Command: "echo \x00"}, status: StatusError, code: CodeInvalidInput},
		{req: Request{Command: "echo \xff"}, status: StatusError, code: CodeInvalidInput},
		{req: Request{Command: "echo hi", TimeoutMS: -1}, status: StatusError, code: CodeInvalidInput},
		{req: Request{Command: strings.Repeat("a", MaxCommandBytes+1)}, status: StatusError, code: CodeInvalidInput},
	}
	for _, tt := range tests {
		g := long
		if tt.status == StatusTimeout {
			g = short
		}
		res := g.Run(context.Background(), tt.req)
		if res.Status != tt.status || res.Code != tt.code {
			t.Errorf("%.40q: status %s code %s, want %s %s\n%s", tt.req.Command, res.Status, res.Code, tt.status, tt.code, res.Text())
			continue
		}
		if tt.statusLine != "" {
			line := res.StatusLine()
			if res.Run != nil {
				line = strings.Replace(line, fmtDuration(res.Run.Duration), "", 1)
				line = strings.Replace(line, " ·  — ", " · — ", 1)
			}
			if !strings.HasPrefix(line, tt.statusLine) {
				t.Errorf("%q: status line %q, want prefix %q", tt.req.Command, line, tt.statusLine)
			}
		}
		if diff := cmp.Diff(tt.notes, res.Notes); diff != "" {
			t.Errorf("%q notes (-want +got):\n%s", tt.req.Command, diff)
		}
	}
}

func TestRunTextExitCodeFirst(t *testing.T) {
	dir := t.TempDir()
	g := newGate(t, dir)
	res := g.Run(context.Background(), Request{Command: "ls nothing-here"})
	text := res.Text()
	if !strings.HasPrefix(text, "Exit code 2 · ") || !strings.Contains(text, "\nls: cannot access 'nothing-here'") {
		t.Errorf("Text:\n%s", text)
	}
	if res.Run.Cwd != dir || res.Run.ExitCode != 2 || res.Meaning == nil || !res.Meaning.Error {
		t.Errorf("run %+v meaning %+v", res.Run, res.Meaning)
	}
}

func TestRunAborted(t *testing.T) {
	dir := t.TempDir()
	g := newGate(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := g.Run(ctx, Request{Command: "echo hi"})
	if res.Status != StatusError || res.Code != CodeAborted || res.Ran() {
		t.Errorf("cancelled before: %s", res.StatusLine())
	}
	// Cancel once the command is seen running.
	started := filepath.Join(dir, "started")
	res = g.Run(cancelOnceExists(t, started), Request{Command: "touch " + started + "; sleep 30", Approver: approve(true)})
	if res.Status != StatusError || res.Code != CodeAborted || !res.Ran() {
		t.Errorf("cancelled while running: %s", res.StatusLine())
	}
}

func TestRunOutputCapCode(t *testing.T) {
	g := newGate(t, t.TempDir(), WithLimits(Limits{CaptureCap: 1 << 20}))
	res := g.Run(context.Background(), Request{Command: "yes", Approver: approve(true)})
	if res.Status != StatusError || res.Code != CodeOutputCap || res.Output == nil || res.Output.TotalBytes != 1<<20 {
		t.Fatalf("%s", res.Text())
	}
}

func TestCheckConcurrent(t *testing.T) {
	dir := t.TempDir()
	g := newGate(t, dir)
	cmds := map[string]policy.Action{
		"ls -la":                        policy.Allow,
		"grep -rn foo . | head":         policy.Allow,
		"rm -rf /":                      policy.Deny,
		"touch " + dir + "/x":           policy.Ask,
		"cat ~/.ssh/id_rsa":             policy.Deny,
		"git status && git log -n 3":    policy.Allow,
		"curl -s https://example.com/x": policy.Ask,
	}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c, want := range cmds {
				d, err := g.Check(context.Background(), Request{Command: c})
				if err != nil {
					errs <- c + ": " + err.Error()
					continue
				}
				if d.Action != want {
					errs <- c + ": " + string(d.Action) + " want " + string(want) + " " + strings.Join(d.Codes(), ",")
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	seen := map[string]bool{}
	for e := range errs {
		if !seen[e] {
			seen[e] = true
			t.Error(e)
		}
	}
}

// TestNewRejectsBadDenyRow: the gate checks its boundary (the one
// constructor, policy.Config.Boundary) once, when it is built.
func TestNewRejectsBadDenyRow(t *testing.T) {
	dir := t.TempDir()
	if _, err := New(WithCwd(dir), WithConfig(&policy.Config{DenyReads: []string{"!negated"}})); err == nil {
		t.Error("New accepted a deny row that does not compile")
	}
}

func TestRunKilledBySignal(t *testing.T) {
	g := newGate(t, t.TempDir())
	res := g.Run(context.Background(), Request{Command: "kill -KILL $$", Approver: approve(true)})
	if res.Status != StatusFailed || res.Run.ExitCode != -1 || res.Run.Signal != "SIGKILL" || res.Run.ShellStatus() != 137 {
		t.Fatalf("%+v\n%s", res.Run, res.Text())
	}
	if !strings.HasPrefix(res.StatusLine(), "Killed by SIGKILL · ") || !strings.HasSuffix(res.StatusLine(), " — Killed by signal SIGKILL (9)") {
		t.Errorf("status line %q", res.StatusLine())
	}
}

// TestPanicInsideCheckDenies: a bug that panics while classifying, judging
// or deciding must neither crash a long-lived caller nor let the command
// run; it is a deny with code internal-error, and the gate keeps working.
func TestPanicInsideCheckDenies(t *testing.T) {
	dir := t.TempDir()
	g := newGate(t, dir)
	marker := filepath.Join(dir, "ran")
	old := checkHook
	checkHook = func() { panic("boom in the classifier") }
	res := g.Run(context.Background(), Request{Command: "touch " + marker, Approver: approve(true)})
	checkHook = old

	if res.Code != CodeDenied || res.Decision == nil {
		t.Fatalf("a panic inside Check gave status %s, code %s; want the DENIED error with its decision", res.Status, res.Code)
	}
	if got := res.Decision.Codes(); !slices.Equal(got, []string{policy.InternalError}) {
		t.Errorf("reasons %v; want [%s]", got, policy.InternalError)
	}
	if msg := res.Decision.Reasons[0].Message; !strings.Contains(msg, "boom in the classifier") {
		t.Errorf("the reason %q does not say what failed", msg)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran after a panic inside Check")
	}
	// The gate still decides the next request normally.
	d, err := g.Check(context.Background(), Request{Command: "ls"})
	if err != nil || d.Action != policy.Allow {
		t.Errorf("after the panic, ls gave %v, %v; want allow", d, err)
	}
}

// TestWriteRetargetedWhileApproving: the writes are judged again right
// before the spawn. A directory the command writes into, replaced by a
// symlink to somewhere outside the roots while a person approves, stops
// the run; left alone, the same approval runs the command.
func TestWriteRetargetedWhileApproving(t *testing.T) {
	for _, swap := range []bool{false, true} {
		t.Run(map[bool]string{false: "unchanged", true: "swapped"}[swap], func(t *testing.T) {
			base := t.TempDir()
			if r, err := filepath.EvalSymlinks(base); err == nil {
				base = r
			}
			ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
			for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(ws, "out"), outside} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			g := newGate(t, ws)
			approver := ApproverFunc(func(context.Context, *Decision) (bool, error) {
				if swap {
					if err := os.Remove(filepath.Join(ws, "out")); err != nil {
						return false, err
					}
					if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
						return false, err
					}
				}
				return true, nil
			})
			res := g.Run(context.Background(), Request{Command: "echo hi > out/f.txt", Approver: approver})
			_, errOutside := os.Stat(filepath.Join(outside, "f.txt"))
			if !swap {
				if res.Status != StatusOK {
					t.Fatalf("unchanged: status %s, code %s, decision %v; want ok", res.Status, res.Code, res.Decision.Codes())
				}
				return
			}
			if res.Code != CodeChangedSinceCheck {
				t.Errorf("swapped: status %s, code %s; want %s", res.Status, res.Code, CodeChangedSinceCheck)
			}
			if errOutside == nil {
				t.Error("swapped: the write landed outside the roots")
			}
		})
	}
}
