package corpus

import (
	"fmt"
	"strings"
	"testing"
)

// TestEmbedded checks the project's own corpus: it loads without error,
// holds at least 1500 cases, covers every action in both modes, and no
// command is listed twice for the same mode, fixture and config (a duplicate would
// inflate the figures in README.md).
func TestEmbedded(t *testing.T) {
	cases, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 1500 {
		t.Errorf("embedded corpus has %d cases, want at least 1500", len(cases))
	}
	seen := map[string]string{}
	count := map[string]int{}
	for _, c := range cases {
		if !strings.HasPrefix(c.Name, "corpus/cases/") {
			t.Errorf("case name %q does not start with corpus/cases/", c.Name)
		}
		count[c.Mode+" "+c.Expect.Action]++
		key := c.Mode + "\x00" + c.Shell + "\x00" + c.Command + "\x00" + c.Cwd + "\x00" + c.Fixture.Key() + "\x00" + c.ConfigKey
		if m := c.Expect.ExitMeaning; m != nil {
			key += fmt.Sprintf("\x00exit %d", m.Code)
		}
		if prev, dup := seen[key]; dup {
			t.Errorf("%s: duplicate of %s: %q", c.Name, prev, c.Command)
		}
		seen[key] = c.Name
	}
	for _, m := range []string{ModeDefault, ModeReadonly} {
		for _, a := range []string{Allow, Ask, Deny} {
			if m == ModeReadonly && a == Ask {
				if count[m+" "+a] != 0 {
					t.Errorf("%d readonly cases expect ask; readonly mode never asks", count[m+" "+a])
				}
				continue
			}
			if count[m+" "+a] == 0 {
				t.Errorf("no %s case expects %s", m, a)
			}
		}
	}
	t.Logf("%d cases: %v", len(cases), count)
}
