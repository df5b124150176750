package classify

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReportNotChangedByLaterCommands classifies a command, then others
// (which reuse the pooled scratch memory: segments, argument parsers,
// walkers and their word infos), and checks the first report is what it
// was: a report handed out must never share memory that is reused.
func TestReportNotChangedByLaterCommands(t *testing.T) {
	cmds := append(append([]string{}, benchCommands...),
		"timeout 5 env A=1 xargs -0 grep -l x < list",
		"find . -name '*.go' -exec grep -n TODO {} + | sort",
		"bash -c 'cd /tmp && ls -la; git -C repo log -n 3' && echo \"$HOME\"/x",
		"git -c core.pager=cat diff --stat -- a b c d e f g h i j k l m n o p q r s t u v w x y z",
	)
	for _, d := range []Dialect{"", DialectBash, DialectZsh} {
		for i, a := range cmds {
			r := Classify(a, WithDialect(d))
			want, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			// The others (not A itself: classifying A last would write
			// what A's report already holds), in an order that differs
			// from one A to the next.
			for k := range len(cmds) - 1 {
				Classify(cmds[(i+1+k)%len(cmds)], WithDialect(d))
			}
			got, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("dialect %q: the report of %q changed after later commands (-before +after):\n%s", d, a, diff)
			}
			if diff := cmp.Diff(Classify(a, WithDialect(d)), r); diff != "" {
				t.Errorf("dialect %q: the report of %q differs from a fresh one after later commands (-fresh +kept):\n%s", d, a, diff)
			}
		}
	}
}
