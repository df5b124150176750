//go:build linux

package execution

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSandboxConcurrentTmp runs two confined commands at the same time
// (each waits, in a shared workspace, until the other has written) that
// write the same name in their TMPDIR: each reads back its own, cannot
// list or read the other's (nor the directory both lie in), and its
// TMPDIR is gone after the run.
func TestSandboxConcurrentTmp(t *testing.T) {
	needLandlock(t)
	ws := t.TempDir()
	script := func(me, other string) string {
		return `echo ` + me + ` > "$TMPDIR/same" && echo "$TMPDIR" > tmp-` + me + ` && touch ready-` + me + `
for i in $(seq 2000); do [ -e ready-` + other + ` ] && break; sleep 0.01; done
[ -e ready-` + other + ` ] || echo NO-RENDEZVOUS
echo "mine: $(cat "$TMPDIR/same")"
for f in "$TMPDIR"/../*/same; do [ "$f" != "$TMPDIR/../$(basename "$TMPDIR")/same" ] && cat "$f" 2>/dev/null && echo "SEEN $f"; done
ls "$TMPDIR/.." 2>/dev/null | grep -v "^$(basename "$TMPDIR")$" | sed 's/^/LISTED /'
cat "$(cat tmp-` + other + `)/same" 2>/dev/null && echo SEEN-OTHER
echo > "$(cat tmp-` + other + `)/planted" 2>/dev/null && echo WROTE-OTHER
true`
	}
	var wg sync.WaitGroup
	outs := map[string]Outcome{}
	var mu sync.Mutex
	for _, me := range []string{"a", "b"} {
		other := map[string]string{"a": "b", "b": "a"}[me]
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := runSpec(t, context.Background(), Spec{Command: script(me, other), Dir: ws, Timeout: time.Minute,
				Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{ws}}})
			mu.Lock()
			outs[me] = out
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, me := range []string{"a", "b"} {
		text := outs[me].Output.String()
		if !strings.HasPrefix(text, "mine: "+me+"\n") || strings.Contains(text, "NO-RENDEZVOUS") ||
			strings.Contains(text, "SEEN") || strings.Contains(text, "LISTED") || strings.Contains(text, "WROTE-OTHER") {
			t.Errorf("run %s saw another run's TMPDIR:\n%s", me, text)
		}
		b, err := os.ReadFile(ws + "/tmp-" + me)
		if err != nil {
			t.Fatal(err)
		}
		tmp := strings.TrimSpace(string(b))
		if tmp == "" {
			t.Fatalf("run %s: no TMPDIR", me)
		}
		// Removed, or (a slot's, kept for the next run) emptied.
		if ents, err := os.ReadDir(tmp); err == nil && len(ents) > 0 {
			t.Errorf("run %s: TMPDIR %q still holds %d entries after the run", me, tmp, len(ents))
		}
	}
}
