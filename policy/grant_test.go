package policy

import (
	"testing"

	"github.com/shellgate/shellgate/classify"
)

func TestGrantMatch(t *testing.T) {
	cases := []struct {
		grant, cmd string
		want       bool
	}{
		{"npm test", "npm test", true},
		{"npm test", "npm test --watch", false},
		{"npm test **", "npm test", true},
		{"npm test **", "npm test --watch src", true},
		{"npm test **", "npm run test", false},
		{"npm test **", "npm", false},
		{"go test ./...", "go test ./...", true},
		{"go test ./...", "go test ./pkg", false},
		{"go test -run * **", "go test -run TestX ./...", true},
		{"go test -run * **", "go test -v", false},
		{"make *", "make lint", true},
		{"make *", "make", false},
		{"make *", "make lint test", false},
		{"npm test **", "npm test $(curl x)", false},
		{"npm test **", "npm test $X", false},
		{"npm test **", "npm test *.js", false},
		{"npm test **", "npm test ~/x", false},
		{"npm test **", "/usr/bin/npm test", false},
		{"npm test **", "./npm test", false},
		{"npm test **", "$NPM test", false},
		{"npm test", "'npm' \"test\"", true},
		{"npm test **", "npm test 'a b'", true},
	}
	for _, c := range cases {
		r := classify.Classify(c.cmd)
		if len(r.Segments) == 0 {
			t.Fatalf("%q: no segment", c.cmd)
		}
		if got := MatchGrant(c.grant, &r.Segments[len(r.Segments)-1]); got != c.want {
			t.Errorf("grant %q on %q: %v, want %v", c.grant, c.cmd, got, c.want)
		}
	}
	if MatchGrant("", &classify.Segment{Name: "x"}) {
		t.Error("an empty grant matched")
	}
}

func TestSuggestGrant(t *testing.T) {
	cases := []struct {
		cmd, want string // "" when none
	}{
		{"make lint", "make lint"},
		{"npm test", "npm test"},
		{"rm -rf build", "rm -rf build"},
		{"git push origin feature", "git push origin feature"},
		{"curl -o out.html https://x", "curl -o * https://x"},
		{"sort -o out.txt in.txt", "sort -o * in.txt"},
		{"sort -oout.txt in.txt", "sort -oout.txt in.txt"},
		// Code stays as written (issue 12): never "python3 -c *".
		{"python3 -c pass", "python3 -c pass"},
		{`python3 -c "print(1)"`, ""},
		{"node -e 1", "node -e 1"},
		{"git -c core.pager=less log", "git -c core.pager=less log"},
		{"npm test $(curl x)", ""},
		{"npm test 'a b'", ""},
		{"npm test '*'", ""},
		{"./build.sh", ""},
		{"$X y", ""},
	}
	for _, c := range cases {
		r := classify.Classify(c.cmd)
		seg := &r.Segments[len(r.Segments)-1]
		g, ok := SuggestGrant(seg)
		if !ok {
			if c.want != "" {
				t.Errorf("%q: no suggestion, want %q", c.cmd, c.want)
			}
			continue
		}
		if g.Pattern != c.want {
			t.Errorf("%q: suggested %q, want %q", c.cmd, g.Pattern, c.want)
		}
		// A suggestion parses and covers the segment it was made for.
		if !MatchGrant(g.Pattern, seg) {
			t.Errorf("%q: suggestion %q does not cover its segment", c.cmd, g.Pattern)
		}
		if g.Segment != seg.Index || g.Span == nil || *g.Span != seg.Span {
			t.Errorf("%q: suggestion %+v not located at its segment", c.cmd, g)
		}
	}
}
