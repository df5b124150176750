package corpus

import (
	"path/filepath"
	"sort"
	"testing"
)

// TestAllowlistShare measures shellgate on commands built from real agent
// allowlists (testdata/allowlists: public repositories' Claude Code
// permissions.allow entries, Codex prefix_rule entries and Gemini CLI policy
// rules, each case naming its source): the share of the reads it allows,
// and the non-reads it allows, which must be none, for the whole corpus and
// for each agent's file. A read asked is a miss, listed; the share must
// stay at least 95 %.
func TestAllowlistShare(t *testing.T) {
	cases, err := LoadPath("testdata/allowlists")
	if err != nil {
		t.Fatal(err)
	}
	rs := runCases(t, cases)
	reads, readsAllowed, others, othersAllowed := 0, 0, 0, 0
	type tally struct{ reads, readsAllowed, others, othersAllowed int }
	per := map[string]*tally{}
	for _, r := range rs {
		src := filepath.Base(r.File)
		if per[src] == nil {
			per[src] = &tally{}
		}
		pt := per[src]
		if r.Err != "" {
			t.Errorf("%s:%d %s: %s", r.File, r.Line, r.Command, r.Err)
			continue
		}
		allowed := r.Got != nil && r.Got.Action == Allow
		if r.Want.Action == Allow {
			reads++
			pt.reads++
			if allowed {
				readsAllowed++
				pt.readsAllowed++
			} else {
				t.Logf("read asked: %s (%s)", r.Command, r.Name)
			}
			continue
		}
		others++
		pt.others++
		if allowed {
			othersAllowed++
			pt.othersAllowed++
			t.Errorf("non-read allowed: %s (%s)", r.Command, r.Name)
		}
	}
	if reads == 0 {
		t.Fatal("no read cases")
	}
	srcs := make([]string, 0, len(per))
	for src := range per {
		srcs = append(srcs, src)
	}
	sort.Strings(srcs)
	for _, src := range srcs {
		pt := per[src]
		t.Logf("%s: reads allowed %d of %d; non-reads allowed %d of %d", src, pt.readsAllowed, pt.reads, pt.othersAllowed, pt.others)
	}
	share := float64(readsAllowed) / float64(reads)
	t.Logf("reads allowed: %d of %d (%.1f%%); non-reads allowed: %d of %d", readsAllowed, reads, 100*share, othersAllowed, others)
	if share < 0.95 {
		t.Errorf("reads allowed %.1f%%, want at least 95%%", 100*share)
	}
}
