package classify

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wordInfo is what the walker knows about a word beyond its Arg.
type wordInfo struct {
	// canDash is set when a dynamic word could begin with "-" at run time
	// and so become an option; for a word that splits, when any of its
	// fields could.
	canDash bool
	// optPos is set on an operand that sits where the program still
	// parses options (no "--" before it): a word that expands to "-x"
	// there is an option.
	optPos bool
	// afterDashes is set on an operand after "--".
	afterDashes bool
	// multi is set when the word may expand to several words: unquoted
	// parameter or command substitution (field splitting), glob, brace.
	multi bool
	// split is set when the word holds an unquoted parameter or command
	// substitution, whose fields are arbitrary.
	split bool
	// prefix is the static text before the first dynamic part of a
	// dynamic word ("--file=" in --file=$HOME/.netrc).
	prefix    string
	prefixSet bool
}

// word evaluates a word statically, walking any substitution in it.
func (w *walker) word(word *syntax.Word, c ctx) (Arg, wordInfo) {
	var a Arg
	var info wordInfo
	if word == nil || len(word.Parts) == 0 {
		return a, info
	}
	a.Span = w.span(word)
	var val, pat strAcc
	dyn := ""
	setDyn := func(kind string, first bool) {
		if dyn == "" {
			dyn = kind
			if !info.prefixSet {
				info.prefix, info.prefixSet = val.String(), true
			}
		}
		if first {
			info.canDash = true
		}
	}
	for i, part := range word.Parts {
		first := i == 0
		if (w.zsh || w.zshStandIn) && !w.hdoc && zshHistoryModifier(word.Parts, i) && w.zshReads() {
			w.find("zsh-history-modifier", "in zsh, the "+quote(word.Parts[i+1].(*syntax.Lit).Value)+" after $"+part.(*syntax.ParamExp).Param.Value+" is read as history modifiers, which change the value", w.span(word), -1)
		}
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if w.hdoc {
				val.WriteString(v)
				continue
			}
			if w.zsh {
				w.zshArithBracket(word.Parts, i, first, setDyn)
				v = w.zshLitChecks(v, w.span(p), first, i == len(word.Parts)-1, &a, setDyn)
			} else if w.zshStandIn && !zshLitInert(v, first) {
				w.zshReads()
			}
			if plainLit(v) {
				// No tilde, glob, brace, escape or =: the checks below
				// would find nothing.
				val.WriteString(v)
				pat.WriteString(v)
				continue
			}
			if first && strings.HasPrefix(v, "~") {
				prefix := v
				if end := strings.IndexByte(v, '/'); end >= 0 {
					prefix = v[:end]
				}
				if prefix == "~" {
					setDyn("tilde", false)
					pat.WriteString("~")
					val.WriteString("~")
					v = v[1:]
				} else {
					setDyn("tilde-user", false)
				}
			}
			if hasUnescapedGlob(v) {
				info.multi = true
				setDyn("glob", first && strings.IndexAny(v, "*?[") == 0)
			}
			if hasBrace(v) {
				info.multi = true
				setDyn("brace", first && strings.HasPrefix(v, "{"))
				if n := braceSize(v); n > maxBraceWords {
					w.find("large-expansion", fmt.Sprintf("the brace expansion makes about %.0f words", n), w.span(p), -1)
				}
			}
			if idx := strings.Index(v, "=~"); idx > 0 && isName(v[:idx]) {
				setDyn("tilde-assign", false)
			}
			val.WriteString(unescapeLit(v))
			pat.WriteString(globLitPattern(v))
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				v = ansiC(v)
			}
			val.WriteString(v)
			pat.WriteString(escapeGlob(v))
		case *syntax.DblQuoted:
			if p.Dollar && !w.hdoc {
				// $"..." is looked up in the locale's message catalog
				// (TEXTDOMAIN, TEXTDOMAINDIR): its value is known at run time.
				setDyn("locale", first)
				w.find("locale-string", "a $\"...\" string is translated through the locale's message catalog at run time", w.span(p), -1)
			}
			for j, dp := range p.Parts {
				if (w.zsh || w.zshStandIn) && !w.hdoc && zshHistoryModifier(p.Parts, j) && w.zshReads() {
					w.find("zsh-history-modifier", "in zsh, the "+quote(p.Parts[j+1].(*syntax.Lit).Value)+" after $"+dp.(*syntax.ParamExp).Param.Value+" is read as history modifiers, even in double quotes, which change the value", w.span(p), -1)
				}
				switch q := dp.(type) {
				case *syntax.Lit:
					if w.zsh && !w.hdoc {
						w.zshArithBracket(p.Parts, j, first && j == 0, setDyn)
					}
					v := unescapeDbl(q.Value)
					val.WriteString(v)
					pat.WriteString(escapeGlob(v))
				default:
					if first && j == 0 && isHome(q) {
						setDyn("home", false)
						pat.WriteString("~")
						val.WriteString(w.srcOf(q))
						continue
					}
					w.wordPart(dp, c, &val, setDyn, first && j == 0, true, &info)
				}
			}
		default:
			if first && isHome(part) {
				setDyn("home", false)
				pat.WriteString("~")
				val.WriteString(w.srcOf(part))
				continue
			}
			w.wordPart(part, c, &val, setDyn, first, false, &info)
		}
	}
	if dyn != "" && strings.HasPrefix(val.String(), "-") {
		info.canDash = true // -$x is an option whatever $x is
	}
	if dyn == "" {
		a.Value = val.String()
		return a, info
	}
	w.setDynamic(&a, word, dyn, &pat)
	return a, info
}

