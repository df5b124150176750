package classify

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/internal/corpusdata"
)

// readCorpus returns the commands of one corpus file (internal/corpusdata).
func readCorpus(t *testing.T, name string) []string {
	t.Helper()
	cmds, err := corpusdata.Read(name)
	if err != nil {
		t.Fatal(err)
	}
	return cmds
}

// TestCorpus classifies every command of the shared corpus (real commands
// from the web and from a coding agent) and checks the invariants.
func TestCorpus(t *testing.T) {
	dir := corpusdata.Dir()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpus at %s", dir)
	}
	for _, name := range corpusdata.Files {
		t.Run(name, func(t *testing.T) {
			cmds := readCorpus(t, name)
			if len(cmds) == 0 {
				t.Fatal("no commands")
			}
			parsed, reversible := 0, 0
			codes := map[string]int{}
			for _, in := range cmds {
				r := Classify(in)
				for _, f := range r.Findings {
					if f.Code == "internal-error" {
						t.Errorf("Classify(%q): %s", trunc(in), f.Message)
					}
					codes[f.Code]++
				}
				checkInvariants(t, in, r)
				if r.Parse.OK {
					parsed++
				}
				if r.Reversible {
					reversible++
					continue
				}
				if !wrappable(in, r) {
					continue
				}
				for _, w := range monotoneWraps(in) {
					if Classify(w).Reversible {
						t.Errorf("Classify(%q) is not reversible but Classify(%q) is", trunc(in), trunc(w))
					}
				}
			}
			t.Logf("%s: %d commands, %d parse (%.1f%%), %d reversible (%.1f%%)", name, len(cmds),
				parsed, pct(parsed, len(cmds)), reversible, pct(reversible, len(cmds)))
			t.Logf("top finding codes: %s", topCodes(codes, 12))
		})
	}
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(b) }

func topCodes(m map[string]int, n int) string {
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range m {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v || all[i].v == all[j].v && all[i].k < all[j].k })
	var parts []string
	for i, e := range all {
		if i == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s=%d", e.k, e.v))
	}
	return strings.Join(parts, " ")
}
