package classify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkClassifyAgent classifies the first 3,000 one-line commands of
// the shared agent corpus (the commands the batch benchmarks decide), one
// per op, on the cores -cpu gives (run with -cpu 1 for one core).
func BenchmarkClassifyAgent(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpusDir(), "agent-commands.txt"))
	if err != nil {
		b.Skipf("no agent corpus: %v", err)
	}
	var cmds []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" && len(cmds) < 3000 {
			cmds = append(cmds, l)
		}
	}
	benchmarkClassify(b, cmds)
}
