package policy

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shellgate/shellgate/classify"
)

// codeCase is a command in which one word carries code: the word "CODE1".
type codeCase struct {
	from  string // where in the catalog: "python -c", "env operand command"
	words []string
}

const code1, code2 = "CODE1", "CODE2"

// codeCases generates, for every program and subcommand of the catalog,
// a command for every option the catalog says carries code (separate
// value, and glued where the syntax allows) and for every operand role
// that carries code, with CODE1 where the code goes.
func codeCases(t *testing.T, cat *classify.Catalog) []codeCase {
	t.Helper()
	var out []codeCase
	var walk func(p *classify.Program, words []string, syntax string)
	walk = func(p *classify.Program, words []string, syntax string) {
		if p.Syntax != "" {
			syntax = p.Syntax
		}
		with := func(ws ...string) []string { return append(append([]string{}, words...), ws...) }
		from := strings.Join(words, " ")
		for _, o := range p.Options {
			if o.CarriesWhat() == "" {
				continue
			}
			for _, n := range o.Names {
				switch {
				case o.Value != "" && o.Value != "optional":
					out = append(out, codeCase{from + " " + n, with(n, code1)})
					if syntax != "long" && len(n) > 2 {
						out = append(out, codeCase{from + " " + n + "=", with(n + "=" + code1)})
					} else if syntax != "long" && len(n) == 2 {
						out = append(out, codeCase{from + " " + n + " glued", with(n + code1)})
					}
				case o.Value == "optional" && strings.HasPrefix(n, "--"):
					out = append(out, codeCase{from + " " + n + "=", with(n + "=" + code1)})
				case o.Value == "optional":
					out = append(out, codeCase{from + " " + n + " glued", with(n + code1)})
				case len(o.Terminator) > 0:
					out = append(out, codeCase{from + " " + n + " ... " + o.Terminator[0], with(n, code1, "x", o.Terminator[0])})
				default:
					// A valueless option that carries code: the option
					// word itself (pnpm dlx -c).
					out = append(out, codeCase{from + " " + n, with(n)})
				}
			}
		}
		for i, r := range p.Operands {
			if r.CarriesWhat() == "" {
				continue
			}
			ws := with()
			for _, before := range p.Operands[:i] {
				ws = append(ws, filler(t, before))
			}
			w := codeWordFor(t, r, p.Operands[:i])
			out = append(out, codeCase{from + " operand " + string(r.Role), append(ws, w)})
		}
		for _, s := range p.Subcommands {
			walk(s, with(s.Name), syntax)
		}
	}
	for _, p := range cat.Programs {
		walk(p, []string{p.Name}, "")
	}
	return out
}

// codeWordFor is the word that holds CODE1 in the operand role r: it
// matches r's pattern, and it is not taken by a repeating role before r
// whose pattern it matches (binutils' files end where an @FILE begins).
func codeWordFor(t *testing.T, r classify.OperandSpec, before []classify.OperandSpec) string {
	cands := []string{code1, "@" + code1}
	if r.Role == "assign" {
		cands = []string{"A=" + code1} // alias A=CODE, env A=1 CMD
	}
	for _, w := range cands {
		if r.Match != "" && !regexp.MustCompile(r.Match).MatchString(w) {
			continue
		}
		if n := len(before); n > 0 && before[n-1].Repeat && before[n-1].Match != "" && regexp.MustCompile(before[n-1].Match).MatchString(w) {
			continue
		}
		return w
	}
	t.Fatalf("no word can take the code role %s after %d other roles", r.Role, len(before))
	return ""
}

// filler is a plain operand that takes the role r (matches its pattern).
func filler(t *testing.T, r classify.OperandSpec) string {
	if r.Match == "" {
		return "x"
	}
	re := regexp.MustCompile(r.Match)
	for _, w := range []string{"x", "5", "A=1", "host", "main"} {
		if re.MatchString(w) {
			return w
		}
	}
	t.Fatalf("no filler word for the role %s (match %s)", r.Role, r.Match)
	return ""
}

