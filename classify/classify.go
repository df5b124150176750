package classify

import (
	"fmt"
	"strings"
	"sync"
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
	// MaxWords is the most words (arguments and assignments of simple
	// commands) analysed in the whole command.
	MaxWords int
	// MaxRedirects is the most redirections recorded.
	MaxRedirects int
}

// DefaultLimits are the limits Classify uses unless WithLimits says otherwise.
var DefaultLimits = Limits{
	MaxLength:    1 << 20,
	MaxNesting:   256,
	MaxDepth:     200,
	MaxSegments:  4096,
	MaxNested:    4,
	MaxFindings:  1024,
	MaxWords:     20000,
	MaxRedirects: 4096,
}

// Option configures Classify.
type Option func(*config)

type config struct {
	cat     *Catalog
	limits  Limits
	dialect Dialect
	stmtFn  func(*syntax.Stmt) // WithStatements
	// bothReadings turns off the stand-in (zshStandIn): the zsh reading
	// is always made. Tests compare the two ways.
	bothReadings bool
	// scanned is the command facts both readings of one command share,
	// worked out by the first (scan).
	scanned scanned
}

// scanned is what the byte scans of a command found.
type scanned struct {
	command        string
	nesting, segs  int
	done           bool
	nestingScanned bool
}

// scan returns the shared scan facts of command, computing the segment
// estimate now and the nesting when asked for it.
func (cfg *config) scan(command string) *scanned {
	if !cfg.scanned.done || cfg.scanned.command != command {
		if len(command) > cfg.limits.MaxLength {
			// Refused for its length: the nesting is never asked for.
			cfg.scanned = scanned{command: command, segs: segmentEstimate(command), done: true}
		} else {
			segs, nesting := scanShape(command)
			cfg.scanned = scanned{command: command, segs: segs, nesting: nesting, done: true, nestingScanned: true}
		}
	}
	return &cfg.scanned
}

// scanShape is segmentEstimate and maxNesting in one pass over command.
func scanShape(command string) (segs, nesting int) {
	n, d, m := 1, 0, 0
	inBackquote := false
	for i := 0; i < len(command); i++ {
		c := command[i]
		if !shapeByte[c] {
			continue
		}
		switch c {
		case '&':
			if n < 8 && !(i > 0 && (command[i-1] == '&' || command[i-1] == '>' || command[i-1] == '<') ||
				i+1 < len(command) && command[i+1] == '>') {
				n++
			}
		case '|', ';', '\n':
			if n < 8 && (i == 0 || command[i-1] != c) {
				n++
			}
		case '(':
			if n < 8 && (i == 0 || command[i-1] != c) {
				n++
			}
			if d++; d > m {
				m = d
			}
		case '`':
			if n < 8 && (i == 0 || command[i-1] != c) {
				n++
			}
			if inBackquote = !inBackquote; !inBackquote {
				if d > 0 {
					d--
				}
			} else if d++; d > m {
				m = d
			}
		case '{', '[':
			if d++; d > m {
				m = d
			}
		case ')', '}', ']':
			if d > 0 {
				d--
			}
		}
	}
	return n, m
}

// shapeByte are the bytes scanShape looks at.
var shapeByte = func() (t [256]bool) {
	for _, b := range []byte("&|;\n(`{[)}]") {
		t[b] = true
	}
	return t
}()

// nesting is maxNesting(command), scanned once for both readings.
func (sc *scanned) nestingDepth() int {
	if !sc.nestingScanned {
		sc.nesting, sc.nestingScanned = maxNesting(sc.command), true
	}
	return sc.nesting
}

// WithCatalog classifies with the given catalog instead of the embedded one.
func WithCatalog(c *Catalog) Option { return func(cfg *config) { cfg.cat = c } }

