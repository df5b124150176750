package classify

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/shellgate/shellgate/classify/shells"
)

// Dialect is the shell language a command is read in: the shell that will
// really run it. The same bytes mean different things in bash and zsh
// (zsh's glob qualifiers run code: ls *(e:'touch x':)), so a command is
// judged as the shell that runs it, and as every shell that might when
// that is not known.
type Dialect string

// The dialects.
const (
	// DialectUnknown is a request that does not say which shell runs
	// it: the command is read as bash and as zsh, and is reversible only
	// when both readings prove it (Report.Dialect "bash+zsh").
	DialectUnknown Dialect = ""
	// DialectBash is GNU bash.
	DialectBash Dialect = "bash"
	// DialectZsh is zsh 5.9 with its default options (no EXTENDED_GLOB;
	// BARE_GLOB_QUAL, EQUALS and NOMATCH on).
	DialectZsh Dialect = "zsh"
	// DialectSh is a POSIX shell (dash).
	DialectSh Dialect = "sh"
)

// bothDialects is Report.Dialect for a command read as bash and as zsh.
const bothDialects = "bash+zsh"

// ParseDialect reads a dialect name as a request, config or flag gives
// it: a shell of the embedded catalog ("bash", "zsh", "sh", and "dash", a
// POSIX shell), or "", "unknown" and "auto" for DialectUnknown. A path is
// reduced to its base name (/bin/zsh is zsh), as $SHELL holds one, and a
// login shell's "-zsh" is zsh. Any other name is an error, so that a typo
// never silently narrows the judgment.
func ParseDialect(s string) (Dialect, error) {
	name := strings.TrimSpace(s)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	switch strings.TrimPrefix(name, "-") { // a login shell's argv[0] is -zsh
	case "", "unknown", "auto":
		return DialectUnknown, nil
	}
	// The shells are the catalog's (package shells is its table).
	if d := shells.Dialect(name); d != "" {
		return Dialect(d), nil
	}
	return DialectUnknown, fmt.Errorf("unknown shell %q (want bash, zsh or sh)", s)
}

// WithDialect reads the command in dialect d; DialectUnknown (the default)
// reads it as both bash and zsh.
func WithDialect(d Dialect) Option { return func(cfg *config) { cfg.dialect = d } }

// lang is the parser variant of a dialect.
func (d Dialect) lang() syntax.LangVariant {
	switch d {
	case DialectZsh:
		return syntax.LangZsh
	case DialectSh:
		return syntax.LangPOSIX
	}
	return syntax.LangBash
}

// name is the dialect as messages say it.
func (d Dialect) name() string {
	if d == DialectUnknown {
		return "bash"
	}
	return string(d)
}