// codeWord is the index of the argument holding CODE1 (or, for a
// valueless option that carries code, the option word), or -1.
func codeWord(seg *classify.Segment, c codeCase) int {
	for i, a := range seg.Args {
		if strings.Contains(a.Value, code1) {
			return i
		}
	}
	if last := c.words[len(c.words)-1]; len(seg.Args) > 0 && seg.Args[len(seg.Args)-1].Value == last {
		return len(seg.Args) - 1
	}
	return -1
}

// TestGrantNeverWildcardsCodeInCatalog: over the whole catalog, every
// option and operand the catalog says carries code is reported by the
// classifier (Segment.Code); a suggested grant keeps it literally, so the
// grant does not match the same command with other code; and a grant that
// puts a wildcard there is flagged by LintGrant.
func TestGrantNeverWildcardsCodeInCatalog(t *testing.T) {
	cat := classify.DefaultCatalog()
	cases := codeCases(t, cat)
	if len(cases) < 150 {
		t.Fatalf("only %d code-carrying options and operands in the catalog: the generator is broken", len(cases))
	}
	suggested, linted := 0, 0
	for _, c := range cases {
		cmd := shellJoin(c.words)
		var opts []classify.Option
		if p := cat.Lookup(c.words[0]); p != nil && len(p.Shells) > 0 {
			// A shell's own builtin (zsh's noglob) is read in that shell.
			opts = append(opts, classify.WithDialect(classify.Dialect(p.Shells[0])))
		}
		r := classify.Classify(cmd, opts...)
		if len(r.Segments) == 0 {
			t.Errorf("%s: %s: no segment", c.from, cmd)
			continue
		}
		seg := &r.Segments[0]
		k := codeWord(seg, c)
		if k < 0 {
			t.Errorf("%s: %s: no argument holds the code", c.from, cmd)
			continue
		}
		if _, ok := codeAt(seg, seg.Args[k].Span); !ok {
			t.Errorf("%s: %s: the classifier does not report argument %d (%q) as code; Code = %+v", c.from, cmd, k, seg.Args[k].Value, seg.Code)
			continue
		}
		g, why := GrantOrWhy(seg)
		if why == "" {
			suggested++
			gw := strings.Fields(g.Pattern)
			if k+1 >= len(gw) || gw[k+1] != seg.Args[k].Value {
				t.Errorf("%s: %s: suggested %q does not keep the code %q literally", c.from, cmd, g.Pattern, seg.Args[k].Value)
			}
			if cw, ok := WildcardOverCode(g.Pattern, seg); ok {
				t.Errorf("%s: %s: suggested %q puts a wildcard over %+v", c.from, cmd, g.Pattern, cw)
			}
			if slices.Contains(gw, "*") || slices.Contains(gw, "**") {
				t.Errorf("%s: %s: suggested %q for a segment with code is not the exact segment", c.from, cmd, g.Pattern)
			}
			if strings.Contains(cmd, code1) {
				v := classify.Classify(strings.ReplaceAll(cmd, code1, code2))
				if len(v.Segments) > 0 && MatchGrant(g.Pattern, &v.Segments[0]) {
					t.Errorf("%s: suggested %q also allows other code: %s", c.from, g.Pattern, v.Command)
				}
			}
		}
		// A grant with a wildcard where the code is is flagged: "*" in its
		// place, and "**" from it on.
		pre := append([]string{seg.Name}, argValues(seg.Args[:k])...)
		for _, wild := range [][]string{
			append(append(append([]string{}, pre...), "*"), argValues(seg.Args[k+1:])...),
			append(append([]string{}, pre...), "**"),
		} {
			grant := strings.Join(wild, " ")
			if _, err := ParseGrant(grant); err != nil {
				continue // a word the grant syntax cannot spell (find's ";")
			}
			linted++
			if _, ok := LintGrant(grant, cat); !ok {
				t.Errorf("%s: LintGrant(%q) finds no wildcard over code", c.from, grant)
			}
		}
	}
	if suggested == 0 || linted < len(cases) {
		t.Errorf("only %d suggestions and %d lint checks over %d cases", suggested, linted, len(cases))
	}
	t.Logf("%d code-carrying cases, %d suggestions checked, %d wildcard grants linted", len(cases), suggested, linted)
}

