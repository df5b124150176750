package readstation

import (
	"errors"
	"path"
	"strings"
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
		"git -C src --work-tree=.. status", "GIT_DIR=x timeout 5 git status", "git --bare --git-dir=$X log",
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

// FuzzMatchPattern checks the one pattern matcher on any pattern and
// name: no panic; the same answer twice; an answer that agrees with the
// matcher it replaced (path.Match, with bash's leading-dot rule) wherever
// both read the pattern, save "[!...]" and classes ("[[:alpha:]]"), which
// path.Match took for sets holding "!" or ":" where the shell negates or
// names a class; or else an error that says it cannot
// be matched with certainty (fail closed).
func FuzzMatchPattern(f *testing.F) {
	for _, p := range bashPatterns {
		f.Add(p, "abc", false)
		f.Add(p, ".hidden", true)
	}
	for _, p := range grepPatterns {
		f.Add(p, "x.go", true)
	}
	f.Fuzz(func(t *testing.T, pat, name string, fnmatch bool) {
		if strings.ContainsAny(name, "/\x00") || name == "" {
			return
		}
		syn := synBash
		if fnmatch {
			syn = synFnmatch
		}
		got, err := matchPattern(pat, name, syn, false)
		again, err2 := matchPattern(pat, name, syn, false)
		if got != again || (err == nil) != (err2 == nil) {
			t.Fatalf("%q %q: not deterministic", pat, name)
		}
		if err != nil {
			if !errors.Is(err, errUncertain) || got {
				t.Fatalf("%q %q: %v, %v", pat, name, got, err)
			}
			return
		}
		for _, diff := range []string{"[!", "[:", "[.", "[="} {
			if strings.Contains(pat, diff) {
				return // path.Match reads these as members of a set
			}
		}
		old, oerr := path.Match(pat, name)
		if oerr != nil {
			return
		}
		if syn == synBash && strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, ".") && !strings.HasPrefix(pat, `\.`) {
			old = false
		}
		if old != got {
			t.Fatalf("matchPattern(%q, %q, %d) = %v, path.Match says %v", pat, name, syn, got, old)
		}
	})
}
