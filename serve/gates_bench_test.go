package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/trust"
)

// The resident engine checks the stamp of its inputs (the config file, the
// policy directories, the trust store) before every decision. Compare, in
// one run:
//
//	go test -run '^$' -bench 'GateCache' ./serve
//
// BenchmarkGateCacheStamp is that check alone (finding the config from the
// cwd, then stamping); BenchmarkGateCacheDecide is a whole decision of the
// engine, the check included.

// stampProject is a project with a trusted config and a policy directory
// of two modules (echoDenyModule fires on echo, unrelatedModule never
// fires), in a home of its own.
func stampProject(b *testing.B) string {
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	b.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	proj := filepath.Join(home, "proj")
	for name, content := range map[string]string{
		".git/HEAD":          "ref: refs/heads/main\n",
		".shellgate.yaml":    "grants: [\"make lint\"]\ndeny_reads: [\"*.key\"]\npolicy_dirs: [pol]\n",
		"pol/team.rego":      echoDenyModule,
		"pol/unrelated.rego": unrelatedModule,
		"src/main.go":        "package main\n",
	} {
		p := filepath.Join(proj, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// Trusted as `shellgate trust` trusts it.
	path, err := trust.Path()
	if err != nil {
		b.Fatal(err)
	}
	store, err := trust.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	_, entries, err := policy.ProjectEntries(proj, time.Now().UTC().Truncate(time.Second))
	if err != nil || len(entries) == 0 {
		b.Fatalf("trust entries: %v %v", entries, err)
	}
	for _, en := range entries {
		store.Add(en)
	}
	if err := store.Save(path); err != nil {
		b.Fatal(err)
	}
	// Past the racy window, as an engine is between edits: the stamp is
	// then stats only (TestInputStampRacy covers the window).
	time.Sleep(hook.RacyWindow)
	return proj
}

func BenchmarkGateCacheStamp(b *testing.B) {
	proj := stampProject(b)
	c := NewGates(hook.Flags{})
	if _, err := c.GateFor(proj); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.GateFor(proj); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGateCacheDecide(b *testing.B) {
	proj := stampProject(b)
	c := NewGates(hook.Flags{})
	ctx := context.Background()
	q := hook.Query{Command: "git status && grep -rn TODO src | head -20", Cwd: proj}
	v, err := c.Decide(ctx, q)
	if err != nil || v.Action != "allow" {
		b.Fatalf("%+v %v", v, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Decide(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGateCacheStampShare measures both, interleaved so that the
// machine's load hits them alike: per iteration the stamp check alone, then
// a whole decision of a command not decided before (no memo hit; the check
// included). It reports stamp-ns, decision-ns and stamp-% (the check's
// share of a decision).
func BenchmarkGateCacheStampShare(b *testing.B) {
	proj := stampProject(b)
	c := NewGates(hook.Flags{})
	ctx := context.Background()
	if _, err := c.Decide(ctx, hook.Query{Command: "ls", Cwd: proj}); err != nil {
		b.Fatal(err)
	}
	var stamp, decide time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := c.GateFor(proj); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		q := hook.Query{Command: fmt.Sprintf("git status && grep -rn TODO%d src | head -20", i), Cwd: proj}
		if _, err := c.Decide(ctx, q); err != nil {
			b.Fatal(err)
		}
		stamp += t1.Sub(t0)
		decide += time.Since(t1)
	}
	b.ReportMetric(float64(stamp.Nanoseconds())/float64(b.N), "stamp-ns")
	b.ReportMetric(float64(decide.Nanoseconds())/float64(b.N), "decision-ns")
	b.ReportMetric(100*float64(stamp)/float64(decide), "stamp-%")
}
