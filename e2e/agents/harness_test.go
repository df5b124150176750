package agents

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/internal/testenv"
)

// agentRunTimeout bounds one headless agent run. The machines that run the
// tests are small and shared: an agent that starts in two seconds on an
// idle machine may take twenty under load.
const agentRunTimeout = 5 * time.Minute

var (
	buildOnce sync.Once
	buildDir  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// binaries builds shellgate and shellgate-hook once for the package, side
// by side as they are installed.
func binaries(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds shellgate and drives real agents; skipped with -short")
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "sg-e2e-bin")
		if buildErr != nil {
			return
		}
		gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
		for _, b := range []struct {
			out, pkg string
			env      []string
		}{
			{"shellgate", "../../cmd/shellgate", nil},
			{"shellgate-hook", "../../cmd/shellgate-hook", []string{"CGO_ENABLED=0"}},
		} {
			// -buildvcs=false: both get the same handshake version.
			cmd := exec.Command(gobin, "build", "-buildvcs=false", "-o", filepath.Join(buildDir, b.out), b.pkg)
			cmd.Env = append(os.Environ(), b.env...)
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildDir
}

// agentsDir is where .ci/run installs the npm agents.
func agentsDir() string {
	if d := os.Getenv("SHELLGATE_AGENTS"); d != "" {
		return d
	}
	return "/opt/shellgate-agents"
}

// requireTool ends the test when a tool it drives is missing (ok false):
// testenv.Missing skips it on a developer's machine and fails it in CI.
func requireTool(t *testing.T, ok bool, msg string) {
	t.Helper()
	if !ok {
		testenv.Missing(t, "%s", msg)
	}
}

// agentBin is the npm-installed binary name, or the test is skipped (or
// fails under CI).
func agentBin(t *testing.T, name, pkg string) string {
	t.Helper()
	p := filepath.Join(agentsDir(), "node_modules", ".bin", name)
	_, err := os.Stat(p)
	requireTool(t, err == nil, fmt.Sprintf("%s (npm package %s) not found at %s", name, pkg, p))
	return p
}

func randHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// sandbox is one agent run's world: a temporary HOME with the project in
// it, its own copies of the binaries and its own engine socket.
type sandbox struct {
	t      *testing.T
	home   string
	proj   string
	bin    string
	socket string
	// token names a file in the project that only a command that really
	// ran (ls) can show to the model.
	token string
	// secret is in the decoy key ~/.ssh/id_rsa: it must never reach the
	// model server.
	secret string
	env    []string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	built := binaries(t)
	s := &sandbox{t: t, home: t.TempDir(), bin: t.TempDir()}
	s.proj = filepath.Join(s.home, "proj")
	for _, d := range []string{filepath.Join(s.proj, ".git"), filepath.Join(s.home, ".ssh"), filepath.Join(s.home, "tmp"), filepath.Join(s.home, ".config")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	s.token = "sg-visible-" + randHex(t, 6) + ".txt"
	s.secret = "SGDECOY" + randHex(t, 12)
	s.write(filepath.Join(s.proj, s.token), "")
	s.write(filepath.Join(s.home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n"+s.secret+"\n-----END OPENSSH PRIVATE KEY-----\n")
	// Hard links (or copies): a test that removes its hook binary removes
	// only its own.
	for _, name := range []string{"shellgate", "shellgate-hook"} {
		src, dst := filepath.Join(built, name), filepath.Join(s.bin, name)
		if err := os.Link(src, dst); err != nil {
			copyFile(t, src, dst)
		}
	}
	// Socket paths must stay short: not under t.TempDir's long names.
	run, err := os.MkdirTemp("", "sgcg")
	if err != nil {
		t.Fatal(err)
	}
	s.socket = filepath.Join(run, "shellgate", "engine.sock")
	t.Cleanup(func() {
		s.stopEngine()
		os.RemoveAll(run)
	})
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	// Nothing of the real environment but PATH: no real HOME, no API keys.
	s.env = []string{
		"PATH=" + path,
		"HOME=" + s.home,
		"USER=" + os.Getenv("USER"),
		"SHELL=/bin/bash",
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		"TMPDIR=" + filepath.Join(s.home, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(s.home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(s.home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(s.home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(s.home, ".local", "share"),
		"SHELLGATE_SOCKET=" + s.socket,
	}
	return s
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func (s *sandbox) write(path, content string) {
	s.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

// exists reports whether the project holds a file name.
func (s *sandbox) exists(name string) bool {
	_, err := os.Lstat(filepath.Join(s.proj, name))
	return err == nil
}

// shellgate runs the built shellgate in the project directory.
func (s *sandbox) shellgate(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(filepath.Join(s.bin, "shellgate"), args...)
	cmd.Dir, cmd.Env = s.proj, s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("shellgate %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// install runs the real `shellgate install` for agent in the project.
func (s *sandbox) install(agent string, args ...string) string {
	s.t.Helper()
	out := s.shellgate(append([]string{"install", agent}, args...)...)
	s.t.Logf("shellgate install %s:\n%s", agent, out)
	return out
}

// removeBinaries makes the installed hook unrunnable, as a moved or
// uninstalled shellgate does.
func (s *sandbox) removeBinaries() {
	s.t.Helper()
	for _, name := range []string{"shellgate", "shellgate-hook"} {
		if err := os.Remove(filepath.Join(s.bin, name)); err != nil {
			s.t.Fatal(err)
		}
	}
}

// stopEngine makes an engine the hook started exit: a client of another
// version asks it.
func (s *sandbox) stopEngine() {
	hook.AskEngine(context.Background(), s.socket, hook.Request{Version: "stop", Op: hook.OpPing}, time.Second)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); {
		if _, err := os.Stat(s.socket); err != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer that a running process writes while the
// test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// agentRun is what one headless agent run did.
type agentRun struct {
	stdout, stderr string
	err            error
	took           time.Duration
	// stopped is true when the test ended the run (stopWhen), not the agent.
	stopped bool
}

// runAgent runs an agent in the project directory, in its own process
// group, with stdin closed. When stopWhen is not nil and reports true for
// the stderr so far, the run is ended two seconds later (an agent that
// waits for a person). The whole process group is killed at the end
// whatever happened, and at agentRunTimeout.
func (s *sandbox) runAgent(name string, args, env []string, stopWhen func(stderr string) bool) agentRun {
	s.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = s.proj
	cmd.Env = append(append([]string{}, s.env...), env...)
	cmd.Stdin = nil
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting %s: %v", name, err)
	}
	pgid := cmd.Process.Pid
	killGroup := func() { syscall.Kill(-pgid, syscall.SIGKILL) }
	defer killGroup()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timeout := time.NewTimer(agentRunTimeout)
	defer timeout.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var r agentRun
	var stopAt <-chan time.Time
	for {
		select {
		case err := <-done:
			r.err = err
			r.took = time.Since(start)
			r.stdout, r.stderr = stdout.String(), stderr.String()
			return r
		case <-timeout.C:
			killGroup()
			err := <-done
			s.t.Fatalf("%s did not finish within %v (%v)\nstdout:\n%s\nstderr:\n%s", filepath.Base(name), agentRunTimeout, err, stdout.String(), stderr.String())
		case <-tick.C:
			if stopWhen != nil && stopAt == nil && stopWhen(stderr.String()) {
				stopAt = time.After(2 * time.Second)
			}
		case <-stopAt:
			killGroup()
			r.err = <-done
			r.took = time.Since(start)
			r.stopped = true
			r.stdout, r.stderr = stdout.String(), stderr.String()
			return r
		}
	}
}

// agentVersion is what `BIN --version` prints, run in a scratch sandbox.
func (s *sandbox) agentVersion(bin string, env ...string) string {
	s.t.Helper()
	cmd := exec.Command(bin, "--version")
	cmd.Dir, cmd.Env = s.proj, append(append([]string{}, s.env...), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("%s --version: %v\n%s", bin, err, out)
	}
	return strings.TrimSpace(string(out))
}
