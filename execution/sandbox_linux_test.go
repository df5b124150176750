//go:build linux

package execution

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellgate/shellgate/internal/testenv"
	"golang.org/x/sys/unix"
)

func TestSandboxUserNamespaceGuard(t *testing.T) {
	// The guard an unprivileged user gets: a new user and network
	// namespace per command.
	needLandlock(t)
	if !usernsWorks(mustBash(t)) {
		testenv.Missing(t, "user namespaces are not available: the guard an unprivileged user gets is unconfirmed")
	}
	curl := needTool(t, "curl")
	dir := t.TempDir()
	l := newLoopback(t)
	port := strconv.Itoa(l.port)
	cmd := exec.Command(mustBash(t), "-c", curl+" -sS --max-time 3 http://127.0.0.1:"+port+"/; echo x > /dev/udp/127.0.0.1/"+port+"; touch in-root; id -u")
	cmd.Dir = dir
	cmd.Env = os.Environ()
	saved := linuxSandbox.support
	linuxSandbox.support.NetworkGuard = "userns+netns"
	defer func() { linuxSandbox.support = saved }()
	start, info, _, cleanup, err := prepareConfined(cmd, &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir}}, mustBash(t))
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := start(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	time.Sleep(100 * time.Millisecond)
	if info.NetworkGuard != "userns+netns" || l.tcp.Load() != 0 || l.udp.Load() != 0 {
		t.Errorf("guard %s: listener saw %d connections, %d datagrams; output:\n%s", info.NetworkGuard, l.tcp.Load(), l.udp.Load(), out.String())
	}
	if !exists(filepath.Join(dir, "in-root")) {
		t.Errorf("a write in the root failed in the user namespace:\n%s", out.String())
	}
}

// TestHideSocketGone: a socket that is removed between the read of the
// outside sockets and its hiding (another program ended) does not stop
// the run: it needs no hiding. One still there is hidden.
func TestHideSocketGone(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skipf("unsharing a mount namespace in this threaded process needs root (uid %d; a user namespace cannot be made by a threaded process): the unprivileged helper's socket hiding is TestSandboxEscapes/nonroot's socket row; CI runs this as root", os.Getuid())
	}
	dir := t.TempDir()
	var paths []string
	for _, name := range []string{"gone.sock", "kept.sock"} {
		p := filepath.Join(dir, name)
		ln, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		paths = append(paths, p)
	}
	errs := make(chan []error, 1)
	go func() {
		runtime.LockOSThread() // ends with the goroutine: its mount namespace is its own
		if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
			errs <- []error{err}
			return
		}
		if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
			errs <- []error{err}
			return
		}
		var out []error
		for i, p := range paths {
			fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err != nil {
				errs <- []error{err}
				return
			}
			if i == 0 {
				os.Remove(p) // its program ended after the sockets were read
			}
			out = append(out, hideSocket(fd))
			unix.Close(fd)
		}
		var st unix.Stat_t
		err := unix.Stat(paths[1], &st)
		if err == nil && st.Mode&unix.S_IFMT == unix.S_IFSOCK {
			err = fmt.Errorf("%s is still a socket in the namespace", paths[1])
		}
		errs <- append(out, err)
	}()
	got := <-errs
	for i, what := range []string{"the removed socket", "the socket", "the hidden socket's path"} {
		if i < len(got) && got[i] != nil {
			t.Errorf("%s: %v", what, got[i])
		}
	}
}
