package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/serve"
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
	o, err := newTestServer(approve, dir, nil, "")
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

func TestMCPTools(t *testing.T) {
	dir := mcpWorkspace(t)
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

	for _, c := range []toolCall{
		{tool: "bash", args: map[string]any{"command": "echo hello"},
			text: `^Exit code 0 · [0-9.]+ [mµ]?s\nhello\n$`, field: "status", value: "ok"},
		{tool: "bash", args: map[string]any{"command": "grep -q gamma notes.txt"},
			text: `^Exit code 1 · [0-9.]+ [mµ]?s — No matches found\n$`, field: "status", value: "failed"},
		{tool: "bash", args: map[string]any{"command": "echo hi > out.txt"}, isError: true,
			text: `^Not run \(NOT_APPROVED\) — .*redirect-write`, field: "code", value: "NOT_APPROVED", absent: "out.txt"},
		{tool: "bash", args: map[string]any{"command": "rm -rf /"}, isError: true,
			text: `^Not run \(DENIED\) — .*destructive`, field: "code", value: "DENIED"},
		{tool: "bash", args: map[string]any{"command": ""}, isError: true,
			text: `^Not run \(INVALID_INPUT\)`},
		{tool: "bash", args: map[string]any{"command": "ls", "cwd": "missing"}, isError: true,
			text: `^Not run \(CWD_NOT_FOUND\)`},
		{tool: "bash", args: map[string]any{}, isError: true, text: `command`},
		{tool: "bash_readonly", args: map[string]any{"command": "cat notes.txt"},
			text: `^Exit code 0 · [0-9.]+ [mµ]?s\nalpha\nbeta\n$`, field: "status", value: "ok"},
		{tool: "bash_readonly", args: map[string]any{"command": "echo hi > ro.txt"}, isError: true,
			text: `^Not run \(DENIED\) — .*redirect-write`, absent: "ro.txt"},
		{tool: "check", args: map[string]any{"command": "ls -la"},
			text: `^allow\n$`, field: "action", value: "allow"},
		{tool: "check", args: map[string]any{"command": "echo hi > out.txt"},
			text: `^ask:\n- redirect-write: .*\[8-17\]\n$`, field: "action", value: "ask", absent: "out.txt"},
		{tool: "check", args: map[string]any{"command": "echo hi > out.txt", "mode": "readonly"},
			text: `^deny:\n`, field: "action", value: "deny"},
		{tool: "check", args: map[string]any{"command": "ls", "mode": "yolo"}, isError: true,
			text: `want default or readonly`},
	} {
		callTool(t, cs, dir, c)
	}
}

func TestMCPApproveAsks(t *testing.T) {
	dir := mcpWorkspace(t)
	cs := inMemory(t, true, dir)
	for _, c := range []toolCall{
		{tool: "bash", args: map[string]any{"command": "echo hi > out.txt"},
			text: `^Exit code 0`, field: "approved", value: true, creates: "out.txt"},
		// A deny stays a deny.
		{tool: "bash", args: map[string]any{"command": "rm -rf /"}, isError: true,
			text: `^Not run \(DENIED\)`},
		// Readonly has no one to ask, approval or not.
		{tool: "bash_readonly", args: map[string]any{"command": "echo hi > ro.txt"}, isError: true,
			text: `^Not run \(DENIED\)`, absent: "ro.txt"},
	} {
		callTool(t, cs, dir, c)
	}
}

func TestMCPBadPolicy(t *testing.T) {
	dir := mcpWorkspace(t)
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