// WithLimits replaces the analysis limits; zero fields keep their
// defaults, so a limit added later is never zero by accident.
func WithLimits(l Limits) Option {
	return func(cfg *config) {
		d := DefaultLimits
		for _, f := range []struct {
			dst *int
			v   int
		}{
			{&d.MaxLength, l.MaxLength}, {&d.MaxNesting, l.MaxNesting}, {&d.MaxDepth, l.MaxDepth},
			{&d.MaxSegments, l.MaxSegments}, {&d.MaxNested, l.MaxNested}, {&d.MaxFindings, l.MaxFindings},
			{&d.MaxWords, l.MaxWords}, {&d.MaxRedirects, l.MaxRedirects},
		} {
			if f.v != 0 {
				*f.dst = f.v
			}
		}
		cfg.limits = d
	}
}

// Classify parses command in its dialect (WithDialect) and describes it.
// A command whose dialect is not known (the default) is read as bash and
// as zsh, and is reversible only when both readings prove it. It is pure
// (no I/O), never panics, and is safe for concurrent use.
func Classify(command string, opts ...Option) *Report {
	// The options see the config by pointer, so it would be allocated:
	// it is reused instead (nothing keeps it after Classify).
	cfg := configPool.Get().(*config)
	defer func() {
		*cfg = config{}
		configPool.Put(cfg)
	}()
	*cfg = config{limits: DefaultLimits}
	for _, o := range opts {
		o(cfg)
	}
	var catErr error
	if cfg.cat == nil {
		cfg.cat, catErr = defaultCatalog()
	}
	switch cfg.dialect {
	case DialectBash, DialectZsh, DialectSh:
		r := classifyAs(command, cfg, catErr, cfg.dialect)
		r.Dialect = string(cfg.dialect)
		return r
	}
	b, zshSame := classifyBash(command, cfg, catErr)
	if zshSame {
		// What mergeReadings returns when the readings agree.
		b.Dialect = bothDialects
		return b
	}
	z := classifyAs(command, cfg, catErr, DialectZsh)
	return mergeReadings(b, z)
}

var configPool = sync.Pool{New: func() any { return new(config) }}

// classifyBash is the bash reading of a command whose shell is not known.
// zshSame is set when the zsh reading is proven to agree with it (the
// parsers build the same tree and the walk met nothing zsh reads
// otherwise; see zshStandIn), so that it need not be made.
func classifyBash(command string, cfg *config, catErr error) (r *Report, zshSame bool) {
	standIn := catErr == nil && cfg.stmtFn == nil && !cfg.bothReadings && zshSameParse(command)
	r = classifyAsIn(command, cfg, catErr, DialectBash, standIn, &zshSame)
	return r, zshSame && r.Parse.OK
}

// classifyAs reads command in one dialect.
func classifyAs(command string, cfg *config, catErr error, d Dialect) *Report {
	return classifyAsIn(command, cfg, catErr, d, false, nil)
}

