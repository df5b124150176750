package exitmeaning

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/shellgate/shellgate/classify"
	"mvdan.cc/sh/v3/syntax"
)

// Meaning is what an exit status means for the command that produced it.
type Meaning struct {
	// Error is false when the status is an expected outcome rather than a
	// failure: 0, grep's "No matches found", diff's "Files differ".
	Error bool `json:"error"`
	// Message says what the status means ("No matches found", "Killed by
	// signal SIGKILL (9)"); empty for 0 and for a failure with nothing more
	// to say.
	Message string `json:"message,omitempty"`
	// Program is the program the status is attributed to ("grep",
	// "git grep"); empty when no program could be named.
	Program string `json:"program,omitempty"`
	// Notes record what made the attribution less certain ("pipefail: ...").
	Notes []string `json:"notes,omitempty"`
}

// Option configures Interpret.
type Option func(*config)

type config struct {
	cat     *classify.Catalog
	dialect classify.Dialect
}

// WithCatalog reads program knowledge (exit meanings, wrappers, options)
// from c instead of the embedded catalog.
func WithCatalog(c *classify.Catalog) Option { return func(cfg *config) { cfg.cat = c } }

// WithDialect reads the command in dialect d, the language of the shell
// that ran it (zsh -c): what a word is, and which catalog entries apply
// (noglob is a zsh wrapper, and nothing in bash). The default, and
// DialectUnknown, is bash.
func WithDialect(d classify.Dialect) Option { return func(cfg *config) { cfg.dialect = d } }

// maxNested is how deep string-nested scripts (bash -c inside bash -c)
// are followed, in line with the classifier's default.
const maxNested = 4

// NotePipefail is added to Meaning.Notes when `set -o pipefail` was in
// force for the pipeline whose status was returned.
const NotePipefail = "pipefail: the status may come from any stage of the pipeline"

// NoteErrexit is added when `set -e` was in force, so any earlier
// statement may have ended the script.
const NoteErrexit = "errexit: any statement after set -e may have ended the script"

// Interpret says what exit status code means for command, a command line
// as it was given to `bash -c` (or the shell WithDialect names). It never
// panics; a command that does not parse gets only the generic meanings
// (and 2 is a syntax error).
func Interpret(command string, code int, opts ...Option) (m Meaning) {
	return interpret(command, nil, nil, code, opts)
}

// InterpretParsed is Interpret for a command already classified: rep is
// the classifier's report, made in one dialect (its Dialect, which the
// command is read in) with the catalog WithCatalog names, and stmts are
// its top-level statements as the classifier passed them
// (classify.WithStatements). It parses nothing of its own, except the
// scripts of nested shells (bash -c 'script'). A report read in two
// dialects, or without its statements, is interpreted from its command as
// Interpret does.
func InterpretParsed(rep *classify.Report, stmts []*syntax.Stmt, code int, opts ...Option) Meaning {
	if rep == nil {
		return Interpret("", code, opts...)
	}
	if strings.Contains(rep.Dialect, "+") {
		return Interpret(rep.Command, code, opts...)
	}
	opts = append(opts[:len(opts):len(opts)], WithDialect(classify.Dialect(rep.Dialect)))
	if !rep.Parse.OK || len(stmts) == 0 {
		return Interpret(rep.Command, code, opts...)
	}
	return interpret(rep.Command, rep, stmts, code, opts)
}

func interpret(command string, rep *classify.Report, stmts []*syntax.Stmt, code int, opts []Option) (m Meaning) {
	cfg := config{}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.cat == nil {
		cfg.cat = classify.DefaultCatalog()
	}
	if code == 0 {
		return Meaning{}
	}
	if code < 0 || code > 255 {
		return Meaning{Error: true, Message: fmt.Sprintf("Exit status %d is outside 0-255", code)}
	}
	defer func() {
		if p := recover(); p != nil {
			m = generic(code)
		}
	}()
	if cfg.dialect == classify.DialectUnknown {
		cfg.dialect = classify.DialectBash
	}
	in := &interp{cat: cfg.cat, code: code, dialect: cfg.dialect}
	if rep != nil {
		return in.resolve(in.parsed(rep, stmts))
	}
	cands, ok := in.script(command)
	if !ok {
		if code == 2 {
			return Meaning{Error: true, Message: "Shell syntax error"}
		}
		return generic(code)
	}
	return in.resolve(cands)
}

// interp holds one interpretation.
type interp struct {
	cat     *classify.Catalog
	code    int
	depth   int
	dialect classify.Dialect // never DialectUnknown
}

// cand is one command whose status may be the one bash returned, with
// its meaning for the code.
type cand struct {
	m          Meaning
	neverFails bool // catalog exit_status: zero (echo): not the source of a failure status
}

// shell options that change which command's status is returned.
type state struct {
	errexit, pipefail bool
}

