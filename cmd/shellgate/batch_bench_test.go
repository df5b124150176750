package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellgate/shellgate/internal/corpusdata"
)

// agentCommands returns n one-line commands of the shared agent corpus
// in the order the agent ran them (../shared/corpus-data/agent-commands.txt, or the directory
// SHELLGATE_CORPUS_DATA names), or skips.
func agentCommands(b *testing.B, n int) []string {
	lines, err := corpusdata.Read(corpusdata.Agent)
	if err != nil {
		b.Skipf("no agent corpus: %v", err)
	}
	// Past the end of the corpus the stream starts again from its top.
	cmds := make([]string, n)
	for i := range cmds {
		cmds[i] = lines[i%len(lines)]
	}
	return cmds
}

// batchWorkspace is a fresh git workspace in a home of its own.
func batchWorkspace(b *testing.B) string {
	home := b.TempDir()
	b.Setenv("HOME", home)
	b.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	b.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	ws := filepath.Join(home, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("git", "init", "-q", ws).CombinedOutput(); err != nil {
		b.Skipf("git init: %v: %s", err, out)
	}
	return ws
}

// BenchmarkCheckBatch is `shellgate check --json --batch` over the first
// 3,000 commands of the agent corpus in a fresh git workspace, in process
// (flag parsing, config, policy compilation, every decision and its JSON
// line; not the process start). One op is the whole batch; cmds/s is its
// throughput, cmds/cpu-s the same per second of CPU time. Compare with the
// peer as ../shared/bench/README.md says.
func BenchmarkCheckBatch(b *testing.B) {
	cmds := agentCommands(b, 3000)
	ws := batchWorkspace(b)
	in := []byte(strings.Join(cmds, "\n") + "\n")
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for n := 0; n < b.N; n++ {
		var out bytes.Buffer
		if code := run([]string{"check", "--json", "--batch", "--cwd", ws}, bytes.NewReader(in), &out, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
		if got := bytes.Count(out.Bytes(), []byte("\n")); got != len(cmds) {
			b.Fatalf("%d lines out for %d commands", got, len(cmds))
		}
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(len(cmds)*b.N)/b.Elapsed().Seconds(), "cmds/s")
	// Commands per second of CPU time (all threads), less disturbed than
	// wall time on a shared, loaded machine.
	b.ReportMetric(float64(len(cmds)*b.N)/cpu.Seconds(), "cmds/cpu-s")
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapWriter counts the lines written and, at the given line counts,
// records the live heap (after a collection).
type heapWriter struct {
	lines int
	at    map[int]float64
}

func (w *heapWriter) Write(p []byte) (int, error) {
	for _, c := range p {
		if c != '\n' {
			continue
		}
		w.lines++
		if _, ok := w.at[w.lines]; ok {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			w.at[w.lines] = float64(ms.HeapAlloc) / (1 << 20)
		}
	}
	return len(p), nil
}

// BenchmarkCheckBatchStream is `shellgate check --json --batch` over a
// stream of 25,000 agent commands (the corpus's one-liners in order, then
// again from the top), in process; it reports the live heap after 5,000,
// 10,000 and 25,000 answers: flat means a long stream does not accumulate
// memory (the memo and the caches are bounded, and only a few lines per
// worker are in flight).
func BenchmarkCheckBatchStream(b *testing.B) {
	cmds := agentCommands(b, 25000)
	ws := batchWorkspace(b)
	in := []byte(strings.Join(cmds, "\n") + "\n")
	marks := []int{5000, 10000, 25000}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		w := &heapWriter{at: map[int]float64{}}
		for _, m := range marks {
			w.at[m] = 0
		}
		if code := run([]string{"check", "--json", "--batch", "--cwd", ws}, bytes.NewReader(in), w, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
		if w.lines != len(cmds) {
			b.Fatalf("%d lines out for %d commands", w.lines, len(cmds))
		}
		for _, m := range marks {
			b.ReportMetric(w.at[m], fmt.Sprintf("live-MiB@%dk", m/1000))
		}
	}
	b.ReportMetric(float64(len(cmds)*b.N)/b.Elapsed().Seconds(), "cmds/s")
}

// BenchmarkBatchVsPeer runs, side by side as whole processes on the same
// 3,000 agent commands in the same workspace, `shellgate check --json
// --batch` and Gemini CLI core's PolicyEngine.check through
// ../shared/bench/gemini-policy.mjs (see its README for installing the
// peer; GEMINI_CORE names the installed package directory, and the
// benchmark skips without it). Each op is peerRounds rounds; a round runs
// shellgate on one command, shellgate on the 3,000 and the peer on the
// 3,000, one after the other, so that a change of load on a shared
// machine falls on both sides alike. It reports the medians over the
// rounds of: shellgate's commands/s over its whole process (start, policy
// compilation, every decision and its JSON line), the peer's commands/s
// of its policy_check_default stage alone, their ratio in the round
// x-peer (the target is at least 4), the cores shellgate used (CPU time /
// wall time), its wall time on one command (sg-start-ms) and its peak
// resident set (sg-rss-MiB).
func BenchmarkBatchVsPeer(b *testing.B) {
	core := os.Getenv("GEMINI_CORE")
	script := os.Getenv("SHELLGATE_PEER_SCRIPT")
	if script == "" {
		script = filepath.Join("..", "..", "..", "shared", "bench", "gemini-policy.mjs")
	}
	script, _ = filepath.Abs(script)
	node, err := exec.LookPath("node")
	if core == "" || err != nil {
		b.Skip("set GEMINI_CORE to the installed @google/gemini-cli-core (../shared/bench/README.md) and put node on PATH")
	}
	if _, err := os.Stat(script); err != nil {
		b.Skipf("no peer script: %v", err)
	}
	cmds := agentCommands(b, 3000)
	ws := batchWorkspace(b)
	dir := b.TempDir()
	input, one := filepath.Join(dir, "cmds"), filepath.Join(dir, "one")
	if err := os.WriteFile(input, []byte(strings.Join(cmds, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(one, []byte("ls\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(dir, "shellgate")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v: %s", err, out)
	}
	type usage struct {
		wall, cpu time.Duration
		rssKiB    int64
	}
	runWith := func(stdin string, stderr io.Writer, name string, args ...string) usage {
		f, err := os.Open(stdin)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		c := exec.Command(name, args...)
		c.Dir, c.Stdin, c.Stdout, c.Stderr = ws, f, io.Discard, stderr
		c.Env = append(os.Environ(), "GEMINI_CORE="+core)
		t0 := time.Now()
		if err := c.Run(); err != nil {
			b.Fatalf("%s: %v", name, err)
		}
		u := usage{wall: time.Since(t0), cpu: c.ProcessState.UserTime() + c.ProcessState.SystemTime()}
		if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
			u.rssKiB = ru.Maxrss
		}
		return u
	}
	var sgRate, peerRate, ratio, cores, start, rss []float64
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for r := 0; r < peerRounds; r++ {
			start = append(start, float64(runWith(one, io.Discard, bin, "check", "--json", "--batch").wall.Microseconds())/1000)
			u := runWith(input, io.Discard, bin, "check", "--json", "--batch")
			var sum bytes.Buffer
			runWith(input, &sum, node, script, "--workspace", ws)
			var rep struct {
				US map[string]string `json:"us_per_cmd"`
			}
			if err := json.Unmarshal(sum.Bytes(), &rep); err != nil {
				b.Fatalf("peer summary: %v: %s", err, sum.String())
			}
			us, err := strconv.ParseFloat(rep.US["policy_check_default"], 64)
			if err != nil || us <= 0 {
				b.Fatalf("peer summary: policy_check_default %q", rep.US["policy_check_default"])
			}
			sg, peer := float64(len(cmds))/u.wall.Seconds(), 1e6/us
			sgRate, peerRate, ratio = append(sgRate, sg), append(peerRate, peer), append(ratio, sg/peer)
			cores = append(cores, u.cpu.Seconds()/u.wall.Seconds())
			rss = append(rss, float64(u.rssKiB)/1024)
		}
	}
	b.StopTimer()
	b.ReportMetric(median(sgRate), "sg-cmds/s")
	b.ReportMetric(median(peerRate), "peer-cmds/s")
	b.ReportMetric(median(ratio), "x-peer")
	b.ReportMetric(median(cores), "sg-cores")
	b.ReportMetric(median(start), "sg-start-ms")
	b.ReportMetric(median(rss), "sg-rss-MiB")
}

// peerRounds is how many times BenchmarkBatchVsPeer runs each side per op.
const peerRounds = 5

// median is the middle of xs (the mean of the two middle ones for an even
// count); xs is sorted in place.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	m := len(xs) / 2
	if len(xs)%2 == 0 {
		return (xs[m-1] + xs[m]) / 2
	}
	return xs[m]
}

// BenchmarkCheckBatchStart is `shellgate check --json --batch` on one
// command, in process: what a batch costs before its first answer (flag
// parsing, config, catalog, policy compilation, the first decision), not
// the process start.
func BenchmarkCheckBatchStart(b *testing.B) {
	ws := batchWorkspace(b)
	in := []byte("ls\n")
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var out bytes.Buffer
		if code := run([]string{"check", "--json", "--batch", "--cwd", ws}, bytes.NewReader(in), &out, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
	}
}
