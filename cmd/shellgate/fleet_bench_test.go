package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
)

// benchCommands are decided in turn.
var benchCommands = []string{
	"ls -la", "git status", "grep -rn TODO .", "cat README.md | head -5",
	"npm test", "rm -rf build", "TOKEN=abc123 make deploy", "find . -name '*.go' -delete",
}

// BenchmarkFleetDecide compares a decision with local policy to one with
// the same policy from a bundle (served over HTTP on 127.0.0.1), without and
// with masked decision logs. Compare the ns/op of the sub-benchmarks.
func BenchmarkFleetDecide(b *testing.B) {
	b.Setenv("HOME", b.TempDir())
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	work := b.TempDir()
	www := filepath.Join(work, "www")
	if err := os.MkdirAll(www, 0o755); err != nil {
		b.Fatal(err)
	}
	pdir := policyDir(b, work, "org-bench")
	bundleCLI(b, filepath.Join(www, "shellgate.tar.gz"), "", "bench", pdir)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(www))}
	go srv.Serve(l)
	defer srv.Close()
	cl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	csrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.Copy(io.Discard, r.Body) })}
	go csrv.Serve(cl)
	defer csrv.Close()
	cwd := b.TempDir()

	cfg, err := policy.ParseConfig([]byte("deny_reads:\n  - '**/org-secret.txt'\n"), filepath.Join(pdir, "shellgate.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	local, err := gate.NewPipeline(gate.PipelineOptions{Config: cfg, PolicyDirs: []string{pdir}})
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, d *decider) {
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		c0 := fleetCPUTime()
		for i := 0; i < b.N; i++ {
			in, _, _ := d.input(policy.Request{Command: benchCommands[i%len(benchCommands)], Cwd: cwd})
			if _, _, err := d.Decide(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
		// CPU time (the whole process: OPA's plugins and the GC too) is
		// steadier than wall time on a shared machine.
		b.ReportMetric(float64(fleetCPUTime()-c0)/float64(b.N), "cpu-ns/op")
	}
	b.Run("local", func(b *testing.B) { run(b, &decider{Decider: gate.NewDecider(local), req: policy.Request{Cwd: cwd}}) })
	for _, logs := range []bool{false, true} {
		name := "bundle"
		conf := fmt.Sprintf("services:\n  s:\n    url: http://%s\nbundles:\n  shellgate:\n    service: s\n    resource: shellgate.tar.gz\n", l.Addr())
		if logs {
			name = "bundle+logs"
			conf = fmt.Sprintf("services:\n  s:\n    url: http://%s\n  c:\n    url: http://%s\nbundles:\n  shellgate:\n    service: s\n    resource: shellgate.tar.gz\ndecision_logs:\n  service: c\n  reporting:\n    min_delay_seconds: 1\n    max_delay_seconds: 1\n", l.Addr(), cl.Addr())
		}
		p := filepath.Join(work, name+".yaml")
		if err := os.WriteFile(p, []byte(conf), 0o600); err != nil {
			b.Fatal(err)
		}
		old := fleetWait
		fleetWait = 10 * time.Second
		f, err := startFleet(p)
		fleetWait = old
		if err != nil {
			b.Fatal(err)
		}
		if bu, _ := f.Bundle(); bu == nil {
			b.Fatalf("no bundle: %+v", f.Agent().Status())
		}
		b.Run(name, func(b *testing.B) { run(b, &decider{Decider: fleetDecider(f), req: policy.Request{Cwd: cwd}}) })
		f.Agent().StopQuiet(context.Background())
	}
}

// fleetCPUTime is the CPU time this process has used (user + system).
func fleetCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