func argValues(args []classify.Arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a.Value
	}
	return out
}

// TestSuggestGrantKeepsCode: the examples of issue 12, as a user meets
// them. "" means no grant; why then names the code.
func TestSuggestGrantKeepsCode(t *testing.T) {
	cases := []struct {
		cmd, want string
		why       string // a part of the reason when want is ""
	}{
		{`python3 -c "print(1)"`, "", "python3 -c takes code"},
		{`python3 -c pass`, "python3 -c pass", ""},
		{`python -c pass`, "python -c pass", ""},
		{`python3 -m http.server`, "python3 -m http.server", ""},
		{`node -e 1`, "node -e 1", ""},
		{`node --eval=1`, "node --eval=1", ""},
		{`node -p 1`, "node -p 1", ""},
		{`perl -e 1`, "perl -e 1", ""},
		{`perl -E 1`, "perl -E 1", ""},
		{`ruby -e 1`, "ruby -e 1", ""},
		{`php -r 1`, "php -r 1", ""},
		{`lua -e 1`, "lua -e 1", ""},
		{`Rscript -e 1`, "Rscript -e 1", ""},
		{`osascript -e beep`, "osascript -e beep", ""},
		{`deno eval 1`, "deno eval 1", ""},
		{`bun -e 1`, "bun -e 1", ""},
		{`bash -c 'rm -rf x'`, "", "the script operand of bash is code"},
		{`sh -c 'echo hi > f'`, "", "the script operand of sh is code"},
		{`zsh -c 'echo hi > f'`, "", "the script operand of zsh is code"},
		{`fish -c 'rm x'`, "", "fish -c takes code"},
		{`eval 'rm x'`, "", "eval"},
		{`source ./env.sh`, "source ./env.sh", ""},
		{`sed -i -e s/a/b/ f`, "sed -i -e s/a/b/ f", ""},
		{`awk -f prog.awk f`, "awk -f prog.awk f", ""},
		{`awk -e 'BEGIN { system("id") }'`, "", "awk -e takes code"},
		{`jq -n 'input' f`, "jq -n input f", ""},
		{`find . -exec rm x ;`, "find . -exec rm x", ""},
		{`find . -exec rm {} +`, "", "find -exec takes a command"},
		{`xargs rm`, "xargs rm", ""},
		{`env -S 'rm x'`, "", "env -S takes a command"},
		{`env -S rm`, "env -S rm", ""},
		{`timeout 5 rm x`, "timeout 5 rm x", ""},
		{`sort --compress-program=gzip -o out in`, "sort --compress-program=gzip -o out in", ""},
		{`sort --compress-program gzip -o out in`, "sort --compress-program gzip -o out in", ""},
		{`sort -o out in`, "sort -o * in", ""},
		{`make -f evil.mk build`, "make -f evil.mk build", ""},
		{`make -C sub build`, "make -C sub build", ""},
		{`make -j 4 build`, "make -j 4 build", ""},
		{`make CC=gcc build`, "make CC=gcc build", ""},
		{`git -c core.pager=less log`, "git -c core.pager=less log", ""},
		{`git --exec-path=/tmp/x log`, "git --exec-path=/tmp/x log", ""},
		{`git ls-remote --upload-pack evil origin`, "git ls-remote --upload-pack evil origin", ""},
		{`rg --pre ./pre.sh foo`, "rg --pre ./pre.sh foo", ""},
		{`npm exec -c 'rm x'`, "", "npm -c takes code"},
		{`npm exec --package=cowsay cowsay`, "npm exec --package=cowsay cowsay", ""},
		{`pnpm dlx cowsay hi`, "pnpm dlx cowsay hi", ""},
		{`docker run --entrypoint sh alpine`, "docker run --entrypoint sh alpine", ""},
		{`kubectl exec pod -- rm x`, "kubectl exec pod -- rm x", ""},
		{`uvx --from ruff ruff check`, "uvx --from ruff ruff check", ""},
		{`curl -o out.html https://x`, "curl -o * https://x", ""},
		{`ssh -o ProxyCommand=evil host`, "ssh -o ProxyCommand=evil host", ""},
	}
	for _, c := range cases {
		r := classify.Classify(c.cmd)
		seg := &r.Segments[0]
		g, why := GrantOrWhy(seg)
		if diff := cmp.Diff(c.want, g.Pattern); diff != "" {
			t.Errorf("%s: grant (-want +got):\n%s (why: %s)", c.cmd, diff, why)
			continue
		}
		if c.want == "" && !strings.Contains(why, c.why) {
			t.Errorf("%s: why %q does not say %q", c.cmd, why, c.why)
		}
		if c.want != "" {
			if cw, ok := WildcardOverCode(g.Pattern, seg); ok {
				t.Errorf("%s: %q wildcards %+v", c.cmd, g.Pattern, cw)
			}
		}
	}
}

