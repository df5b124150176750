package classify

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// call records a simple command.
func (w *walker) call(ce *syntax.CallExpr, c ctx, s *syntax.Stmt) int {
	if n := len(ce.Args) + len(ce.Assigns); w.words+n > w.cfg.limits.MaxWords {
		if !w.segLimit {
			w.segLimit = true
			w.find("limit-words", fmt.Sprintf("more than %d words; the rest was not analysed", w.cfg.limits.MaxWords), w.span(ce), -1)
		}
		return -1
	} else {
		w.words += n
	}
	var assigns []Assign
	for _, a := range ce.Assigns {
		assigns = append(assigns, w.assign(a, c))
	}
	if len(ce.Args) == 0 {
		w.find("assignment", "assigns shell variables, which later commands can see", w.span(ce), -1)
		for _, a := range assigns {
			w.setVar(a.Name)
		}
		return -1
	}
	n := len(ce.Args)
	args := make([]Arg, n)
	// The infos are scratch, taken from the walker's stack: a nested
	// call takes its own above them, or from a new stack when this one
	// is full (the old one stays with the calls that hold it).
	start := len(w.infoBuf)
	if cap(w.infoBuf)-start < n {
		w.infoBuf = make([]wordInfo, 0, max(2*cap(w.infoBuf), n, 16))
		start = 0
	}
	w.infoBuf = w.infoBuf[:start+n]
	infos := w.infoBuf[start : start+n : start+n]
	for i, wd := range ce.Args {
		args[i], infos[i] = w.word(wd, c)
	}
	idx := w.segment(args, infos, assigns, c, w.span(ce))
	w.infoBuf = w.infoBuf[:start]
	return idx
}

// execEnv are environment variables that name a program, a library or
// code to run, or change how the shell or a program finds them; they are
// never harmless, whatever a catalog says. GIT_*, LD_* and BASH_FUNC_* are
// matched by prefix.
var execEnv = map[string]bool{
	"PAGER": true, "MANPAGER": true, "EDITOR": true, "VISUAL": true, "LESSOPEN": true,
	"LESSCLOSE": true, "PATH": true, "IFS": true, "ENV": true, "BASH_ENV": true,
	"SHELLOPTS": true, "BASHOPTS": true, "PS4": true, "PROMPT_COMMAND": true,
	"PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true, "NODE_OPTIONS": true,
	"PERL5OPT": true, "PERL5LIB": true, "RUBYOPT": true, "SHELL": true, "BROWSER": true,
	"SSH_ASKPASS": true, "SUDO_ASKPASS": true, "DYLD_INSERT_LIBRARIES": true,
	"HOME": true, "TMPDIR": true, "CDPATH": true, "GLOBIGNORE": true,
}

// builtin is a shell builtin that changes the shell itself.
type builtin struct{ code, msg string }

// shellBuiltins are reported with their own code when the catalog does not
// know them: they run code or change the shell for later commands.
var shellBuiltins = map[string]builtin{
	"eval":      {"eval", "runs a string as shell code"},
	"exec":      {"exec", "replaces the shell or changes its file descriptors"},
	"source":    {"source", "runs a file's code in this shell"},
	".":         {"source", "runs a file's code in this shell"},
	"alias":     {"shell-builtin", "defines an alias, which later commands may run instead of a program"},
	"unalias":   {"shell-builtin", "changes the shell's aliases"},
	"trap":      {"shell-builtin", "sets code to run on a signal or on exit"},
	"builtin":   {"shell-builtin", "runs a shell builtin that is not analysed"},
	"enable":    {"shell-builtin", "enables or loads shell builtins"},
	"set":       {"shell-builtin", "changes shell options or positional parameters"},
	"shopt":     {"shell-builtin", "changes shell options"},
	"unset":     {"shell-builtin", "unsets shell variables or functions"},
	"read":      {"shell-builtin", "reads stdin into shell variables"},
	"mapfile":   {"shell-builtin", "reads stdin into an array"},
	"readarray": {"shell-builtin", "reads stdin into an array"},
	"hash":      {"shell-builtin", "changes where the shell finds programs"},
	"ulimit":    {"shell-builtin", "changes resource limits"},
	"umask":     {"shell-builtin", "changes the file creation mask"},
	"kill":      {"shell-builtin", "sends a signal to a process"},
	"wait":      {"shell-builtin", "waits for background jobs"},
	"shift":     {"shell-builtin", "changes the positional parameters"},
	"getopts":   {"shell-builtin", "changes shell variables"},
	"history":   {"shell-builtin", "reads or changes the shell history"},
	"fc":        {"shell-builtin", "edits and runs commands from the history"},
	"complete":  {"shell-builtin", "changes completion settings"},
	"bind":      {"shell-builtin", "changes key bindings"},
	"disown":    {"shell-builtin", "detaches background jobs"},
	"jobs":      {"shell-builtin", "lists background jobs"},
	"fg":        {"shell-builtin", "resumes a job in the foreground"},
	"bg":        {"shell-builtin", "resumes a job in the background"},
	"suspend":   {"shell-builtin", "suspends the shell"},
	"logout":    {"shell-builtin", "exits a login shell"},
	"exit":      {"shell-builtin", "exits the shell"},
	"return":    {"shell-builtin", "returns from a function or sourced file"},
	"break":     {"shell-builtin", "leaves a loop"},
	"continue":  {"shell-builtin", "continues a loop"},
}

