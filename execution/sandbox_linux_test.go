//go:build linux

package execution

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellgate/shellgate/internal/testenv"
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