// mergeReadings combines the bash and the zsh reading of one command: the
// bash reading describes it (segments, arguments, cd steps), and whatever
// only the zsh reading found is added, named: its findings (message
// prefixed "zsh: "), and the reads, writes, redirects and cd steps it saw
// that the bash reading did not, so that the read station judges what zsh
// would read too (cat *(D.) reads .env in zsh only); a message that does
// not begin "in zsh, " gets the prefix "zsh: ". The command is
// reversible only when both readings prove it.
func mergeReadings(b, z *Report) *Report {
	r := b
	r.Dialect = bothDialects
	if sameReading(b, z) {
		return r
	}
	nb, nbSeg := len(b.Findings), len(b.Segments)
	// A zsh segment maps to the bash segment with the same span, program
	// and parent; one with none is added (zsh's noglob rm -rf / has an rm
	// segment, bash's has only the unknown program noglob), so that rules
	// about segments see what zsh would run too.
	bySpan := make(map[Span]int, len(b.Segments))
	for i, s := range b.Segments {
		if _, ok := bySpan[s.Span]; !ok {
			bySpan[s.Span] = i
		}
	}
	zmap := make([]int, len(z.Segments))
	for i, zs := range z.Segments {
		parent := -1
		if zs.Parent >= 0 && zs.Parent < i {
			parent = zmap[zs.Parent]
		}
		if j, ok := bySpan[zs.Span]; ok && b.Segments[j].Program == zs.Program && b.Segments[j].Parent == parent {
			zmap[i] = j
			continue
		}
		zs.Index, zs.Parent = len(r.Segments), parent
		zs.Cwd = Cwd{} // remapped below, once the cd steps are
		zmap[i] = zs.Index
		r.Segments = append(r.Segments, zs)
	}
	segMap := func(i int) int {
		if i < 0 || i >= len(zmap) {
			return -1
		}
		return zmap[i]
	}
	type fkey struct {
		code string
		span Span
	}
	inBash := make(map[fkey]bool, len(b.Findings))
	for _, f := range b.Findings {
		inBash[fkey{f.Code, f.Span}] = true
	}
	inZsh := make(map[fkey]bool, len(z.Findings))
	for _, f := range z.Findings {
		inZsh[fkey{f.Code, f.Span}] = true
	}
	var bad []int
	for i := range b.Findings {
		if !inZsh[fkey{b.Findings[i].Code, b.Findings[i].Span}] {
			b.Findings[i].Dialect = string(DialectBash)
		}
	}
	for _, f := range z.Findings {
		if inBash[fkey{f.Code, f.Span}] {
			continue
		}
		f.Dialect = string(DialectZsh)
		if !strings.HasPrefix(f.Message, "in zsh, ") {
			f.Message = "zsh: " + f.Message
		}
		f.Segment = segMap(f.Segment)
		if f.Segment >= 0 {
			bad = append(bad, f.Segment)
		}
		r.Findings = append(r.Findings, f)
	}
	// Cd steps the zsh reading has beyond the bash reading's are added
	// with new indexes, and the zsh reads that assume them follow.
	cdMap := map[int]int{}
	for i, c := range z.Cd {
		if i < len(b.Cd) && sameCd(b.Cd[i], c) {
			cdMap[c.Index] = b.Cd[i].Index
			continue
		}
		n := len(r.Cd)
		cdMap[c.Index] = n
		c.Index, c.Segment = n, segMap(c.Segment)
		c.From, c.To = remapCwd(c.From, cdMap), remapCwd(c.To, cdMap)
		r.Cd = append(r.Cd, c)
	}
	for i, zs := range z.Segments {
		if j := zmap[i]; j >= nbSeg {
			r.Segments[j].Cwd = remapCwd(zs.Cwd, cdMap)
		}
	}
	r.Reads = mergeRefs(r.Reads, z.Reads, segMap, cdMap)
	r.Writes = mergeRefs(r.Writes, z.Writes, segMap, cdMap)
	type rkey struct {
		span   Span
		op     string
		target Arg
	}
	haveRd := make(map[rkey]bool, len(b.Redirects))
	for _, x := range b.Redirects {
		haveRd[rkey{x.Span, x.Op, x.Target}] = true
	}
	for _, rd := range z.Redirects {
		if !haveRd[rkey{rd.Span, rd.Op, rd.Target}] {
			rd.Segment = segMap(rd.Segment)
			r.Redirects = append(r.Redirects, rd)
		}
	}
	for _, zs := range z.Substitutions {
		zs.Host = segMap(zs.Host)
		if !slices.ContainsFunc(r.Substitutions, func(bs Substitution) bool { return sameSubst(bs, zs) }) {
			// The policy judges every reading's facts of a substitution.
			r.Substitutions = append(r.Substitutions, zs)
		}
	}
	for _, i := range bad {
		r.Segments[i].ReadOnly = false
	}
	if !z.Parse.OK && len(r.Findings) == nb {
		// A zsh parse error is always a finding; this is only a guard.
		r.Findings = append(r.Findings, Finding{Code: "parse-error", Message: "zsh: zsh cannot parse this: " + z.Parse.Error, Span: Span{0, len(r.Command)}, Segment: -1, Dialect: string(DialectZsh)})
	}
	r.Reversible = b.Reversible && z.Reversible && len(r.Findings) == nb
	return r
}