// segment records one simple command from its evaluated words and returns
// its index, or -1 past the segment limit.
func (w *walker) segment(args []Arg, infos []wordInfo, assigns []Assign, c ctx, span Span) int {
	if len(w.r.Segments) >= w.cfg.limits.MaxSegments {
		if !w.segLimit {
			w.segLimit = true
			w.find("limit-segments", fmt.Sprintf("more than %d commands; the rest were not analysed", w.cfg.limits.MaxSegments), span, -1)
		}
		return -1
	}
	idx := len(w.r.Segments)
	w.r.Segments = append(w.r.Segments, Segment{})
	// The segment is built in scratch memory: nested segments may grow
	// w.r.Segments while the argument parser holds it. The scratch is
	// copied into the report and zeroed before it is reused, so no
	// report shares it.
	seg := segPool.Get().(*Segment)
	*seg = Segment{
		Index: idx, Parent: c.parent, Span: span, Assigns: assigns,
		Wrappers: c.wrappers, Cwd: w.currentCwd(), Args: args[1:],
		Context: Context{
			Pipeline: c.pipe, PipelineLen: c.pipeLen, Substitution: c.subst,
			Loop: c.loop, Background: c.background, Negated: c.negated,
			Subshell: c.subshell, Function: c.function, Condition: c.condition,
			StdinFed: c.stdinFed, Depth: c.nested,
		},
	}
	defer func() {
		w.r.Segments[idx] = *seg
		*seg = Segment{}
		segPool.Put(seg)
	}()
	prog := args[0]
	seg.Program = prog.Value
	if w.exact && prog.Span.End <= len(w.r.Command) {
		seg.Program = w.r.Command[prog.Span.Start:prog.Span.End]
	}
	if !prog.Static() {
		seg.DynamicProgram = true
		w.find("dynamic-program", "the program name "+quote(prog.Value)+" is only known at run time", prog.Span, idx)
		return idx
	}
	name := prog.Value
	if strings.Contains(name, "/") {
		seg.PathPrefixed = true
		name = path.Base(name)
		w.find("path-prefixed-program", "runs "+quote(prog.Value)+" by path, so which program runs is not checked", prog.Span, idx)
	}
	seg.Name = name
	if w.funcs[name] {
		w.find("function-call", name+" calls a function defined in the command", prog.Span, idx)
		if w.funcCd[name] {
			w.st.cwd, w.st.oldpwd = Cwd{}, Cwd{}
		}
	}
	switch name {
	case "eval", "source", ".":
		// Code run in this shell may change directory.
		w.st.cwd, w.st.oldpwd = Cwd{}, Cwd{}
	}
	for _, a := range assigns {
		if execEnv[a.Name] || strings.HasPrefix(a.Name, "GIT_") || strings.HasPrefix(a.Name, "LD_") || strings.HasPrefix(a.Name, "BASH_FUNC_") {
			w.find("env-assignment", "sets "+a.Name+" for "+name+", which can name a program or library to run", a.Span, idx)
			continue
		}
		if !w.cfg.cat.harmEnv[a.Name] {
			w.find("env-assignment", "sets "+a.Name+" for "+name+", which can change what it runs or reads", a.Span, idx)
		}
	}
	spec := w.cfg.cat.LookupIn(name, w.dialect)
	if w.zshStandIn && w.cfg.cat.shellBound(name) {
		w.zshReads() // zsh may know it otherwise (noglob)
	}
	if spec == nil {
		if b, ok := shellBuiltins[name]; ok {
			w.find(b.code, name+" "+b.msg, prog.Span, idx)
			return idx
		}
		w.find("unknown-program", name+" is not in the catalog, so what it does is unknown", prog.Span, idx)
		return idx
	}
	seg.Known = true
	seg.Traits = programTraits(spec)
	if spec.Help && len(args) == 2 && args[1].Static() && (args[1].Value == "--help" || args[1].Value == "--version") {
		// rm --help: a program that handles the word itself prints and
		// exits (catalog help: true, confirmed by the harness).
		seg.Categories = []Category{CategoryRead}
		seg.Options = []Opt{{Name: args[1].Value, Written: args[1].Value, Known: true, Span: args[1].Span}}
		return idx
	}
	p := parserPool.Get().(*argParser)
	// The scratch slices of the last parser are kept: every element is
	// written before it is read, and none of them reaches the report.
	*p = argParser{w: w, seg: seg, root: spec, spec: spec, c: c, args: args[1:], infos: infos[1:],
		opInfo: p.opInfo[:0], opCarries: p.opCarries[:0]}
	p.run()
	p.finish()
	// A wrapper given no command is the program itself: env -u X, env -0
	// and env LC_ALL=C print the environment as env alone does.
	if spec.NoArgs != nil && (len(args) == 1 || spec.NoOperands && len(p.operands) == 0 || spec.cmdRole && len(p.nested) == 0 && !optEffect(seg.Options, EffectExec)) {
		seg.Categories = addCat(seg.Categories, CategoryRead)
		w.find(spec.NoArgs.Code, name+" "+spec.NoArgs.Doc, prog.Span, idx)
	}
	parserPool.Put(p)
	return idx
}

// dashByte[b] is "-" followed by the byte b: the short option a letter
// of a cluster spells, without building the string each time.
var dashByte = func() (t [256]string) {
	for b := range t {
		t[b] = "-" + string([]byte{byte(b)})
	}
	return t
}()

// segPool holds the scratch Segments segment builds in.
var segPool = sync.Pool{New: func() any { return new(Segment) }}

// optEffect reports whether any of the options has the effect (env -S
// runs the command its value spells).
func optEffect(opts []Opt, effect Effect) bool {
	for _, o := range opts {
		if hasString(o.Effects, effect) {
			return true
		}
	}
	return false
}

// parserPool holds argument parsers between segments. The handlers a
// parser dispatches to take it by pointer, so it lives on the heap; the
// pool spares an allocation per segment.
var parserPool = sync.Pool{New: func() any { return new(argParser) }}

// argParser parses one segment's arguments the way its program will.
type argParser struct {
	w     *walker
	seg   *Segment
	root  *Program
	spec  *Program
	c     ctx
	args  []Arg
	infos []wordInfo

	subPath []string
	// subWritten are the subcommand words as written (an alias, not the
	// catalog name), for messages.
	subWritten []string
	// name is specName's cache, for nameSubs subcommand words.
	name     string
	nameSubs int
	nameSet  bool
	// readsInput is set when a jq program calls input or inputs, which
	// read the next inputs (stdin without file operands) even under -n.
	readsInput bool
	// noStdin is set when a script shows the program reads no input
	// (awk 'BEGIN { ... }').
	noStdin    bool
	effects    []effectAt
	roles      []OperandSpec
	patternSet bool
	operands   []Operand
	opInfo     []wordInfo
	nested     []nestedCmd
	// opCarries is, for each operand, what it carries in its role
	// (catalog carries), "" for nothing.
	opCarries []string
	scripts   []Arg
	cwdOpt    *Arg
	stopped   bool
	unsafe    bool
	// endOpts is set once "--" or the first operand ended the options.
	endOpts bool
	// unknownSub is set when a subcommand is not in the catalog.
	unknownSub bool
	// info is set by --help or --version: the program prints and exits.
	info bool
	// roleValues are option values with a value_role, in order.
	roleValues []roleValue
	// exprStarted is set once a find-style expression began: later
	// words are not roots.
	exprStarted bool
	// cwdBase is the directory the last cwd option is relative to.
	cwdBase Cwd
	// dashes is set once "--" ended the options.
	dashes bool
	// writesHere is set by an option of category write (tar -x): the
	// program writes into its working directory.
	writesHere bool
	// fin is the finisher of the segment, kept here to live where the
	// parser does.
	fin finisher
}

