package classify

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusDir is where the shared corpus of real commands lives; set
// SHELLGATE_CORPUS_DATA to use another copy.
func corpusDir() string {
	if d := os.Getenv("SHELLGATE_CORPUS_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "corpus-data")
}

// readCorpus returns the commands of one corpus file: one per line, or
// the "command" field of each JSON line.
func readCorpus(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasSuffix(path, ".jsonl") {
			var rec struct {
				Command string `json:"command"`
			}
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			out = append(out, rec.Command)
			continue
		}
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorpus classifies every command of the shared corpus (real commands
// from the web and from a coding agent) and checks the invariants.
func TestCorpus(t *testing.T) {
	dir := corpusDir()
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no corpus at %s", dir)
	}
	for _, name := range []string{"nl2bash.cm", "agent-commands.txt", "agent-commands-multiline.jsonl"} {
		t.Run(name, func(t *testing.T) {
			cmds := readCorpus(t, filepath.Join(dir, name))
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