// sameReading reports two readings that found the same findings, reads,
// writes, redirects and cd steps: nothing is added to the bash reading.
func sameReading(b, z *Report) bool {
	if b.Reversible != z.Reversible || b.Parse.OK != z.Parse.OK || len(b.Findings) != len(z.Findings) ||
		len(b.Reads) != len(z.Reads) || len(b.Writes) != len(z.Writes) ||
		len(b.Redirects) != len(z.Redirects) || len(b.Cd) != len(z.Cd) {
		return false
	}
	for i := range b.Findings {
		if b.Findings[i].Code != z.Findings[i].Code || b.Findings[i].Span != z.Findings[i].Span {
			return false
		}
	}
	for i := range b.Reads {
		if !sameRef(b.Reads[i], z.Reads[i]) {
			return false
		}
	}
	for i := range b.Writes {
		if !sameRef(b.Writes[i], z.Writes[i]) {
			return false
		}
	}
	for i := range b.Redirects {
		if b.Redirects[i].Span != z.Redirects[i].Span || b.Redirects[i].Op != z.Redirects[i].Op || b.Redirects[i].Target != z.Redirects[i].Target {
			return false
		}
	}
	for i := range b.Cd {
		if !sameCd(b.Cd[i], z.Cd[i]) {
			return false
		}
	}
	return true
}

func sameSubst(a, b Substitution) bool {
	return a.Kind == b.Kind && a.Span == b.Span && a.Host == b.Host && a.Role == b.Role &&
		a.OptionLike == b.OptionLike && a.Split == b.Split &&
		slices.Equal(a.OptionEffects, b.OptionEffects) && slices.Equal(a.ShiftRoles, b.ShiftRoles)
}

func sameRef(a, b PathRef) bool {
	return a.Path == b.Path && a.Kind == b.Kind && a.Dynamic == b.Dynamic && a.Recursive == b.Recursive &&
		a.Source == b.Source && a.Span == b.Span && a.Home == b.Home && a.Split == b.Split &&
		a.OptionLike == b.OptionLike && a.Repo == b.Repo && a.IfExists == b.IfExists &&
		a.PathGlob == b.PathGlob && a.Tracked == b.Tracked && a.Dots == b.Dots && a.Globstar == b.Globstar &&
		equalCwd(a.Cwd, b.Cwd)
}

func equalCwd(a, b Cwd) bool {
	if a.Path != b.Path || a.Known != b.Known || len(a.After) != len(b.After) {
		return false
	}
	for i := range a.After {
		if a.After[i] != b.After[i] {
			return false
		}
	}
	return true
}

func sameCd(a, b CdStep) bool {
	return a.Index == b.Index && a.Program == b.Program && a.Target == b.Target && a.Span == b.Span &&
		a.Scoped == b.Scoped && equalCwd(a.From, b.From) && equalCwd(a.To, b.To)
}

func remapCwd(c Cwd, cdMap map[int]int) Cwd {
	if len(c.After) == 0 {
		return c
	}
	after := make([]int, len(c.After))
	for i, a := range c.After {
		if n, ok := cdMap[a]; ok {
			after[i] = n
		} else {
			// A step the map does not know: the cwd is not established.
			c.Known = false
			after[i] = a
		}
	}
	c.After = after
	return c
}

// refKey is a PathRef's identity for mergeRefs: every field but Segment
// and Producer, the cwd's After list as text.
type refKey struct {
	path, kind, dynamic, source, pathGlob, cwd, after string
	span                                              Span
	flags                                             [11]bool
}

func keyOf(p PathRef) refKey {
	var b []byte
	for _, a := range p.Cwd.After {
		b = strconv.AppendInt(b, int64(a), 10)
		b = append(b, ',')
	}
	return refKey{
		path: p.Path, kind: p.Kind, dynamic: p.Dynamic, source: p.Source, pathGlob: p.PathGlob,
		cwd: p.Cwd.Path, after: string(b), span: p.Span,
		flags: [11]bool{p.Recursive, p.Home, p.Split, p.OptionLike, p.Repo, p.IfExists, p.Tracked,
			p.Dots, p.Globstar, p.Cwd.Known, false},
	}
}

