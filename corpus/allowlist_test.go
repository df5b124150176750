package corpus

import "testing"

// TestAllowlistShare measures shellgate on commands built from real agent
// allowlists (testdata/allowlists: public repositories' Claude Code
// permissions.allow entries, each case naming its source): the share of
// the reads it allows, and the non-reads it allows, which must be none. A
// read asked is a miss, listed; the share must stay at least 95 %.
func TestAllowlistShare(t *testing.T) {
	cases, err := LoadPath("testdata/allowlists")
	if err != nil {
		t.Fatal(err)
	}
	rs := runCases(t, cases)
	reads, readsAllowed, others, othersAllowed := 0, 0, 0, 0
	for _, r := range rs {
		if r.Err != "" {
			t.Errorf("%s:%d %s: %s", r.File, r.Line, r.Command, r.Err)
			continue
		}
		allowed := r.Got != nil && r.Got.Action == Allow
		if r.Want.Action == Allow {
			reads++
			if allowed {
				readsAllowed++
			} else {
				t.Logf("read asked: %s (%s)", r.Command, r.Name)
			}
			continue
		}
		others++
		if allowed {
			othersAllowed++
			t.Errorf("non-read allowed: %s (%s)", r.Command, r.Name)
		}
	}
	if reads == 0 {
		t.Fatal("no read cases")
	}
	share := float64(readsAllowed) / float64(reads)
	t.Logf("reads allowed: %d of %d (%.1f%%); non-reads allowed: %d of %d", readsAllowed, reads, 100*share, othersAllowed, others)
	if share < 0.95 {
		t.Errorf("reads allowed %.1f%%, want at least 95%%", 100*share)
	}
}