// classifyAsIn reads command in dialect d. With standIn (a bash reading
// of a command zshSameParse accepts), *zshSame is set at the end when
// the walk met nothing zsh reads otherwise.
func classifyAsIn(command string, cfg *config, catErr error, d Dialect, standIn bool, zshSame *bool) (r *Report) {
	sc := cfg.scan(command)
	r = &Report{
		Command:   command,
		Segments:  make([]Segment, 0, sc.segs),
		Redirects: []Redirect{},
		Reads:     []PathRef{},
		Writes:    []PathRef{},
		Cd:        []CdStep{},
		Findings:  []Finding{},
	}
	w := newWalker()
	w.cfg, w.r, w.src, w.exact, w.producer = cfg, r, command, true, -1
	w.st = cwdState{cwd: Cwd{Path: ".", Known: true}}
	w.dialect, w.zsh = d, d == DialectZsh
	w.zshStandIn = standIn
	defer func() {
		if p := recover(); p != nil {
			// A bug in the walker must never turn into an allow.
			r.Parse.OK = r.Parse.OK && true
			w.zshStandIn = false
			w.find("internal-error", fmt.Sprintf("the classifier failed: %v", p), Span{0, len(command)}, -1)
		}
		w.finish()
		if zshSame != nil {
			*zshSame = w.zshStandIn
		}
		w.release()
	}()
	whole := Span{0, len(command)}
	if catErr != nil {
		cc := *cfg
		cc.cat = &Catalog{}
		w.cfg = &cc
		w.find("internal-error", "the command catalog is broken: "+catErr.Error(), whole, -1)
		return r
	}
	if strings.TrimSpace(command) == "" {
		r.Parse.OK = true
		w.find("empty-command", "the command is empty", whole, -1)
		return r
	}
	if len(command) > cfg.limits.MaxLength {
		sp := whole
		r.Parse = ParseResult{Error: fmt.Sprintf("command is %d bytes, over the %d-byte limit", len(command), cfg.limits.MaxLength), Span: &sp}
		w.find("limit-length", r.Parse.Error, whole, -1)
		return r
	}
	if i := strings.IndexByte(command, 0); i >= 0 {
		sp := Span{i, i + 1}
		r.Parse = ParseResult{Error: "the command contains a NUL byte, which a shell cannot receive", Span: &sp}
		w.find("nul-byte", r.Parse.Error, sp, -1)
		return r
	}
	if !utf8.ValidString(command) {
		i := firstInvalidUTF8(command)
		w.find("invalid-utf8", "the command is not valid UTF-8", Span{i, i + 1}, -1)
	}
	if n := sc.nestingDepth(); n > cfg.limits.MaxNesting {
		sp := whole
		r.Parse = ParseResult{Error: fmt.Sprintf("brackets nest %d deep, over the limit of %d", n, cfg.limits.MaxNesting), Span: &sp}
		w.find("limit-nesting", r.Parse.Error, whole, -1)
		return r
	}
	// Statements are walked as the parser yields them, so that a huge
	// script never holds its whole AST in memory.
	pre := len(r.Findings)
	w.hash = strings.IndexByte(command, '#') >= 0
	err := parseStmts(command, d.lang(), w.topFn)
	if err != nil {
		// A command that does not parse is described by its error alone.
		sp := errSpan(err, command)
		r.Parse = ParseResult{Error: err.Error(), Span: &sp}
		r.Segments, r.Redirects, r.Reads, r.Writes, r.Cd = []Segment{}, []Redirect{}, []PathRef{}, []PathRef{}, []CdStep{}
		r.Findings = r.Findings[:pre]
		clear(w.seen)
		for _, f := range r.Findings {
			w.seenKey(f)
		}
		w.find("parse-error", d.name()+" cannot parse this: "+err.Error(), sp, -1)
		return r
	}
	r.Parse.OK = true
	if !w.ran && len(r.Findings) == 0 {
		w.find("empty-command", "the command runs nothing", whole, -1)
	}
	return r
}

// segmentEstimate guesses how many segments command has from its
// operator characters, so that the report's segments (large values) are
// not copied as they grow: one, and one more after each run of |, &
// (but not a redirection's), ;, newline, ( or backquote, up to 8.
func segmentEstimate(command string) int {
	n := 1
	for i := 0; i < len(command) && n < 8; i++ {
		switch command[i] {
		case '&':
			// Not the & of a redirection: 2>&1, &>f, >&2.
			if i > 0 && (command[i-1] == '&' || command[i-1] == '>' || command[i-1] == '<') ||
				i+1 < len(command) && command[i+1] == '>' {
				continue
			}
			n++
		case '|', ';', '\n', '(', '`':
			if i == 0 || command[i-1] != command[i] {
				n++
			}
		}
	}
	return n
}

// defaultCatalog is DefaultCatalog without the panic: a broken embedded
// catalog makes every command not reversible instead of crashing.
func defaultCatalog() (c *Catalog, err error) {
	defer func() {
		if p := recover(); p != nil {
			c, err = nil, fmt.Errorf("%v", p)
		}
	}()
	return DefaultCatalog(), nil
}

// parseStmts parses src and calls fn for each top-level statement as soon
// as it is parsed.
func parseStmts(src string, lang syntax.LangVariant, fn func(*syntax.Stmt) bool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parser failed: %v", p)
		}
	}()
	p := getParser(lang)
	p.rd.Reset(src)
	err = p.Stmts(&p.rd, fn)
	// Not deferred: a parser that panicked is dropped, not reused.
	putParser(lang, p)
	return err
}