// TestLintGrant: grants that put a wildcard over code, and grants that
// do not.
func TestLintGrant(t *testing.T) {
	cases := []struct {
		grant string
		what  string // "" when the grant is fine
	}{
		{"python3 -c *", "python3 -c takes code"},
		{"python3 **", "python3"},
		{"python3 * pass", "python3"},
		{"bash -c **", "the script operand of bash is code"},
		{"sh -c *", "the script operand of sh is code"},
		{"find . -exec **", "find -exec takes a command"},
		{"xargs **", "the command operand of xargs is a command"},
		{"xargs -0 **", "the command operand of xargs is a command"},
		{"env **", "the command operand of env is a command"},
		{"timeout 5 **", "the command operand of timeout is a command"},
		{"nice **", "the command operand of nice is a command"},
		{"nohup **", "the command operand of nohup is a command"},
		{"sudo **", "the command operand of sudo is a command"},
		{"watch **", "the command operand of watch is a command"},
		{"node -e *", "node -e takes code"},
		{"node **", "node"},
		{"perl -e *", "perl -e takes code"},
		{"deno eval *", "an operand of deno run is code"},
		{"eval *", "the script operand of eval is code"},
		{"source *", "the script file operand of source"},
		{"sed -n -e * f", "sed -e takes code"},
		{"sed * f", "the sed program operand of sed is code"},
		{"awk * f", "the awk program operand of awk is code"},
		{"jq * f", "the jq program operand of jq is code"},
		{"make *", "an operand of make is code"},
		{"make -f * build", "make -f takes the file whose code runs"},
		{"git **", "git -c takes settings"},
		{"git -c * log", "git -c takes settings"},
		{"npx **", "an operand of npx is the module or package that runs"},
		{"npm exec **", "npm exec"},
		{"docker run **", "docker run"},
		{"kubectl exec pod **", "kubectl exec"},
		{"sort --compress-program * -o * in", "sort --compress-program takes a command"},
		{"go test -run * **", "go -exec takes a command"},
		{"go build **", "go -toolexec takes a command"},
		{"rg foo **", "rg --pre takes a command"},
		// Fine: no wildcard over code.
		{"python3 -m pytest **", ""},
		{"python3 -c pass", ""},
		{"npm test **", ""},
		{"go test ./...", ""},
		{"make lint", ""},
		{"curl -o * https://example.com", ""},
		{"sort -o * in.txt", ""},
		{"ls **", ""},
		{"cat *", ""},
		{"git log **", ""},
		{"npx prettier **", "an operand of npx is a command"},
		{"uv run pytest **", "an operand of uv run is a command"},
		{"bash -c ls **", ""},
		{"xargs rm", ""},
		{"unknownprog **", ""},
		{"not a grant ** x", ""},
	}
	for _, c := range cases {
		p, ok := LintGrant(c.grant, nil)
		switch {
		case c.what == "" && ok:
			t.Errorf("%q: flagged: %s", c.grant, p)
		case c.what != "" && !ok:
			t.Errorf("%q: not flagged, want %q", c.grant, c.what)
		case ok && !strings.Contains(p.What, c.what):
			t.Errorf("%q: %q does not say %q", c.grant, p.What, c.what)
		case ok && !MatchGrant(c.grant, &classify.Classify(p.Example).Segments[0]):
			t.Errorf("%q: the example %q is not allowed by the grant", c.grant, p.Example)
		}
	}
}