// script classifies src (read in the interpretation's dialect, as bash -c
// or zsh -c runs it) and returns
// the candidates, in run order (the last is the one named first). The
// classifier's parse is the only one: its statements give the order in
// which the shell runs things, its report what each program is.
func (in *interp) script(src string) ([]cand, bool) {
	var stmts []*syntax.Stmt
	rep := classify.Classify(src, classify.WithCatalog(in.cat), classify.WithDialect(in.dialect),
		classify.WithStatements(func(s *syntax.Stmt) { stmts = append(stmts, s) }))
	if !rep.Parse.OK {
		return nil, false
	}
	return in.parsed(rep, stmts), true
}

// parsed returns the candidates of a classified script: rep is its report
// and stmts its top-level statements.
func (in *interp) parsed(rep *classify.Report, stmts []*syntax.Stmt) []cand {
	idx := map[classify.Span]int{}
	for _, s := range rep.Segments {
		if s.Parent == -1 && !s.Context.Substitution && s.Context.Depth == 0 {
			if _, dup := idx[s.Span]; !dup {
				idx[s.Span] = s.Index
			}
		}
	}
	w := &walk{in: in, rep: rep, idx: idx}
	return w.list(stmts, &state{})
}

// walk follows the status through one parsed script.
type walk struct {
	in  *interp
	rep *classify.Report
	idx map[classify.Span]int
}

// list returns the candidates of a statement list: its last statement,
// and under errexit every statement that ran before it.
func (w *walk) list(stmts []*syntax.Stmt, st *state) []cand {
	var out []cand
	for i, s := range stmts {
		last := i == len(stmts)-1
		if last {
			if isExit, prev := classify.ExitStatement(s); isExit && i > 0 && prev {
				out = append(out, w.stmt(stmts[i-1], st)...)
			} else {
				out = append(out, w.stmt(s, st)...)
			}
		} else if st.errexit {
			for _, c := range w.stmt(s, st) {
				c.m.Notes = appendNote(c.m.Notes, NoteErrexit)
				out = append(out, c)
			}
		}
		applySet(s, st)
	}
	return out
}

// applySet records what a `set` statement changes of errexit and
// pipefail (the shell's own knowledge, in classify).
func applySet(s *syntax.Stmt, st *state) {
	st.errexit, st.pipefail = classify.SetStatusOptions(s, st.errexit, st.pipefail)
}

func (w *walk) stmt(s *syntax.Stmt, st *state) []cand {
	if s == nil || s.Cmd == nil {
		return nil
	}
	if s.Background || s.Coprocess {
		return nil // status 0
	}
	if s.Negated {
		if w.in.code == 1 {
			return []cand{{m: Meaning{Message: "Condition is false: the negated command succeeded"}}}
		}
		return nil
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		return w.call(c)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt:
			return append(w.stmt(c.X, st), w.stmt(c.Y, st)...)
		case syntax.OrStmt:
			return w.stmt(c.Y, st)
		default: // Pipe, PipeAll
			stages := pipeline(c)
			if !st.pipefail {
				return w.stmt(stages[len(stages)-1], st)
			}
			var out []cand
			for _, sg := range stages {
				for _, cd := range w.stmt(sg, st) {
					cd.m.Notes = appendNote(cd.m.Notes, NotePipefail)
					out = append(out, cd)
				}
			}
			return out
		}
	case *syntax.Subshell:
		cp := *st
		return w.list(c.Stmts, &cp)
	case *syntax.Block:
		return w.list(c.Stmts, st)
	case *syntax.IfClause:
		var out []cand
		for e := c; e != nil; e = e.Else {
			out = append(out, w.list(e.Then, st)...)
		}
		return out
	case *syntax.WhileClause:
		return w.list(c.Do, st)
	case *syntax.ForClause:
		return w.list(c.Do, st)
	case *syntax.CaseClause:
		var out []cand
		for _, it := range c.Items {
			out = append(out, w.list(it.Stmts, st)...)
		}
		return out
	case *syntax.TestClause:
		return []cand{{m: w.in.condition()}}
	case *syntax.ArithmCmd:
		return []cand{{m: w.in.arith("((")}}
	case *syntax.LetClause:
		return []cand{{m: w.in.arith("let")}}
	case *syntax.TimeClause:
		return w.stmt(c.Stmt, st)
	case *syntax.DeclClause:
		return []cand{w.in.byName(c.Variant.Value)}
	}
	return nil // function definitions and the rest: status 0 or unknown
}

// pipeline flattens a | b | c into its stages.
func pipeline(c *syntax.BinaryCmd) []*syntax.Stmt {
	var out []*syntax.Stmt
	var add func(s *syntax.Stmt)
	add = func(s *syntax.Stmt) {
		if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && !s.Negated && !s.Background && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
			add(b.X)
			add(b.Y)
			return
		}
		out = append(out, s)
	}
	add(c.X)
	add(c.Y)
	return out
}