// roleValue is an option value that has an operand role (sed -e SCRIPT).
type roleValue struct {
	role Role
	arg  Arg
}

// scriptValues checks the option values of one role as one script: sed
// joins its -e scripts with newlines, so '1{e touch x' -e '}' is one block.
func (p *argParser) scriptValues(h *roleHandler) {
	var parts []string
	var sp Span
	for _, rv := range p.roleValues {
		if rv.role != h.Name {
			continue
		}
		if !rv.arg.Static() {
			p.w.find("dynamic-script", "the "+string(h.Name)+" script is only known at run time", rv.arg.Span, p.seg.Index)
			return
		}
		if len(parts) == 0 {
			sp = rv.arg.Span
		}
		sp.End = rv.arg.Span.End
		parts = append(parts, rv.arg.Value)
	}
	if len(parts) == 0 {
		return
	}
	h.script(p, Arg{Value: strings.Join(parts, "\n"), Span: sp})
}

type effectAt struct {
	effect Effect
	code   string
	doc    string
	who    string
	span   Span
}

type nestedCmd struct {
	args    []Arg
	infos   []wordInfo
	assigns []Assign
	wrapper string
	kind    string // wrapper, xargs, find-exec
	// inMatchDir: the command runs in each match's directory (find
	// -execdir), so its cwd is unknown.
	inMatchDir bool
}

func (p *argParser) specName() string {
	// Cached: it names the program in many findings, and changes only
	// when a subcommand word is added.
	if !p.nameSet || p.nameSubs != len(p.subWritten) {
		if len(p.subWritten) == 0 {
			p.name = strings.TrimSpace(p.writtenName()) // as with " " and no words after it
		} else {
			p.name = strings.TrimSpace(p.writtenName() + " " + strings.Join(p.subWritten, " "))
		}
		p.nameSet, p.nameSubs = true, len(p.subWritten)
	}
	return p.name
}

// writtenName is the program as the command names it: an alias such as
// egrep or sqlfluff, not the catalog entry it shares.
func (p *argParser) writtenName() string {
	if p.seg.Name != "" {
		return p.seg.Name
	}
	return p.root.Name
}

func (p *argParser) run() {
	endOpts := false
	p.endOpts = false
	syntaxKind := p.spec.Syntax
	for i := 0; i < len(p.args) && !p.stopped; i++ {
		a, info := p.args[i], p.infos[i]
		syntaxKind = p.spec.Syntax
		endOpts = endOpts || p.endOpts // an ends_options option (python -c) ended them
		if !a.Static() && !endOpts && (syntaxKind != "none" && syntaxKind != "long" &&
			(strings.HasPrefix(info.prefix, "-") || p.spec.ShellOptions != nil && strings.HasPrefix(info.prefix, "+")) &&
			info.prefix != "-" && info.prefix != "--" && info.prefix != "+" ||
			syntaxKind == "keyvalue" && strings.Contains(info.prefix, "=") && !strings.HasPrefix(info.prefix, "-")) {
			// An option whose value (or tail) is dynamic: --file=$HOME/x, -f"$X".
			i = p.dynamicOption(i, info.prefix)
			continue
		}
		if !a.Static() {
			if len(p.spec.Subcommands) > 0 && !endOpts && !info.canDash {
				p.w.find("dynamic-subcommand", "the "+p.specName()+" subcommand "+quote(a.Value)+" is only known at run time", a.Span, p.seg.Index)
				p.stopped = true
				return
			}
			if !endOpts && syntaxKind != "none" && info.canDash {
				p.w.optionWord(a, p.spec)
			}
			if !endOpts && syntaxKind != "none" && p.couldBeOption(a, info) {
				p.w.find("dynamic-argument", quote(a.Value)+" could expand to an option of "+p.specName()+", which has options that write or run code", a.Span, p.seg.Index)
			}
			if p.operand(i, endOpts) {
				return
			}
			if p.spec.StopAtOperand {
				endOpts, p.endOpts = true, true
			}
			continue
		}
		v := a.Value
		if endOpts || syntaxKind == "none" || v == "-" || v == "" {
			if p.operand(i, endOpts) {
				return
			}
			if p.spec.StopAtOperand {
				endOpts, p.endOpts = true, true
			}
			continue
		}
		if v == "--" && syntaxKind != "long" {
			endOpts, p.endOpts, p.dashes = true, true, true
			continue
		}
		switch {
		case syntaxKind == "long" && (strings.HasPrefix(v, "-") || v == "(" || v == ")" || v == "!" || v == ","):
			i = p.longOpt(i)
		case syntaxKind == "keyvalue" && strings.Contains(v, "=") && !strings.HasPrefix(v, "-"):
			p.keyValue(i)
		case p.spec.ShellOptions != nil && len(v) > 1 && (v[0] == '+' || v[0] == '-' && v[1] != '-'):
			i = p.shellShort(i)
		case p.spec.NegativeNumbers && len(v) > 1 && v[0] == '-' && (v[1] == '.' || v[1] >= '0' && v[1] <= '9'):
			// A negative number (seq 3 -1 1): an operand, and the options end.
			endOpts, p.endOpts = true, true
			if p.operand(i, endOpts) {
				return
			}
		case strings.HasPrefix(v, "--"):
			i = p.gnuLong(i)
		case strings.HasPrefix(v, "-") && len(v) > 1:
			i = p.gnuShort(i)
		case strings.HasPrefix(v, "+") && p.spec.NumericOption != "" && isDigits(v[1:]):
			p.addOpt(Opt{Name: p.spec.NumericOption, Written: v, Known: true, Span: a.Span}, p.spec.optIndex[p.spec.NumericOption])
		default:
			if syntaxKind == "long" && p.exprStarted {
				p.addOpt(Opt{Name: v, Written: v, Span: a.Span}, nil)
				continue
			}
			if p.operand(i, endOpts) {
				return
			}
			if p.spec.StopAtOperand {
				endOpts, p.endOpts = true, true
			}
		}
		if syntaxKind == "long" && strings.HasPrefix(v, "-") && len(v) > 2 {
			// -H, -L, -P, -D x, -O3 are real options before the roots;
			// longer words begin the expression.
			p.exprStarted = true
		}
	}
}

