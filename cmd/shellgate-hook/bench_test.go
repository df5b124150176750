package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// The whole-process benchmarks: what an agent pays per shell command. Run
//
//	go test -run '^$' -bench Hook -benchtime 200x ./cmd/shellgate-hook
//
// Each reports the median wall time of one hook process as median-ms (the
// mean, ns/op, includes the slow tail).

const benchPayload = `{"session_id":"s","transcript_path":"/t.jsonl","cwd":"%CWD%","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status && grep -rn TODO src | head -20"},"tool_use_id":"toolu_1"}`

// benchProcess runs name args as a hook process b.N times. path, when set,
// must match the stderr of every call (the path the answer took); when nil,
// the engine must have answered.
func benchProcess(b *testing.B, s *sandbox, path *regexp.Regexp, name string, args ...string) {
	in := []byte(strings.ReplaceAll(benchPayload, "%CWD%", s.proj))
	// Warm up the page cache and, for the engine, its decision path.
	for i := 0; i < 5; i++ {
		s.exec(b, in, name, args...)
	}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		out, stderr, code := s.exec(b, in, name, args...)
		times = append(times, time.Since(t0))
		if code != 0 || !strings.Contains(out, "permissionDecision") {
			b.Fatalf("exit %d, out %q, stderr %q", code, out, stderr)
		}
		if path == nil && strings.Contains(stderr, "no engine answered") {
			b.Fatalf("the engine did not answer: %s", stderr)
		}
		if path != nil && !path.MatchString(stderr) {
			b.Fatalf("the answer did not take the path %s: %s", path, stderr)
		}
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "p90-ms")
}

// BenchmarkHookThinClientWarmEngine: shellgate-hook through a warm engine.
func BenchmarkHookThinClientWarmEngine(b *testing.B) {
	full, thin := binaries(b)
	s := newSandbox(b)
	log := filepath.Join(b.TempDir(), "engine.log")
	eng := exec.Command(full, "serve", "--socket", s.socket, "--log", log)
	eng.Env = s.env
	if err := eng.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		eng.Process.Signal(os.Interrupt)
		eng.Wait()
	}()
	s.waitEngine(b, versionOf(b, thin))
	benchProcess(b, s, nil, thin, "claude")
}

// BenchmarkHookOneShot: `shellgate hook claude`, one full process per call.
func BenchmarkHookOneShot(b *testing.B) {
	full, _ := binaries(b)
	s := newSandbox(b)
	benchProcess(b, s, nil, full, "hook", "claude")
}

// BenchmarkCodexExecpolicyCheck is the yardstick of the hook's target
// (DESIGN: through the resident engine at least 3× faster): Codex's own
// rule check, `codex execpolicy check` on a rules file, for the words of
// the benchmark payload's first command, one process per call. Codex's
// native binary is run (its node launcher would only add to its cost).
// Compare its median-ms with BenchmarkHookThinClientWarmEngine's in one
// run:
//
//	go test -run '^$' -bench 'HookThinClientWarmEngine|CodexExecpolicyCheck' -benchtime 100x ./cmd/shellgate-hook
func BenchmarkCodexExecpolicyCheck(b *testing.B) {
	launcher := codexBin(b)
	native, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(launcher)), "@openai", "codex-*", "vendor", "*", "bin", "codex"))
	bin := launcher
	if len(native) > 0 {
		bin = native[0]
	}
	dir := b.TempDir()
	rules := filepath.Join(dir, "default.rules")
	if err := os.WriteFile(rules, []byte(`prefix_rule(pattern=["git", ["status", "diff"]], decision="allow")
prefix_rule(pattern=["grep"], decision="allow")
prefix_rule(pattern=["rm"], decision="forbidden")
`), 0o600); err != nil {
		b.Fatal(err)
	}
	args := []string{"execpolicy", "check", "--rules", rules, "--", "git", "status"}
	run := func() {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "CODEX_HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "allow") {
			b.Fatalf("codex execpolicy check: %v\n%s", err, out)
		}
	}
	for i := 0; i < 5; i++ {
		run()
	}
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		run()
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "p90-ms")
}
