// Package mcptest holds what the MCP server's tests share, in the library
// (mcpserver) and in the command (cmd/shellgate): a workspace with a home of
// its own, a connected client, tool calls checked against a table row, and
// waiting on a background job's process.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/internal/testenv"
)

// Workspace returns a project directory (a git workspace) with one file,
// notes.txt, in a home of its own (HOME and XDG_CONFIG_HOME set for the
// test) so that no user config applies.
func Workspace(t testing.TB) string {
	t.Helper()
	return testenv.Project(t, "proj", map[string]string{".git/": "", "notes.txt": "alpha\nbeta\n"})
}

// Connect connects a client over tr; the session is closed when the test
// ends.
func Connect(t testing.TB, ctx context.Context, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "shellgate-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// InMemory connects a client to srv over the SDK's in-memory transport;
// both sessions are closed when the test ends.
func InMemory(t testing.TB, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return Connect(t, ctx, ct)
}

// ToolCall is one tool call and what must hold of its result.
type ToolCall struct {
	Tool    string
	Args    map[string]any
	IsError bool
	Text    string // a regexp the text content must match
	Field   string // a structured output field to check ...
	Value   any    // ... and its value
	Creates string // a file (in the workspace) that must exist afterwards ("" = none)
	Absent  string // a file that must not exist afterwards: the command did not run
}

// Check calls c.Tool with c.Args and reports every way the result differs
// from c; dir is the workspace c.Creates and c.Absent are in.
func Check(t testing.TB, cs *mcp.ClientSession, dir string, c ToolCall) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
	if err != nil {
		t.Fatalf("%s %v: %v", c.Tool, c.Args, err)
	}
	if res.IsError != c.IsError {
		t.Errorf("%s %v: isError %v, want %v", c.Tool, c.Args, res.IsError, c.IsError)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s %v: no content", c.Tool, c.Args)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !regexp.MustCompile(c.Text).MatchString(text) {
		t.Errorf("%s %v: text %q does not match %q", c.Tool, c.Args, text, c.Text)
	}
	if c.Field != "" {
		var out map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s %v: structured content %s: %v", c.Tool, c.Args, b, err)
		}
		if diff := cmp.Diff(c.Value, out[c.Field]); diff != "" {
			t.Errorf("%s %v: structured %s (-want +got):\n%s", c.Tool, c.Args, c.Field, diff)
		}
	}
	if c.Creates != "" {
		if _, err := os.Stat(filepath.Join(dir, c.Creates)); err != nil {
			t.Errorf("%s %v: %s was not created: %v", c.Tool, c.Args, c.Creates, err)
		}
	}
	if c.Absent != "" {
		if _, err := os.Stat(filepath.Join(dir, c.Absent)); err == nil {
			t.Errorf("%s %v: %s exists: the command ran", c.Tool, c.Args, c.Absent)
		}
	}
}

// Call calls a tool and returns its text, whether it was a tool error,
// and its structured output.
func Call(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &out)
	text := ""
	if len(res.Content) > 0 {
		text = res.Content[0].(*mcp.TextContent).Text
	}
	return text, res.IsError, out
}

// PidFrom waits (up to a minute) for a job to write its pid and a newline to
// file.
func PidFrom(t testing.TB, file string) int {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // an event waited for: only a failure takes this long
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(file); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err == nil {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

// HostPid waits for a job to be ready (PidFrom: it wrote its pid to
// file) and returns the pid, on this host, of the process whose command
// line holds marker: a confined job runs in a PID namespace of its own,
// where the pid it writes is the namespace's. It fails the test when no
// process has the marker.
func HostPid(t testing.TB, file, marker string) int {
	t.Helper()
	PidFrom(t, file)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(b), marker) {
			return pid
		}
	}
	t.Fatalf("no process has %q in its command line", marker)
	return 0
}

// WaitGone waits for pid to be gone (no such process, or a zombie: dead,
// only not reaped yet), and fails the test, killing it, when it is still
// running after a minute: what is checked is that it ends, not how fast,
// so a loaded machine only makes the wait longer.
func WaitGone(t testing.TB, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if Gone(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("%s: the job's process %d survived", what, pid)
}

// Gone reports whether pid is no longer running: no such process, or a
// zombie (on Linux, state Z in /proc/PID/stat).
func Gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses, which may
	// itself hold ") ".
	_, rest, ok := strings.Cut(string(b[bytes.LastIndexByte(b, ')'):]), ") ")
	return ok && strings.HasPrefix(rest, "Z")
}