// operand records argument i as an operand; it returns true when the rest
// of the arguments were consumed (a subcommand change or a nested command).
func (p *argParser) operand(i int, endOpts bool) bool {
	a := p.args[i]
	// An option that takes away the operands (git --help: with a word
	// after it, git help WORD runs man) leaves no subcommand either.
	noOperands := p.roles != nil && len(p.roles) == 0
	if len(p.spec.Subcommands) > 0 && len(p.operands) == 0 && !endOpts && !noOperands {
		if !a.Static() {
			p.w.find("dynamic-subcommand", "the "+p.specName()+" subcommand "+quote(a.Value)+" is only known at run time", a.Span, p.seg.Index)
			p.stopped = true
			return true
		}
		sub := p.spec.Sub(a.Value)
		if sub == nil {
			p.w.find("unknown-subcommand", p.specName()+" "+a.Value+" is not in the catalog, so what it does is unknown", a.Span, p.seg.Index)
			p.stopped = true
			p.unsafe = true
			p.unknownSub = true
			return true
		}
		if sub.Match != "" {
			// A subcommand that stands for many words (aws's services)
			// is named by the word: Sub finds it again from that.
			p.subPath = append(p.subPath, a.Value)
		} else {
			p.subPath = append(p.subPath, sub.Name)
		}
		p.subWritten = append(p.subWritten, a.Value)
		p.spec = sub
		p.roles = nil
		p.patternSet = false
		p.run2(i + 1)
		return true
	}
	if p.operands == nil {
		p.operands = make([]Operand, 0, len(p.args)-i)
	}
	p.operands = append(p.operands, Operand{Arg: a})
	info := p.infos[i]
	info.optPos = !endOpts && p.spec.Syntax != "none"
	info.afterDashes = p.dashes
	p.opInfo = append(p.opInfo, info)
	if p.root.cmdRole || p.spec.cmdRole {
		p.assignRoles()
		last := p.operands[len(p.operands)-1]
		if last.Role == RoleCommand {
			p.operands = p.operands[:len(p.operands)-1]
			p.opInfo = p.opInfo[:len(p.opInfo)-1]
			p.opCarries = p.opCarries[:len(p.opCarries)-1]
			p.seg.Code = append(p.seg.Code, CodeArg{Carries: CarriesCommand, Via: string(RoleCommand), Span: spanOf(p.args[i:])})
			n := nestedCmd{args: p.args[i:], infos: p.infos[i:], wrapper: p.root.Name, kind: "wrapper"}
			if p.root.Name == "xargs" {
				n.kind = "xargs"
			}
			// env-style NAME=VALUE operands before the command
			for _, op := range p.operands {
				if op.Role == RoleAssign && op.Static() {
					k, v, _ := strings.Cut(op.Value, "=")
					n.assigns = append(n.assigns, Assign{Name: k, Value: Arg{Value: v, Span: op.Span}, Span: op.Span})
				}
			}
			p.nested = append(p.nested, n)
			p.stopped = true
			return true
		}
	}
	return false
}

// run2 continues parsing with a subcommand's spec from argument i.
func (p *argParser) run2(i int) {
	p.args, p.infos = p.args[i:], p.infos[i:]
	p.run()
}

func (p *argParser) addOpt(o Opt, spec *OptSpec) {
	if spec != nil {
		o.Known = true
		o.Name = spec.Names[0]
		if o.Name == "--help" || o.Name == "--version" || o.Name == "-help" || o.Name == "-version" {
			p.info = true
		}
		o.Effects = spec.Effects
		who := ""
		if len(spec.Effects) > 0 || spec.match != nil && o.Value != nil {
			who = p.specName() + " " + o.Written
		}
		for _, e := range spec.Effects {
			if spec.Judged && (e == EffectExec || e == EffectCommand) {
				// find -exec CMD {} +: CMD is a segment of its own,
				// judged over find's matches; the option adds nothing.
				continue
			}
			p.effects = append(p.effects, effectAt{effect: e, code: spec.Code, doc: spec.Doc, who: who, span: o.Span})
		}
		if spec.match != nil && o.Value != nil {
			if !o.Value.Static() || !spec.match.MatchString(o.Value.Value) {
				w := who
				if p.spec.ShellOptions != nil {
					// Name the shell option: "bash -o keyword".
					w += " " + o.Value.Value
				}
				p.effects = append(p.effects, effectAt{effect: spec.Else, code: spec.Code, doc: spec.Doc, who: w, span: o.Span})
			}
		}
		for _, cat := range spec.Categories {
			p.seg.Categories = addCat(p.seg.Categories, cat)
			if cat == CategoryWrite {
				p.writesHere = true
			}
		}
		if spec.Operands != nil {
			p.roles = spec.Operands
		}
		if spec.ValueRole != "" && o.Value != nil {
			p.roleValues = append(p.roleValues, roleValue{spec.ValueRole, *o.Value})
		}
		if spec.EndsOptions {
			p.endOpts = true
		}
		if c := spec.CarriesWhat(); c != "" {
			sp := o.Span
			if hasString(spec.Effects, EffectCommand) && spec.Value == "" && p.spec.Syntax != "long" && len(p.args) > 0 {
				// fd -x CMD...: the words after the option are its command.
				sp.End = max(sp.End, p.args[len(p.args)-1].Span.End)
			}
			p.seg.Code = append(p.seg.Code, CodeArg{Carries: c, Via: o.Written, Span: sp})
		}
		for _, h := range optionEffects {
			if hasString(spec.Effects, h.Name) {
				h.option(p)
			}
		}
		if o.Value != nil {
			cwd := p.seg.Cwd
			if p.cwdOpt != nil {
				cwd = p.optCwd()
			}
			for _, h := range valueEffects {
				if hasString(spec.Effects, h.Name) {
					h.value(p, o.Value, o.Span, spec, cwd)
				}
			}
		}
	} else if so := p.spec.ShellOptions; so != nil {
		// A shell option not proven harmless: it may change how the
		// script is read or what runs before it.
		p.unsafe = true
		p.effects = append(p.effects, effectAt{effect: EffectExec, code: so.Code, doc: so.Doc, who: p.specName() + " " + o.Written, span: o.Span})
	} else {
		p.unsafe = true
		p.w.find("unknown-option", p.specName()+": option "+o.Written+" is not known to be safe", o.Span, p.seg.Index)
	}
	p.gitRepoOption(&o)
	if p.seg.Options == nil {
		p.seg.Options = make([]Opt, 0, 2)
	}
	p.seg.Options = append(p.seg.Options, o)
}

