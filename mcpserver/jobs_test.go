package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionsOf connects n SDK clients to one in-process server.
func sessionsOf(t *testing.T, o *Server, n int) ([]*mcp.ClientSession, []*mcp.ServerSession) {
	t.Helper()
	srv := o.MCP()
	var cs []*mcp.ClientSession
	var ss []*mcp.ServerSession
	for i := 0; i < n; i++ {
		ct, st := mcp.NewInMemoryTransports()
		s, err := srv.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		ss = append(ss, s)
		cs = append(cs, connect(t, context.Background(), ct))
	}
	return cs, ss
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

func TestMCPBackgroundJobs(t *testing.T) {
	dir := mcpWorkspace(t)
	o, err := newTestServer(false, dir, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := sessionsOf(t, o, 2)
	a, b := cs[0], cs[1]
	text, isErr, out := call(t, a, "bash", map[string]any{"command": "for i in 1 2 3; do echo line$i; sleep 0.2; done", "run_in_background": true})
	id, _ := out["job_id"].(string)
	if isErr || out["status"] != "running" || !strings.HasPrefix(id, "job-") || !strings.Contains(text, "Running in the background as "+id) {
		t.Fatalf("start: %q %v", text, out)
	}
	// Another session cannot read or stop it, and cannot tell it exists.
	for _, tool := range []string{"bash_output", "bash_kill"} {
		text, isErr, _ := call(t, b, tool, map[string]any{"job_id": id})
		other, _, _ := call(t, b, tool, map[string]any{"job_id": "job-00000000000000000000000000000000"})
		if !isErr || !strings.Contains(text, "is not a job of this session") || strings.ReplaceAll(other, "job-00000000000000000000000000000000", id) != text {
			t.Errorf("%s from another session: %q (unknown id: %q)", tool, text, other)
		}
	}
	// The owner reads it to the end, in pieces.
	var all strings.Builder
	deadline := time.Now().Add(10 * time.Second)
	var last map[string]any
	for time.Now().Before(deadline) {
		_, isErr, out := call(t, a, "bash_output", map[string]any{"job_id": id})
		if isErr {
			t.Fatalf("bash_output: %v", out)
		}
		all.WriteString(out["output"].(string))
		if out["running"] == false {
			last = out
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if all.String() != "line1\nline2\nline3\n" || last == nil {
		t.Fatalf("output %q, last %v", all.String(), last)
	}
	if r := last["result"].(map[string]any); r["status"] != "ok" {
		t.Errorf("result %v", r)
	}
	// bash_kill stops a running job's whole tree.
	_, _, out = call(t, a, "bash", map[string]any{"command": "sleep 60", "run_in_background": true})
	id2 := out["job_id"].(string)
	start := time.Now()
	text, isErr, out = call(t, a, "bash_kill", map[string]any{"job_id": id2})
	if isErr || out["code"] != "ABORTED" || time.Since(start) > 5*time.Second {
		t.Errorf("bash_kill: %q %v", text, out)
	}
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

func TestMCPJobsEndWithTheSession(t *testing.T) {
	dir := mcpWorkspace(t)
	o, err := newTestServer(true, dir, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := sessionsOf(t, o, 1)
	_, isErr, out := call(t, cs[0], "bash", map[string]any{"command": "echo $$ > pid.txt; exec sleep 60", "run_in_background": true})
	if isErr {
		t.Fatalf("start: %v", out)
	}
	pid := pidFrom(t, filepath.Join(dir, "pid.txt"))
	cs[0].Close()
	waitGone(t, pid, "after the session ended")
}
