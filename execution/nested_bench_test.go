package execution

import (
	"os"
	"testing"
)

// BenchmarkScanNested measures the walk beneath a root (done before and
// after every workspace-write run) on the tree SHELLGATE_BENCH_TREE names
// (default: this repository).
func BenchmarkScanNested(b *testing.B) {
	root := os.Getenv("SHELLGATE_BENCH_TREE")
	if root == "" {
		root = ".."
	}
	s := scanNested([]string{root}, func(string) bool { return false })
	b.Logf("%s: %d names, %d git dirs, incomplete %v", root, len(s.names), len(s.gitDirs), s.incomplete)
	for i := 0; i < b.N; i++ {
		scanNested([]string{root}, func(string) bool { return false })
	}
}