// optCwd is the directory an option like git -C moves the program to.
func (p *argParser) optCwd() Cwd {
	v := *p.cwdOpt
	switch {
	case v.Static():
		return joinPath(p.cwdBase, v.Value)
	case (v.Dynamic == "tilde" || v.Dynamic == "home") && v.Pattern != "":
		return joinPath(p.cwdBase, v.Pattern)
	}
	return Cwd{}
}

// nextValue takes the next argument as an option's value.
// takeValue gives o the next word as its value (the option's span then
// runs to its end) and returns the index after it.
func (p *argParser) takeValue(o *Opt, i int) int {
	v, next := p.nextValue(i)
	o.Value = v
	if v != nil {
		o.Span.End = v.Span.End
	}
	return next
}

func (p *argParser) nextValue(i int) (*Arg, int) {
	if i+1 < len(p.args) {
		v := p.args[i+1]
		info := p.infos[i+1]
		if info.multi && info.canDash {
			p.w.optionWord(v, p.spec)
		}
		if info.multi && p.couldBeOption(v, info) {
			// -name * or -atime $T: the value is the first field, the
			// others are arguments of their own.
			p.w.find("dynamic-argument", quote(v.Value)+" may expand to several words, and the ones after the first could be options of "+p.specName()+", which has options that write or run code", v.Span, p.seg.Index)
		}
		return &v, i + 1
	}
	return nil, i
}

// couldBeOption reports whether a dynamic word could become an option
// that matters: the program has dangerous options, and the word could
// begin with "-". A find-style glob is checked against the dangerous
// option names themselves (-name *.go cannot become -delete).
// valueFile returns the file a reads-file option's value names through its
// match's first group (curl -d @FILE: "^@(.+)$"); a value the match does
// not fit names no file. A dynamic value is judged on its source text: a
// group led by $HOME folds to ~, a group with nothing dynamic is literal,
// and anything else (a dynamic group, or a dynamic value the match does
// not fit, which may expand to one it does) is a dynamic read.
func valueFile(re *regexp.Regexp, v Arg) (Arg, bool) {
	m := re.FindStringSubmatchIndex(v.Value)
	if m == nil || m[2] < 0 {
		if v.Static() {
			return Arg{}, false
		}
		return Arg{Value: v.Value, Dynamic: "param", Span: v.Span}, true
	}
	f := v.Value[m[2]:m[3]]
	sp := v.Span
	if !v.Static() && sp.Start+m[3] <= sp.End {
		sp = Span{Start: sp.Start + m[2], End: sp.Start + m[3]}
	}
	if v.Static() {
		if f == "-" {
			return Arg{}, false // stdin: the pipe feeding it is judged
		}
		return Arg{Value: f, Span: sp}, true
	}
	if len(f) >= 2 && f[0] == '"' && f[len(f)-1] == '"' && !strings.ContainsAny(f[1:len(f)-1], "\\\"`") {
		f = f[1 : len(f)-1]
	}
	if h := gluedHome.FindStringSubmatch(f); h != nil && !strings.ContainsAny(h[1], "$`*?[]\\\"'{}") {
		return Arg{Value: f, Dynamic: "home", Pattern: "~" + h[1], Span: sp}, true
	}
	if !strings.ContainsAny(f, "$`*?[]\\\"'{}~") {
		return Arg{Value: f, Span: sp}, true
	}
	return Arg{Value: f, Dynamic: "param", Span: sp}, true
}

// gluedHome matches a glued option value that starts with $HOME: the rest
// is folded like ~ when it holds nothing else dynamic.
var gluedHome = regexp.MustCompile(`^(?:\$HOME|\$\{HOME\}|"\$HOME"|"\$\{HOME\}")(/.*)?$`)

// dynamicOption parses a word whose static prefix is an option and whose
// rest is only known at run time: the option is recognised from the prefix
// and takes the dynamic rest as its value; a dynamic option name is unknown.
func (p *argParser) dynamicOption(i int, prefix string) int {
	a := p.args[i]
	unknown := func() int {
		p.addOpt(Opt{Name: a.Value, Written: a.Value, Span: a.Span}, nil)
		return i
	}
	rest := func(n int) *Arg {
		v := Arg{Value: a.Value, Dynamic: a.Dynamic, Span: a.Span}
		if len(prefix) >= n && strings.HasPrefix(a.Value, prefix) {
			v.Value = a.Value[n:]
			if a.Span.End-a.Span.Start == len(a.Value) {
				v.Span.Start = a.Span.Start + n
			}
		}
		if v.Dynamic == "tilde" || v.Dynamic == "home" || v.Dynamic == "glob" {
			v.Dynamic = "param" // the pattern of a glued value is not tracked
		}
		if m := gluedHome.FindStringSubmatch(v.Value); m != nil && !strings.ContainsAny(m[1], "$`*?[]\\\"'{}") {
			v.Dynamic, v.Pattern = "home", "~"+m[1]
		}
		return &v
	}
	if p.spec.Syntax == "keyvalue" {
		k, _, _ := strings.Cut(prefix, "=")
		if spec := p.spec.optIndex[k]; spec != nil && spec.Value != "" {
			p.addOpt(Opt{Name: k, Written: k, Value: rest(len(k) + 1), Span: a.Span}, spec)
			return i
		}
		return unknown()
	}
	if strings.HasPrefix(prefix, "--") {
		name, _, hasEq := strings.Cut(prefix, "=")
		if !hasEq {
			return unknown()
		}
		spec := p.spec.optIndex[name]
		if spec == nil {
			spec = p.abbrev(name, a.Span)
		}
		if spec == nil || spec.Value == "" {
			return unknown()
		}
		p.addOpt(Opt{Name: name, Written: name, Value: rest(len(name) + 1), Span: a.Span}, spec)
		return i
	}
	for j := 1; j < len(prefix); j++ {
		name := prefix[:1] + prefix[j:j+1] // "-x", or a shell's "+x"
		spec := p.spec.optIndex[name]
		if spec == nil {
			return unknown()
		}
		if spec.Value != "" {
			p.addOpt(Opt{Name: name, Written: name, Value: rest(j + 1), Span: a.Span}, spec)
			return i
		}
		p.addOpt(Opt{Name: name, Written: name, Span: a.Span}, spec)
	}
	// The bundle goes on with letters only known at run time.
	return unknown()
}