// Parsers are reused: a new one allocates buffers that cost more than
// parsing a short command.
var parserPools = map[syntax.LangVariant]*sync.Pool{
	syntax.LangBash:  {New: func() any { return newParser(syntax.LangBash) }},
	syntax.LangPOSIX: {New: func() any { return newParser(syntax.LangPOSIX) }},
	syntax.LangZsh:   {New: func() any { return newParser(syntax.LangZsh) }},
}

// pooledParser is a parser with the reader it reads from, reused
// together.
type pooledParser struct {
	*syntax.Parser
	rd strings.Reader
}

// newParser keeps comments: checkComments holds them to what bash would
// call a comment.
func newParser(lang syntax.LangVariant) *pooledParser {
	return &pooledParser{Parser: syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(true))}
}

// checkComments finds a comment the parser saw where bash would not: "#"
// starts a comment only at the beginning of a word. mvdan.cc/sh reads a
// "#" right after an empty quoted string inside a subshell that ends on
// the next line as a comment, where bash reads it as part of the word and
// runs the command substitution after it (see TestClassify). Any such
// disagreement means the AST is not the command bash runs.
func (w *walker) checkComments(n syntax.Node) {
	syntax.Walk(n, func(n syntax.Node) bool {
		c, ok := n.(*syntax.Comment)
		if !ok {
			return true
		}
		off := int(c.Hash.Offset())
		if off > 0 && off <= len(w.src) && !startsWord(w.src[off-1]) {
			sh := w.dialect.name()
			w.find("parser-mismatch", sh+" reads this # as part of a word, where the parser saw a comment: the command is not analysed as "+sh+" runs it", w.spanPos(c.Hash, c.End()), -1)
		}
		return true
	})
}

// startsWord reports a byte after which bash starts a new word: a blank,
// a newline, or an operator character.
func startsWord(b byte) bool {
	switch b {
	case ' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>':
		return true
	}
	return false
}

func getParser(lang syntax.LangVariant) *pooledParser {
	if pool := parserPools[lang]; pool != nil {
		return pool.Get().(*pooledParser)
	}
	return newParser(lang)
}

func putParser(lang syntax.LangVariant, p *pooledParser) {
	if pool := parserPools[lang]; pool != nil {
		pool.Put(p)
	}
}

func parse(src string, lang syntax.LangVariant) (f *syntax.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parser failed: %v", p)
		}
	}()
	p := getParser(lang)
	p.rd.Reset(src)
	f, err = p.Parse(&p.rd, "")
	putParser(lang, p)
	return f, err
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
	inBackquote := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '`':
			// Backquotes pair up (a nested one is escaped): a markdown
			// heredoc full of ``` fences does not nest.
			inBackquote = !inBackquote
			if !inBackquote {
				if d > 0 {
					d--
				}
				continue
			}
			fallthrough
		case '(', '{', '[':
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
	// xargsAppend is set when xargs appends its input to the command.
	xargsAppend bool
	findExec    bool
	assigns     []Assign
}

