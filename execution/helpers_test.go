package execution

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/shellgate/shellgate/internal/testenv"
)

// needTool returns the path of a program the test drives (testenv.LookPath:
// skipped without it on a developer's machine, a failure in CI).
func needTool(t testing.TB, name string, candidates ...string) string {
	t.Helper()
	return testenv.LookPath(t, append([]string{name}, candidates...)...)
}

// needLandlock skips (fails in CI) when this kernel cannot confine.
func needLandlock(t *testing.T) SandboxSupport {
	t.Helper()
	s := testRunner.SandboxSupport()
	if s.Err != nil {
		testenv.Missing(t, "confinement is not available: %v", s.Err)
	}
	return s
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// loopback listens on 127.0.0.1 for TCP and UDP on one port and counts
// what reaches it.
type loopback struct {
	port     int
	tcp, udp atomic.Int32
}

func newLoopback(t *testing.T) *loopback {
	t.Helper()
	l := &loopback{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l.port = ln.Addr().(*net.TCPAddr).Port
	pc, err := net.ListenPacket("udp", "127.0.0.1:"+strconv.Itoa(l.port))
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close(); pc.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.tcp.Add(1)
			c.Write([]byte("HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nhi\n"))
			c.Close()
		}
	}()
	go func() {
		buf := make([]byte, 64)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
			l.udp.Add(1)
		}
	}()
	return l
}

func mustBash(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	return p
}