// mergeRefs adds the zsh reading's paths that the bash reading lacks (in
// time linear in their number: a huge command must not cost quadratic).
func mergeRefs(have, add []PathRef, segMap func(int) int, cdMap map[int]int) []PathRef {
	seen := make(map[refKey]bool, len(have))
	for _, h := range have {
		seen[keyOf(h)] = true
	}
	for _, p := range add {
		p.Cwd = remapCwd(p.Cwd, cdMap)
		k := keyOf(p)
		if seen[k] {
			continue
		}
		seen[k] = true
		p.Segment = segMap(p.Segment)
		if p.Producer >= 0 {
			p.Producer = segMap(p.Producer)
		}
		have = append(have, p)
	}
	return have
}

// zshTied are the arrays zsh ties to a colon-separated variable: setting
// path sets PATH (for path in .; do ls; done runs ./ls), and the others
// change where cd, autoload, man and zmodload look.
var zshTied = map[string]bool{
	"path": true, "cdpath": true, "fpath": true, "manpath": true, "module_path": true,
	"mailpath": true, "psvar": true, "fignore": true, "watch": true,
}

// zshSpecialVar reports a lower-case variable zsh gives meaning to: a tied
// array, or one that changes how words are read or what runs.
func zshSpecialVar(name string) bool {
	if zshTied[name] {
		return true
	}
	switch name {
	case "histchars", "prompt", "signals", "argv", "status", "pipestatus", "options",
		"aliases", "functions", "commands", "builtins", "parameters", "nameddirs", "userdirs",
		"termcap", "terminfo", "jobdirs", "jobtexts", "jobstates", "dirstack", "reswords",
		"modules", "zsh_scheduled_events", "funcstack", "mapfile", "sysparams", "errnos",
		"dis_aliases", "dis_functions", "dis_builtins", "dis_reswords", "galiases", "saliases":
		return true
	}
	return false
}

// zshLitChecks runs the zsh-only checks of an unquoted literal: the parts
// of a zsh pattern that bash reads as plain characters. trailing is set on
// the literal that ends the word (where a parenthesised group is a list of
// glob qualifiers); it returns the literal without that group, and the
// qualifier's effect on the matches (dots).
func (w *walker) zshLitChecks(v string, sp Span, first, trailing bool, a *Arg, setDyn func(string, bool)) string {
	if first && len(v) > 1 && v[0] == '=' {
		// =cmd is the path of cmd ($commands[cmd]): echo =ls.
		w.find("zsh-equals-expansion", "in zsh, a word that begins with = expands to the path of a program (=cmd), or fails", sp, -1)
		setDyn("zsh-equals", true)
	}
	q, rest, ok := trailingGroup(v)
	if trailing && ok && first && rest == "" {
		// (x) alone is a pattern group, not a qualifier list.
		ok = false
	}
	if trailing && ok {
		v = rest
		// A bare qualifier makes the word a pattern, even with no * in it.
		setDyn("glob", first && (rest == "" || strings.IndexAny(rest, "*?[") == 0))
		code, msg, dots := zshQualifierCheck(q)
		if code != "" {
			w.find(code, "in zsh, the glob qualifier ("+q+") "+msg, sp, -1)
		}
		if dots {
			a.Dots = true
		}
	}
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '(', ')', '|', '<', '>':
			w.find("zsh-glob-pattern", "in zsh, "+quote(v)+" is a pattern with groups, alternatives or number ranges, which shellgate does not expand", sp, -1)
			setDyn("zsh-pattern", first)
			return v
		}
	}
	if strings.Contains(v, "**") {
		a.Globstar = true
	}
	return v
}

// trailingGroup splits a literal that ends with an unescaped parenthesised
// group with no "|" at its top level (zsh reads it as glob qualifiers)
// into the group's text and the rest.
func trailingGroup(v string) (group, rest string, ok bool) {
	if !strings.HasSuffix(v, ")") || strings.HasSuffix(v, "\\)") && !strings.HasSuffix(v, "\\\\)") {
		return "", "", false
	}
	// Find the '(' that opens the final ')', left to right so escapes
	// are read as zsh reads them.
	var stack []int
	open := -1
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '(':
			stack = append(stack, i)
		case ')':
			if len(stack) == 0 {
				return "", "", false
			}
			open = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 || open < 0 {
		return "", "", false
	}
	g := v[open+1 : len(v)-1]
	depth := 0
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '\\':
			i++
		case '(':
			depth++
		case ')':
			depth--
		case '|', '~':
			if depth == 0 {
				return "", "", false
			}
		}
	}
	return g, v[:open], true
}