type walker struct {
	cfg *config
	r   *Report
	src string // the source the current AST positions refer to
	// dialect is the language of the script being walked (a bash -c
	// script inside a zsh command is bash); zsh is dialect == DialectZsh.
	dialect Dialect
	zsh     bool
	// zshStandIn is set while a bash reading stands in for the zsh one:
	// the command's shell is not known, both parsers build the same tree
	// (zshSameParse), and every place where the walk of a zsh script
	// differs has so far found nothing that zsh reads otherwise. Such a
	// place calls zshReads, and the zsh reading is then made as well.
	zshStandIn bool

	// span mapping for string-nested scripts
	base  int
	exact bool
	outer Span

	depth    int
	st       cwdState
	producer int
	stopped  bool
	segLimit bool
	// words counts the words analysed, against MaxWords.
	words      int
	redirLimit bool
	// ran is set once a statement was walked: a command of only comments
	// runs nothing, and is not reversible.
	ran bool
	// hdoc is set while a heredoc body is walked.
	hdoc  bool
	seen  map[findingKey]bool
	funcs map[string]bool
	// vars are the variables the command itself sets.
	vars map[string]bool
	// loopVals are the words a for loop's variable takes.
	loopVals map[string][]Arg
	// loops are the for loops whose reads of the loop variable may be
	// bound to the loop's words (bindLoopReads); assigned names the
	// variables something other than a for loop sets, and varsUnknown is
	// set when some construct sets variables whose names are not known.
	loops       []loopBody
	assigned    map[string]bool
	varsUnknown bool
	// funcCd names the functions whose body changes directory.
	funcCd map[string]bool
	// infoBuf is a stack the word infos of the calls being walked are
	// taken from (call).
	infoBuf []wordInfo
	// topFn is w.top, bound once per pooled walker; hash is set when the
	// command has a "#" (top checks its comments).
	topFn func(*syntax.Stmt) bool
	hash  bool
	// substs are the substitutions met, and optWords the dynamic words
	// that could become options (substFacts makes Report.Substitutions).
	substs   []substRec
	optWords []optWord
	shifts   []shiftRec
	// positional are the scripts run with arguments (sh -c SCRIPT _ {}),
	// whose reads of "$1" bindPositional binds.
	positional []posScope
}

// top walks one top-level statement as the parser yields it, and says
// whether to parse on.
func (w *walker) top(s *syntax.Stmt) bool {
	if w.hash {
		w.checkComments(s)
	}
	if !w.stopped && !w.segLimit {
		w.stmt(s, ctx{parent: -1, pipeLen: 1, producer: -1})
	}
	if w.cfg.stmtFn != nil {
		w.cfg.stmtFn(s)
		return true
	}
	// Past a limit the command is not reversible whatever follows:
	// parsing on would only cost memory.
	return !w.stopped && !w.segLimit
}

// walkerPool holds walkers with their scratch memory: the set of findings
// seen and the word-info stack. Nothing in a walker reaches a report
// except through values copied out of it.
var walkerPool = sync.Pool{New: func() any { return new(walker) }}

// newWalker returns a zero walker, reusing a pooled one's scratch memory.
func newWalker() *walker {
	w := walkerPool.Get().(*walker)
	seen, infos, top := w.seen, w.infoBuf, w.topFn
	clear(seen)
	clear(infos[:cap(infos)])
	if top == nil {
		top = w.top // bound once: a method value costs an allocation
	}
	*w = walker{seen: seen, infoBuf: infos[:0], topFn: top}
	return w
}

// release returns w to the pool, keeping only its scratch memory (and not
// a large one a huge command left).
func (w *walker) release() {
	seen, infos, top := w.seen, w.infoBuf, w.topFn
	if len(seen) > 256 {
		seen = nil
	}
	if cap(infos) > 1024 {
		infos = nil
	}
	*w = walker{seen: seen, infoBuf: infos, topFn: top}
	walkerPool.Put(w)
}

// zshReads is called where zsh reads a script otherwise than bash, once
// the condition for it holds. In the zsh reading it reports true; in a
// bash reading standing in for the zsh one it ends the stand-in (the zsh
// reading is then made) and reports false.
func (w *walker) zshReads() bool {
	if w.zsh {
		return true
	}
	w.zshStandIn = false
	return false
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
	if len(w.r.Findings) >= max && !strings.HasPrefix(code, "limit-") {
		if len(w.r.Findings) == max {
			w.r.Findings = append(w.r.Findings, Finding{Code: "limit-findings", Message: fmt.Sprintf("more than %d findings; the rest are not listed", max), Span: Span{0, len(w.r.Command)}, Segment: -1})
		}
		return
	}
	f := Finding{Code: code, Message: msg, Span: w.clamp(sp), Segment: seg}
	if !w.seenKey(f) {
		w.r.Findings = append(w.r.Findings, f)
	}
}

