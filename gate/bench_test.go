package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/shellgate/shellgate/execution"
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

// BenchmarkSandbox measures `bash -c true` through the BashRunner confined
// read-only (Landlock ruleset, locked thread, network namespace) against
// the same runner unconfined, interleaved in one run; the ratio metric is
// the median confined time over the median unconfined time (target ≤ 1.30).
func BenchmarkSandbox(b *testing.B) {
	benchSandbox(b, func(dir string) *execution.Confinement {
		return &execution.Confinement{Mode: execution.SandboxReadOnly, Roots: []string{dir}}
	})
}

// BenchmarkSandboxWorkspaceWrite is BenchmarkSandbox in workspace-write
// in a git repository, as the gate confines a granted write: the
// protected paths bound read-only in a mount namespace, the sandbox
// cache, a pids cgroup, the guard's check after the run.
func BenchmarkSandboxWorkspaceWrite(b *testing.B) {
	benchSandbox(b, func(dir string) *execution.Confinement {
		if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
			b.Skipf("git init: %v", err)
		}
		home, _ := os.UserHomeDir()
		return &execution.Confinement{Mode: execution.SandboxWorkspaceWrite, Roots: []string{dir}, Cache: filepath.Join(b.TempDir(), "cache"),
			Toolchains: execution.ToolchainDirs(os.Environ(), home, nil)}
	})
}

func benchSandbox(b *testing.B, confinement func(dir string) *execution.Confinement) {
	r := &execution.BashRunner{}
	if s := r.SandboxSupport(); s.Err != nil {
		b.Skipf("no confinement here: %v", s.Err)
	}
	dir := b.TempDir()
	ctx := context.Background()
	env := execution.BuildEnv(os.Environ(), nil, nil)
	spec := execution.Spec{Command: "true", Dir: dir, Env: env, View: execution.DefaultViewLimits}
	conf := spec
	conf.Sandbox = confinement(dir)
	plain := make([]time.Duration, 0, b.N)
	confined := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if out, err := r.Run(ctx, spec); err != nil || out.ExitCode != 0 {
			b.Fatalf("unconfined: %v %+v", err, out)
		}
		t1 := time.Now()
		if out, err := r.Run(ctx, conf); err != nil || out.ExitCode != 0 || out.Sandbox == nil {
			b.Fatalf("confined: %v %+v", err, out)
		}
		t2 := time.Now()
		plain = append(plain, t1.Sub(t0))
		confined = append(confined, t2.Sub(t1))
	}
	mp, mc := median(plain), median(confined)
	b.ReportMetric(float64(mc)/float64(mp), "ratio")
	b.ReportMetric(float64(mp.Microseconds()), "unconfined-µs")
	b.ReportMetric(float64(mc.Microseconds()), "confined-µs")
}
