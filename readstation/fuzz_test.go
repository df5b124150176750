package readstation

import (
	"testing"

	"github.com/shellgate/shellgate/classify"
)

// FuzzJudge checks the invariants on any command: no panic, a verdict from
// the list on every read, spans inside the command, established only when
// every read is ok or missing and the command parsed. Seeds are typical
// and hostile commands; the file system is the fixture.
func FuzzJudge(f *testing.F) {
	for _, s := range []string{
		"cat README.md", "cat ~/.ssh/id_rsa", "grep -r token ~", "cd deep && cat ../main.go",
		"find src -name '*.go' | xargs wc -l", "find . -exec cat {}/../x \\;", "cat */*.go",
		"git -C src status", `cd "$X" && git ls-files`, "ls -Ra ~/.aws/..", "cat $'docs/\\xff.txt'",
		"cat traps/loop", "rg -l foo | xargs -0 cat", "cat [", "cat ~/[a-", "cat \\*",
		"git grep -n x", "git log -p -- src", "git diff HEAD~1 README.md", "git show HEAD:cfg/.env",
	} {
		f.Add(s)
	}
	fx := newFixture(f)
	b := fx.boundary(f, "proj")
	b.MaxWalkDirs, b.MaxGlobMatches = 32, 32
	f.Fuzz(func(t *testing.T, cmd string) {
		r := classify.Classify(cmd)
		st := Judge(r, b)
		est := r.Parse.OK
		for _, rd := range st.Reads {
			switch rd.Verdict {
			case VerdictOK, VerdictMissing:
			case VerdictOutsideRoots, VerdictNotEstablished, VerdictDenied:
				est = false
			default:
				t.Fatalf("%q: verdict %q", cmd, rd.Verdict)
			}
			if rd.Source != "internal" && (rd.Span.Start < 0 || rd.Span.End > len(cmd) || rd.Span.Start > rd.Span.End) {
				t.Fatalf("%q: span %v", cmd, rd.Span)
			}
			if rd.Source == "internal" {
				t.Fatalf("%q: %s", cmd, rd.Message)
			}
		}
		if st.Established != est {
			t.Fatalf("%q: established %v, reads say %v", cmd, st.Established, est)
		}
	})
}
