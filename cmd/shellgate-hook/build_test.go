package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shellgate/shellgate/hook"
)

// binaries builds the full shellgate binary and this thin client into a
// temporary directory, side by side as they are installed.
func binaries(tb testing.TB) (full, thin string) {
	tb.Helper()
	if testing.Short() {
		tb.Skip("builds the binaries; skipped with -short")
	}
	dir := tb.TempDir()
	full = filepath.Join(dir, "shellgate")
	thin = filepath.Join(dir, "shellgate-hook")
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, b := range []struct {
		out, pkg string
		env      []string
	}{
		{full, "../shellgate", nil},
		{thin, ".", []string{"CGO_ENABLED=0"}},
	} {
		// -buildvcs=false: a commit landing between the two builds must not
		// give them different handshake versions.
		cmd := exec.Command(gobin, "build", "-buildvcs=false", "-o", b.out, b.pkg)
		cmd.Env = append(os.Environ(), b.env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return full, thin
}

// sandbox is an environment with its own home, config and engine socket.
type sandbox struct {
	env    []string
	socket string
	proj   string
}

func newSandbox(tb testing.TB) *sandbox {
	tb.Helper()
	// Socket paths must stay short: not under t.TempDir's long names.
	run, err := os.MkdirTemp("", "sg")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(run) })
	home := tb.TempDir()
	proj := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		tb.Fatal(err)
	}
	// The socket's directory does not exist yet, as on a first run.
	s := &sandbox{socket: filepath.Join(run, "shellgate", "engine.sock"), proj: proj}
	// An engine a test started (or a client started for it) must not
	// outlive the test: cleanups run last-in first-out, so this runs
	// before the socket's directory is removed.
	tb.Cleanup(s.stopEngine)
	s.env = append(os.Environ(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"SHELLGATE_SOCKET="+s.socket,
	)
	return s
}

// exec runs a binary with stdin in the project directory and returns its
// stdout, stderr and exit code.
func (s *sandbox) exec(tb testing.TB, stdin []byte, name string, args ...string) (stdout, stderr string, code int) {
	tb.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = s.env
	cmd.Dir = s.proj
	cmd.Stdin = bytes.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return o.String(), e.String(), ee.ExitCode()
		}
		tb.Fatalf("%s: %v", name, err)
	}
	return o.String(), e.String(), 0
}

// waitEngine waits until an engine of version answers a ping.
func (s *sandbox) waitEngine(tb testing.TB, version string) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := hook.AskEngine(context.Background(), s.socket, hook.Request{Version: version, Op: hook.OpPing}, time.Second)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no engine on %s: %v", s.socket, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stopEngine makes the engine exit: a client of another version asks.
func (s *sandbox) stopEngine() {
	hook.AskEngine(context.Background(), s.socket, hook.Request{Version: "stop", Op: hook.OpPing}, time.Second)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if _, err := os.Stat(s.socket); err != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// versionOf is the handshake version of the built binaries (the test binary
// has none of their VCS stamps).
func versionOf(tb testing.TB, thin string) string {
	tb.Helper()
	out, err := exec.Command(thin, "--version").Output()
	if err != nil {
		tb.Fatalf("%s --version: %v", thin, err)
	}
	return string(bytes.TrimSpace(out))
}

// TestNoOPA keeps the thin client thin: it must not link OPA (nor the
// policy pipeline), or it would start as slowly as the full binary.
// thinClientPackages are the shellgate packages the thin client may link:
// the hook protocol, the trust package's owner check and the catalog's
// tables of shells and of the environment variables it sends (standard
// library only; anything they pulled in would be listed by go list -deps
// too).
var thinClientPackages = map[string]bool{
	"github.com/shellgate/shellgate/hook":               true,
	"github.com/shellgate/shellgate/trust":              true,
	"github.com/shellgate/shellgate/classify/shells":    true,
	"github.com/shellgate/shellgate/classify/agentenv":  true,
	"github.com/shellgate/shellgate/gitrepo":            true,
	"github.com/shellgate/shellgate/cmd/shellgate-hook": true,
}

func TestNoOPA(t *testing.T) {
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "open-policy-agent") || strings.HasPrefix(pkg, "github.com/shellgate/shellgate/") && !thinClientPackages[pkg] {
			t.Errorf("shellgate-hook links %s", pkg)
		}
	}
}
