package execution

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkSandbox measures `bash -c true` through the BashRunner confined
// read-only (Landlock ruleset, locked thread, network namespace) against
// the same runner unconfined, interleaved in one run; the ratio metric is
// the median confined time over the median unconfined time (target ≤ 1.30).
func BenchmarkSandbox(b *testing.B) {
	benchSandbox(b, "true", func(dir string) *Confinement {
		return &Confinement{Mode: SandboxReadOnly, Roots: []string{dir}}
	})
}

// BenchmarkSandboxWorkspaceWrite is BenchmarkSandbox in workspace-write
// in a git repository, as the gate confines a granted write: the
// protected paths bound read-only in a mount namespace, the sandbox
// cache, a pids cgroup, the guard's check after the run.
func BenchmarkSandboxWorkspaceWrite(b *testing.B) {
	benchSandbox(b, "true", func(dir string) *Confinement {
		if err := exec.Command("git", "init", "-q", dir).Run(); err != nil {
			b.Skipf("git init: %v", err)
		}
		home, _ := os.UserHomeDir()
		return &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir}, Cache: filepath.Join(b.TempDir(), "cache"),
			Toolchains: ToolchainDirs(os.Environ(), home, nil)}
	})
}

// BenchmarkSandboxGitStatus is BenchmarkSandboxWorkspaceWrite for a
// command that does some work: git status in a small repository (a
// commit and two untracked files), with an empty home.
func BenchmarkSandboxGitStatus(b *testing.B) {
	b.Setenv("HOME", b.TempDir()) // the sandbox does not grant ~/.gitconfig
	benchSandbox(b, "git status --short", func(dir string) *Confinement {
		for _, args := range [][]string{{"init", "-q"}, {"-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "--allow-empty", "-m", "x"}} {
			if err := exec.Command("git", append([]string{"-C", dir}, args...)...).Run(); err != nil {
				b.Skipf("git %v: %v", args, err)
			}
		}
		for _, f := range []string{"a.txt", "b.txt"} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		home, _ := os.UserHomeDir()
		return &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir}, Cache: filepath.Join(b.TempDir(), "cache"),
			Toolchains: ToolchainDirs(os.Environ(), home, nil)}
	})
}

func benchSandbox(b *testing.B, command string, confinement func(dir string) *Confinement) {
	r := &BashRunner{}
	if s := r.SandboxSupport(); s.Err != nil {
		b.Skipf("no confinement here: %v", s.Err)
	}
	dir := b.TempDir()
	ctx := context.Background()
	env := BuildEnv(os.Environ(), nil, nil)
	spec := Spec{Command: command, Dir: dir, Env: env, View: DefaultViewLimits}
	conf := spec
	conf.Sandbox = confinement(dir)
	// A workspace not changed in the last second, as one mostly is when
	// a command runs: the guard looks whole at a directory changed
	// within racyWindow before the run (see dirStamp).
	time.Sleep(racyWindow + 100*time.Millisecond)
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

// median is the middle of ds: the machine is shared, and one slow spawn
// on either side should not decide a ratio.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
