package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/internal/mcptest"
	"github.com/shellgate/shellgate/internal/testenv"
)

// elicitingClient connects an SDK client whose person answers every
// elicitation with answer (and records the messages) to an in-process
// server.
func elicitingClient(t *testing.T, o *Server, answer func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)) (*mcp.ClientSession, *[]string) {
	return elicitingClientAt(t, o, "", answer)
}

// elicitingClientAt is elicitingClient speaking protocol version (""
// is the latest: the answer comes back in a retried call; 2025-06-18
// gets elicitation/create requests from the server).
func elicitingClientAt(t *testing.T, o *Server, version string, answer func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)) (*mcp.ClientSession, *[]string) {
	t.Helper()
	var mu sync.Mutex
	var asked []string
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := o.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	var opts *mcp.ClientOptions
	if answer != nil {
		opts = &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r.Params.Message)
			mu.Unlock()
			return answer(r)
		}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "shellgate-test", Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, &asked
}

func accept(approve bool) func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": approve}}, nil
	}
}

func mcpOpts(t *testing.T, dir, config string) *Server {
	t.Helper()
	o, err := newTestServer(false, dir, nil, config)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// needConfinement ends the test when this kernel cannot confine
// (testenv.Missing: skipped on a developer's machine, a failure in CI).
func needConfinement(t *testing.T) {
	t.Helper()
	if s := (&execution.BashRunner{}).SandboxSupport(); s.Err != nil {
		testenv.Missing(t, "confinement is not available: %v", s.Err)
	}
}

// TestMCPEscalationFieldsOnlyWhenConfined: the bash tool takes
// sandbox_escalation and justification only when the server confines.
func TestMCPEscalationFieldsOnlyWhenConfined(t *testing.T) {
	needConfinement(t)
	dir := mcptest.Workspace(t)
	off := filepath.Join(t.TempDir(), "off.yaml")
	if err := os.WriteFile(off, []byte("sandbox: off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		config string
		want   bool
	}{{"", true}, {off, false}} {
		cs, _ := elicitingClient(t, mcpOpts(t, dir, tc.config), nil)
		tools, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools.Tools {
			b, _ := json.Marshal(tool.InputSchema)
			has := strings.Contains(string(b), `"sandbox_escalation"`) && strings.Contains(string(b), `"justification"`)
			if want := tc.want && tool.Name == "bash"; has != want {
				t.Errorf("config %q: tool %s advertises escalation %v, want %v: %s", tc.config, tool.Name, has, want, b)
			}
		}
	}
}

func TestMCPElicitation(t *testing.T) {
	needConfinement(t)
	for _, tc := range []struct {
		name   string
		answer func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)
		runs   bool
		// callErr: the client's failure to answer fails the call itself.
		callErr bool
	}{
		{"accept yes", accept(true), true, false},
		{"accept no", accept(false), false, false},
		{"decline", func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "decline"}, nil }, false, false},
		{"cancel", func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "cancel"}, nil }, false, false},
		{"error", func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) { return nil, errors.New("the person walked away") }, false, true},
		{"no elicitation", nil, false, false},
	} {
		for _, version := range []string{"", "2025-06-18"} {
			t.Run(tc.name+" "+version, func(t *testing.T) {
				dir := mcptest.Workspace(t)
				cs, asked := elicitingClientAt(t, mcpOpts(t, dir, ""), version, tc.answer)
				if got := cs.InitializeResult().ProtocolVersion; version != "" && got != version {
					t.Fatalf("negotiated %s, want %s", got, version)
				}
				c := mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "echo hi > out.txt"}, Text: `^Not run \(NOT_APPROVED\)`, IsError: true, Absent: "out.txt"}
				if tc.runs {
					c = mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "echo hi > out.txt"}, Text: `^Exit code 0`, Field: "approved", Value: true, Creates: "out.txt"}
				}
				if tc.callErr {
					_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: c.Args})
					if err == nil || !strings.Contains(err.Error(), "the person walked away") {
						t.Errorf("call error = %v, want the client's error", err)
					}
					if _, err := os.Stat(filepath.Join(dir, "out.txt")); err == nil {
						t.Errorf("out.txt exists: the command ran")
					}
				} else {
					mcptest.Check(t, cs, dir, c)
				}
				if tc.answer == nil {
					if len(*asked) != 0 {
						t.Errorf("asked %d times without elicitation", len(*asked))
					}
					return
				}
				if len(*asked) != 1 {
					t.Fatalf("asked %d times, want 1", len(*asked))
				}
				msg := (*asked)[0]
				for _, want := range []string{"shellgate: may this command run?", "ask: echo hi > out.txt", "  redirect-write: ", "    echo hi > out.txt\n            ^^^^^^^^^\n"} {
					if !strings.Contains(msg, want) {
						t.Errorf("the message lacks %q:\n%s", want, msg)
					}
				}
			})
		}
	}
}