// seenKey records a finding's key and reports whether it was seen before.
func (w *walker) seenKey(f Finding) bool {
	key := findingKey{f.Code, f.Span, f.Segment}
	if w.seen == nil {
		w.seen = map[findingKey]bool{}
	}
	if w.seen[key] {
		return true
	}
	w.seen[key] = true
	return false
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
	r.Reversible = r.Parse.OK && len(r.Findings) == 0 && w.ran
	w.bindPositional()
	w.bindLoopReads()
	w.knowledgeFacts()
	w.bindSubstProducers()
	w.substFacts()
}

// stmts walks a statement list in order; cwd changes carry over. It
// returns the outcome of the last statement.
func (w *walker) stmts(list []*syntax.Stmt, c ctx) outcome {
	o := same(w.st)
	for _, s := range list {
		o = w.stmt(s, c)
	}
	return o
}

// stmt walks one statement and returns the states it leaves on success
// and on failure; w.st is left at the state for whatever runs next.
func (w *walker) stmt(s *syntax.Stmt, c ctx) (o outcome) {
	start := w.saveCwd()
	if !w.enter(s) {
		w.leave()
		return same(start)
	}
	defer w.leave()
	w.ran = true
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
	seg := -1
	switch cmd := s.Cmd.(type) {
	case nil:
		if (w.zsh || w.zshStandIn) && len(s.Redirs) > 0 && !c.subst && w.zshReads() {
			// < file runs $READNULLCMD (a pager) on it, > file runs
			// $NULLCMD (cat), reading stdin.
			w.find("zsh-null-command", "in zsh, a redirection with no command runs $READNULLCMD or $NULLCMD (a pager, cat), a program chosen by the environment", w.span(s), -1)
		}
		o = same(w.st)
	case *syntax.CallExpr:
		cds := len(w.r.Cd)
		seg = w.call(cmd, c, s)
		o = same(w.st)
		if len(w.r.Cd) > cds && !sameState(start, w.st) {
			// A cd that fails leaves the directory alone; the walk
			// assumes it succeeds, so that path is dead.
			o.fail = start
			o.fail.dead = true
		}
	case *syntax.BinaryCmd:
		o = w.binary(cmd, c)
	case *syntax.Subshell:
		c.subshell = true
		if len(cmd.Stmts) == 0 {
			// zsh runs ( ) and { } as nothing at all.
			w.find("empty-command", "an empty group runs nothing", w.span(cmd), -1)
		}
		w.stmts(cmd.Stmts, c)
		w.restoreCwd(start)
		o = same(start)
	case *syntax.Block:
		if len(cmd.Stmts) == 0 {
			w.find("empty-command", "an empty group runs nothing", w.span(cmd), -1)
		}
		o = w.stmts(cmd.Stmts, c)
	case *syntax.IfClause:
		o = w.ifClause(cmd, c)
	case *syntax.WhileClause:
		kw := "while"
		if cmd.Until {
			kw = "until"
		}
		w.find("unbounded-loop", "a "+kw+" loop is not proven to end", w.spanPos(cmd.WhilePos, cmd.DoPos), -1)
		c.loop = true
		cc := c
		cc.condition = true
		// The body may run any number of times: walk it as if it ran
		// once, then forget what the cwd could be.
		w.stmts(cmd.Cond, cc)
		w.stmts(cmd.Do, c)
		o = same(joinState(start, w.st))
	case *syntax.ForClause:
		o = w.forClause(cmd, c, start)
	case *syntax.CaseClause:
		w.word(cmd.Word, c)
		afterWord := w.saveCwd()
		end := afterWord // no pattern matched
		for _, it := range cmd.Items {
			for _, p := range it.Patterns {
				w.word(p, c)
			}
			w.restoreCwd(afterWord)
			bo := w.stmts(it.Stmts, c)
			end = joinState(end, joinState(bo.succ, bo.fail))
		}
		o = same(end)
	case *syntax.FuncDecl:
		w.funcDecl(cmd, c)
		w.restoreCwd(start)
		o = same(start)
	case *syntax.ArithmCmd:
		w.arith(cmd.X, c, w.span(cmd))
		o = same(w.st)
	case *syntax.LetClause:
		w.find("arithmetic-expansion", "let evaluates arithmetic, which can run code through array subscripts", w.span(cmd), -1)
		for _, x := range cmd.Exprs {
			w.arith(x, c, w.span(x))
		}
		o = same(w.st)
	case *syntax.TestClause:
		w.test(cmd.X, c)
		o = same(w.st)
	case *syntax.DeclClause:
		name := "declare"
		if cmd.Variant != nil {
			name = cmd.Variant.Value
		}
		w.find("declaration", name+" changes shell variables, which later commands can see", w.span(cmd), -1)
		for _, a := range cmd.Args {
			w.setVar(w.assign(a, c).Name)
		}
		o = same(w.st)
	case *syntax.TimeClause:
		if cmd.Stmt != nil {
			cc := c
			cc.wrappers = appendCopy(c.wrappers, "time")
			o = w.stmt(cmd.Stmt, cc)
		} else {
			o = same(w.st)
		}
	case *syntax.CoprocClause:
		w.find("background", "a coprocess runs in the background", w.span(cmd), -1)
		w.varsUnknown = true // it sets the array NAME (COPROC by default)
		if cmd.Stmt != nil {
			c.background = true
			w.stmt(cmd.Stmt, c)
		}
		w.restoreCwd(start)
		o = same(start)
	default:
		w.find("unsupported-syntax", fmt.Sprintf("shellgate does not analyse %T", cmd), w.span(s), -1)
		o = same(w.st)
	}
	w.redirs(s, c, seg, compoundRedir)
	if c.background {
		w.restoreCwd(start)
		o = same(start)
	}
	if s.Negated {
		o.succ, o.fail = o.fail, o.succ
	}
	w.restoreCwd(joinState(o.succ, o.fail))
	return o
}