// setDynamic records how a word is dynamic (dyn): its source as its value
// and, for a glob or a word that starts with ~ or $HOME, the pattern pat
// it stands for.
func (w *walker) setDynamic(a *Arg, word *syntax.Word, dyn string, pat *strAcc) {
	a.Dynamic = dyn
	a.Value = w.srcOf(word)
	switch dyn {
	case "glob":
		a.Pattern = pat.String()
		if (w.zsh || w.zshStandIn) && a.Pattern == "" && w.zshReads() {
			// A word that is only a qualifier group: the pattern is
			// not the value.
			a.Dynamic = "zsh-pattern"
		}
	case "tilde", "home":
		a.Pattern = pat.String()
		if strings.ContainsAny(a.Pattern, "*?[") && hasUnescapedGlob(a.Pattern) {
			a.Dynamic = "glob"
		}
		if strings.HasPrefix(a.Pattern, "~") && len(a.Pattern) > 1 && a.Pattern[1] != '/' {
			a.Dynamic = "param" // $HOMEx is another variable
			a.Pattern = ""
		}
		if !onlyTildeOrHome(word) {
			a.Dynamic = "param"
			a.Pattern = ""
		}
	}
}

// strAcc accumulates a string like strings.Builder, but a string written
// alone is kept as it is: most words are one literal, and their value
// then costs no copy.
type strAcc struct {
	s     string
	b     []byte
	multi bool
}

// WriteString appends x.
func (a *strAcc) WriteString(x string) {
	if !a.multi {
		if a.s == "" {
			a.s = x
			return
		}
		if x == "" {
			return
		}
		a.b = append(make([]byte, 0, len(a.s)+len(x)+16), a.s...)
		a.s, a.multi = "", true
	}
	a.b = append(a.b, x...)
}

// String returns what was written.
func (a *strAcc) String() string {
	if !a.multi {
		return a.s
	}
	return string(a.b)
}

func onlyTildeOrHome(word *syntax.Word) bool {
	for i, part := range word.Parts {
		switch p := part.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for j, dp := range p.Parts {
				if _, ok := dp.(*syntax.Lit); !ok && !(i == 0 && j == 0 && isHome(dp)) {
					return false
				}
			}
		default:
			if !(i == 0 && isHome(part)) {
				return false
			}
		}
	}
	return true
}

func isHome(p syntax.WordPart) bool {
	pe, ok := p.(*syntax.ParamExp)
	return ok && pe.Param != nil && pe.Param.Value == "HOME" && pe.Index == nil && pe.Exp == nil &&
		pe.Slice == nil && pe.Repl == nil && !pe.Excl && !pe.Length && pe.NestedParam == nil
}

func (w *walker) srcOf(n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(w.src) || s > e {
		return ""
	}
	return w.src[s:e]
}