func TestMCPEscalation(t *testing.T) {
	needConfinement(t)
	dir := mcptest.Workspace(t)
	cs, asked := elicitingClient(t, mcpOpts(t, dir, ""), accept(true))
	// bash_readonly is read-only: a write is refused by the kernel even
	// though the command would be allowed.
	mcptest.Check(t, cs, dir, mcptest.ToolCall{Tool: "bash_readonly", Args: map[string]any{"command": "cat notes.txt"},
		Text: `^Exit code 0`, Field: "sandbox", Value: map[string]any{"mode": "read-only", "enforced": true, "mechanism": "landlock",
			"abi": float64((&execution.BashRunner{}).SandboxSupport().ABI), "network": "denied", "network_guard": (&execution.BashRunner{}).SandboxSupport().NetworkGuard, "reason": "requested",
			"isolation": isolationHere(), "limits": map[string]any{"processes": float64(execution.DefaultResourceLimits.Processes),
				"memory_mb": float64(execution.DefaultResourceLimits.MemoryMB), "file_size_mb": float64(execution.DefaultResourceLimits.FileSizeMB)}}})
	// Validation errors: nothing is asked.
	mcptest.Check(t, cs, dir, mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "touch a", "justification": "Needed."}, IsError: true,
		Text: `^Not run \(INVALID_INPUT\) — a justification was given without a sandbox escalation`, Absent: "a"})
	mcptest.Check(t, cs, dir, mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "touch a", "sandbox_escalation": "full-access"}, IsError: true,
		Text: `^Not run \(INVALID_INPUT\) — a sandbox escalation to full-access needs a justification`, Absent: "a"})
	mcptest.Check(t, cs, dir, mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "touch a", "sandbox_escalation": "workspace-write", "justification": "Needed."}, IsError: true,
		Text: `^Not run \(INVALID_INPUT\) — the escalation to workspace-write is not wider than the mode this call runs in \(workspace-write\)`, Absent: "a"})
	if len(*asked) != 0 {
		t.Fatalf("validation errors asked the person %d times", len(*asked))
	}
	// An approved escalation: the person sees the justification.
	home := os.Getenv("HOME")
	mcptest.Check(t, cs, dir, mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "touch " + home + "/made", "sandbox_escalation": "full-access", "justification": "The build writes its cache in the home directory."},
		IsError: true, Text: `^Not run \(DENIED\)`})
	mcptest.Check(t, cs, dir, mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "echo hi > out.txt", "sandbox_escalation": "full-access", "justification": "The test needs full access."},
		Text: `^Exit code 0`, Creates: "out.txt"})
	if len(*asked) != 1 || !strings.Contains((*asked)[0], "The agent asks to run it once in the sandbox mode full-access instead of workspace-write: The test needs full access.") {
		t.Fatalf("the person was asked %q", *asked)
	}
}

// isolationHere is the process isolation a confined command gets here, as
// the result lists it.
func isolationHere() []any {
	var out []any
	for _, x := range (&execution.BashRunner{}).SandboxSupport().Isolation {
		out = append(out, x)
	}
	return out
}
