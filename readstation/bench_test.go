package readstation

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/internal/corpusdata"
)

// BenchmarkJudge measures what the station adds per decision, with a warm
// cache (the boundary's rows compiled, git config read once), on typical
// agent commands in a temp repository. Classification is done outside the
// timed loop.
func BenchmarkJudge(b *testing.B) {
	f := newFixture(b)
	bd := f.boundary(b, "proj")
	// The fixture was just written: wait out a short racy window so clean
	// trees are remembered, as they are for a tree untouched for 2s.
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 10 * time.Millisecond
	time.Sleep(20 * time.Millisecond)
	cmds := []struct{ name, cmd string }{
		{"cat", "cat README.md"},
		{"git-status", "git status"},
		{"no-reads", "echo hi"},
		{"cat-home-key", "cat ~/.ssh/id_rsa"},
		{"three-files", "head -n 20 src/main.go src/util.go README.md"},
		{"cd-cat", "cd src && cat main.go"},
		{"glob", "wc -l src/*.go"},
		{"grep-r-src", "grep -rn foo src"},
		{"grep-r-repo", "grep -rn foo ."},
		{"find-xargs", "find src -name '*.go' | xargs wc -l"},
		{"grep-r-home", "grep -r token ~"},
	}
	for _, c := range cmds {
		r := classify.Classify(c.cmd)
		Judge(r, bd) // warm
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			n0 := fsCalls.Load()
			c0 := cpuTime()
			for b.Loop() {
				Judge(r, bd)
			}
			b.ReportMetric(float64(fsCalls.Load()-n0)/float64(b.N), "fscalls/op")
			b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkRecheck measures the admission re-check before a spawn.
func BenchmarkRecheck(b *testing.B) {
	f := newFixture(b)
	bd := f.boundary(b, "proj")
	adm := Judge(classify.Classify("cat README.md src/*.go"), bd).Admission()
	b.ReportAllocs()
	n0 := fsCalls.Load()
	for b.Loop() {
		if err := adm.Recheck(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(fsCalls.Load()-n0)/float64(b.N), "fscalls/op")
}

// BenchmarkStatBaseline is one stat of a fixture file: the unit the
// station's fscalls/op cost on this machine, to read BenchmarkJudge by.
func BenchmarkStatBaseline(b *testing.B) {
	f := newFixture(b)
	p := f.proj + "/README.md"
	c0 := cpuTime()
	for b.Loop() {
		if _, err := os.Stat(p); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user+system CPU time in nanoseconds: on a
// shared, loaded machine it measures what the station costs better than
// the wall clock does.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkDenied is the deny-row match of one path against the default
// rows: the in-process part of judging a read, without system calls.
func BenchmarkDenied(b *testing.B) {
	m := compileMatcher(Boundary{Roots: []string{"/home/me/src/proj"}, Home: "/home/me",
		Cwd: "/home/me/src/proj", DenyRows: DefaultDenyRows})
	paths := []string{"/home/me/src/proj/internal/server/handler.go", "/home/me/.ssh/id_rsa", "/home/me/src/proj/.env"}
	for _, p := range paths {
		b.Run(p[strings.LastIndexByte(p, '/')+1:], func(b *testing.B) {
			for b.Loop() {
				m.denied(p)
			}
		})
	}
}

// BenchmarkJudgeAgent judges the first 3,000 one-line commands of the
// shared agent corpus (the commands the batch benchmarks decide; set
// internal/corpusdata) in the fixture repository, one per
// op, classified outside the timed loop: what the station costs on the
// agent stream, where most paths are missing or outside the roots.
func BenchmarkJudgeAgent(b *testing.B) {
	cmds, err := corpusdata.Read(corpusdata.Agent)
	if err != nil {
		b.Skipf("no agent corpus: %v", err)
	}
	var reps []*classify.Report
	for _, l := range cmds[:min(len(cmds), 3000)] {
		reps = append(reps, classify.Classify(l))
	}
	f := newFixture(b)
	bd := f.boundary(b, "proj")
	bd.MaxWalkDirs = 64 // stay near the fixture, as TestCorpus does
	for _, r := range reps {
		Judge(r, bd) // warm the caches a batch keeps
	}
	b.ReportAllocs()
	n0 := fsCalls.Load()
	c0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		Judge(reps[i%len(reps)], bd)
	}
	b.ReportMetric(float64(fsCalls.Load()-n0)/float64(b.N), "fscalls/op")
	b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op")
}
