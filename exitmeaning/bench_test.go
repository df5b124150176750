package exitmeaning

import "testing"

// benchCases are agent-style commands with the statuses they commonly end
// in: the mix BenchmarkInterpret runs.
var benchCases = []struct {
	cmd  string
	code int
}{
	{"grep -rn TODO src | head -20", 1},
	{"cd src && grep -rn foo .", 1},
	{"git diff --quiet HEAD", 1},
	{"git -C repo grep needle", 128},
	{"timeout 10 rg x src", 124},
	{"find . -name '*.go' | xargs grep foo", 123},
	{"set -euo pipefail; cat f | grep x", 1},
	{"bash -lc 'cd x && rg y'", 1},
	{"jq -e .ok package.json", 1},
	{"npm test", 1},
	{"if [ -f x ]; then diff a b; else grep q f; fi", 1},
	{"sleep 100", 137},
}

// BenchmarkInterpret measures Interpret over benchCases, one case per op.
func BenchmarkInterpret(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c := benchCases[i%len(benchCases)]
		Interpret(c.cmd, c.code)
	}
}