func (w *walk) call(ce *syntax.CallExpr) []cand {
	if len(ce.Args) == 0 {
		// Assignments only: the status of the last command substitution.
		return []cand{{m: generic(w.in.code)}}
	}
	sp := classify.Span{Start: int(ce.Pos().Offset()), End: int(ce.End().Offset())}
	if i, ok := w.idx[sp]; ok {
		return w.segment(i, 0)
	}
	// Not a segment the classifier recorded (past a limit): name it from
	// the literal word, if any; options are not read.
	lit := ce.Args[0].Lit()
	if lit == "" {
		return []cand{{m: generic(w.in.code)}}
	}
	return []cand{w.in.byName(path.Base(lit))}
}

// segment interprets the status of the report's segment i: a shell's
// script, the program's own meaning of the status (catalog exit), else the
// command it runs when it returns that command's status (catalog
// exit_status: command), else what the status means for any program.
func (w *walk) segment(i, hops int) []cand {
	in := w.in
	seg := &w.rep.Segments[i]
	if hops > 16 || seg.Name == "" {
		return []cand{{m: generic(in.code)}}
	}
	p := in.cat.ProgramOf(seg, in.dialect)
	label := w.label(seg)
	if p != nil && p.Dialect != "" {
		// bash -c 'script': the script's own status.
		if script, ok := shellScript(seg); ok && in.depth < maxNested {
			// The script is read in the shell's own dialect (zsh -c
			// inside bash is zsh).
			d := classify.Dialect(p.Dialect)
			switch d {
			case classify.DialectBash, classify.DialectZsh, classify.DialectSh:
			default:
				d = classify.DialectBash
			}
			sub := &interp{cat: in.cat, code: in.code, depth: in.depth + 1, dialect: d}
			if cands, ok := sub.script(script); ok {
				return cands
			}
			if in.code == 2 {
				return []cand{{m: Meaning{Error: true, Message: "Shell syntax error", Program: seg.Name}}}
			}
		}
		return []cand{in.meaning(label, p, seg.Options)}
	}
	child := -1
	for j := i + 1; j < len(w.rep.Segments); j++ {
		if s := &w.rep.Segments[j]; s.Parent == i && !s.Context.Substitution {
			child = j
			break
		}
	}
	if p != nil {
		if e, ok := p.ExitMeaningOf(in.code, seg.Options); ok {
			msg := e.Message
			if e.Command != "" && child >= 0 {
				msg = w.commandMessage(e.Command, &w.rep.Segments[child])
			}
			return []cand{{m: Meaning{Error: e.Error, Message: msg, Program: label}}}
		}
		if child >= 0 && p.ExitStatus == classify.ExitStatusCommand {
			return w.segment(child, hops+1)
		}
	}
	return []cand{in.meaning(label, p, seg.Options)}
}

// commandMessage fills a meaning's command message with the command the
// program ran, adding what status 1 means for that command when it is an
// outcome of its own.
func (w *walk) commandMessage(tmpl string, child *classify.Segment) string {
	name := w.label(child)
	msg := strings.ReplaceAll(tmpl, "{command}", name)
	if p := w.in.cat.ProgramOf(child, w.in.dialect); p != nil {
		if e, ok := p.ExitMeaningOf(1, child.Options); ok && !e.Error {
			msg += "; for " + name + " 1 means: " + e.Message
		}
	}
	return msg
}

// label names a segment's program with its subcommand ("git grep"): the
// catalog's, else the word the classifier found no subcommand for.
func (w *walk) label(seg *classify.Segment) string {
	sub := seg.Subcommand
	if sub == "" {
		for _, f := range w.rep.Findings {
			if f.Segment != seg.Index || f.Code != "unknown-subcommand" {
				continue
			}
			for _, a := range seg.Args {
				if a.Span == f.Span && a.Static() {
					sub = a.Value
				}
			}
		}
	}
	if i := strings.IndexByte(sub, ' '); i >= 0 {
		sub = sub[:i]
	}
	if sub == "" {
		return seg.Name
	}
	return seg.Name + " " + sub
}

// shellScript is the script of a shell's segment (bash -c SCRIPT): its
// operand in the role script, when static.
func shellScript(seg *classify.Segment) (string, bool) {
	for _, op := range seg.Operands {
		if op.Role == "script" {
			return op.Value, op.Static()
		}
	}
	return "", false
}

// byName interprets the status of a program known only by its name (not a
// segment of the report: a declaration keyword, a command past a limit).
func (in *interp) byName(name string) cand {
	return in.meaning(name, in.cat.LookupIn(name, in.dialect), nil)
}

