package readstation

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/shellgate/shellgate/classify"
)

// TestCorpus judges every line of the files in $SHELLGATE_CORPUS (a
// directory of one-command-per-line files, e.g. /work/shared/corpus-data)
// in the fixture repository and checks the invariants: no panic, the same
// station twice, established only when every read is ok or missing, spans
// inside the command, a verdict from the list on every read. It reports
// the verdict counts and the slowest commands. It runs only when the
// variable is set: the corpus is not part of the repository.
func TestCorpus(t *testing.T) {
	dir := os.Getenv("SHELLGATE_CORPUS")
	if dir == "" {
		t.Skip("set SHELLGATE_CORPUS to a directory of command files")
	}
	f := newFixture(t)
	b := f.boundary(t, "proj")
	b.MaxWalkDirs = 64 // stay near the fixture; "find /" hits the cap
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	more, _ := filepath.Glob(filepath.Join(dir, "*.cm"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatalf("no *.txt or *.cm files in %s", dir)
	}
	counts := map[string]int{}
	type slow struct {
		d   time.Duration
		cmd string
	}
	var slowest []slow
	n := 0
	for _, name := range files {
		fh, err := os.Open(name)
		must(t, err)
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			cmd := sc.Text()
			r := classify.Classify(cmd)
			start := time.Now()
			st := Judge(r, b)
			d := time.Since(start)
			slowest = append(slowest, slow{d, cmd})
			n++
			est := r.Parse.OK
			for _, rd := range st.Reads {
				counts[string(rd.Verdict)]++
				if rank(rd.Verdict) == 4 && rd.Verdict != VerdictDenied {
					t.Errorf("%q: unknown verdict %q", cmd, rd.Verdict)
				}
				if rd.Verdict != VerdictOK && rd.Verdict != VerdictMissing {
					est = false
				}
				if rd.Span.Start < 0 || rd.Span.End > len(cmd) || rd.Span.Start > rd.Span.End {
					t.Errorf("%q: span %v outside the command", cmd, rd.Span)
				}
			}
			if st.Established != est {
				t.Errorf("%q: established = %v, reads say %v", cmd, st.Established, est)
			}
			a, _ := json.Marshal(st)
			c, _ := json.Marshal(Judge(r, b))
			if string(a) != string(c) {
				t.Errorf("%q: two judgments differ:\n%s\n%s", cmd, a, c)
			}
		}
		fh.Close()
	}
	sort.Slice(slowest, func(i, j int) bool { return slowest[i].d > slowest[j].d })
	t.Logf("%d commands, verdicts %v", n, counts)
	for _, s := range slowest[:min(5, len(slowest))] {
		t.Logf("slow: %v %.80q", s.d, s.cmd)
	}
	if n > 0 {
		med := slowest[len(slowest)/2].d
		t.Logf("median %v", med)
	}
}
