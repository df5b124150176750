package classify

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenCases are representative reports, kept whole as JSON: any change
// to the report's shape or content shows up as a diff in review.
var goldenCases = []struct{ name, in string }{
	{"git-status", "git status"},
	{"ls-la", "ls -la"},
	{"cat-file", "cat f"},
	{"grep-recursive", "grep -rn foo src"},
	{"sed-print", "sed -n '1,20p' f.py"},
	{"cd-pytest", "cd /testbed && python -m pytest -x"},
	{"find-head", "find . -name '*.py' | head"},
	{"find-delete", "find . -delete"},
	{"find-exec", `find . -name '*.go' -exec grep -l TODO {} \;`},
	{"xargs-grep", "find . -type f -print0 | xargs -0 grep foo"},
	{"sort-output-bundle", "sort -uoout f"},
	{"poll-loop", "for i in 1 2 3; do git status; sleep 1; done"},
	{"fork-bomb", ":(){ :|:& };:"},
	{"redirects", "ls > /dev/null 2>&1; echo hi >&2; ls >&file"},
	{"heredoc", "cat <<'EOF' > out.txt\nhello $x\nEOF"},
	{"herestring", `grep x <<< "$y"`},
	{"bash-c", "bash -c 'cd /tmp && ls | wc -l'"},
	{"wrappers", "timeout 5 env LC_ALL=C nice -n 5 grep -c x f"},
	{"sudo-rm", "sudo rm -rf /"},
	{"subst", "echo $(git rev-parse HEAD) `date`"},
	{"procsubst", "diff <(ls a) <(ls b)"},
	{"env-prefix", "PAGER=cat git log --oneline -n 5"},
	{"dynamic-words", `ls ~/src "$HOME"/x *.go {a,b} $dir`},
	{"cd-subshell", "(cd a && ls) && cd b; cat f; cd -; pwd"},
	{"if-case", "if [ -f x ]; then cat x; else case $y in a) ls;; esac; fi"},
	{"git-c", "git -C repo -c core.pager=less log -p"},
	{"arith", "echo $((1+2)) $((x))"},
	{"parse-error", "echo 'unterminated"},
	{"empty", "   "},
	{"tail-follow", "tail -f /var/log/syslog | grep -i error"},
	{"nested-wrapper-xargs", "ls | xargs -I{} sh -c 'cat {}'"},
	{"function", "f() { ls; }; f"},
}

func TestGolden(t *testing.T) {
	dir := filepath.Join("testdata", "golden")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.MarshalIndent(Classify(tc.in), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			path := filepath.Join(dir, tc.name+".json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./classify -update)", err)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("%s differs from the golden file (-want +got):\n%s", path, cmp.Diff(string(want), string(got)))
			}
		})
	}
}

// TestGoldenRoundTrip checks that a report survives JSON both ways: the
// contract other packages decode.
func TestGoldenRoundTrip(t *testing.T) {
	for _, tc := range goldenCases {
		r := Classify(tc.in)
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Report
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(r, &back, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: round trip (-before +after):\n%s", tc.name, diff)
		}
	}
}
