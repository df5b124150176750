package confirm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellgate/shellgate/corpus"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/internal/testenv"
	"github.com/shellgate/shellgate/policy"
)

// listener is the test's 127.0.0.1 server every network trap points at:
// it accepts, records what the client sent first, and hangs up.
type listener struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []string
}

func listen(t *testing.T) *listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &listener{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
				b := make([]byte, 200)
				n, _ := io.ReadAtLeast(c, b, 1)
				first, _, _ := strings.Cut(string(b[:n]), "\r\n")
				l.mu.Lock()
				l.conns = append(l.conns, first)
				l.mu.Unlock()
			}()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return l
}

func (l *listener) addr() string { return l.ln.Addr().String() }

// count returns the number of connections so far and the first line of
// the last one.
func (l *listener) count() (int, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) == 0 {
		return 0, ""
	}
	return len(l.conns), l.conns[len(l.conns)-1]
}

// lookTool finds a program a trap's rows need: on PATH or in the
// SHELLGATE_AGENTS prefix .ci/run installs npm tools into. Missing, the
// row is skipped off CI and fails in CI.
func lookTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err == nil {
		return
	}
	if a := os.Getenv("SHELLGATE_AGENTS"); a != "" {
		if _, err := os.Stat(filepath.Join(a, "node_modules", ".bin", name)); err == nil {
			return
		}
	}
	testenv.Missing(t, "%s is not installed", name)
}

// trapNames are the strings one of which a reason about t must contain.
func trapNames(t Trap) []string {
	if t.Names != nil {
		return t.Names
	}
	var out []string
	for _, f := range t.Files {
		out = append(out, strings.TrimPrefix(strings.TrimPrefix(f, "~/"), "../"))
	}
	return out
}

// decision is what the gate said, or the error that stopped it.
type decision struct {
	action  string
	reasons []string
	err     error
}

func (d decision) String() string {
	if d.err != nil {
		return "error: " + d.err.Error()
	}
	if len(d.reasons) == 0 {
		return d.action
	}
	return d.action + " (" + strings.Join(d.reasons, "; ") + ")"
}

// names reports whether a reason (or the error) names one of names.
func (d decision) names(names []string) bool {
	texts := d.reasons
	if d.err != nil {
		texts = append(texts, d.err.Error())
	}
	for _, r := range texts {
		for _, n := range names {
			if strings.Contains(r, n) {
				return true
			}
		}
	}
	return false
}

// decideIn decides command in w's repository in each mode as shellgate
// check does: the configuration that applies there (a project's
// .shellgate.yaml or the defaults), with the process's environment the
// one the command runs with (the workspace's Env, then env): what the
// program will do depends on it (GOTOOLCHAIN, HOME, SSH_CLIENT). A decision that takes more than 20 s is an error (a FIFO
// must not block it).
func decideIn(t *testing.T, w *Workspace, env []string, command string, modes ...string) []decision {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(w.Home, ".config"))
	for _, e := range append(append([]string{}, w.Env...), env...) {
		if k, v, ok := strings.Cut(e, "="); ok {
			t.Setenv(k, v)
		}
	}
	all := func(d decision) []decision {
		out := make([]decision, len(modes))
		for i := range out {
			out[i] = d
		}
		return out
	}
	done := make(chan []decision, 1)
	go func() {
		cfg, err := policy.LoadConfigFor("", w.Work)
		if err != nil {
			done <- all(decision{err: fmt.Errorf("config: %w", err)})
			return
		}
		g, err := gate.New(gate.WithConfig(cfg), gate.WithCwd(w.Work))
		if err != nil {
			done <- all(decision{err: err})
			return
		}
		var out []decision
		for _, mode := range modes {
			dec, err := g.Check(context.Background(), gate.Request{Command: command, Cwd: w.Work, Mode: mode})
			if err != nil {
				out = append(out, decision{err: err})
				continue
			}
			d := decision{action: string(dec.Action)}
			for _, r := range dec.Reasons {
				d.reasons = append(d.reasons, r.Code+": "+r.Message)
			}
			out = append(out, d)
		}
		done <- out
	}()
	select {
	case d := <-done:
		return d
	case <-time.After(20 * time.Second):
		return all(decision{err: errors.New("the decision did not come within 20 s (blocked on a file?)")})
	}
}

