package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// agentCommands returns the first n one-line commands of the shared agent
// corpus (../shared/corpus-data/agent-commands.txt, or the directory
// SHELLGATE_CORPUS_DATA names), or skips.
func agentCommands(b *testing.B, n int) []string {
	dir := os.Getenv("SHELLGATE_CORPUS_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus-data")
	}
	data, err := os.ReadFile(filepath.Join(dir, "agent-commands.txt"))
	if err != nil {
		b.Skipf("no agent corpus: %v", err)
	}
	var cmds []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" {
			cmds = append(cmds, l)
		}
		if len(cmds) == n {
			break
		}
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
// throughput. Compare with the peer as ../shared/bench/README.md says.
func BenchmarkCheckBatch(b *testing.B) {
	cmds := agentCommands(b, 3000)
	ws := batchWorkspace(b)
	in := []byte(strings.Join(cmds, "\n") + "\n")
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var out bytes.Buffer
		if code := run([]string{"check", "--json", "--batch", "--cwd", ws}, bytes.NewReader(in), &out, io.Discard); code != exitOK {
			b.Fatalf("exit %d", code)
		}
		if got := bytes.Count(out.Bytes(), []byte("\n")); got != len(cmds) {
			b.Fatalf("%d lines out for %d commands", got, len(cmds))
		}
	}
	b.ReportMetric(float64(len(cmds)*b.N)/b.Elapsed().Seconds(), "cmds/s")
}
