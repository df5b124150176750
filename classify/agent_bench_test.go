package classify

import (
	"testing"

	"github.com/shellgate/shellgate/internal/corpusdata"
)

// BenchmarkClassifyAgent classifies the first 3,000 one-line commands of
// the shared agent corpus (the commands the batch benchmarks decide), one
// per op, on the cores -cpu gives (run with -cpu 1 for one core).
func BenchmarkClassifyAgent(b *testing.B) {
	cmds, err := corpusdata.Read(corpusdata.Agent)
	if err != nil {
		b.Skipf("no agent corpus: %v", err)
	}
	benchmarkClassify(b, cmds[:min(len(cmds), 3000)])
}