func (w *walker) binary(b *syntax.BinaryCmd, c ctx) outcome {
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
		return same(saved)
	case syntax.AndStmt:
		ox := w.stmt(b.X, c)
		w.restoreCwd(ox.succ)
		oy := w.stmt(b.Y, c)
		return outcome{succ: oy.succ, fail: joinState(ox.fail, oy.fail)}
	case syntax.OrStmt:
		ox := w.stmt(b.X, c)
		w.restoreCwd(ox.fail)
		oy := w.stmt(b.Y, c)
		return outcome{succ: joinState(ox.succ, oy.succ), fail: oy.fail}
	}
	w.find("unsupported-syntax", "unknown operator "+b.Op.String(), w.span(b), -1)
	return same(w.st)
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

func (w *walker) ifClause(ic *syntax.IfClause, c ctx) outcome {
	cc := c
	cc.condition = true
	oc := w.stmts(ic.Cond, cc)
	w.restoreCwd(oc.succ)
	ot := w.stmts(ic.Then, c)
	w.restoreCwd(oc.fail)
	var oe outcome
	switch {
	case ic.Else == nil:
		// No branch ran: the if exits 0.
		oe = same(oc.fail)
	case len(ic.Else.Cond) == 0 && ic.Else.ThenPos == (syntax.Pos{}):
		oe = w.stmts(ic.Else.Then, c)
	default:
		oe = w.ifClause(ic.Else, c)
	}
	return outcome{succ: joinState(ot.succ, oe.succ), fail: joinState(ot.fail, oe.fail)}
}

