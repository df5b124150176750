package corpus

import (
	"context"
	"testing"
)

// BenchmarkCorpus measures what `shellgate test` does with the embedded
// corpus, cold, once per iteration: load and parse the case files, build
// the gate (compile the policy), lay the fixtures and judge every case
// through classify, the read station and the policy. The target is under
// 2 s per iteration on the project's 2-core machine.
func BenchmarkCorpus(b *testing.B) {
	home := b.TempDir()
	b.Setenv("HOME", home)
	tmp := b.TempDir()
	n := 0
	for b.Loop() {
		cases, err := Embedded()
		if err != nil {
			b.Fatal(err)
		}
		rs, err := Run(context.Background(), cases, GateFactory(nil), Options{Home: home, TempDir: tmp})
		if err != nil {
			b.Fatal(err)
		}
		n = len(rs)
		Unlay(home)
	}
	b.ReportMetric(float64(n), "cases/op")
}
