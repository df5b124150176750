package classify

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Limits bound the analysis. Past any limit the command is not reversible,
// with a finding that names the limit: no cap fails open.
type Limits struct {
	// MaxLength is the longest command, in bytes, that is parsed.
	MaxLength int
	// MaxNesting is the deepest bracket nesting that is parsed.
	MaxNesting int
	// MaxDepth is the deepest AST recursion the walker follows.
	MaxDepth int
	// MaxSegments is the most segments recorded.
	MaxSegments int
	// MaxNested is the deepest string-nested script (bash -c '...').
	MaxNested int
	// MaxFindings is the most findings recorded.
	MaxFindings int
}

// DefaultLimits are the limits Classify uses unless WithLimits says otherwise.
var DefaultLimits = Limits{
	MaxLength:   1 << 20,
	MaxNesting:  256,
	MaxDepth:    200,
	MaxSegments: 4096,
	MaxNested:   4,
	MaxFindings: 1024,
}

// Option configures Classify.
type Option func(*config)

type config struct {
	cat    *Catalog
	limits Limits
}

// WithCatalog classifies with the given catalog instead of the embedded one.
func WithCatalog(c *Catalog) Option { return func(cfg *config) { cfg.cat = c } }

// WithLimits replaces the analysis limits.
func WithLimits(l Limits) Option { return func(cfg *config) { cfg.limits = l } }

// Classify parses command as bash and describes it. It is pure (no I/O),
// never panics, and is safe for concurrent use.
func Classify(command string, opts ...Option) (r *Report) {
	cfg := config{limits: DefaultLimits}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.cat == nil {
		cfg.cat = DefaultCatalog()
	}
	r = &Report{
		Command:   command,
		Segments:  []Segment{},
		Redirects: []Redirect{},
		Reads:     []PathRef{},
		Writes:    []PathRef{},
		Cd:        []CdStep{},
		Findings:  []Finding{},
	}
	w := &walker{cfg: &cfg, r: r, src: command, exact: true, producer: -1}
	defer func() {
		if p := recover(); p != nil {
			// A bug in the walker must never turn into an allow.
			r.Parse.OK = r.Parse.OK && true
			w.find("internal-error", fmt.Sprintf("the classifier failed: %v", p), Span{0, len(command)}, -1)
		}
		w.finish()
	}()
	whole := Span{0, len(command)}
	if strings.TrimSpace(command) == "" {
		r.Parse.OK = true
		w.find("empty-command", "the command is empty", whole, -1)
		return r
	}
	if len(command) > cfg.limits.MaxLength {
		r.Parse = ParseResult{Error: fmt.Sprintf("command is %d bytes, over the %d-byte limit", len(command), cfg.limits.MaxLength), Span: &whole}
		w.find("limit-length", r.Parse.Error, whole, -1)
		return r
	}
	if i := strings.IndexByte(command, 0); i >= 0 {
		sp := Span{i, i + 1}
		r.Parse = ParseResult{Error: "the command contains a NUL byte, which bash cannot receive", Span: &sp}
		w.find("nul-byte", r.Parse.Error, sp, -1)
		return r
	}
	if !utf8.ValidString(command) {
		i := firstInvalidUTF8(command)
		w.find("invalid-utf8", "the command is not valid UTF-8", Span{i, i + 1}, -1)
	}
	if n := maxNesting(command); n > cfg.limits.MaxNesting {
		r.Parse = ParseResult{Error: fmt.Sprintf("brackets nest %d deep, over the limit of %d", n, cfg.limits.MaxNesting), Span: &whole}
		w.find("limit-nesting", r.Parse.Error, whole, -1)
		return r
	}
	f, err := parse(command, syntax.LangBash)
	if err != nil {
		sp := errSpan(err, command)
		r.Parse = ParseResult{Error: err.Error(), Span: &sp}
		w.find("parse-error", "bash cannot parse this: "+err.Error(), sp, -1)
		return r
	}
	r.Parse.OK = true
	w.stmts(f.Stmts, ctx{parent: -1, pipeLen: 1, producer: -1})
	if len(r.Segments) == 0 && len(r.Findings) == 0 {
		w.find("empty-command", "the command runs nothing", whole, -1)
	}
	return r
}

func parse(src string, lang syntax.LangVariant) (f *syntax.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parser failed: %v", p)
		}
	}()
	p := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(false))
	return p.Parse(strings.NewReader(src), "")
}

func errSpan(err error, src string) Span {
	if pe, ok := err.(syntax.ParseError); ok {
		o := int(pe.Pos.Offset())
		if o > len(src) {
			o = len(src)
		}
		e := o + 1
		if e > len(src) {
			e = len(src)
		}
		return Span{o, e}
	}
	return Span{0, len(src)}
}

