package gate

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestJobOutputSinceLastRead(t *testing.T) {
	dir := t.TempDir()
	g := newGate(t, dir, WithoutDefaultPolicy(), WithPolicyModules(allowAll))
	j, res := g.Start(context.Background(), Request{Command: "echo one; sleep 0.3; echo two; exit 3", TimeoutMS: 1})
	if j == nil || res.Status != StatusRunning || !strings.HasPrefix(res.JobID, "job-") || len(res.JobID) != 36 {
		t.Fatalf("start: %+v", res)
	}
	defer j.Close()
	deadline := time.Now().Add(5 * time.Second)
	var first JobOutput
	for time.Now().Before(deadline) {
		if first = j.Read(); first.Output != "" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if first.Output != "one\n" || !first.Running || first.Result != nil {
		t.Fatalf("first read = %+v, want one line while running", first)
	}
	final := j.Wait()
	rest := j.Read()
	if rest.Output != "two\n" || rest.Running || rest.Result == nil {
		t.Fatalf("after the end: %+v, want the rest and the result", rest)
	}
	// No timeout applies to a job (the request's 1 ms is not used).
	if final.Status != StatusFailed || final.Run.ExitCode != 3 || final.Run.TimeoutMS != 0 {
		t.Errorf("result: %s, timeout %d", final.StatusLine(), final.Run.TimeoutMS)
	}
	if again := j.Read(); again.Output != "" {
		t.Errorf("a third read returned %q", again.Output)
	}
}

func TestJobDropsAndSpills(t *testing.T) {
	old := JobReadBytes
	JobReadBytes = 1000
	defer func() { JobReadBytes = old }()
	dir := t.TempDir()
	g := newGate(t, dir, WithoutDefaultPolicy(), WithPolicyModules(allowAll))
	j, _ := g.Start(context.Background(), Request{Command: "seq 1 5000"})
	if j == nil {
		t.Fatal("not started")
	}
	j.Wait()
	out := j.Read()
	if len(out.Output) != 1000 || !strings.HasSuffix(out.Output, "4999\n5000\n") || out.DroppedBytes != 23893-1000 {
		t.Errorf("read: %d bytes, dropped %d; want the newest 1000 and the rest counted", len(out.Output), out.DroppedBytes)
	}
	whole, err := os.ReadFile(out.SpillPath)
	if err != nil || len(whole) != 23893 || !strings.HasPrefix(string(whole), "1\n2\n") {
		t.Errorf("spill %q: %d bytes, %v", out.SpillPath, len(whole), err)
	}
	j.Close()
	if _, err := os.Stat(out.SpillPath); err == nil {
		t.Errorf("Close left the spill file")
	}
}

func TestJobKillStopsTree(t *testing.T) {
	dir := t.TempDir()
	g := newGate(t, dir, WithoutDefaultPolicy(), WithPolicyModules(allowAll))
	j, _ := g.Start(context.Background(), Request{Command: "(sleep 60) & sleep 60"})
	if j == nil {
		t.Fatal("not started")
	}
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	res := j.Kill()
	if res.Code != CodeAborted || res.Run == nil || time.Since(start) > 30*time.Second { // well before sleep 60 ends: killed, not waited for
		t.Fatalf("kill: %s after %s", res.StatusLine(), time.Since(start))
	}
	assertGroupGone(t, res.Run.pid)
}

func TestJobRefusedLikeRun(t *testing.T) {
	g := newGate(t, t.TempDir())
	j, res := g.Start(context.Background(), Request{Command: "rm -rf /"})
	if j != nil || res.Code != CodeDenied {
		t.Fatalf("start of a denied command: %+v", res)
	}
}