func (p *argParser) couldBeOption(a Arg, info wordInfo) bool {
	if !p.spec.risky || !info.canDash {
		return false
	}
	if p.spec.Syntax == "long" && a.Dynamic == "glob" && !info.split && a.Pattern != "" {
		return p.spec.dangerousMatch(a.Pattern)
	}
	return true
}

func (p *argParser) gnuLong(i int) int {
	a := p.args[i]
	name, _, hasVal := strings.Cut(a.Value, "=")
	o := Opt{Name: name, Written: name, Span: a.Span}
	spec := p.spec.optIndex[name]
	if spec == nil {
		spec = p.abbrev(name, a.Span)
		if spec == nil {
			if hasVal {
				v := subArg(a, len(name)+1)
				o.Value = &v
			}
			p.addOpt(o, nil)
			return i
		}
	}
	switch {
	case hasVal:
		v := subArg(a, len(name)+1)
		o.Value = &v
		if spec.Value == "" {
			// --flag=x on a flag is a usage error for the program: unknown.
			p.addOpt(o, nil)
			return i
		}
	case spec.Value == "required":
		i = p.takeValue(&o, i)
	}
	p.addOpt(o, spec)
	return i
}

// abbrev resolves a GNU long-option abbreviation. A unique abbreviation of
// a dangerous option is that option; an abbreviation of a safe one is
// reported as unknown, since the program may have an unlisted option of
// exactly that name.
func (p *argParser) abbrev(name string, sp Span) *OptSpec {
	var found *OptSpec
	for _, l := range p.spec.longs {
		if strings.HasPrefix(l, name) {
			o := p.spec.optIndex[l]
			if found != nil && found != o {
				return nil
			}
			found = o
		}
	}
	if found == nil {
		return nil
	}
	for e := range found.effectsAndElse {
		if dangerousEffects[e] {
			return found
		}
	}
	return nil
}

func (p *argParser) gnuShort(i int) int {
	a := p.args[i]
	v := a.Value
	if name, _, eq := strings.Cut(v, "="); eq && len(name) > 2 {
		if spec := p.spec.optIndex[name]; spec != nil && spec.Value != "" {
			// -toolexec=CMD: a whole-word option with its value after "=".
			val := subArg(a, len(name)+1)
			p.addOpt(Opt{Name: name, Written: name, Value: &val, Span: a.Span}, spec)
			return i
		}
	}
	if spec := p.spec.optIndex[v]; spec != nil && len(v) > 2 {
		// A single-dash word the catalog names whole (zip -TT, wget -nv,
		// xxd -cols): that option, not a bundle of letters.
		o := Opt{Name: v, Written: v, Span: a.Span}
		if spec.Value == "required" {
			i = p.takeValue(&o, i)
		}
		p.addOpt(o, spec)
		return i
	}
	if p.spec.NumericOption != "" && isDigits(v[1:]) {
		val := subArg(a, 1)
		p.addOpt(Opt{Name: p.spec.NumericOption, Written: v, Value: &val, Span: a.Span}, p.spec.optIndex[p.spec.NumericOption])
		return i
	}
	for j := 1; j < len(v); j++ {
		name := dashByte[v[j]]
		o := Opt{Name: name, Written: name, Span: letterSpan(a, j)}
		spec := p.spec.optIndex[name]
		if spec == nil {
			p.addOpt(o, nil)
			return i
		}
		if spec.Value != "" {
			if j+1 < len(v) {
				val := subArg(a, j+1)
				o.Value = &val
				o.Span.End = a.Span.End
			} else if spec.Value == "required" {
				i = p.takeValue(&o, i)
			}
			p.addOpt(o, spec)
			return i
		}
		p.addOpt(o, spec)
	}
	return i
}

// letterSpan is the span of the j-th byte of an option cluster: that byte
// when the word is written as its value (no quotes), else the whole word.
func letterSpan(a Arg, j int) Span {
	if a.Span.End-a.Span.Start == len(a.Value) {
		return Span{a.Span.Start + j, a.Span.Start + j + 1}
	}
	return a.Span
}

// shellShort handles a shell's option cluster: "-eu", "+x", "-o NAME"
// (see ShellOptionsSpec). Each letter is an option of its own, named with
// the cluster's sign ("+o" unsets what "-o" sets). A letter that takes a
// value takes the next word when the shell does so (bash -oo errexit
// pipefail), else the rest of the word or, at its end, the next word (zsh
// -oerrexit). An unknown letter does not end the cluster: the shell reads
// the letters after it too.
func (p *argParser) shellShort(i int) int {
	a := p.args[i]
	v := a.Value
	next := p.spec.ShellOptions.NextValue
	for j := 1; j < len(v); j++ {
		name := v[:1] + v[j:j+1]
		o := Opt{Name: name, Written: name, Span: letterSpan(a, j)}
		spec := p.spec.optIndex[name]
		if spec == nil {
			p.addOpt(o, nil)
			continue
		}
		if spec.Value == "" {
			p.addOpt(o, spec)
			continue
		}
		if !next && j+1 < len(v) {
			val := subArg(a, j+1)
			o.Value = &val
			o.Span.End = a.Span.End
			p.addOpt(o, spec)
			return i
		}
		if spec.Value == "required" {
			i = p.takeValue(&o, i)
		}
		p.addOpt(o, spec)
		if !next {
			return i
		}
	}
	return i
}