// zshQualifierCheck reads a glob qualifier list (the text between the
// parentheses of *(...)), as zsh 5.9 documents them. It returns a finding
// code and message for a qualifier that runs code (e, +, oe, o+) or that
// makes the words differ from the matches (P, modifiers, N, unknown
// ones), and whether the matches include dot files (D).
func zshQualifierCheck(q string) (code, msg string, dots bool) {
	exec := func(what string) (string, string, bool) {
		return "zsh-glob-qualifier-exec", what, dots
	}
	changes := func(what string) (string, string, bool) {
		return "zsh-glob-qualifier", what, dots
	}
	i := strings.Index(q, "#q")
	if i == 0 {
		q = q[2:]
	}
	n := len(q)
	digits := func() {
		for i < n && q[i] >= '0' && q[i] <= '9' {
			i++
		}
	}
	// delimited skips a delimited argument (:x:, {x}, [x], <x>, (x)).
	delimited := func() bool {
		if i >= n {
			return false
		}
		d := q[i]
		end := d
		switch d {
		case '(':
			end = ')'
		case '{':
			end = '}'
		case '[':
			end = ']'
		case '<':
			end = '>'
		}
		j := strings.IndexByte(q[i+1:], end)
		if j < 0 {
			return false
		}
		i += j + 2
		return true
	}
	for i = 0; i < n; {
		c := q[i]
		i++
		switch c {
		case '/', '.', '@', '=', 'p', '*', 'r', 'w', 'x', 'A', 'I', 'E', 'R', 'W', 'X', 's', 'S', 't',
			'U', 'G', '^', '-', 'M', 'T', 'n', 'F', ',':
		case 'D':
			dots = true
		case 'N':
			return changes("(N, NULL_GLOB) removes the word when nothing matches, so the program reads its default (stdin, or the whole directory) instead")
		case '%':
			if i < n && (q[i] == 'b' || q[i] == 'c') {
				i++
			}
		case 'f':
			if i < n && q[i] >= '0' && q[i] <= '7' {
				digits()
			} else if !delimited() {
				return changes("has a mode test shellgate cannot read")
			}
		case 'd', 'Y':
			digits()
		case 'l':
			if i < n && (q[i] == '-' || q[i] == '+') {
				i++
			}
			digits()
		case 'a', 'm', 'c', 'L':
			if i < n && strings.IndexByte("MwhmskKpPgGtT", q[i]) >= 0 {
				i++
			}
			if i < n && (q[i] == '-' || q[i] == '+') {
				i++
			}
			digits()
		case 'u', 'g':
			if i < n && q[i] >= '0' && q[i] <= '9' {
				digits()
			} else if !delimited() {
				return changes("has an owner test shellgate cannot read")
			}
		case 'o', 'O':
			if i >= n {
				return changes("has an incomplete sort order")
			}
			switch q[i] {
			case 'e', '+':
				return exec("sorts the matches by running code (oe, o+)")
			case 'n', 'L', 'l', 'a', 'm', 'c', 'd', 'N':
				i++
			default:
				return changes("has an unknown sort order")
			}
		case '[':
			if i < n && q[i] == '-' {
				i++
			}
			digits()
			if i < n && q[i] == ',' {
				i++
				if i < n && q[i] == '-' {
					i++
				}
				digits()
			}
			if i >= n || q[i] != ']' {
				return changes("has a subscript shellgate cannot read")
			}
			i++
		case 'e':
			return exec("evaluates a string as code for each match (e)")
		case '+':
			return exec("runs a command or function by name for each match (+cmd)")
		case 'P':
			return changes("(P) puts a word chosen by the qualifier before each match, so the program's arguments are not the matches")
		case ':':
			return changes("applies history modifiers to the matches (:s/old/new/, :h), so the paths read are not the matches")
		default:
			return changes("has the qualifier " + quote(string(c)) + ", which shellgate does not know")
		}
	}
	return "", "", dots
}

