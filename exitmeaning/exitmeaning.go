package exitmeaning

import (
	"fmt"
	"path"
	"regexp"
	"slices"
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
	cat *classify.Catalog
}

// WithCatalog reads program knowledge (wrappers, exit1 meanings) from c
// instead of the embedded catalog.
func WithCatalog(c *classify.Catalog) Option { return func(cfg *config) { cfg.cat = c } }

// Limits on what is parsed, in line with the classifier's defaults.
const (
	maxLength  = 1 << 20
	maxNesting = 256
	maxNested  = 4 // bash -c inside bash -c ...
)

// NotePipefail is added to Meaning.Notes when `set -o pipefail` was in
// force for the pipeline whose status was returned.
const NotePipefail = "pipefail: the status may come from any stage of the pipeline"

// NoteErrexit is added when `set -e` was in force, so any earlier
// statement may have ended the script.
const NoteErrexit = "errexit: any statement after set -e may have ended the script"

// Interpret says what exit status code means for command, a bash command
// line as it was given to `bash -c`. It never panics; a command that does
// not parse gets only the generic meanings (and 2 is a syntax error).
func Interpret(command string, code int, opts ...Option) (m Meaning) {
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
	in := &interp{cat: cfg.cat, code: code}
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
	cat   *classify.Catalog
	code  int
	depth int
}

// cand is one command whose status may be the one bash returned, with
// its meaning for the code.
type cand struct {
	m          Meaning
	neverFails bool // echo, true: cannot be the source of a failure status
}

// shell options that change which command's status is returned.
type state struct {
	errexit, pipefail bool
}

// script parses src and returns the candidates, in run order (the last is
// the one named first).
func (in *interp) script(src string) ([]cand, bool) {
	if len(src) > maxLength || nesting(src) > maxNesting {
		return nil, false
	}
	f, err := parse(src)
	if err != nil {
		return nil, false
	}
	// Read as bash, as parse above does: the segments must be the AST's.
	rep := classify.Classify(src, classify.WithCatalog(in.cat), classify.WithDialect(classify.DialectBash))
	idx := map[classify.Span]int{}
	for _, s := range rep.Segments {
		if s.Parent == -1 && !s.Context.Substitution && s.Context.Depth == 0 {
			if _, dup := idx[s.Span]; !dup {
				idx[s.Span] = s.Index
			}
		}
	}
	w := &walk{in: in, rep: rep, idx: idx}
	return w.list(f.Stmts, &state{}), true
}

func parse(src string) (f *syntax.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("parser failed: %v", p)
		}
	}()
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

