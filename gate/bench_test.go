package gate

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkOverhead measures the gate's whole pipeline (classify, read
// station, policy, managed environment, process group, output pipe, exit
// meaning) around `true` against a plain `bash -c true`, interleaved in
// one run; the ratio metric is gate time over plain time (target ≤ 1.10).
func BenchmarkOverhead(b *testing.B) {
	dir := b.TempDir()
	g, err := New(WithCwd(dir))
	if err != nil {
		b.Fatal(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var plain, gated time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		cmd := exec.Command(bash, "-c", "true")
		cmd.Dir = dir
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		res := g.Run(ctx, Request{Command: "true"})
		t2 := time.Now()
		if res.Status != StatusOK {
			b.Fatalf("gate: %s", res.StatusLine())
		}
		plain += t1.Sub(t0)
		gated += t2.Sub(t1)
	}
	b.ReportMetric(float64(gated)/float64(plain), "ratio")
	b.ReportMetric(float64(plain.Microseconds())/float64(b.N), "plain-µs/op")
	b.ReportMetric(float64(gated.Microseconds())/float64(b.N), "gate-µs/op")
}

// BenchmarkCheck measures a warm decision (no run) for a typical command.
func BenchmarkCheck(b *testing.B) {
	dir := b.TempDir()
	g, err := New(WithCwd(dir))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := g.Check(ctx, Request{Command: "grep -rn foo . | head -20"}); err != nil {
			b.Fatal(err)
		}
	}
}