// zshHistoryModifier reports a short parameter expansion followed by a
// literal that zsh reads as history modifiers ($f:h, "$SHA:app.js" is
// $SHA with :a, made absolute).
func zshHistoryModifier(parts []syntax.WordPart, i int) bool {
	pe, ok := parts[i].(*syntax.ParamExp)
	if !ok || !pe.Short || i+1 >= len(parts) {
		return false
	}
	l, ok := parts[i+1].(*syntax.Lit)
	if !ok || len(l.Value) < 2 || l.Value[0] != ':' {
		return false
	}
	return strings.IndexByte("aAcehlpPqQrstuxX&", l.Value[1]) >= 0
}

// zshParamChecks flags the zsh-only parts of a parameter expansion:
// flags (e evaluates the value as code; P reads another variable; the rest
// change the words), $~var (the value is a glob pattern), modifiers
// (${f:s/a/b/} changes the value) and subscript flags.
func (w *walker) zshParamChecks(p *syntax.ParamExp) {
	sp := w.span(p)
	if p.Flags != nil {
		switch f := p.Flags.Value; {
		case strings.ContainsAny(f, "e"):
			w.find("zsh-param-eval", "in zsh, the (e) flag of ${("+f+")...} evaluates the value as shell code", sp, -1)
		case strings.ContainsAny(f, "%"):
			w.find("zsh-param-eval", "in zsh, the (%) flag of ${("+f+")...} expands the value as a prompt, which can run code", sp, -1)
		default:
			w.find("zsh-param-flags", "in zsh, ${("+f+")...} transforms the value with flags shellgate does not follow", sp, -1)
		}
	}
	if p.GlobSubst != 0 {
		w.find("zsh-glob-subst", "in zsh, $~var and ${~var} read the value as a glob pattern (qualifiers in it can run code)", sp, -1)
	}
	if len(p.Modifiers) > 0 {
		w.find("zsh-param-modifier", "in zsh, a modifier after ${var:...} changes the value (:s/old/new/, :a, :h)", sp, -1)
	}
	if p.Index != nil {
		syntax.Walk(p.Index, func(n syntax.Node) bool {
			if fa, ok := n.(*syntax.FlagsArithm); ok {
				w.find("zsh-subscript-flags", "in zsh, subscript flags ("+fa.Flags.Value+") search or evaluate", sp, -1)
				return false
			}
			return true
		})
	}
}

// zshHookFunction reports a function name zsh calls by itself: hook
// functions, TRAP* signal handlers and command_not_found_handler.
func zshHookFunction(name string) bool {
	switch name {
	case "chpwd", "precmd", "preexec", "periodic", "zshaddhistory", "zshexit",
		"command_not_found_handler", "zsh_directory_name":
		return true
	}
	return strings.HasPrefix(name, "TRAP")
}

// zshSameParse reports whether bash and zsh parse command into the same
// tree, by its bytes: when bash parses it, zsh parses it into the same
// tree (bash may refuse what zsh takes, such as an empty do ... done; the
// stand-in is used only for a bash reading that parsed). Outside quotes: letters, digits, blanks, newlines,
// -_./,:+@%=~!*? and \ with the byte it escapes; the operators | || &&
// & ; > >> >& &> >| (not zsh's &| &! >! >>& or the case separators ;;
// ;& ;|); {} as a word that is not a command ({} alone is a block in
// zsh). Single-quoted text of any bytes; double-quoted text without $ or
// `. And no word coproc (a keyword in bash only). Every place where
// mvdan.cc/sh's parser reads zsh otherwise needs one of the bytes left
// out (( ) [ ] < $ ` #, a { or } not in a word {}) or a sequence refused.
// TestZshSameParse and FuzzZshStandIn check it against both parsers.
func zshSameParse(command string) bool {
	if strings.Contains(command, "coproc") {
		return false
	}
	// prev is the byte before b outside quotes, word the last one that is
	// not a blank (' ' for none).
	var prev, prev2 byte
	word := byte(';')
	for i := 0; i < len(command); i++ {
		b := command[i]
		switch zshByte[b] {
		case zshWordByte:
			prev2, prev, word = prev, b, b
			continue
		case zshBlank:
			prev2, prev = prev, b
			continue
		case zshRefused:
			return false
		}
		switch b {
		case '\'':
			j := strings.IndexByte(command[i+1:], '\'')
			if j < 0 {
				return false
			}
			i += j + 1
		case '"':
			for i++; ; i++ {
				if i >= len(command) {
					return false
				}
				c := command[i]
				if c == '"' {
					break
				}
				if c == '$' || c == '`' {
					return false
				}
				if c == '\\' {
					i++
				}
			}
			b = '"'
		case '\\':
			if i+1 == len(command) {
				return false
			}
			i++
			b = 'a' // an escaped byte is a letter of a word
		case '|':
			if prev == '&' || prev == ';' {
				return false
			}
		case '&':
			if prev == ';' || prev == '|' || prev == '>' && prev2 == '>' {
				return false
			}
		case '!':
			if prev == '&' || prev == '>' {
				return false
			}
		case ';':
			if prev == ';' {
				return false
			}
		case '{':
			// Only the word {} after a word: find -exec rm {} +.
			if i+1 >= len(command) || command[i+1] != '}' || !isBlankByte(prev) || strings.IndexByte(";|&!\n>", word) >= 0 ||
				i+2 < len(command) && !isBlankByte(command[i+2]) && command[i+2] != '\n' && command[i+2] != ';' {
				return false
			}
			i++
			b = '}'
		}
		// b is a word byte here: a quote, an escape, an operator or {}.
		word = b
		prev2, prev = prev, b
	}
	return true
}