// longOpt handles find-style single-dash words.
func (p *argParser) longOpt(i int) int {
	a := p.args[i]
	v := a.Value
	o := Opt{Name: v, Written: v, Span: a.Span}
	spec := p.spec.optIndex[v]
	if spec == nil {
		if v == "(" || v == ")" || v == "!" || v == "," {
			return i
		}
		p.addOpt(o, nil)
		return i
	}
	if hasString(spec.Effects, EffectCommand) {
		j := i + 1
		for ; j < len(p.args); j++ {
			t := p.args[j]
			if !t.Static() || !hasString(spec.Terminator, t.Value) {
				continue
			}
			// find's "+" ends the command only right after "{}";
			// elsewhere it is an argument (-exec echo + \;).
			if t.Value == "+" && (j == i+1 || p.args[j-1].Value != "{}" || !p.args[j-1].Static()) {
				continue
			}
			break
		}
		if j > i+1 {
			cmdArgs := make([]Arg, 0, j-i-1)
			cmdInfos := make([]wordInfo, 0, j-i-1)
			for _, x := range p.args[i+1 : j] {
				var info wordInfo
				if x.Static() && strings.Contains(x.Value, "{}") {
					// find puts its match where {} is: --pre={} is an
					// option with a value only known at run time.
					info = placeholderInfo(x.Value, "{}")
					x = Arg{Value: x.Value, Dynamic: "find-match", Span: x.Span}
				}
				cmdArgs = append(cmdArgs, x)
				cmdInfos = append(cmdInfos, info)
			}
			p.nested = append(p.nested, nestedCmd{args: cmdArgs, infos: cmdInfos, wrapper: p.root.Name + " " + v, kind: "find-exec", inMatchDir: spec.InMatchDir})
		}
		if j < len(p.args) {
			o.Span.End = p.args[j].Span.End
		} else if j > i+1 {
			o.Span.End = p.args[j-1].Span.End // no terminator: the command runs to the end
		}
		p.addOpt(o, spec)
		return j
	}
	if spec.Value == "required" {
		i = p.takeValue(&o, i)
	}
	p.addOpt(o, spec)
	return i
}

func (p *argParser) keyValue(i int) {
	a := p.args[i]
	k, _, _ := strings.Cut(a.Value, "=")
	v := subArg(a, len(k)+1)
	p.addOpt(Opt{Name: k, Written: k, Value: &v, Span: a.Span}, p.spec.optIndex[k])
}

// subArg is the part of a static argument from byte off on.
func subArg(a Arg, off int) Arg {
	out := Arg{Value: a.Value[min(off, len(a.Value)):], Dynamic: a.Dynamic, Span: a.Span}
	if a.Span.End-a.Span.Start == len(a.Value) {
		out.Span.Start = a.Span.Start + min(off, len(a.Value))
	}
	if !a.Static() && (a.Dynamic == "tilde-assign") {
		if strings.HasPrefix(out.Value, "~/") || out.Value == "~" {
			out.Dynamic, out.Pattern = "tilde", out.Value
		}
	}
	return out
}

// effectiveRoles are the operand roles after options had their say.
func (p *argParser) effectiveRoles() []OperandSpec {
	roles := p.spec.Operands
	if p.roles != nil {
		roles = p.roles
	}
	if p.patternSet && len(roles) > 0 && !roles[0].Repeat {
		if h := roles[0].handler(); h != nil && h.supplied {
			roles = roles[1:]
		}
	}
	return roles
}

// assignRoles gives every operand its role, and records in p.opCarries
// what each carries (catalog carries).
func (p *argParser) assignRoles() {
	roles := p.effectiveRoles()
	ops := p.operands
	if cap(p.opCarries) >= len(ops) {
		p.opCarries = p.opCarries[:len(ops)]
	} else {
		p.opCarries = make([]string, len(ops), len(ops)+2)
	}
	cs := p.opCarries
	// Fixed roles after a repeating one (cp SRC... DEST) belong to the
	// last operands, as the program reads them. A command role is found
	// by scanning forward instead (env NAME=VALUE... COMMAND).
	if k := repeatThenTail(roles); k >= 0 {
		tail := roles[k+1:]
		head := roles[:k]
		if len(ops) >= len(head)+len(tail) {
			for i := range ops {
				ops[i].Role = ""
			}
			n := len(ops) - len(tail)
			assignSeq(ops[:len(head)], head, cs[:len(head)])
			for i := len(head); i < n; i++ {
				assignSeq(ops[i:i+1], roles[k:k+1], cs[i:i+1])
			}
			assignSeq(ops[n:], tail, cs[n:])
			return
		}
	}
	assignSeq(ops, roles, cs)
}

// repeatThenTail returns the index of a repeating role followed only by
// fixed, non-command roles, or -1.
func repeatThenTail(roles []OperandSpec) int {
	k := -1
	for i, r := range roles {
		if r.Repeat {
			if k >= 0 {
				return -1
			}
			k = i
		}
	}
	if k < 0 || k == len(roles)-1 {
		return -1
	}
	for i := range roles[k+1:] {
		r := &roles[k+1+i]
		if h := r.handler(); h != nil && h.runs || r.Optional {
			return -1
		}
	}
	return k
}

// assignSeq gives operands their roles in order, and sets carries[k] to
// what operand k carries in its role.
func assignSeq(ops []Operand, roles []OperandSpec, carries []string) {
	ri := 0
	for k := range ops {
		op := &ops[k]
		op.Role = ""
		carries[k] = ""
		for ri < len(roles) {
			r := roles[ri]
			carries[k] = r.CarriesWhat()
			if r.match == nil {
				op.Role = r.Role
				if !r.Repeat {
					ri++
				}
				break
			}
			if op.Static() && r.match.MatchString(op.Value) || homeMatch(*op, r.match) {
				op.Role = r.Role
				if !r.Repeat {
					ri++
				}
				break
			}
			if r.Repeat || r.Optional {
				carries[k] = ""
				ri++
				continue
			}
			op.Role = r.Role + "!"
			ri++
			break
		}
	}
}

// homeMatch reports whether op is a path under the home directory (~/x,
// $HOME/x, with nothing else dynamic) that re matches both as written and
// as the absolute path it expands to: a role's match holds whatever the
// home directory is (less ~/notes.txt is a file, as less notes.txt is).
func homeMatch(op Operand, re *regexp.Regexp) bool {
	if op.Dynamic != "tilde" && op.Dynamic != "home" || !strings.HasPrefix(op.Pattern, "~") {
		return false
	}
	return re.MatchString(op.Pattern) && re.MatchString("/home/user"+strings.TrimPrefix(op.Pattern, "~"))
}

// maxShifted is the most words that may expand to several whose effect
// on the roles after them is analysed in one segment.
const maxShifted = 32

// appendedRoles are the roles that operands appended after the given ones
// take (xargs input: one or more words), each with whether it fails the
// role's pattern. The first is nil when the program takes no further
// operand.
func (p *argParser) appendedRoles(roles []OperandSpec) []appended {
	return p.shiftedRoles(len(p.operands)-1, roles)
}

