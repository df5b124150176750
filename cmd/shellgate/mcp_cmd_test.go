package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/internal/mcptest"
)

// inMemory connects a client to an in-process server over the SDK's
// in-memory transport.
func inMemory(t *testing.T, approve bool, dir string) *mcp.ClientSession {
	t.Helper()
	o, err := newMCPServer(approve, dir, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return mcptest.InMemory(t, o.MCP())
}

// TestMCPStdio runs `shellgate mcp` as a real subprocess over stdio.
func TestMCPStdio(t *testing.T) {
	dir := mcptest.Workspace(t)
	// testscript.Main put this test binary on PATH as "shellgate".
	bin, err := exec.LookPath("shellgate")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--cwd", dir)
	cs := mcptest.Connect(t, context.Background(), &mcp.CommandTransport{Command: cmd})
	mcptest.Check(t, cs, dir, mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "echo over-stdio && cat notes.txt"},
		Text: `^Exit code 0 · [0-9.]+ [mµ]?s\nover-stdio\nalpha\nbeta\n$`, Field: "command", Value: "echo over-stdio && cat notes.txt"})
	mcptest.Check(t, cs, dir, mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "touch made.txt"}, IsError: true,
		Text: `^Not run \(NOT_APPROVED\)`, Absent: "made.txt"})
	mcptest.Check(t, cs, dir, mcptest.ToolCall{Tool: "check", Args: map[string]any{"command": "git status"},
		Text: `^allow\n$`, Field: "action", Value: "allow"})
	// The session keeps its working directory: cd, then pwd.
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := regexp.QuoteMeta(filepath.Join(real, "sub"))
	mcptest.Check(t, cs, dir, mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "cd sub"},
		Text: `^Exit code 0 .*\n\[cwd: the next call runs in ` + sub + `\]\n$`})
	mcptest.Check(t, cs, dir, mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "pwd"},
		Text: `^Exit code 0 .*\n` + sub + `\n$`})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if (tool.Name == "bash" || tool.Name == "bash_readonly") && !strings.Contains(tool.Description, "moves the next call there") {
			t.Errorf("the %s tool does not say that a cd moves the next call: %q", tool.Name, tool.Description)
		}
	}
}

func TestMCPBadPolicy(t *testing.T) {
	dir := mcptest.Workspace(t)
	if _, err := newMCPServer(false, dir, []string{filepath.Join(dir, "nonexistent")}, ""); err == nil {
		t.Fatal("a missing policy directory was accepted")
	}
}

// TestMCPJobsEndWithTheServer runs `shellgate mcp` as a real process: when
// its input ends, it stops every job before it exits.
func TestMCPJobsEndWithTheServer(t *testing.T) {
	dir := mcptest.Workspace(t)
	bin, err := exec.LookPath("shellgate")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp", "--approve-asks", "--cwd", dir)
	// The client waits for the server to end on its own: on a loaded
	// machine, the SDK's default (SIGTERM after 5 s, then SIGKILL) could
	// kill it before it stopped its jobs, which is not what is tested.
	cs := mcptest.Connect(t, context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Minute})
	_, isErr, out := mcptest.Call(t, cs, "bash", map[string]any{"command": "echo $$ > pid.txt; exec sleep 600.0917", "run_in_background": true})
	if isErr {
		t.Fatalf("start: %v", out)
	}
	pid := mcptest.HostPid(t, filepath.Join(dir, "pid.txt"), "600.0917")
	cs.Close()
	if cmd.ProcessState == nil || !cmd.ProcessState.Exited() {
		t.Errorf("the server did not exit on its own at the end of its input: %v", cmd.ProcessState)
	}
	mcptest.WaitGone(t, pid, "after the server stopped")
}