// fired runs command in w under strace and returns the evidence that trap
// t fired, or "" when it left none.
func fired(t *testing.T, strace string, tr Trap, w *Workspace, ln *listener, env []string, command string) (string, error) {
	t.Helper()
	if tr.Fires == FireConfig {
		p := w.Path(".shellgate.yaml")
		if _, err := os.Lstat(p); err != nil {
			return "", nil
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return "", nil
		}
		return ".shellgate.yaml exists and is not a regular file shellgate can read", nil
	}
	before, _ := ln.count()
	_ = os.RemoveAll(w.Markers)
	if err := os.MkdirAll(w.Markers, 0o755); err != nil {
		return "", err
	}
	tmp := filepath.Join(w.Dir, "runs")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return "", err
	}
	o, err := Run(context.Background(), strace, command, w.Work, tmp, env, Limits{Timeout: 60 * time.Second, OutputCap: 1 << 20})
	if err != nil {
		return "", err
	}
	switch tr.Fires {
	case FireMarker:
		if m := w.FiredMarkers(); len(m) > 0 {
			return fmt.Sprintf("%d marker files", len(m)), nil
		}
	case FireNetwork:
		if n, first := ln.count(); n > before {
			return fmt.Sprintf("%d connections to the listener (%q)", n-before, first), nil
		}
		for _, ev := range o.Trace.Events {
			if ev.Kind == KindSocket && ev.Syscall == "connect" && (ev.Family == "AF_INET" || ev.Family == "AF_INET6") {
				return "connect " + ev.Family, nil
			}
		}
	case FireCanary:
		for v, where := range w.Canaries {
			if strings.Contains(string(o.Output), v) {
				return "printed the canary planted in " + where, nil
			}
		}
	}
	return "", nil
}

// rowResult is one (trap, command) row's outcome.
type rowResult struct {
	trap, command string
	failures      []string
	// state is "" for a row the -run filter left out, "skipped" while
	// its tools are looked up (a missing one ends it there), "ran".
	state string
}

