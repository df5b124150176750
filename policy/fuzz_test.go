package policy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/classify"
)

// FuzzParseConfig: whatever the bytes, ParseConfig returns a config or an
// error (never a panic, never both nil), the same answer twice, errors name
// the file, and a config it accepts is valid: a known mode, grants that
// parse, no empty roots or rows, relative paths resolved against the file.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		"", "mode: readonly\n", "mode: default\ngrants: [\"npm test **\", \"make lint\"]\n",
		"roots: [../shared, /abs, ~/x]\npolicy_dirs: [rego]\n", "deny_reads: [\"*.pem\", \"!ok.pem\"]\nreplace_default_deny_reads: true\n",
		"read_only_programs: [tokei]\n", "a: &x [1]\nb: *x\n", "mode: default\n---\nmode: readonly\n",
		"grants:\n  - \"** x\"\n", "- a\n", "mode: [\n", "\t", "{mode: readonly, grants: [ls]}",
		"mode: !!binary aGVsbG8=\n", "grants: &g [ls]\nroots: *g\n",
	} {
		f.Add(s)
	}
	const name = "/proj/.shellgate.yaml"
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ParseConfig([]byte(src), name)
		c2, err2 := ParseConfig([]byte(src), name)
		if fmt.Sprint(err) != fmt.Sprint(err2) || fmt.Sprintf("%+v", c) != fmt.Sprintf("%+v", c2) {
			t.Fatalf("not deterministic: %+v, %v then %+v, %v", c, err, c2, err2)
		}
		if err != nil {
			if c != nil {
				t.Fatalf("a config (%+v) and an error (%v)", c, err)
			}
			if !strings.HasPrefix(err.Error(), name) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if c == nil {
			t.Fatal("no config and no error")
		}
		if !ValidMode(c.Mode) {
			t.Fatalf("accepted mode %q", c.Mode)
		}
		if c.Path != name {
			t.Fatalf("path %q", c.Path)
		}
		if len(c.grants) != len(c.Grants) {
			t.Fatalf("%d grants parsed of %d", len(c.grants), len(c.Grants))
		}
		for _, g := range c.Grants {
			if _, err := ParseGrant(g); err != nil {
				t.Fatalf("accepted grant %q: %v", g, err)
			}
		}
		for _, p := range append(append([]string{}, c.Roots...), c.PolicyDirs...) {
			if p == "" || !(filepath.IsAbs(p) || p == "~" || strings.HasPrefix(p, "~/")) {
				t.Fatalf("root or policy dir %q is neither absolute nor under ~", p)
			}
		}
		for _, r := range c.DenyReads {
			if strings.TrimSpace(r) == "" {
				t.Fatalf("accepted an empty deny row")
			}
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted config does not validate: %v", err)
		}
	})
}

// FuzzParseGrant: a grant parses or is refused with a reason; an accepted
// grant has a literal program name first (no wildcard, no path) and "**"
// only last.
func FuzzParseGrant(f *testing.F) {
	for _, s := range []string{"npm test **", "make lint", "go test ./...", "** x", "/bin/ls", "a ** b", "git log *", "", "ls ; rm", "x\u00a0y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGrant(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		if len(g.words) == 0 {
			t.Fatalf("%q: accepted with no program", s)
		}
		prog := g.words[0]
		if prog == "*" || prog == "**" || strings.Contains(prog, "/") {
			t.Fatalf("%q: program %q", s, prog)
		}
		for _, w := range g.words {
			if w == "**" || strings.ContainsAny(w, "'\"\\$`;|&<>(){}") {
				t.Fatalf("%q: word %q", s, w)
			}
		}
		if g.String() != s {
			t.Fatalf("String() = %q, want %q", g.String(), s)
		}
	})
}

// FuzzSuggestGrant: for any command, every suggested grant covers its
// segment and puts no wildcard over an argument that carries code.
func FuzzSuggestGrant(f *testing.F) {
	for _, s := range []string{`python3 -c "print(1)"`, "python3 -c pass", "node -e 1", "git -c a=b log",
		"curl -o x https://x", "find . -exec rm {} +", "xargs rm", "env -S ls", "make -f m x", "sort --compress-program=gz -o o i",
		"docker run --entrypoint sh img", "timeout 5 python3 -m http.server", "go test -exec x ./..."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		r := classify.Classify(cmd)
		for i := range r.Segments {
			seg := &r.Segments[i]
			g, why := GrantOrWhy(seg)
			if why != "" {
				if g.Pattern != "" {
					t.Fatalf("%q: a grant %q and a reason %q", cmd, g.Pattern, why)
				}
				continue
			}
			if !MatchGrant(g.Pattern, seg) {
				t.Fatalf("%q: suggestion %q does not cover segment %d", cmd, g.Pattern, i)
			}
			if c, ok := WildcardOverCode(g.Pattern, seg); ok {
				t.Fatalf("%q: suggestion %q puts a wildcard over %+v", cmd, g.Pattern, c)
			}
			if len(seg.Code) > 0 && slices.Contains(strings.Fields(g.Pattern), "*") {
				t.Fatalf("%q: suggestion %q for a segment with code is not exact", cmd, g.Pattern)
			}
		}
	})
}

// FuzzLintGrant: LintGrant never panics, and a problem it reports comes
// with a command the grant allows.
func FuzzLintGrant(f *testing.F) {
	for _, s := range []string{"python3 -c *", "bash -c **", "env **", "git * log", "npm test **", "make *", "x ** y", "find . -exec **"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, grant string) {
		p, ok := LintGrant(grant, nil)
		if !ok {
			return
		}
		r := classify.Classify(shellJoin(strings.Fields(p.Example)))
		if len(r.Segments) == 0 || !MatchGrant(grant, &r.Segments[0]) {
			t.Fatalf("%q: the example %q is not allowed by the grant", grant, p.Example)
		}
		if p.What == "" || p.Carries == "" {
			t.Fatalf("%q: incomplete problem %+v", grant, p)
		}
	})
}
