package mcpserver

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/internal/mcptest"
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
		cs = append(cs, mcptest.Connect(t, context.Background(), ct))
	}
	return cs, ss
}

func TestMCPBackgroundJobs(t *testing.T) {
	dir := mcptest.Workspace(t)
	o, err := newTestServer(false, dir, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := sessionsOf(t, o, 2)
	a, b := cs[0], cs[1]
	text, isErr, out := mcptest.Call(t, a, "bash", map[string]any{"command": "for i in 1 2 3; do echo line$i; sleep 0.2; done", "run_in_background": true})
	id, _ := out["job_id"].(string)
	if isErr || out["status"] != "running" || !strings.HasPrefix(id, "job-") || !strings.Contains(text, "Running in the background as "+id) {
		t.Fatalf("start: %q %v", text, out)
	}
	// Another session cannot read or stop it, and cannot tell it exists.
	for _, tool := range []string{"bash_output", "bash_kill"} {
		text, isErr, _ := mcptest.Call(t, b, tool, map[string]any{"job_id": id})
		other, _, _ := mcptest.Call(t, b, tool, map[string]any{"job_id": "job-00000000000000000000000000000000"})
		if !isErr || !strings.Contains(text, "is not a job of this session") || strings.ReplaceAll(other, "job-00000000000000000000000000000000", id) != text {
			t.Errorf("%s from another session: %q (unknown id: %q)", tool, text, other)
		}
	}
	// The owner reads it to the end, in pieces.
	var all strings.Builder
	deadline := time.Now().Add(10 * time.Second)
	var last map[string]any
	for time.Now().Before(deadline) {
		_, isErr, out := mcptest.Call(t, a, "bash_output", map[string]any{"job_id": id})
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
	_, _, out = mcptest.Call(t, a, "bash", map[string]any{"command": "sleep 60", "run_in_background": true})
	id2 := out["job_id"].(string)
	start := time.Now()
	text, isErr, out = mcptest.Call(t, a, "bash_kill", map[string]any{"job_id": id2})
	if isErr || out["code"] != "ABORTED" || time.Since(start) > 30*time.Second { // well before sleep 60 ends: killed, not waited for
		t.Errorf("bash_kill: %q %v", text, out)
	}
}

func TestMCPJobsEndWithTheSession(t *testing.T) {
	dir := mcptest.Workspace(t)
	o, err := newTestServer(true, dir, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cs, _ := sessionsOf(t, o, 1)
	_, isErr, out := mcptest.Call(t, cs[0], "bash", map[string]any{"command": "echo $$ > pid.txt; exec sleep 60.0917", "run_in_background": true})
	if isErr {
		t.Fatalf("start: %v", out)
	}
	pid := mcptest.HostPid(t, filepath.Join(dir, "pid.txt"), "60.0917")
	cs[0].Close()
	mcptest.WaitGone(t, pid, "after the session ended")
}