func nesting(s string) int {
	d, m := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[', '`':
			d++
			m = max(m, d)
		case ')', '}', ']':
			if d > 0 {
				d--
			}
		}
	}
	return m
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
			if prev, ok := passThroughExit(s); ok && i > 0 && prev {
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

// passThroughExit reports whether s is `exit` or `exit $?`, which returns
// the previous statement's status.
func passThroughExit(s *syntax.Stmt) (isExit, passThrough bool) {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || ce.Args[0].Lit() != "exit" || s.Negated || s.Background {
		return false, false
	}
	if len(ce.Args) == 1 {
		return true, true
	}
	if len(ce.Args) == 2 && len(ce.Args[1].Parts) == 1 {
		if pe, ok := ce.Args[1].Parts[0].(*syntax.ParamExp); ok && pe.Param != nil && pe.Param.Value == "?" && pe.Short {
			return true, true
		}
	}
	return true, false
}

// applySet records `set -e`, `set -o pipefail` and their `+` forms.
func applySet(s *syntax.Stmt, st *state) {
	ce, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) < 2 || ce.Args[0].Lit() != "set" {
		return
	}
	args := make([]string, len(ce.Args)-1)
	for i, a := range ce.Args[1:] {
		args[i] = a.Lit()
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') || a == "--" {
			return
		}
		on := a[0] == '-'
		for j := 1; j < len(a); j++ {
			switch a[j] {
			case 'e':
				st.errexit = on
			case 'o':
				if i+1 < len(args) {
					i++
					switch args[i] {
					case "pipefail":
						st.pipefail = on
					case "errexit":
						st.errexit = on
					}
				}
			}
		}
	}
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
		return []cand{{m: w.in.program("[[", "", nil, nil)}}
	case *syntax.ArithmCmd:
		return []cand{{m: w.in.arith("((")}}
	case *syntax.LetClause:
		return []cand{{m: w.in.arith("let")}}
	case *syntax.TimeClause:
		return w.stmt(c.Stmt, st)
	case *syntax.DeclClause:
		return []cand{{m: w.in.program(c.Variant.Value, "", nil, nil)}}
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
	// Not a segment the classifier recorded (dynamic program, limits):
	// name it from the literal word, if any.
	name := path.Base(ce.Args[0].Lit())
	if ce.Args[0].Lit() == "" {
		return []cand{{m: generic(w.in.code)}}
	}
	args := make([]string, 0, len(ce.Args)-1)
	for _, a := range ce.Args[1:] {
		args = append(args, a.Lit())
	}
	return []cand{w.in.named(name, "", args, nil)}
}

// segment interprets the status of the report's segment i, unwrapping
// wrappers and string-nested scripts.
func (w *walk) segment(i, hops int) []cand {
	seg := &w.rep.Segments[i]
	name := seg.Name
	args := argValues(seg.Args)
	if hops > 16 || name == "" {
		return []cand{{m: generic(w.in.code)}}
	}
	// bash -c 'script': the script's own status.
	if w.in.isShell(name) {
		if script, ok := shellScript(args); ok && w.in.depth < maxNested {
			sub := &interp{cat: w.in.cat, code: w.in.code, depth: w.in.depth + 1}
			if cands, ok := sub.script(script); ok {
				return cands
			}
			if w.in.code == 2 {
				return []cand{{m: Meaning{Error: true, Message: "Shell syntax error", Program: name}}}
			}
		}
		return []cand{{m: w.in.program(name, "", args, seg.Options)}}
	}
	child := -1
	for j := i + 1; j < len(w.rep.Segments); j++ {
		if s := w.rep.Segments[j]; s.Parent == i && !s.Context.Substitution {
			child = j
			break
		}
	}
	if m, ok := w.in.wrapperOwn(name, child, w.rep); ok {
		return []cand{{m: m}}
	}
	if child >= 0 && (name == "exec" || w.in.isWrapper(name) && name != "parallel") {
		return w.segment(child, hops+1)
	}
	if p := w.in.cat.Lookup(name); p == nil && fallbackWrapper[name] {
		if inner, rest, ok := unwrapFallback(name, args); ok {
			return []cand{w.in.named(inner, "", rest, nil)}
		}
	}
	sub := seg.Subcommand
	if sub != "" && strings.Contains(sub, " ") {
		sub = sub[:strings.IndexByte(sub, ' ')]
	}
	return []cand{w.in.named(name, sub, args, seg.Options)}
}

func argValues(as []classify.Arg) []string {
	out := make([]string, len(as))
	for i, a := range as {
		if a.Static() {
			out[i] = a.Value
		}
	}
	return out
}

// named interprets a program invocation by name.
func (in *interp) named(name, sub string, args []string, opts []classify.Opt) cand {
	name = path.Base(name)
	if sub == "" && len(args) > 0 {
		if p := in.cat.Lookup(name); p != nil && p.Sub(firstOperand(args)) != nil {
			sub = firstOperand(args)
		} else if name == "git" {
			sub = firstOperand(args)
		}
	}
	m := in.program(name, sub, args, opts)
	never := false
	if in.code >= 1 && in.code <= 125 {
		never = neverFails[name]
	}
	return cand{m: m, neverFails: never}
}

// firstOperand returns the first word that is not an option, skipping the
// values of git's global options that take one.
func firstOperand(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch a {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace":
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a
	}
	return ""
}

// isShell reports a shell: a catalog entry with a dialect (bash, sh, zsh,
// ksh), the one place that lists them.
func (in *interp) isShell(name string) bool {
	p := in.cat.Lookup(name)
	return p != nil && p.Dialect != ""
}

// shellScript finds the script of `bash [opts] -c SCRIPT`.
func shellScript(args []string) (string, bool) {
	hasC := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 && !strings.HasPrefix(a, "--") {
			if strings.ContainsRune(a, 'c') {
				hasC = true
			}
			if a == "-o" || a == "+o" || a == "-O" || a == "+O" {
				i++
			}
			continue
		}
		if strings.HasPrefix(a, "--") {
			continue
		}
		if hasC {
			return a, true
		}
		return "", false
	}
	return "", false
}

var neverFails = map[string]bool{"true": true, ":": true, "echo": true, "printf": true, "pwd": true}

// fallbackWrapper are wrappers the catalog may not describe: the wrapped
// command starts at the first operand.
var fallbackWrapper = map[string]bool{"exec": true, "nohup": true, "builtin": true, "time": true}

func unwrapFallback(name string, args []string) (string, []string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			if i < len(args) && args[i] != "" {
				return args[i], args[i+1:], true
			}
			return "", nil, false
		}
		if strings.HasPrefix(a, "-") {
			if name == "exec" && a == "-a" || name == "time" && (a == "-f" || a == "-o") {
				i++
			}
			continue
		}
		if a == "" {
			return "", nil, false
		}
		return a, args[i+1:], true
	}
	return "", nil, false
}

func (in *interp) isWrapper(name string) bool {
	p := in.cat.Lookup(name)
	if p == nil {
		return false
	}
	for _, c := range p.Categories {
		if c == classify.CategoryWrapper {
			return true
		}
	}
	return false
}

// wrapperOwn returns the meaning of a status that the wrapper itself
// produces (timeout's 124), before the wrapped program is looked at.
func (in *interp) wrapperOwn(name string, child int, rep *classify.Report) (Meaning, bool) {
	inner := ""
	if child >= 0 {
		inner = rep.Segments[child].Name
	}
	switch name {
	case "timeout":
		switch in.code {
		case 124:
			return Meaning{Error: true, Message: "Timed out: timeout stopped the command", Program: "timeout"}, true
		case 125:
			return Meaning{Error: true, Message: "timeout itself failed", Program: "timeout"}, true
		}
	case "env", "nice", "stdbuf", "nohup", "chroot":
		if in.code == 125 {
			return Meaning{Error: true, Message: name + " itself failed", Program: name}, true
		}
	case "parallel":
		switch {
		case in.code >= 1 && in.code <= 100:
			return Meaning{Error: true, Message: fmt.Sprintf("%d of the jobs run by parallel failed", in.code), Program: "parallel"}, true
		case in.code == 101:
			return Meaning{Error: true, Message: "More than 100 of the jobs run by parallel failed", Program: "parallel"}, true
		}
	case "xargs":
		switch in.code {
		case 123:
			msg := "A command run by xargs exited with a status from 1 to 125"
			if inner != "" {
				msg = fmt.Sprintf("%s (run by xargs) exited with a status from 1 to 125", inner)
				if e := in.exit1(inner, "", nil, nil); e != "" {
					msg += "; for " + inner + " 1 means: " + e
				}
			}
			return Meaning{Error: true, Message: msg, Program: "xargs"}, true
		case 124:
			return Meaning{Error: true, Message: "A command run by xargs exited with 255, so xargs stopped", Program: "xargs"}, true
		case 125:
			return Meaning{Error: true, Message: "A command run by xargs was killed by a signal", Program: "xargs"}, true
		case 1:
			return Meaning{Error: true, Message: "xargs itself failed", Program: "xargs"}, true
		}
	}
	return Meaning{}, false
}

// exit1 returns what exit status 1 means for the program, or "". A
// catalog text that ends in "(with OPTION or OPTION)" applies only when one
// of the options is given, and is returned without the parenthesis.
func (in *interp) exit1(name, sub string, args []string, opts []classify.Opt) string {
	if p := in.cat.Lookup(name); p != nil {
		spec, text := p, p.Exit1
		if sub != "" {
			spec, text = p.Sub(sub), ""
			if spec != nil {
				text = spec.Exit1
			}
		}
		if text != "" {
			if !flagGate(name, args) {
				return ""
			}
			if t, ok := conditional(spec, text, args, opts); ok {
				return t
			}
			return ""
		}
		if sub != "" && spec != nil {
			return "" // a subcommand the catalog knows, with no exit1
		}
	}
	key := name
	if sub != "" {
		key = name + " " + sub
	}
	if e, ok := builtinExit1[key]; ok && flagGate(name, args) {
		return e
	}
	return ""
}

var withRe = regexp.MustCompile(`^(.*?)\s*\(with ([^()]*)\)$`)

// conditional applies a trailing "(with -e)" condition of a catalog text.
func conditional(p *classify.Program, text string, args []string, opts []classify.Opt) (string, bool) {
	m := withRe.FindStringSubmatch(text)
	if m == nil {
		return text, true
	}
	var flags []string
	for _, f := range strings.FieldsFunc(m[2], func(r rune) bool { return r == ' ' || r == ',' }) {
		if strings.HasPrefix(f, "-") {
			flags = append(flags, f)
		}
	}
	if len(flags) == 0 {
		return text, true
	}
	for _, f := range flags {
		if hasOption(p, f, args, opts) {
			return m[1], true
		}
	}
	return "", false
}

// hasOption reports whether the option f (or another spelling of it in
// the catalog) was given: from the classifier's options when there are
// any, else from the words.
func hasOption(p *classify.Program, f string, args []string, opts []classify.Opt) bool {
	names := []string{f}
	if p != nil {
		for _, o := range p.Options {
			if slices.Contains(o.Names, f) {
				names = o.Names
				break
			}
		}
	}
	for _, o := range opts {
		if slices.Contains(names, o.Name) || slices.Contains(names, o.Written) {
			return true
		}
	}
	if len(opts) > 0 {
		return false
	}
	for _, n := range names {
		if strings.HasPrefix(n, "--") {
			if hasFlag(args, 0, n) {
				return true
			}
		} else if len(n) == 2 && n[0] == '-' && hasFlag(args, n[1], "") {
			return true
		}
	}
	return false
}

// flagGate reports whether the options that give exit 1 its meaning are
// present: jq only with -e, command only with -v/-V.
func flagGate(name string, args []string) bool {
	switch name {
	case "jq":
		return hasFlag(args, 'e', "--exit-status")
	case "command":
		return hasFlag(args, 'v', "") || hasFlag(args, 'V', "")
	}
	return true
}

// hasFlag looks for a short flag (bundled or not) or a long flag among
// the options before the first operand or "--".
func hasFlag(args []string, short byte, long string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if long != "" && a == long {
			return true
		}
		if long != "" && strings.HasPrefix(a, long+"=") {
			return true
		}
		if short != 0 && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], short) >= 0 {
			return true
		}
	}
	return false
}

// builtinExit1 covers programs the catalog does not (yet) describe.
var builtinExit1 = map[string]string{
	"rg":       "No matches found",
	"ag":       "No matches found",
	"ack":      "No matches found",
	"zgrep":    "No matches found",
	"grep":     "No matches found",
	"egrep":    "No matches found",
	"fgrep":    "No matches found",
	"git grep": "No matches found",
	"git diff": "Files differ",
	"cmp":      "Files differ",
	"diff":     "Files differ",
	"test":     "Condition is false",
	"[":        "Condition is false",
	"[[":       "Condition is false",
	"find":     "Some directories were inaccessible",
	"which":    "Not found",
	"type":     "Not found",
	"command":  "Not found",
	"pgrep":    "No processes matched",
	"pkill":    "No processes matched",
	"jq":       "The last output was false or null",
}

// program interprets the code for a named program.
func (in *interp) program(name, sub string, args []string, opts []classify.Opt) Meaning {
	label := name
	if sub != "" {
		label = name + " " + sub
	}
	code := in.code
	if name == "git" {
		switch code {
		case 128:
			return Meaning{Error: true, Message: "git stopped with a fatal error", Program: label}
		case 129:
			return Meaning{Error: true, Message: "git usage error", Program: label}
		}
	}
	if name == "jq" && hasFlag(args, 'e', "--exit-status") && code == 4 {
		return Meaning{Error: true, Message: "jq produced no valid result", Program: label}
	}
	if e := in.exit1(name, sub, args, opts); e != "" && code < 126 {
		if code == 1 {
			return Meaning{Message: e, Program: label}
		}
		return Meaning{Error: true, Message: label + " reported an error", Program: label}
	}
	m := generic(code)
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