// shiftedRoles inserts one, two, ... unknown operands after operand at
// (a word that may expand to several) and returns the roles the inserted
// and the following operands take. It stops at the first count where the
// last operand has no role.
func (p *argParser) shiftedRoles(at int, roles []OperandSpec) []appended {
	saved := p.operands
	var out []appended
	for k := 1; k <= len(roles)+1; k++ {
		ops := make([]Operand, 0, len(saved)+k)
		ops = append(ops, saved[:at+1]...)
		for j := 0; j < k; j++ {
			ops = append(ops, Operand{Arg: Arg{Dynamic: "xargs-input", Span: p.seg.Span}})
		}
		ops = append(ops, saved[at+1:]...)
		p.operands = ops
		p.assignRoles()
		stop := false
		for i := at + 1; i < len(ops); i++ {
			got := p.operands[i].Role
			name, bang := got.Base()
			var r *OperandSpec
			for ri := range roles {
				if roles[ri].Role == name {
					r = &roles[ri]
					break
				}
			}
			if r == nil {
				if k == 1 && i == at+1 {
					out = append(out, appended{})
				}
				stop = true
				break
			}
			inserted := i <= at+k
			out = append(out, appended{r, bang || inserted && r.match != nil})
		}
		if stop {
			break
		}
	}
	p.operands = saved
	p.assignRoles()
	return out
}

type appended struct {
	role     *OperandSpec
	mismatch bool
}

// placeholderInfo is the word information of a word in which a wrapper
// puts its input at run time (find's {}, xargs' -I string): the static
// text before the placeholder is its prefix (--pre={} is the option
// --pre with a dynamic value). find's matches never begin with "-" (a
// start point cannot), so only a prefix can make the word an option.
func placeholderInfo(v, placeholder string) wordInfo {
	before, _, _ := strings.Cut(v, placeholder)
	return wordInfo{prefix: before, prefixSet: true}
}

// xargsReplace is the replace string of xargs -I R or -i[R], or "".
func xargsReplace(opts []Opt) string {
	for _, o := range opts {
		switch o.Name {
		case "-I", "--replace", "-i":
			if o.Value != nil && o.Value.Static() && o.Value.Value != "" {
				return o.Value.Value
			}
			if o.Name != "-I" {
				return "{}"
			}
			return "\x00" // -I with no value: xargs fails
		}
	}
	return ""
}

// dangerousMatch reports whether a glob pattern matches the name of an
// option with a dangerous effect.
func (p *Program) dangerousMatch(pattern string) bool {
	for _, o := range p.Options {
		danger := false
		for _, e := range o.Effects {
			danger = danger || dangerousEffects[e]
		}
		danger = danger || dangerousEffects[o.Else]
		if !danger {
			continue
		}
		for _, n := range o.Names {
			if ok, err := path.Match(pattern, n); ok || err != nil {
				return true
			}
		}
	}
	return false
}

func spanOf(args []Arg) Span {
	return Span{args[0].Span.Start, args[len(args)-1].Span.End}
}

// nestedScript parses a string that a shell will run (bash -c '...').
func (w *walker) nestedScript(a Arg, seg *Segment, c ctx) {
	if !a.Static() {
		w.find("dynamic-script", seg.Name+" runs a script that is only known at run time", a.Span, seg.Index)
		return
	}
	if c.nested+1 > w.cfg.limits.MaxNested {
		w.find("limit-nested", fmt.Sprintf("scripts nest more than %d deep; the rest was not analysed", w.cfg.limits.MaxNested), a.Span, seg.Index)
		return
	}
	// The script is read in the language of the shell that runs it
	// (the catalog's dialect), whatever the outer command's dialect.
	d, own := w.dialect, false
	if spec := w.cfg.cat.LookupIn(seg.Name, w.dialect); spec != nil && hasString(spec.Categories, CategoryShell) {
		switch Dialect(spec.Dialect) {
		case DialectBash, DialectZsh, DialectSh:
			d, own = Dialect(spec.Dialect), true
		default:
			if spec.Dialect != "" || seg.Name != "eval" && seg.Name != "trap" && seg.Name != "emulate" {
				w.find("unknown-dialect", seg.Name+" runs a script in a language shellgate does not read", a.Span, seg.Index)
				return
			}
		}
	}
	if w.zshStandIn && !own {
		// The script is read in the outer command's dialect: zsh's
		// reading of it is not proven the same.
		w.zshReads()
	}
	f, err := parse(a.Value, d.lang())
	if err != nil {
		w.find("parse-error", seg.Name+" cannot parse its script: "+err.Error(), a.Span, seg.Index)
		return
	}
	// A script in its shell's own dialect reads the same in both readings
	// of the outer command: the stand-in does not look inside it.
	savedDialect, savedStandIn := w.dialect, w.zshStandIn
	w.dialect, w.zsh, w.zshStandIn = d, d == DialectZsh, false
	defer func() {
		w.dialect, w.zsh, w.zshStandIn = savedDialect, savedDialect == DialectZsh, savedStandIn
	}()
	savedSrc, savedBase, savedExact, savedOuter := w.src, w.base, w.exact, w.outer
	raw := ""
	if w.exact && a.Span.End <= len(w.r.Command) {
		raw = w.r.Command[a.Span.Start:a.Span.End]
	}
	switch {
	case w.exact && raw == "'"+a.Value+"'":
		w.base = a.Span.Start + 1
	case w.exact && raw == a.Value:
		w.base = a.Span.Start
	case w.exact && raw == "\""+a.Value+"\"":
		w.base = a.Span.Start + 1
	default:
		w.exact = false
		w.outer = a.Span
	}
	if !w.exact && savedExact {
		w.outer = a.Span
	}
	w.src = a.Value
	if strings.IndexByte(a.Value, '#') >= 0 {
		w.checkComments(f)
	}
	saved := w.saveCwd()
	cc := ctx{parent: seg.Index, pipeLen: 1, nested: c.nested + 1, wrappers: appendCopy(c.wrappers, seg.Name),
		subst: c.subst, loop: c.loop, background: c.background, subshell: true,
		function: c.function, stdinFed: c.stdinFed, producer: -1}
	firstRead := len(w.r.Reads)
	w.stmts(f.Stmts, cc)
	w.positionalScope(a, seg, c, firstRead)
	w.restoreCwd(saved)
	w.src, w.base, w.exact, w.outer = savedSrc, savedBase, savedExact, savedOuter
}