// wordPart handles the dynamic parts of a word.
func (w *walker) wordPart(part syntax.WordPart, c ctx, val *strAcc, setDyn func(string, bool), first, quoted bool, info *wordInfo) {
	if info.prefix == "" && !info.prefixSet {
		info.prefix, info.prefixSet = val.String(), true
	}
	val.WriteString(w.srcOf(part))
	switch part.(type) {
	case *syntax.ParamExp, *syntax.CmdSubst:
		if !quoted {
			// Field splitting: every field is arbitrary.
			info.multi, info.split, info.canDash = true, true, true
		}
	case *syntax.ExtGlob, *syntax.BraceExp:
		info.multi = true
	}
	switch p := part.(type) {
	case *syntax.ParamExp:
		setDyn("param", first)
		if (w.zsh || w.zshStandIn) && w.zshReads() {
			w.zshParamChecks(p)
		}
		w.paramExp(p, c)
	case *syntax.CmdSubst:
		w.substs = append(w.substs, substRec{kind: SubstCommand, span: w.span(p), exact: w.exact, split: !quoted})
		setDyn("command-substitution", first)
		w.find("command-substitution", "runs a command substitution whose output becomes part of the command", w.span(p), -1)
		w.subst(p.Stmts, c, false)
	case *syntax.ArithmExp:
		setDyn("arithmetic", first)
		w.arith(p.X, c, w.span(p))
	case *syntax.ProcSubst:
		w.substs = append(w.substs, substRec{kind: procKind(p.Op), span: w.span(p), exact: w.exact})
		// The word is a path the shell makes (/dev/fd/63, or zsh's
		// temporary file): it never begins with "-".
		setDyn("process-substitution", false)
		w.find("process-substitution", "runs a process substitution", w.span(p), -1)
		w.subst(p.Stmts, c, p.Op == syntax.CmdOut)
	case *syntax.ExtGlob:
		setDyn("glob", first)
	case *syntax.BraceExp:
		setDyn("brace", first)
		for _, e := range p.Elems {
			w.word(e, c)
		}
	default:
		setDyn("unknown", first)
		w.find("unsupported-syntax", "shellgate does not analyse this word part", w.span(part), -1)
	}
}

// subst walks the statements of a substitution: they run in a subshell.
func (w *walker) subst(stmts []*syntax.Stmt, c ctx, stdinFed bool) {
	saved := w.saveCwd()
	// A command substitution in a heredoc body is a command like any
	// other: its words expand braces, globs and tildes.
	hdoc := w.hdoc
	w.hdoc = false
	cc := ctx{parent: -1, pipeLen: 1, subst: true, subshell: true, loop: c.loop,
		function: c.function, nested: c.nested, producer: -1, stdinFed: stdinFed}
	w.stmts(stmts, cc)
	w.hdoc = hdoc
	w.restoreCwd(saved)
}

// paramExp flags the parameter expansions that can run code or depend on
// arithmetic over values: subscripts, slices, indirection, prompt expansion.
func (w *walker) paramExp(p *syntax.ParamExp, c ctx) {
	sp := w.span(p)
	if p.Param != nil && !p.Length && !(p.Excl && p.Names != 0) && !w.knownVar(p.Param.Value) {
		w.find("param-value", "the value of $"+p.Param.Value+" is only known at run time and may hold a secret", sp, -1)
	}
	if p.Index != nil {
		if !isStarAt(p.Index) && !pureArith(p.Index) {
			w.find("unsafe-expansion", "an array subscript is evaluated as arithmetic, which can run code hidden in a variable's value", sp, -1)
		}
		w.arithSubst(p.Index, c)
	}
	if p.Slice != nil {
		w.find("unsafe-expansion", "a substring offset is evaluated as arithmetic, which can run code hidden in a variable's value", sp, -1)
		if p.Slice.Offset != nil {
			w.arithSubst(p.Slice.Offset, c)
		}
		if p.Slice.Length != nil {
			w.arithSubst(p.Slice.Length, c)
		}
	}
	if p.Excl && p.Names == 0 {
		w.find("unsafe-expansion", "indirect expansion ${!name} reads a variable chosen at run time", sp, -1)
	}
	if p.NestedParam != nil {
		w.find("unsafe-expansion", "nested parameter expansion is not analysed", sp, -1)
	}
	if p.Exp != nil {
		if p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.Contains(w.srcOf(p.Exp.Word), "P") {
			w.find("unsafe-expansion", "${var@P} expands the value as a prompt, which can run commands", sp, -1)
		}
		if p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull {
			w.find("declaration", "${var:=value} assigns a shell variable", sp, -1)
			if p.Param != nil {
				w.markAssigned(p.Param.Value)
			}
		}
		if p.Exp.Word != nil {
			w.word(p.Exp.Word, c)
		}
	}
	if p.Repl != nil {
		if p.Repl.Orig != nil {
			w.word(p.Repl.Orig, c)
		}
		if p.Repl.With != nil {
			w.word(p.Repl.With, c)
		}
	}
}

