package corpus

import (
	"context"
	"os"
	"testing"
)

// runEmbedded runs the embedded corpus through the real gate, with $HOME
// pointing at the run's shared fixture home.
func runEmbedded(t testing.TB) []Result {
	t.Helper()
	cases, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return runCases(t, cases)
}

// runCases runs cases through the default gate in a fresh home, with
// less's input preprocessor unset.
func runCases(t testing.TB, cases []Case) []Result {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	// Debian's ~/.bashrc exports LESSOPEN (lesspipe), which less obeys:
	// the corpus judges less as it runs in a clean environment.
	t.Setenv("LESSOPEN", "")
	t.Setenv("LESSCLOSE", "")
	rs, err := Run(context.Background(), cases, GateFactory(nil), Options{Home: home, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestCorpusFigures measures the two figures corpus/README.md reports and
// holds the engine to them: no unsafe case may be allowed, and at least
// 95 % of the read-only cases must be allowed without asking. Failing cases
// are listed (`shellgate test` lists every failing case).
func TestCorpusFigures(t *testing.T) {
	rs := runEmbedded(t)
	f := Measure(rs)
	t.Log(f)
	s := Summarize(rs)
	t.Log(s)
	if os.Getenv("CORPUS_VERBOSE") != "" {
		for _, r := range rs {
			if !r.Pass {
				t.Log(Describe(r))
			}
		}
	}
	if f.UnsafeAllowed != 0 {
		for _, r := range rs {
			if r.Want != nil && r.Want.Action != Allow && r.Got != nil && r.Got.Action == Allow {
				t.Errorf("unsafe case allowed:\n%s", Describe(r))
			}
		}
	}
	if f.ReadOnly == 0 || float64(f.ReadOnlyAllowed) < 0.95*float64(f.ReadOnly) {
		t.Errorf("only %d of %d read-only cases allowed without asking, want at least 95%%", f.ReadOnlyAllowed, f.ReadOnly)
	}
	// Every case of the project's corpus holds: this is how CI runs it.
	failed := 0
	for _, r := range rs {
		if !r.Pass {
			failed++
			if failed <= 50 {
				t.Errorf("corpus case failed:\n%s", Describe(r))
			}
		}
	}
	if failed > 50 {
		t.Errorf("... and %d more corpus cases failed", failed-50)
	}
}