func firstInvalidUTF8(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

// maxNesting over-approximates how deep brackets nest, so that a megabyte
// of "$($($(" is refused before the recursive parser sees it.
func maxNesting(s string) int {
	d, m := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[', '`':
			d++
			if d > m {
				m = d
			}
		case ')', '}', ']':
			if d > 0 {
				d--
			}
		}
	}
	return m
}

// ctx is where a statement sits.
type ctx struct {
	pipe, pipeLen                                                   int
	subst, loop, background, negated, subshell, function, condition bool
	stdinFed                                                        bool
	parent                                                          int
	wrappers                                                        []string
	nested                                                          int
	producer                                                        int // segment feeding xargs, or -1
	xargs                                                           bool
	findExec                                                        bool
	assigns                                                         []Assign
}

type walker struct {
	cfg *config
	r   *Report
	src string // the source the current AST positions refer to

	// span mapping for string-nested scripts
	base  int
	exact bool
	outer Span

	depth    int
	cwd      Cwd
	oldpwd   Cwd
	dirstack []Cwd
	producer int
	stopped  bool
	segLimit bool
	seen     map[findingKey]bool
	funcs    map[string]bool
}

func (w *walker) span(n syntax.Node) Span {
	if !w.exact {
		return w.outer
	}
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if e < s {
		e = s
	}
	return w.clamp(Span{w.base + s, w.base + e})
}

func (w *walker) spanPos(a, b syntax.Pos) Span {
	if !w.exact {
		return w.outer
	}
	s, e := int(a.Offset()), int(b.Offset())
	if e < s {
		e = s
	}
	return w.clamp(Span{w.base + s, w.base + e})
}

func (w *walker) clamp(s Span) Span {
	n := len(w.r.Command)
	if s.Start < 0 {
		s.Start = 0
	}
	if s.Start > n {
		s.Start = n
	}
	if s.End > n {
		s.End = n
	}
	if s.End < s.Start {
		s.End = s.Start
	}
	return s
}

func (w *walker) find(code, msg string, sp Span, seg int) {
	max := w.cfg.limits.MaxFindings
	if len(w.r.Findings) >= max {
		if len(w.r.Findings) == max {
			w.r.Findings = append(w.r.Findings, Finding{Code: "limit-findings", Message: fmt.Sprintf("more than %d findings; the rest are not listed", max), Span: Span{0, len(w.r.Command)}, Segment: -1})
		}
		return
	}
	f := Finding{Code: code, Message: msg, Span: w.clamp(sp), Segment: seg}
	key := findingKey{f.Code, f.Span, f.Segment}
	if w.seen == nil {
		w.seen = map[findingKey]bool{}
	}
	if w.seen[key] {
		return
	}
	w.seen[key] = true
	w.r.Findings = append(w.r.Findings, f)
}

type findingKey struct {
	code string
	span Span
	seg  int
}

func (w *walker) enter(n syntax.Node) bool {
	w.depth++
	if w.depth > w.cfg.limits.MaxDepth {
		if !w.stopped {
			w.stopped = true
			w.find("limit-depth", fmt.Sprintf("the command nests more than %d levels deep; the rest was not analysed", w.cfg.limits.MaxDepth), w.span(n), -1)
		}
		return false
	}
	return true
}

func (w *walker) leave() { w.depth-- }

func (w *walker) finish() {
	r := w.r
	bad := map[int]bool{}
	for _, f := range r.Findings {
		if f.Segment >= 0 {
			bad[f.Segment] = true
		}
	}
	// A wrapper is only as read-only as what it wraps.
	for i := len(r.Segments) - 1; i >= 0; i-- {
		if p := r.Segments[i].Parent; p >= 0 && bad[i] {
			bad[p] = true
		}
	}
	for i := range r.Segments {
		r.Segments[i].ReadOnly = !bad[i]
	}
	r.Reversible = r.Parse.OK && len(r.Findings) == 0 && len(r.Segments) > 0
}

// stmts walks a statement list in order; cwd changes carry over.
func (w *walker) stmts(list []*syntax.Stmt, c ctx) {
	for _, s := range list {
		w.stmt(s, c)
	}
}

// stmt walks one statement and returns the cwd it leaves on success; w.cwd
// is left at the cwd for whatever runs next whether or not it succeeded.
func (w *walker) stmt(s *syntax.Stmt, c ctx) Cwd {
	if !w.enter(s) {
		w.leave()
		return Cwd{}
	}
	defer w.leave()
	if s.Negated {
		c.negated = true
	}
	if s.Background || s.Coprocess || s.Disown {
		c.background = true
		w.find("background", "runs in the background, so it can outlive the check", w.span(s), -1)
	}
	fed, compoundRedir := w.preRedirs(s)
	if fed {
		c.stdinFed = true
	}
	saved := w.saveCwd()
	seg := -1
	var succ Cwd
	switch cmd := s.Cmd.(type) {
	case nil:
		succ = w.cwd
	case *syntax.CallExpr:
		seg = w.call(cmd, c, s)
		succ = w.cwd
	case *syntax.BinaryCmd:
		succ = w.binary(cmd, c)
	case *syntax.Subshell:
		c.subshell = true
		w.stmts(cmd.Stmts, c)
		w.restoreCwd(saved)
		succ = w.cwd
	case *syntax.Block:
		w.stmts(cmd.Stmts, c)
		succ = w.cwd
	case *syntax.IfClause:
		succ = w.ifClause(cmd, c)
	case *syntax.WhileClause:
		kw := "while"
		if cmd.Until {
			kw = "until"
		}
		w.find("unbounded-loop", "a "+kw+" loop is not proven to end", w.spanPos(cmd.WhilePos, cmd.DoPos), -1)
		c.loop = true
		cc := c
		cc.condition = true
		w.stmts(cmd.Cond, cc)
		w.stmts(cmd.Do, c)
		w.mergeCwd(saved)
		succ = w.cwd
	case *syntax.ForClause:
		succ = w.forClause(cmd, c, saved)
	case *syntax.CaseClause:
		w.word(cmd.Word, c)
		start := w.saveCwd()
		var ends []Cwd
		for _, it := range cmd.Items {
			for _, p := range it.Patterns {
				w.word(p, c)
			}
			w.restoreCwd(start)
			w.stmts(it.Stmts, c)
			ends = append(ends, w.cwd)
		}
		w.restoreCwd(start)
		for _, e := range ends {
			w.cwd = mergeCwd(w.cwd, e)
		}
		succ = w.cwd
	case *syntax.FuncDecl:
		w.funcDecl(cmd, c)
		w.restoreCwd(saved)
		succ = w.cwd
	case *syntax.ArithmCmd:
		w.arith(cmd.X, c, w.span(cmd))
		succ = w.cwd
	case *syntax.LetClause:
		w.find("arithmetic-expansion", "let evaluates arithmetic, which can run code through array subscripts", w.span(cmd), -1)
		for _, x := range cmd.Exprs {
			w.arith(x, c, w.span(x))
		}
		succ = w.cwd
	case *syntax.TestClause:
		w.test(cmd.X, c)
		succ = w.cwd
	case *syntax.DeclClause:
		name := "declare"
		if cmd.Variant != nil {
			name = cmd.Variant.Value
		}
		w.find("declaration", name+" changes shell variables, which later commands can see", w.span(cmd), -1)
		for _, a := range cmd.Args {
			w.assign(a, c)
		}
		succ = w.cwd
	case *syntax.TimeClause:
		if cmd.Stmt != nil {
			cc := c
			cc.wrappers = appendCopy(c.wrappers, "time")
			succ = w.stmt(cmd.Stmt, cc)
		} else {
			succ = w.cwd
		}
	case *syntax.CoprocClause:
		w.find("background", "a coprocess runs in the background", w.span(cmd), -1)
		if cmd.Stmt != nil {
			c.background = true
			w.stmt(cmd.Stmt, c)
		}
		w.restoreCwd(saved)
		succ = w.cwd
	default:
		w.find("unsupported-syntax", fmt.Sprintf("shellgate does not analyse %T", cmd), w.span(s), -1)
		succ = w.cwd
	}
	w.redirs(s, c, seg, compoundRedir)
	if c.background {
		w.restoreCwd(saved)
		succ = w.cwd
	}
	return succ
}

func (w *walker) binary(b *syntax.BinaryCmd, c ctx) Cwd {
	switch b.Op {
	case syntax.Pipe, syntax.PipeAll:
		stages := flattenPipe(b, nil)
		saved := w.saveCwd()
		prevSeg := -1
		for i, st := range stages {
			cc := c
			cc.pipe, cc.pipeLen = i, len(stages)
			cc.subshell = c.subshell || len(stages) > 1
			if i > 0 {
				cc.stdinFed = true
			}
			cc.producer = prevSeg
			first := len(w.r.Segments)
			w.stmt(st, cc)
			prevSeg = -1
			if len(w.r.Segments) > first {
				prevSeg = w.topSegment(first)
			}
			w.restoreCwd(saved)
		}
		return w.cwd
	case syntax.AndStmt:
		succX := w.stmt(b.X, c)
		anyX := w.cwd
		w.cwd = succX
		succY := w.stmt(b.Y, c)
		w.cwd = mergeCwd(anyX, w.cwd)
		return succY
	case syntax.OrStmt:
		succX := w.stmt(b.X, c)
		anyX := w.cwd
		succY := w.stmt(b.Y, c)
		anyY := w.cwd
		w.cwd = mergeCwd(succX, anyY)
		_ = anyX
		return mergeCwd(succX, succY)
	}
	w.find("unsupported-syntax", "unknown operator "+b.Op.String(), w.span(b), -1)
	return w.cwd
}

// topSegment returns the first top-level segment (not nested in a wrapper)
// recorded from index first on: the producer of a pipeline stage.
func (w *walker) topSegment(first int) int {
	for i := len(w.r.Segments) - 1; i >= first; i-- {
		s := w.r.Segments[i]
		if !s.Context.Substitution && (s.Parent < first) {
			// the innermost wrapped command is the real producer
			j := i
			for k := i + 1; k < len(w.r.Segments); k++ {
				if w.r.Segments[k].Parent == j {
					j = k
				}
			}
			return j
		}
	}
	return first
}

func flattenPipe(b *syntax.BinaryCmd, out []*syntax.Stmt) []*syntax.Stmt {
	if x, ok := b.X.Cmd.(*syntax.BinaryCmd); ok && (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) && !b.X.Negated && !b.X.Background && len(b.X.Redirs) == 0 {
		out = flattenPipe(x, out)
	} else {
		out = append(out, b.X)
	}
	return append(out, b.Y)
}

func (w *walker) ifClause(ic *syntax.IfClause, c ctx) Cwd {
	start := w.saveCwd()
	cc := c
	cc.condition = true
	w.stmts(ic.Cond, cc)
	afterCond := w.cwd
	w.stmts(ic.Then, c)
	end := w.cwd
	if ic.Else != nil {
		w.restoreCwd(start)
		w.cwd = afterCond
		if len(ic.Else.Cond) == 0 && ic.Else.ThenPos == (syntax.Pos{}) {
			w.stmts(ic.Else.Then, c)
		} else {
			w.ifClause(ic.Else, c)
		}
		end = mergeCwd(end, w.cwd)
	} else {
		end = mergeCwd(end, afterCond)
	}
	w.cwd = end
	return end
}

func (w *walker) forClause(fc *syntax.ForClause, c ctx, saved cwdState) Cwd {
	switch l := fc.Loop.(type) {
	case *syntax.WordIter:
		if fc.Select {
			w.find("interactive", "select waits for a person to choose", w.span(fc), -1)
		}
		if l.InPos == (syntax.Pos{}) {
			w.find("unbounded-loop", "a for loop over \"$@\" depends on the caller's arguments", w.span(l), -1)
		}
		for _, it := range l.Items {
			w.word(it, c)
		}
	case *syntax.CStyleLoop:
		w.find("unbounded-loop", "a C-style for loop is not proven to end", w.span(l), -1)
		for _, x := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
			if x != nil {
				w.arithSubst(x, c)
			}
		}
	default:
		w.find("unsupported-syntax", fmt.Sprintf("shellgate does not analyse %T", l), w.span(fc), -1)
	}
	c.loop = true
	w.stmts(fc.Do, c)
	w.mergeCwd(saved)
	return w.cwd
}

func (w *walker) funcDecl(fd *syntax.FuncDecl, c ctx) {
	name := ""
	if fd.Name != nil {
		name = fd.Name.Value
	}
	w.find("function-definition", "defines a function "+name+", which later commands may call instead of a program", w.spanPos(fd.Pos(), fd.Body.Pos()), -1)
	if w.funcs == nil {
		w.funcs = map[string]bool{}
	}
	w.funcs[name] = true
	first := len(w.r.Segments)
	c.function = true
	if fd.Body != nil {
		w.stmt(fd.Body, c)
	}
	for i := first; i < len(w.r.Segments); i++ {
		s := &w.r.Segments[i]
		if s.Name == name && name != "" && (s.Context.Background || s.Context.PipelineLen > 1) {
			s.Categories = addCat(s.Categories, "destructive")
			w.find("fork-bomb", "the function "+name+" calls itself in a pipeline or in the background: a fork bomb", w.span(fd), i)
			break
		}
	}
}

func appendCopy(list []string, s string) []string {
	out := make([]string, 0, len(list)+1)
	return append(append(out, list...), s)
}

func addCat(list []string, c string) []string {
	if hasString(list, c) {
		return list
	}
	return append(list, c)
}