// knownVar reports a variable whose value may be used without asking: a
// special parameter, a catalog harmless variable, or one the command set
// itself (a for loop's name, an assignment).
func (w *walker) knownVar(name string) bool {
	if name == "" || w.cfg.cat.harmVars[name] || w.vars[name] {
		return true
	}
	switch name {
	case "@", "*", "#", "?", "$", "!", "-", "_":
		return true
	}
	return isDigits(name)
}

// setVar records a variable the command sets.
func (w *walker) setVar(name string) {
	if name == "" {
		return
	}
	if w.vars == nil {
		w.vars = map[string]bool{}
	}
	w.vars[name] = true
}

func isStarAt(x syntax.ArithmExpr) bool {
	wd, ok := x.(*syntax.Word)
	if !ok {
		return false
	}
	l := wd.Lit()
	return l == "@" || l == "*"
}

// arith flags arithmetic that reads variables (a variable's value is
// evaluated again as arithmetic, and a[$(cmd)] in it runs cmd).
func (w *walker) arith(x syntax.ArithmExpr, c ctx, sp Span) {
	if x == nil {
		return
	}
	if !pureArith(x) {
		w.find("arithmetic-expansion", "arithmetic over variables can run code hidden in a variable's value", sp, -1)
		w.varsUnknown = true // x=1, x++ and code in values may set any variable
	}
	w.arithSubst(x, c)
}

// arithSubst walks the substitutions inside arithmetic.
func (w *walker) arithSubst(x syntax.ArithmExpr, c ctx) {
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			w.word(n, c)
			return false
		}
		return true
	})
}

func pureArith(x syntax.ArithmExpr) bool {
	ok := true
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			l := n.Lit()
			if l == "" || !isNumber(l) {
				ok = false
			}
			return false
		case *syntax.BinaryArithm:
			if n.Op >= syntax.Assgn && n.Op <= syntax.ShrAssgn || n.Op == syntax.Assgn {
				ok = false
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				ok = false
			}
		}
		return ok
	})
	return ok
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	if _, err := strconv.ParseInt(s, 0, 64); err == nil {
		return true
	}
	if i := strings.IndexByte(s, '#'); i > 0 {
		for _, r := range s {
			if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '#' || r == '@' || r == '_') {
				return false
			}
		}
		return true
	}
	return false
}

// test walks a [[ ]] expression.
func (w *walker) test(x syntax.TestExpr, c ctx) {
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsGtr, syntax.TsLeq, syntax.TsGeq:
				for _, side := range []syntax.TestExpr{n.X, n.Y} {
					if wd, ok := side.(*syntax.Word); ok && !isNumber(wd.Lit()) {
						w.find("arithmetic-expansion", "an arithmetic comparison in [[ ]] evaluates its operands as arithmetic, which can run code hidden in a value", w.span(n), -1)
						break
					}
				}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				w.find("unsafe-expansion", "[[ -v ]] evaluates an array subscript, which can run code", w.span(n), -1)
			}
		case *syntax.Word:
			w.word(n, c)
			return false
		}
		return true
	})
}

func (w *walker) assign(a *syntax.Assign, c ctx) Assign {
	out := Assign{Span: w.span(a)}
	if a.Name != nil {
		out.Name = a.Name.Value
		w.markAssigned(out.Name)
	}
	if a.Index != nil {
		w.find("unsafe-expansion", "an array subscript is evaluated as arithmetic", w.span(a), -1)
		w.arithSubst(a.Index, c)
	}
	if a.Value != nil {
		out.Value, _ = w.word(a.Value, c)
	}
	if a.Array != nil {
		for _, e := range a.Array.Elems {
			if e.Value != nil {
				w.word(e.Value, c)
			}
			if e.Index != nil {
				w.arithSubst(e.Index, c)
			}
		}
		out.Value = Arg{Value: w.srcOf(a.Array), Dynamic: "array", Span: w.span(a.Array)}
	}
	return out
}