// meaning interprets the status for a run of p (nil when the catalog does
// not know the program) with the options opts: the program's own meaning
// of it; for a program whose 1 is an outcome (grep's "No matches found"),
// 2 to 125 are errors it reported; else what it means for any program.
func (in *interp) meaning(label string, p *classify.Program, opts []classify.Opt) cand {
	code := in.code
	if p != nil {
		if e, ok := p.ExitMeaningOf(code, opts); ok {
			return cand{m: Meaning{Error: e.Error, Message: e.Message, Program: label}}
		}
		if e, ok := p.ExitMeaningOf(1, opts); ok && !e.Error && code < 126 {
			return cand{m: Meaning{Error: true, Message: label + " reported an error", Program: label}}
		}
	}
	m := generic(code)
	m.Program = label
	// A program that does not fail (echo) is not where a status from 1
	// to 125 came from.
	never := p != nil && p.ExitStatus == classify.ExitStatusZero && code >= 1 && code <= 125
	return cand{m: m, neverFails: never}
}

// condition interprets the status of [[ ... ]], bash's conditional
// command: 1 is false, 2 a malformed expression.
func (in *interp) condition() Meaning {
	const label = "[["
	switch {
	case in.code == 1:
		return Meaning{Message: "Condition is false", Program: label}
	case in.code < 126:
		return Meaning{Error: true, Message: label + " reported an error", Program: label}
	}
	m := generic(in.code)
	m.Program = label
	return m
}

func (in *interp) arith(label string) Meaning {
	if in.code == 1 {
		return Meaning{Message: "Condition is false: the arithmetic result was 0", Program: label}
	}
	m := generic(in.code)
	m.Program = label
	return m
}

// generic is what a status means for any program.
func generic(code int) Meaning {
	switch {
	case code == 0:
		return Meaning{}
	case code == 126:
		return Meaning{Error: true, Message: "Command found but not executable (permission denied)"}
	case code == 127:
		return Meaning{Error: true, Message: "Command not found"}
	case code > 128 && code <= 128+64:
		return Meaning{Error: true, Message: "Killed by signal " + SignalName(code-128)}
	}
	return Meaning{Error: true}
}

var signalNames = [...]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT",
	7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2",
	13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 16: "SIGSTKFLT", 17: "SIGCHLD",
	18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU",
	23: "SIGURG", 24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF",
	28: "SIGWINCH", 29: "SIGIO", 30: "SIGPWR", 31: "SIGSYS",
}

// SignalName names a Linux signal number with its number: "SIGKILL (9)";
// real-time signals are "SIGRTMIN+N (M)".
func SignalName(n int) string {
	if n > 0 && n < len(signalNames) {
		return signalNames[n] + " (" + strconv.Itoa(n) + ")"
	}
	if n >= 34 && n <= 64 {
		return fmt.Sprintf("SIGRTMIN+%d (%d)", n-34, n)
	}
	return "signal " + strconv.Itoa(n)
}

func appendNote(notes []string, n string) []string {
	for _, x := range notes {
		if x == n {
			return notes
		}
	}
	return append(append([]string(nil), notes...), n)
}

// resolve turns the candidates into one meaning: the last one that could
// have failed is named; the others are mentioned when they are a different
// kind of outcome (an error where the named one is not, or the reverse) or
// have a meaning of their own.
func (in *interp) resolve(cands []cand) Meaning {
	keep := make([]cand, 0, len(cands))
	for _, c := range cands {
		if !c.neverFails {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 {
		keep = cands
	}
	if len(keep) == 0 {
		return generic(in.code)
	}
	primary := keep[len(keep)-1].m
	var notes []string
	for _, c := range keep {
		for _, n := range c.m.Notes {
			notes = appendNote(notes, n)
		}
	}
	sort.Strings(notes)
	var alts []string
	seen := map[string]bool{}
	for _, c := range keep[:len(keep)-1] {
		// Another plain failure adds nothing to a plain failure; a
		// different kind of outcome, or a meaning of its own, does.
		if c.m.Error == primary.Error && (c.m.Message == "" || c.m.Message == primary.Message) {
			continue
		}
		d := describe(c.m)
		if !seen[d] && d != describe(primary) {
			seen[d] = true
			alts = append(alts, d)
		}
	}
	out := Meaning{Error: primary.Error, Message: primary.Message, Program: primary.Program, Notes: notes}
	if len(alts) > 0 {
		out.Message = describe(primary) + " (or " + strings.Join(alts, ", or ") + ")"
	}
	return out
}

// describe names a meaning with its program, for a list of alternatives.
func describe(m Meaning) string {
	switch {
	case m.Program == "" && m.Message == "":
		return "a command failed"
	case m.Program == "":
		return m.Message
	case m.Message == "":
		return m.Program + " failed"
	case strings.HasPrefix(m.Message, m.Program+" "):
		return m.Message
	}
	return m.Program + ": " + m.Message
}
