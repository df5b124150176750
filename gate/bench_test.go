package gate

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/shellgate/shellgate/policy"
)

// BenchmarkOverhead measures the gate's whole pipeline (classify, read
// station, policy, managed environment, confinement (read-only: `true` is
// reversible), process group, output pipe, exit meaning) around `true`
// against a plain `bash -c true`, interleaved in one run; the ratio metric
// is the median gate time over the median plain time (target ≤ 1.30
// confined).
func BenchmarkOverhead(b *testing.B) {
	benchOverhead(b, policy.DefaultConfig())
}

// BenchmarkOverheadUnconfined is BenchmarkOverhead with "sandbox: off"
// (target ≤ 1.10).
func BenchmarkOverheadUnconfined(b *testing.B) {
	cfg := policy.DefaultConfig()
	cfg.Sandbox = policy.SandboxOff
	benchOverhead(b, cfg)
}

func benchOverhead(b *testing.B, cfg *policy.Config) {
	dir := b.TempDir()
	g, err := New(WithCwd(dir), WithConfig(cfg))
	if err != nil {
		b.Fatal(err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	plain := make([]time.Duration, 0, b.N)
	gated := make([]time.Duration, 0, b.N)
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
		plain = append(plain, t1.Sub(t0))
		gated = append(gated, t2.Sub(t1))
	}
	// Medians: the machine is shared, and one slow spawn on either side
	// should not decide the ratio.
	mp, mg := median(plain), median(gated)
	b.ReportMetric(float64(mg)/float64(mp), "ratio")
	b.ReportMetric(float64(mp.Microseconds()), "plain-µs")
	b.ReportMetric(float64(mg.Microseconds()), "gate-µs")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
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
