package mcpserver

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/internal/mcptest"
	"github.com/shellgate/shellgate/serve"
)

// inMemory connects a client to an in-process server over the SDK's
// in-memory transport.
func inMemory(t *testing.T, approve bool, dir string) *mcp.ClientSession {
	t.Helper()
	o, err := newTestServer(approve, dir, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return mcptest.InMemory(t, o.MCP())
}

func TestMCPTools(t *testing.T) {
	dir := mcptest.Workspace(t)
	cs := inMemory(t, false, dir)

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"bash", "bash_kill", "bash_output", "bash_readonly", "check"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	for _, c := range []mcptest.ToolCall{
		{Tool: "bash", Args: map[string]any{"command": "echo hello"},
			Text: `^Exit code 0 · [0-9.]+ [mµ]?s\nhello\n$`, Field: "status", Value: "ok"},
		{Tool: "bash", Args: map[string]any{"command": "grep -q gamma notes.txt"},
			Text: `^Exit code 1 · [0-9.]+ [mµ]?s — No matches found\n$`, Field: "status", Value: "failed"},
		{Tool: "bash", Args: map[string]any{"command": "echo hi > out.txt"}, IsError: true,
			Text: `^Not run \(NOT_APPROVED\) — .*redirect-write`, Field: "code", Value: "NOT_APPROVED", Absent: "out.txt"},
		{Tool: "bash", Args: map[string]any{"command": "rm -rf /"}, IsError: true,
			Text: `^Not run \(DENIED\) — .*destructive`, Field: "code", Value: "DENIED"},
		{Tool: "bash", Args: map[string]any{"command": ""}, IsError: true,
			Text: `^Not run \(INVALID_INPUT\)`},
		{Tool: "bash", Args: map[string]any{"command": "ls", "cwd": "missing"}, IsError: true,
			Text: `^Not run \(CWD_NOT_FOUND\)`},
		{Tool: "bash", Args: map[string]any{}, IsError: true, Text: `command`},
		{Tool: "bash_readonly", Args: map[string]any{"command": "cat notes.txt"},
			Text: `^Exit code 0 · [0-9.]+ [mµ]?s\nalpha\nbeta\n$`, Field: "status", Value: "ok"},
		{Tool: "bash_readonly", Args: map[string]any{"command": "echo hi > ro.txt"}, IsError: true,
			Text: `^Not run \(DENIED\) — .*redirect-write`, Absent: "ro.txt"},
		{Tool: "check", Args: map[string]any{"command": "ls -la"},
			Text: `^allow\n$`, Field: "action", Value: "allow"},
		{Tool: "check", Args: map[string]any{"command": "echo hi > out.txt"},
			Text: `^ask:\n- redirect-write: .*\[8-17\]\n$`, Field: "action", Value: "ask", Absent: "out.txt"},
		{Tool: "check", Args: map[string]any{"command": "echo hi > out.txt", "mode": "readonly"},
			Text: `^deny:\n`, Field: "action", Value: "deny"},
		{Tool: "check", Args: map[string]any{"command": "ls", "mode": "yolo"}, IsError: true,
			Text: `want default or readonly`},
	} {
		mcptest.Check(t, cs, dir, c)
	}
}

func TestMCPApproveAsks(t *testing.T) {
	dir := mcptest.Workspace(t)
	cs := inMemory(t, true, dir)
	for _, c := range []mcptest.ToolCall{
		{Tool: "bash", Args: map[string]any{"command": "echo hi > out.txt"},
			Text: `^Exit code 0`, Field: "approved", Value: true, Creates: "out.txt"},
		// A deny stays a deny.
		{Tool: "bash", Args: map[string]any{"command": "rm -rf /"}, IsError: true,
			Text: `^Not run \(DENIED\)`},
		// Readonly has no one to ask, approval or not.
		{Tool: "bash_readonly", Args: map[string]any{"command": "echo hi > ro.txt"}, IsError: true,
			Text: `^Not run \(DENIED\)`, Absent: "ro.txt"},
	} {
		mcptest.Check(t, cs, dir, c)
	}
}

func TestMCPBadPolicy(t *testing.T) {
	dir := mcptest.Workspace(t)
	if _, err := newTestServer(false, dir, []string{filepath.Join(dir, "nonexistent")}, ""); err == nil {
		t.Fatal("a missing policy directory was accepted")
	}
}

// newTestServer is the server `shellgate mcp` builds from its flags: the
// gates of the hook flags (policies, config), in dir.
func newTestServer(approve bool, dir string, policies []string, config string) (*Server, error) {
	f := hook.Flags{Policy: policies, Cwd: dir, Config: config}
	return New(Options{Gates: serve.NewGates(f), Cwd: dir, ApproveAsks: approve, Version: "test"})
}
