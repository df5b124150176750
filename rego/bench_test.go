package rego

import (
	"context"
	"runtime/debug"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/internal/corpusdata"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// benchCommands are typical agent commands (shapes from the agent corpus).
var benchCommands = []string{
	"git status",
	"ls -la src/",
	"cat README.md",
	"sed -n '1,20p' src/main.go",
	"grep -n \"func main\" src/main.go",
	"cd src && grep -rn TODO . | head -20",
	"git diff HEAD~1 -- src/main.go",
	"python test.py",
	"npm test 2>&1 | tail -50",
	"echo hi > out.txt",
}

// BenchmarkDecide measures one decision, warm, per stage:
//
//	eval:                 the prepared query on a prepared input (facts + value + Eval)
//	classify+eval:        parse and classify, then decide, no station
//	classify+station+eval the whole in-process decision, read as bash
//	.../unknown-shell     the same with the shell not known (bash and zsh)
//	.../zsh               the same read as zsh
//	.../resident-gc       the same, with the collector at ResidentGCPercent
//	memo:                 classify + station + a memoized decision
//
// Each reports ns/op, allocs/op and p50-ns over the command mix.
func BenchmarkDecide(b *testing.B) {
	f := newFixture(b, nil, WithMemo(0))
	memoEngine, err := New()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	inputs := make([]policy.Input, len(benchCommands))
	for i, c := range benchCommands {
		inputs[i] = f.input(b, c, policy.ModeDefault)
	}
	b.Run("eval", func(b *testing.B) {
		runMix(b, func(i int) {
			if _, err := f.engine.Decide(ctx, inputs[i]); err != nil {
				b.Fatal(err)
			}
		})
	})
	bash := classify.WithDialect(classify.DialectBash)
	b.Run("classify+eval", func(b *testing.B) {
		runMix(b, func(i int) {
			c := benchCommands[i]
			in := withWrites(policy.Input{Command: c, Mode: policy.ModeDefault, Cwd: f.ws, Config: f.cfg, Report: classify.Classify(c, bash)})
			if _, err := f.engine.Decide(ctx, in); err != nil {
				b.Fatal(err)
			}
		})
	})
	// The boundary is built once, as a gate does.
	boundary, err := f.cfg.Boundary(f.ws)
	if err != nil {
		b.Fatal(err)
	}
	// whole is the whole in-process decision of command i through e, read
	// as bash (opts add to that: the unknown dialect reads it as both).
	whole := func(b *testing.B, e *Engine, opts ...classify.Option) func(i int) {
		opts = append([]classify.Option{bash}, opts...)
		return func(i int) {
			c := benchCommands[i]
			in := policy.Input{Command: c, Mode: policy.ModeDefault, Cwd: f.ws, Config: f.cfg, Report: classify.Classify(c, opts...)}
			in.Station = readstation.Judge(in.Report, boundary)
			in.Writes = readstation.JudgeWrites(in.Report, boundary)
			if _, err := e.Decide(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
	}
	// Without the policy: what classify and the station cost (with the
	// facts Go computes for the rules), the part of a decision no policy
	// changes.
	b.Run("classify+station", func(b *testing.B) {
		runMix(b, func(i int) {
			c := benchCommands[i]
			in := policy.Input{Command: c, Mode: policy.ModeDefault, Cwd: f.ws, Config: f.cfg, Report: classify.Classify(c, bash)}
			in.Station = readstation.Judge(in.Report, boundary)
			in.Writes = readstation.JudgeWrites(in.Report, boundary)
			if _, err := prepare(&in); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("classify+station+eval", func(b *testing.B) { runMix(b, whole(b, f.engine)) })
	// The shell not known: the command is read as bash and as zsh.
	b.Run("classify+station+eval/unknown-shell", func(b *testing.B) {
		runMix(b, whole(b, f.engine, classify.WithDialect(classify.DialectUnknown)))
	})
	b.Run("classify+station+eval/zsh", func(b *testing.B) {
		runMix(b, whole(b, f.engine, classify.WithDialect(classify.DialectZsh)))
	})
	// The same, with the collector set as the resident engine sets it.
	b.Run("classify+station+eval/resident-gc", func(b *testing.B) {
		defer debug.SetGCPercent(debug.SetGCPercent(ResidentGCPercent))
		runMix(b, whole(b, f.engine))
	})
	b.Run("memo", func(b *testing.B) { runMix(b, whole(b, memoEngine)) })
}

// runMix runs one(i) over the command mix b.N times, reporting CPU time
// and the 50th and 90th percentile of wall time per op.
func runMix(b *testing.B, one func(i int)) {
	b.ReportAllocs()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	cpu0 := cpuTime()
	for n := 0; n < b.N; n++ {
		t0 := time.Now()
		one(n % len(benchCommands))
		lat = append(lat, time.Since(t0))
	}
	cpu := cpuTime() - cpu0
	b.StopTimer()
	// CPU time per op is less disturbed than wall time on a shared,
	// loaded machine (it still includes the GC's work).
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(lat[len(lat)*9/10].Nanoseconds()), "p90-ns")
}

// BenchmarkNew measures compiling the default policy, as New does once
// per process (later engines share it).
func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for n := 0; n < b.N; n++ {
		if _, err := compileModules(defaultSources(), false, defaultDecisionArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecideFloor calibrates the machine: the same inputs through
// policies that do almost nothing, so the default policy's cost can be told
// from the fixed cost of an evaluation (with building the input):
//
//	input:      building the input document alone (facts + value), as
//	            the input contract (the whole report and station) costs
//	eval-empty: the trivial policy's evaluation (topdown, prepared) on an
//	            empty input: the fixed cost per evaluation
//	trivial:    decision is a constant
//	three-sets: deny, ask and allow with one rule each that never fires,
//	            combined as the default policy combines them (the least a
//	            policy with user-extensible sets does per decision)
func BenchmarkDecideFloor(b *testing.B) {
	ctx := context.Background()
	b.Run("input", func(b *testing.B) {
		f := newFixture(b, nil, WithMemo(0))
		inputs := make([]policy.Input, len(benchCommands))
		for i, c := range benchCommands {
			inputs[i] = f.input(b, c, policy.ModeDefault)
		}
		runMix(b, func(i int) {
			in := inputs[i]
			facts, err := prepare(&in)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := inputValue(&in, facts); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("eval-empty", func(b *testing.B) {
		f := newFixture(b, nil, WithMemo(0), WithoutDefaultPolicy(), WithModules(map[string]string{"floor.rego": floorPolicy}))
		runMix(b, func(int) {
			if _, err := f.engine.evalValue(ctx, emptyInput); err != nil {
				b.Fatal(err)
			}
		})
	})
	reason := `{"code": "c", "message": "m", "span": null, "segment": -1, "rule": "r"}`
	floors := []struct{ name, src string }{
		{"trivial", floorPolicy},
		{"three-sets", `package shellgate

deny contains ` + reason + ` if input.facts.has.fork_bomb == true

ask contains ` + reason + ` if input.facts.has.parse_error == true

allow contains ` + reason + ` if input.facts.has.granted == true

decision := {"action": "deny", "reasons": deny} if {
	some _ in deny
} else := {"action": "ask", "reasons": ask} if {
	some _ in ask
} else := {"action": "allow", "reasons": allow} if {
	input.report.reversible
}
`},
	}
	for _, fl := range floors {
		b.Run(fl.name, func(b *testing.B) {
			f := newFixture(b, nil, WithMemo(0), WithoutDefaultPolicy(), WithModules(map[string]string{"floor.rego": fl.src}))
			inputs := make([]policy.Input, len(benchCommands))
			for i, c := range benchCommands {
				inputs[i] = f.input(b, c, policy.ModeDefault)
			}
			runMix(b, func(i int) {
				if _, err := f.engine.Decide(ctx, inputs[i]); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// floorPolicy is the trivial policy: its decision is a constant.
const floorPolicy = "package shellgate\n\ndecision := {\"action\": \"allow\", \"reasons\": []}\n"

// emptyInput is an empty input document.
var emptyInput = ast.NewObject()

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDecideAgentStream replays the coding agent's one-line commands
// of the shared corpus (../shared/corpus-data/agent-commands.txt, 11 254
// commands in the order the agent ran them; SHELLGATE_CORPUS_DATA names
// another directory) through classify + station + a decision, in the
// fixture workspace. One op is the whole stream; p50-ns and p90-ns are per
// decision, cpu-ns/cmd is the CPU time per decision. "memo" starts each pass with an empty memo (DefaultMemo), as a
// fresh engine would; hit-% is the share of decisions it answered.
func BenchmarkDecideAgentStream(b *testing.B) {
	cmds, err := corpusdata.Read(corpusdata.Agent)
	if err != nil {
		b.Skipf("no agent corpus: %v", err)
	}
	f := newFixture(b, nil, WithMemo(0))
	boundary, err := f.cfg.Boundary(f.ws)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, memo := range []bool{false, true} {
		name := "fresh"
		if memo {
			name = "memo"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			lat := make([]time.Duration, 0, len(cmds))
			hits := 0
			var cpu time.Duration
			for n := 0; n < b.N; n++ {
				b.StopTimer()
				e := f.engine
				if memo {
					if e, err = New(); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				cpu0 := cpuTime()
				for _, c := range cmds {
					t0 := time.Now()
					in := policy.Input{Command: c, Mode: policy.ModeDefault, Cwd: f.ws, Config: f.cfg, Report: classify.Classify(c)}
					in.Station = readstation.Judge(in.Report, boundary)
					in.Writes = readstation.JudgeWrites(in.Report, boundary)
					if _, err := e.Decide(ctx, in); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
				}
				cpu += cpuTime() - cpu0
				if memo {
					hits += e.memo.hits
				}
			}
			// CPU time per decision is less disturbed than wall time on
			// a shared, loaded machine (it includes the GC's work).
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(len(lat)), "cpu-ns/cmd")
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(lat[len(lat)*9/10].Nanoseconds()), "p90-ns")
			if memo {
				b.ReportMetric(100*float64(hits)/float64(len(lat)), "hit-%")
			}
		})
	}
}

// BenchmarkDecideVsFloor measures, in one run and interleaved command by
// command (so that a shared machine's noise hits both alike), the whole
// in-process decision (classify + station + the default policy, memo off)
// against the floor the benchmarks name: classify + station + building the
// input + the trivial policy's Eval on an empty input. It reports both p50
// latencies and their ratio, x-floor-p50 (the target is at most 2).
func BenchmarkDecideVsFloor(b *testing.B) {
	ctx := context.Background()
	f := newFixture(b, nil, WithMemo(0))
	floor := newFixture(b, nil, WithMemo(0), WithoutDefaultPolicy(), WithModules(map[string]string{"floor.rego": floorPolicy}))
	boundary, err := f.cfg.Boundary(f.ws)
	if err != nil {
		b.Fatal(err)
	}
	input := func(c string) policy.Input {
		in := policy.Input{Command: c, Mode: policy.ModeDefault, Cwd: f.ws, Config: f.cfg, Report: classify.Classify(c)}
		in.Station = readstation.Judge(in.Report, boundary)
		in.Writes = readstation.JudgeWrites(in.Report, boundary)
		return in
	}
	b.ReportAllocs()
	var whole, low []time.Duration
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		c := benchCommands[n%len(benchCommands)]
		t0 := time.Now()
		in := input(c)
		facts, err := prepare(&in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := inputValue(&in, facts); err != nil {
			b.Fatal(err)
		}
		if _, err := floor.engine.evalValue(ctx, emptyInput); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := f.engine.Decide(ctx, input(c)); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		low = append(low, t1.Sub(t0))
		whole = append(whole, t2.Sub(t1))
	}
	b.StopTimer()
	p50 := func(l []time.Duration) float64 {
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		return float64(l[len(l)/2].Nanoseconds())
	}
	w, fl := p50(whole), p50(low)
	b.ReportMetric(w, "p50-ns")
	b.ReportMetric(fl, "floor-p50-ns")
	b.ReportMetric(w/fl, "x-floor-p50")
}

// BenchmarkInputValueKey measures, on the first 3,000 commands of the
// shared agent corpus (classified and judged once, outside the timing),
// the three per-decision steps: building the input value ("value"),
// evaluating the default policy on a value built before ("eval") and
// computing the memo key ("key", hashed from the same description without
// building a value). One op is one command; cpu-ns/op is CPU time per
// command. On a loaded machine, instructions are steadier than time: run
// the test binary under GOGC=off GOMAXPROCS=1 valgrind --tool=cachegrind
// at two -test.benchtime lengths (1000x, 3000x) and divide the difference.
func BenchmarkInputValueKey(b *testing.B) {
	cmds, err := corpusdata.Read(corpusdata.Agent)
	if err != nil {
		b.Skipf("no agent corpus: %v", err)
	}
	f := newFixture(b, nil, WithMemo(0))
	boundary, err := f.cfg.Boundary(f.ws)
	if err != nil {
		b.Fatal(err)
	}
	var ins []policy.Input
	var facts []*policy.Facts
	for _, c := range cmds {
		in := policy.Input{Command: c, Mode: policy.ModeDefault, Cwd: f.ws, Config: f.cfg, Report: classify.Classify(c)}
		in.Station = readstation.Judge(in.Report, boundary)
		in.Writes = readstation.JudgeWrites(in.Report, boundary)
		fs, err := prepare(&in)
		if err != nil {
			b.Fatal(err)
		}
		in.Mode = fs.Mode
		ins, facts = append(ins, in), append(facts, fs)
		if len(ins) == 3000 {
			break
		}
	}
	run := func(b *testing.B, one func(i int)) {
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := cpuTime()
		for n := 0; n < b.N; n++ {
			one(n % len(ins))
		}
		b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	b.Run("value", func(b *testing.B) {
		run(b, func(i int) {
			if _, err := inputValue(&ins[i], facts[i]); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("eval", func(b *testing.B) {
		vals := make([]ast.Value, len(ins))
		for i := range ins {
			v, err := inputValue(&ins[i], facts[i])
			if err != nil {
				b.Fatal(err)
			}
			vals[i] = v
		}
		ctx := context.Background()
		run(b, func(i int) {
			if _, err := f.engine.evalValue(ctx, vals[i]); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("key", func(b *testing.B) {
		run(b, func(i int) {
			if _, err := keyFor(&ins[i], facts[i]); err != nil {
				b.Fatal(err)
			}
		})
	})
}
