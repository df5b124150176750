package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpWorkspace is a project directory (a git workspace) with one file, and
// a home of its own so that no user config applies.
func mcpWorkspace(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	dir := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func connect(t *testing.T, ctx context.Context, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "shellgate-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// inMemory connects a client to an in-process server over the SDK's
// in-memory transport.
func inMemory(t *testing.T, approve bool, dir string) *mcp.ClientSession {
	t.Helper()
	o, err := newMCPServer(approve, dir, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := o.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return connect(t, ctx, ct)
}

type toolCall struct {
	tool    string
	args    map[string]any
	isError bool
	text    string // regexp the text must match
	field   string // structured output field to check ...
	value   any    // ... and its value
	creates string // a file that must exist afterwards ("" = none)
	absent  string // a file that must not exist afterwards
}

func callTool(t *testing.T, cs *mcp.ClientSession, dir string, c toolCall) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
	if err != nil {
		t.Fatalf("%s %v: %v", c.tool, c.args, err)
	}
	if res.IsError != c.isError {
		t.Errorf("%s %v: isError %v, want %v", c.tool, c.args, res.IsError, c.isError)
	}
	if len(res.Content) == 0 {
		t.Fatalf("%s %v: no content", c.tool, c.args)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !regexp.MustCompile(c.text).MatchString(text) {
		t.Errorf("%s %v: text %q does not match %q", c.tool, c.args, text, c.text)
	}
	if c.field != "" {
		var out map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s %v: structured content %s: %v", c.tool, c.args, b, err)
		}
		if diff := cmp.Diff(c.value, out[c.field]); diff != "" {
			t.Errorf("%s %v: structured %s (-want +got):\n%s", c.tool, c.args, c.field, diff)
		}
	}
	if c.creates != "" {
		if _, err := os.Stat(filepath.Join(dir, c.creates)); err != nil {
			t.Errorf("%s %v: %s was not created: %v", c.tool, c.args, c.creates, err)
		}
	}
	if c.absent != "" {
		if _, err := os.Stat(filepath.Join(dir, c.absent)); err == nil {
			t.Errorf("%s %v: %s exists: the command ran", c.tool, c.args, c.absent)
		}
	}
}

// TestMCPStdio runs `shellgate mcp` as a real subprocess over stdio.
func TestMCPStdio(t *testing.T) {
	dir := mcpWorkspace(t)
	// testscript.Main put this test binary on PATH as "shellgate".
	bin, err := exec.LookPath("shellgate")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--cwd", dir)
	cs := connect(t, context.Background(), &mcp.CommandTransport{Command: cmd})
	callTool(t, cs, dir, toolCall{tool: "bash", args: map[string]any{"command": "echo over-stdio && cat notes.txt"},
		text: `^Exit code 0 · [0-9.]+ [mµ]?s\nover-stdio\nalpha\nbeta\n$`, field: "command", value: "echo over-stdio && cat notes.txt"})
	callTool(t, cs, dir, toolCall{tool: "bash", args: map[string]any{"command": "touch made.txt"}, isError: true,
		text: `^Not run \(NOT_APPROVED\)`, absent: "made.txt"})
	callTool(t, cs, dir, toolCall{tool: "check", args: map[string]any{"command": "git status"},
		text: `^allow\n$`, field: "action", value: "allow"})
}

func TestMCPBadPolicy(t *testing.T) {
	dir := mcpWorkspace(t)
	if _, err := newMCPServer(false, dir, []string{filepath.Join(dir, "nonexistent")}, ""); err == nil {
		t.Fatal("a missing policy directory was accepted")
	}
}

// call calls a tool and returns its text, whether it was a tool error,
// and its structured output.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool, map[string]any) {
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

// pidFrom waits for a job to write its pid to file.
func pidFrom(t *testing.T, file string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
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

// waitGone waits for pid to be gone.
func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("%s: the job's process %d survived", what, pid)
}

// TestMCPJobsEndWithTheServer runs `shellgate mcp` as a real process: when
// its input ends, it stops every job before it exits.
func TestMCPJobsEndWithTheServer(t *testing.T) {
	dir := mcpWorkspace(t)
	bin, err := exec.LookPath("shellgate")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--approve-asks", "--cwd", dir)
	cs := connect(t, context.Background(), &mcp.CommandTransport{Command: cmd})
	_, isErr, out := call(t, cs, "bash", map[string]any{"command": "echo $$ > pid.txt; exec sleep 60", "run_in_background": true})
	if isErr {
		t.Fatalf("start: %v", out)
	}
	pid := pidFrom(t, filepath.Join(dir, "pid.txt"))
	cs.Close()
	waitGone(t, pid, "after the server stopped")
}