// unescapeLit removes the backslashes of an unquoted literal.
func unescapeLit(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDbl removes the backslashes that escape inside double quotes.
func unescapeDbl(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// globLitPattern turns an unquoted literal into glob pattern text: escaped
// characters stay escaped, metacharacters stay live.
func globLitPattern(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
			b.WriteString(escapeGlob(string(s[i])))
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func escapeGlob(s string) string {
	if !strings.ContainsAny(s, "*?[]\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// plainLit reports whether the unquoted literal s has none of the bytes
// word looks for in one: ~ \\ * ? [ { =.
func plainLit(s string) bool {
	for i := 0; i < len(s); i++ {
		if litSpecial[s[i]] {
			return false
		}
	}
	return true
}

var litSpecial = func() (t [256]bool) {
	for _, b := range []byte("~\\*?[{=") {
		t[b] = true
	}
	return t
}()

func hasUnescapedGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// maxBraceWords is the most words a brace expansion may make: past it,
// bash spends unbounded time and memory ({1..1000000000}).
const maxBraceWords = 10000

// braceSize estimates how many words the brace expansions in an unquoted
// literal make: the product over its groups, a sequence {a..b..s}
// counting its steps and a list {x,y} the sum of its elements.
func braceSize(s string) float64 {
	total := 1.0
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] != '{' {
			continue
		}
		end := matchBrace(s, i)
		if end < 0 {
			break
		}
		total *= groupSize(s[i+1 : end])
		i = end
	}
	return total
}

func groupSize(inner string) float64 {
	if n, ok := seqSize(inner); ok {
		return n
	}
	var parts []string
	depth, start := 0, 0
	for j := 0; j < len(inner); j++ {
		switch inner[j] {
		case '\\':
			j++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, inner[start:j])
				start = j + 1
			}
		}
	}
	if len(parts) == 0 {
		return braceSize(inner) // not a list: {x} stays one word
	}
	parts = append(parts, inner[start:])
	sum := 0.0
	for _, p := range parts {
		sum += braceSize(p)
	}
	return sum
}

// seqSize counts the words of a sequence expression a..b or a..b..step.
func seqSize(inner string) (float64, bool) {
	f := strings.Split(inner, "..")
	if len(f) != 2 && len(f) != 3 {
		return 0, false
	}
	num := func(x string) (float64, bool) {
		n, err := strconv.ParseInt(x, 10, 64)
		if err == nil {
			return float64(n), true
		}
		if len(x) == 1 {
			return float64(x[0]), true // {a..z}
		}
		return 0, false
	}
	a, ok1 := num(f[0])
	b, ok2 := num(f[1])
	if !ok1 || !ok2 {
		return 0, false
	}
	step := 1.0
	if len(f) == 3 {
		st, ok := num(f[2])
		if !ok {
			return 0, false
		}
		if st < 0 {
			st = -st
		}
		if st != 0 {
			step = st
		}
	}
	d := b - a
	if d < 0 {
		d = -d
	}
	return d/step + 1, true
}

// hasBrace reports an unquoted brace expansion: {a,b} or {1..3}.
func hasBrace(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] != '{' {
			continue
		}
		if j := matchBrace(s, i); j >= 0 {
			inner := s[i+1 : j]
			if strings.Contains(inner, ",") || strings.Contains(inner, "..") {
				return true
			}
		}
	}
	return false
}

// matchBrace returns the index of the '}' that closes the '{' at s[i],
// skipping backslash escapes, or -1 if it is never closed.
func matchBrace(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// ansiC decodes the escapes of a $'...' string.
func ansiC(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(s[i])
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if j > i+1 {
				n, _ := strconv.ParseUint(s[i+1:j], 16, 8)
				b.WriteByte(byte(n))
				i = j - 1
			} else {
				b.WriteString("\\x")
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		case 'u', 'U':
			max := 4
			if s[i] == 'U' {
				max = 8
			}
			j := i + 1
			for j < len(s) && j < i+1+max && isHex(s[j]) {
				j++
			}
			if j > i+1 {
				n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
				b.WriteRune(rune(n))
				i = j - 1
			} else {
				b.WriteByte('\\')
				b.WriteByte(s[i])
			}
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