func (w *walker) forClause(fc *syntax.ForClause, c ctx, start cwdState) outcome {
	switch l := fc.Loop.(type) {
	case *syntax.WordIter:
		if fc.Select {
			w.find("interactive", "select waits for a person to choose", w.span(fc), -1)
		}
		if l.InPos == (syntax.Pos{}) {
			w.find("unbounded-loop", "a for loop over \"$@\" depends on the caller's arguments", w.span(l), -1)
		}
		var vals []Arg
		for _, it := range l.Items {
			a, _ := w.word(it, c)
			vals = append(vals, a)
		}
		if l.Name != nil && fc.Select {
			w.markAssigned(l.Name.Value) // a person picks the value
		}
		if l.Name != nil && (w.zsh || w.zshStandIn) && zshSpecialVar(l.Name.Value) && w.zshReads() {
			// for path in .; do ls; done sets PATH=. and runs ./ls.
			w.find("zsh-special-variable", fmt.Sprintf("in zsh, the loop assigns %s, a special variable (path is tied to PATH, cdpath to CDPATH, fpath to FPATH)", l.Name.Value), w.span(l.Name), -1)
		}
		if l.Name != nil && meaningfulVar(l.Name.Value) {
			// for PATH in .; do ls; done runs ./ls; GLOBIGNORE makes * match
			// dot files; HOME moves ~.
			w.find("assignment", fmt.Sprintf("the loop assigns %s, a variable the shell or the programs it runs give meaning to", l.Name.Value), w.span(l.Name), -1)
		}
		if l.Name != nil && w.exact && !fc.Select {
			body := loopBody{name: l.Name.Value, items: vals, depth: c.nested, first: len(w.r.Reads)}
			defer func() {
				body.end = len(w.r.Reads)
				w.loops = append(w.loops, body)
			}()
		}
		if l.Name != nil {
			w.setVar(l.Name.Value)
			// $name carries no finding: what it may be is checked
			// where it is read (a device).
			if w.loopVals == nil {
				w.loopVals = map[string][]Arg{}
			}
			w.loopVals[l.Name.Value] = append(w.loopVals[l.Name.Value], vals...)
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
	return same(joinState(start, w.st))
}

func (w *walker) funcDecl(fd *syntax.FuncDecl, c ctx) {
	name := ""
	if fd.Name != nil {
		name = fd.Name.Value
	}
	if (w.zsh || w.zshStandIn) && fd.Name == nil && len(fd.Names) == 0 && w.zshReads() {
		w.find("zsh-anonymous-function", "in zsh, an anonymous function () { … } runs at once", w.spanPos(fd.Pos(), fd.Body.Pos()), -1)
	}
	if (w.zsh || w.zshStandIn) && zshHookFunction(name) && w.zshReads() {
		w.find("zsh-hook-function", "in zsh, a function named "+name+" is called by the shell itself (on a directory change, a signal, exit or a missing command)", w.spanPos(fd.Pos(), fd.Body.Pos()), -1)
	}
	w.find("function-definition", "defines a function "+name+", which later commands may call instead of a program", w.spanPos(fd.Pos(), fd.Body.Pos()), -1)
	if w.funcs == nil {
		w.funcs = map[string]bool{}
	}
	w.funcs[name] = true
	first, cds := len(w.r.Segments), len(w.r.Cd)
	c.function = true
	if fd.Body != nil {
		w.stmt(fd.Body, c)
	}
	if len(w.r.Cd) > cds {
		// Calling it may move the shell: the cwd after a call is unknown.
		if w.funcCd == nil {
			w.funcCd = map[string]bool{}
		}
		w.funcCd[name] = true
	}
	for i := first; i < len(w.r.Segments); i++ {
		s := &w.r.Segments[i]
		if s.Name == name && name != "" && (s.Context.Background || s.Context.PipelineLen > 1) {
			s.Categories = addCat(s.Categories, CategoryDestructive)
			w.find("fork-bomb", "the function "+name+" calls itself in a pipeline or in the background: a fork bomb", w.span(fd), i)
			break
		}
	}
}

func appendCopy(list []string, s string) []string {
	out := make([]string, 0, len(list)+1)
	return append(append(out, list...), s)
}

func addCat(list []Category, c Category) []Category {
	if hasString(list, c) {
		return list
	}
	return append(list, c)
}

// meaningfulVar reports a variable name the shell or programs may give
// meaning to: one with an upper-case letter, as environment and shell
// variables are spelled (PATH, IFS, GLOBIGNORE, HOME, LD_PRELOAD, GIT_DIR),
// one with no lower-case letter (_), and the lower-case proxy variables. A
// loop over such a name is an assignment; a loop over f or file is not.
func meaningfulVar(name string) bool {
	switch name {
	case "http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy":
		return true
	}
	return strings.ToLower(name) != name || strings.ToUpper(name) == name
}
