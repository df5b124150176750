package corpus

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiffGroups(t *testing.T) {
	ch := func(cmd, from, to string, codes ...string) Change {
		var rs []Reason
		for _, c := range codes {
			rs = append(rs, Reason{Code: c, Message: "because " + c})
		}
		return Change{Command: cmd, Mode: ModeDefault, Base: Outcome{Action: from}, New: Outcome{Action: to, Reasons: rs}}
	}
	d := DiffResult{Total: 9, Changes: []Change{
		ch("a", Allow, Ask, "x"),
		ch("b", Ask, Allow),
		ch("c", Deny, Allow),
		ch("d", Ask, Ask, "y"),
		ch("e", Allow, Deny, "z"),
		ch("f", Ask, Allow),
	}}
	var got []string
	for _, g := range d.Groups() {
		var cmds []string
		for _, c := range g.Changes {
			cmds = append(cmds, c.Command)
		}
		got = append(got, g.Transition+" "+strings.Join(cmds, ","))
	}
	// Loosened first (the widest first), then tightened (the widest
	// first), then reason-only changes.
	want := []string{"deny→allow c", "ask→allow b,f", "allow→deny e", "allow→ask a", "ask (reasons) d"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	var b strings.Builder
	if err := WriteDiffText(&b, d); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"deny→allow (1)\n", "  e\n    base: allow\n    new:  deny — z: because z\n", "9 commands, 6 changed\n"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("text output lacks %q:\n%s", line, b.String())
		}
	}
}
