package classify

import (
	"testing"
)

// benchCommands are typical commands of a coding agent.
var benchCommands = []string{
	"git status",
	"ls -la",
	"cat f",
	"grep -rn x src",
	"sed -n '1,20p' f.py",
	"cd /testbed && python -m pytest -x",
	"find . -name '*.py' | head",
	"pwd && ls -la",
	"git diff",
	"git log --oneline -n 10",
	"git diff --stat HEAD~1",
	"git show HEAD:README.md",
	"head -50 src/main.go",
	"tail -n 100 build.log",
	"wc -l *.go",
	"grep -n 'func main' cmd/app/main.go",
	"grep -rn --include='*.go' TODO .",
	"find src -type f -name '*.ts' | xargs grep -l useState",
	"cd /testbed && grep -n 'class Query' django/db/models/sql/query.py",
	"cd /testbed && sed -n '2120,2150p' django/db/models/sql/query.py",
	"cat package.json | head -40",
	"ls src/ tests/",
	"tree -L 2",
	"echo $?",
	"diff -u a.txt b.txt",
	"sort data.csv | uniq -c | sort -rn | head",
	"awk -F, '{print $1}' data.csv",
	"cat README.md",
	"git branch --show-current",
	"git rev-parse --show-toplevel",
	"ls -R | head -100",
	"find . -type f -newer go.mod",
	"grep -c error app.log",
	"rg -n 'fn main' src",
	"go test ./...",
	"npm test",
	"python3 -c 'import sys; print(sys.version)'",
	"cat > /tmp/x.py << 'EOF'\nprint(1)\nEOF",
	"cd /testbed && python reproduce_issue.py",
	"git stash list",
	"for i in 1 2 3; do git status; sleep 1; done",
	"ls -la | grep -v '^d' | awk '{print $9}'",
	"timeout 10 grep -r pattern /var/log 2>/dev/null | head -20",
	"find . -name '*.pyc' -delete",
	"rm -rf build/",
	"git add -A && git commit -m 'wip'",
	"echo hello > out.txt",
	"cat <<< \"$x\" | wc -c",
	"bash -c 'ls | wc -l'",
	"env LC_ALL=C sort -u names.txt",
}

// shortCommands are the short ones the 100k commands/s target is about.
var shortCommands = []string{
	"git status", "ls -la", "cat f", "grep -rn x src", "sed -n '1,20p' f.py",
	"pwd", "git diff", "head -50 f.go", "wc -l f", "git log --oneline -n 10",
}

func benchmarkClassify(b *testing.B, cmds []string, opts ...Option) {
	DefaultCatalog()
	var bytes int
	for _, c := range cmds {
		bytes += len(c)
	}
	b.SetBytes(int64(bytes / len(cmds)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		Classify(cmds[i%len(cmds)], opts...)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cmds/s")
	// On a shared machine wall time includes waiting for a core; the
	// process's CPU time (GC included) is what a command costs.
	if used := cpuTime() - cpu; used > 0 {
		b.ReportMetric(float64(used.Nanoseconds())/float64(b.N), "cpu-ns/op")
		b.ReportMetric(float64(b.N)/used.Seconds(), "cpu-cmds/s")
	}
}

// BenchmarkClassify classifies typical agent commands, one per op: as
// bash (typical, short: the 100k commands/s target), as zsh, and with the
// shell not known (both readings).
func BenchmarkClassify(b *testing.B) {
	bash, zsh := WithDialect(DialectBash), WithDialect(DialectZsh)
	b.Run("typical", func(b *testing.B) { benchmarkClassify(b, benchCommands, bash) })
	b.Run("short", func(b *testing.B) { benchmarkClassify(b, shortCommands, bash) })
	b.Run("typical-zsh", func(b *testing.B) { benchmarkClassify(b, benchCommands, zsh) })
	b.Run("short-zsh", func(b *testing.B) { benchmarkClassify(b, shortCommands, zsh) })
	b.Run("typical-unknown", func(b *testing.B) { benchmarkClassify(b, benchCommands) })
	b.Run("short-unknown", func(b *testing.B) { benchmarkClassify(b, shortCommands) })
}