// TestHostileTraps is the acceptance table of issue 27: for each trap and
// each command it turns harmful, the command is allowed in a plain
// repository laid out the same, asked in default mode and denied in
// readonly mode in the planted one with a reason that names the planted
// file; and the real program, run in the planted workspace, really falls
// into the trap (a trap that does not fire is a broken row, not a pass).
func TestHostileTraps(t *testing.T) {
	if testing.Short() {
		t.Skip("plants repositories and runs real programs under strace")
	}
	strace := needTool(t, "strace")
	needTool(t, "git")
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "BASH_ENV", "SSH_CLIENT", "GOFLAGS"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	ln := listen(t)
	start := time.Now()
	var rows []*rowResult
	for _, tr := range Traps {
		for i, cmd := range tr.Commands {
			tr, i, cmd := tr, i, cmd
			row := &rowResult{trap: tr.Name, command: cmd}
			rows = append(rows, row)
			t.Run(tr.Name+"/"+cmd, func(t *testing.T) {
				row.state = "skipped"
				for _, tool := range tr.Tools {
					lookTool(t, tool)
				}
				row.state = "ran"
				fail := func(format string, args ...any) {
					msg := fmt.Sprintf(format, args...)
					row.failures = append(row.failures, msg)
					t.Error(msg)
				}
				plainCmd := cmd
				if tr.Plain != nil {
					plainCmd = tr.Plain[i]
				}
				base := t.TempDir()
				mk := func(name string) *Workspace {
					dir := filepath.Join(base, name)
					if err := os.Mkdir(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					w, err := NewPlain(dir, ln.addr())
					if err != nil {
						t.Fatal(err)
					}
					return w
				}
				plain, trapped := mk("plain"), mk("trapped")
				if err := trapped.Plant(tr); err != nil {
					t.Fatal(err)
				}
				if err := trapped.Finish(); err != nil {
					t.Fatal(err)
				}
				envOf := func(w *Workspace) []string {
					var extra []string
					for _, e := range tr.Env {
						extra = append(extra, w.Expand(e))
					}
					return extra
				}
				names := trapNames(tr)

				// The plain repository: allowed, and nothing fires.
				pc := plain.Expand(plainCmd)
				if d := decideIn(t, plain, envOf(plain), pc, corpus.ModeDefault)[0]; d.action != "allow" {
					fail("plain repository: %s: want allow, got %s (a harmless read regressed, or the plain layout is wrong)", pc, d)
				}
				if ev, err := fired(t, strace, tr, plain, ln, append(append([]string{}, plain.Env...), envOf(plain)...), pc); err != nil {
					t.Fatal(err)
				} else if ev != "" {
					t.Fatalf("broken row: %s fires in the plain repository too (%s)", pc, ev)
				}

				// The planted one: asked (default; denied for a trap that
				// Denies), denied (readonly), the reason naming the planted
				// file.
				c := trapped.Expand(cmd)
				env := envOf(trapped)
				ds := decideIn(t, trapped, env, c, corpus.ModeDefault, corpus.ModeReadonly)
				askOr := "ask"
				if tr.Denies {
					askOr = "deny"
				}
				for i, m := range []struct{ mode, want string }{{corpus.ModeDefault, askOr}, {corpus.ModeReadonly, "deny"}} {
					d := ds[i]
					switch {
					case d.err != nil && d.names(names):
						// A configuration that cannot be read stops
						// shellgate with an error that names it: fail
						// closed.
					case d.action != m.want:
						fail("%s mode: want %s, got %s", m.mode, m.want, d)
					case !d.names(names):
						fail("%s mode: %s, but no reason names %s: %s", m.mode, d.action, strings.Join(names, " or "), d)
					}
				}
				// And the trap is real.
				ev, err := fired(t, strace, tr, trapped, ln, append(append([]string{}, trapped.Env...), env...), c)
				if err != nil {
					t.Fatal(err)
				}
				if ev == "" {
					t.Fatalf("broken row: the trap did not fire: %s left no %s evidence in the planted workspace", c, tr.Fires)
				}
				t.Logf("fired: %s", ev)
			})
		}
	}
	var failing, skipped []string
	held, filtered := 0, 0
	for _, r := range rows {
		switch {
		case r.state == "":
			filtered++
		case r.state == "skipped":
			skipped = append(skipped, r.trap+": "+r.command)
		case len(r.failures) > 0:
			failing = append(failing, r.trap+": "+r.command+"\n      "+strings.Join(r.failures, "\n      "))
		default:
			held++
		}
	}
	fmt.Printf("hostile traps: %d of %d rows hold (%d traps), %d skipped (tools missing), %v\n", held, len(rows)-len(skipped)-filtered, len(Traps), len(skipped), time.Since(start).Round(time.Second))
	if len(failing) > 0 {
		fmt.Printf("hostile traps failing:\n  %s\n", strings.Join(failing, "\n  "))
	}
	if len(skipped) > 0 {
		fmt.Printf("hostile traps skipped: %s\n", strings.Join(skipped, ", "))
	}
}

// TestTrapsTable: every trap says what it plants, what it turns harmful
// and how it fires; names are unique.
func TestTrapsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, tr := range Traps {
		if tr.Name == "" || seen[tr.Name] {
			t.Errorf("trap %q: empty or repeated name", tr.Name)
		}
		seen[tr.Name] = true
		if tr.Doc == "" || len(tr.Files) == 0 || tr.Plant == nil || tr.Fires == "" {
			t.Errorf("trap %q: Doc, Files, Plant and Fires are required", tr.Name)
		}
		if (len(tr.Commands) == 0) == (tr.NoRow == "") {
			t.Errorf("trap %q: either Commands or NoRow (why it has no command)", tr.Name)
		}
		if tr.Plain != nil && len(tr.Plain) != len(tr.Commands) {
			t.Errorf("trap %q: %d plain spellings for %d commands", tr.Name, len(tr.Plain), len(tr.Commands))
		}
	}
}

// TestConfirmHostile is TestConfirm in the hostile workspace: every case
// the gate allows there runs under strace and must run no program it did
// not name or declare, reach no network, print no canary and leave no
// marker.
func TestConfirmHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every allowed command under strace")
	}
	strace := needTool(t, "strace")
	needTool(t, "bash")
	needTool(t, "git")
	start := time.Now()
	ln := listen(t)
	cases, fixture := embeddedCases(t)
	dir := filepath.Join(t.TempDir(), "hostile")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h, err := NewHostile(dir, fixture, ln.addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("planted: %s", strings.Join(h.Planted, " "))
	// The gate decides in the environment the cases run with (a hook's
	// process has the agent's): GOTOOLCHAIN=auto, an ssh session, ….
	before, _ := ln.count()
	sum := confirmIn(t, strace, space{decoy: h.Decoy, label: "hostile", env: h.Env, entryOperands: true}, cases, start)
	if n, first := ln.count(); n > before {
		t.Errorf("the listener had %d connections (last %q): an allowed case reached the network", n-before, first)
	}
	sort.Strings(sum.unconfirmed)
	fmt.Printf("hostile: confirmed %d of %d read-only programs, asked %d of %d cases, ran %d, unconfirmed: %s\n",
		len(sum.confirmed), sum.readOnly, sum.asked, sum.generated, sum.spellings, strings.Join(sum.unconfirmed, ", "))
}