// zshByte classes the bytes outside quotes for zshSameParse: a byte of a
// word (letters, digits, -_./,:+@%=~*?, newline), a blank, a byte it
// looks at more closely (quotes, \, | & ! ; > {), or one it refuses.
var zshByte = func() (t [256]uint8) {
	for b := range t {
		t[b] = zshRefused
	}
	for b := 'a'; b <= 'z'; b++ {
		t[b], t[b-'a'+'A'] = zshWordByte, zshWordByte
	}
	for b := '0'; b <= '9'; b++ {
		t[b] = zshWordByte
	}
	for _, b := range []byte("\n-_./,:+@%=~*?") {
		t[b] = zshWordByte
	}
	t[' '], t['\t'] = zshBlank, zshBlank
	for _, b := range []byte("'\"\\|&!;>{") {
		t[b] = zshSpecial
	}
	return t
}()

const (
	zshRefused = iota
	zshWordByte
	zshBlank
	zshSpecial
)

func isBlankByte(b byte) bool { return b == ' ' || b == '\t' }

// zshLitInert reports whether zshLitChecks leaves the unquoted literal v
// alone: no = that begins the word, no glob qualifier, group,
// alternative or number range, no **.
func zshLitInert(v string, first bool) bool {
	if first && len(v) > 1 && v[0] == '=' {
		return false
	}
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '(', ')', '|', '<', '>':
			return false
		case '*':
			if i+1 < len(v) && v[i+1] == '*' {
				return false
			}
		}
	}
	return true
}

// zshArithBracket finds $[...] in the parts of a word zsh reads (unquoted
// or in double quotes): zsh 5.9 expands it as $((...)), where a name is a
// variable (echo $[AWS_SECRET_ACCESS_KEY] shows part of its value in the
// error); the zsh parser leaves it literals ("$" and "[...]").
func (w *walker) zshArithBracket(parts []syntax.WordPart, i int, first bool, setDyn func(string, bool)) {
	l, ok := parts[i].(*syntax.Lit)
	if !ok {
		return
	}
	v := l.Value
	if i+1 < len(parts) {
		if n, ok := parts[i+1].(*syntax.Lit); ok && strings.HasPrefix(n.Value, "[") {
			v += n.Value
		}
	}
	for j := 0; j+1 < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '$':
			if v[j+1] == '[' {
				// Numbers and operators alone read no variable ($[1+1]).
				if body, _, ok := strings.Cut(v[j+2:], "]"); ok && body != "" && strings.Trim(body, "0123456789 +-*/%()") == "" {
					continue
				}
				w.find("arithmetic-expansion", "in zsh, $[...] is arithmetic expansion, where a name is a variable whose value can print", w.span(l), -1)
				w.varsUnknown = true
				setDyn("arithmetic", first)
				return
			}
		}
	}
}
