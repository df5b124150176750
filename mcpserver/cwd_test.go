package mcpserver

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/internal/mcptest"
)

// TestMCPSessionCwd drives one session through the real MCP client over
// the in-memory transport, with real shells: a cd moves the next call's
// directory (bash and bash_readonly alike), as the policy judges a cd; a
// directory outside the roots or a denied one is not taken and the result
// says why; a session directory that disappears or is replaced refuses
// the next call and goes back to the server's directory.
func TestMCPSessionCwd(t *testing.T) {
	dir := mcptest.Workspace(t)
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Dir(dir)
	for _, d := range []string{"sub/deep", "other", "gone", "swapped"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	q := regexp.QuoteMeta
	// The server approves asks, so that a command that ends outside the
	// roots runs: what is judged here is the directory it ends in.
	o, err := newTestServer(true, dir, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.InMemory(t, o.MCP())
	other := mcptest.InMemory(t, o.MCP())
	moved := func(d string) string { return `\[cwd: the next call runs in ` + q(d) + `\]\n$` }
	stays := func(d string) string { return `the next call runs in ` + q(d) + `\]\n$` }
	steps := []struct {
		name   string
		before func(t *testing.T)
		cs     *mcp.ClientSession
		call   mcptest.ToolCall
	}{
		{name: "cd moves the session", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "cd sub"},
			Text: `^Exit code 0 .*\n` + moved(dir+"/sub")}},
		{name: "the next call runs there", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "pwd"},
			Text: `^Exit code 0 .*\n` + q(dir+"/sub") + `\n$`}},
		{name: "bash_readonly shares it", call: mcptest.ToolCall{Tool: "bash_readonly", Args: map[string]any{"command": "pwd"},
			Text: `^Exit code 0 .*\n` + q(dir+"/sub") + `\n$`}},
		{name: "check decides there", call: mcptest.ToolCall{Tool: "check", Args: map[string]any{"command": "ls deep"},
			Field: "cwd", Value: dir + "/sub", Text: `^allow\n$`}},
		{name: "another session is not moved", cs: other, call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "pwd"},
			Text: `^Exit code 0 .*\n` + q(dir) + `\n$`}},
		{name: "a relative cwd starts at the session's directory; no cd, no move", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "pwd", "cwd": "deep"},
			Text: `^Exit code 0 .*\n` + q(dir+"/sub/deep") + `\n$`}},
		{name: "a failing command that ends elsewhere still moves", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "cd deep; false"},
			Text: `^Exit code 1 .*\n` + moved(dir+"/sub/deep")}},
		{name: "cd .. and an explicit cwd", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "cd ..", "cwd": dir + "/other"},
			Text: `^Exit code 0 .*\n` + moved(dir)}},
		{name: "outside the roots is not taken", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "cd " + outside},
			Text: `^Exit code 0 .*\n\[cwd: the shell ended in ` + q(outside) + `, which does not become this session's directory: the policy would ask ` + "`cd " + q(outside) + "`" + ` \(read-outside-roots: .*\); ` + stays(dir)}},
		{name: "still in the workspace", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "pwd"},
			Text: `^Exit code 0 .*\n` + q(dir) + `\n$`}},
		// The command writes the report itself: the directory it names is
		// judged like the shell's own, and a denied one is not taken.
		{name: "a forged report of a denied directory", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "trap - EXIT; echo \"$HOME/.ssh\" >&75"},
			Text: `^Exit code 0 .*\n\[cwd: the shell ended in ` + q(home+"/.ssh") + `, which does not become this session's directory: the policy would deny .*read-denied: .*; ` + stays(dir)}},
		{name: "exec reports nothing", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "cd sub && exec true"},
			Text: `^Exit code 0 .*\n\[cwd: the shell reported no final directory .*; ` + stays(dir)}},
		{name: "a background command does not move it", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "cd sub", "run_in_background": true},
			Text: `^Running`}},
		{name: "into gone", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "cd gone"},
			Text: moved(dir + "/gone")}},
		{name: "a directory that disappeared refuses the call",
			before: func(t *testing.T) {
				if err := os.Remove(filepath.Join(dir, "gone")); err != nil {
					t.Fatal(err)
				}
			},
			call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "touch x && pwd"}, IsError: true,
				Text: `this session's working directory ` + q(dir+"/gone") + ` no longer exists; nothing ran, and the session is back in the server's directory ` + q(dir)}},
		{name: "back in the server's directory", call: mcptest.ToolCall{Tool: "bash", Args: map[string]any{"command": "pwd"},
			Text: `^Exit code 0 .*\n` + q(dir) + `\n$`, Absent: "x"}},
		{name: "into swapped", call: mcptest.ToolCall{Tool: "bash_readonly", Args: map[string]any{"command": "cd swapped"},
			Text: moved(dir + "/swapped")}},
		{name: "a directory replaced by a symlink refuses the call",
			before: func(t *testing.T) {
				if err := os.Remove(filepath.Join(dir, "swapped")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(home+"/.ssh", filepath.Join(dir, "swapped")); err != nil {
					t.Fatal(err)
				}
			},
			call: mcptest.ToolCall{Tool: "check", Args: map[string]any{"command": "ls"}, IsError: true,
				Text: `is no longer the same directory`}},
		{name: "and it is back", call: mcptest.ToolCall{Tool: "bash_readonly", Args: map[string]any{"command": "pwd"},
			Text: `^Exit code 0 .*\n` + q(dir) + `\n$`}},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before(t)
		}
		c := cs
		if st.cs != nil {
			c = st.cs
		}
		t.Logf("step %s", st.name)
		mcptest.Check(t, c, dir, st.call)
	}
}
