package classify

import (
	"fmt"
	"strings"
)

// finisher works out what a parsed segment does: it gives every operand
// its role and dispatches to the role's handler (roleRegistry), and turns
// the effects of the program, its options and its operands into reads,
// writes, categories and findings through their handlers (effectRegistry).
type finisher struct {
	p   *argParser
	w   *walker
	seg *Segment
	// spec is the spec in force: the default subcommand's when one applies
	// (git stash: push).
	spec *Program
	// name is the program (and subcommand) as messages name it.
	name string
	// roles are the operand roles after options had their say.
	roles []OperandSpec
	// cwd is the directory the program works in (after a cwd option).
	cwd Cwd
	// mode are the flags of the effects before the operands were read.
	mode effectFlags
	// tracked: git prints tracked content; narrowed: a pathspec or
	// REV:PATH narrows what it prints.
	tracked, narrowed bool
	// producer is the segment whose output supplies dynamic operands (the
	// stage before xargs, find for -exec), or -1; dynSource is
	// "xargs-input" under xargs.
	producer  int
	dynSource string
	// pathOperands counts the operands that name a path (or a script).
	pathOperands int
	// vanishing counts those that are an unquoted $(...) alone, which is
	// no word at all when its command prints nothing.
	vanishing int
	// late is the operand only known at run time being recorded.
	late lateOperand
}

// lateOperand is an operand only known at run time that takes a role: the
// later words of a word that may expand to several, or (xargs) the input
// xargs appends. A role's late handler records in it what the role makes
// of such an operand.
type lateOperand struct {
	xargs bool
	// word is the word that may expand to several (not under xargs).
	word Operand
	// who names the operand in the effects it adds.
	who string
	// read, recursive and write: the operand is read (as a tree), written.
	read, recursive, write bool
}

// runs reports that the operand runs as what (a command, code).
func (l *lateOperand) runs(f *finisher, code, what string) {
	if l.xargs {
		f.w.find(code, "xargs appends its input to "+f.name+", which runs it as "+what, f.seg.Span, f.seg.Index)
		return
	}
	f.w.find(code, quote(l.word.Value)+" may expand to several words, and "+f.name+" runs the later ones as "+what, l.word.Span, f.seg.Index)
}

// finish works out what the parsed segment does.
func (p *argParser) finish() {
	f := &p.fin // zero: the parser was just set up
	f.p, f.w, f.seg = p, p.w, p.seg
	f.resolve()
	f.describe()
	f.readMode()
	f.codeArgs()
	for k, op := range f.seg.Operands {
		f.operand(k, op)
	}
	for _, h := range roleRegistry {
		if h.valueRole {
			p.scriptValues(h)
		}
	}
	f.keywords()
	f.shifted()
	f.substShifts()
	f.appended()
	after := scan(p.effects)
	switch {
	case after.gitConfig:
		f.w.gitConfigReads(f.seg, f.cwd, "git-config")
	case after.gitConfigValue:
		f.w.gitConfigReads(f.seg, f.cwd, "git-config-value")
	}
	f.implicitReads()
	f.cwdWrites()
	f.stdin(after)
	f.findings()
	if hasString(p.root.Categories, CategoryNavigate) {
		f.w.cd(f.seg, p.c)
	}
	f.xargsWords()
	f.nestedCommands()
	for _, s := range p.scripts {
		f.w.nestedScript(s, f.seg, p.c)
	}
}

// resolve gives the operands their roles and picks the spec in force: a
// program with subcommands given none runs its default one (git stash).
func (f *finisher) resolve() {
	p, seg := f.p, f.seg
	p.assignRoles()
	f.roles = p.effectiveRoles()
	seg.Operands = p.operands
	if len(p.subPath) > 0 {
		seg.Subcommand = strings.Join(p.subPath, " ")
	}
	spec := p.spec
	if !p.stopped && len(spec.Subcommands) > 0 && len(p.subPath) == 0 || !p.stopped && len(spec.Subcommands) > 0 && spec.Default != "" {
		if spec.Default != "" && !p.unsafe && spec.Sub(spec.Default) != nil && (len(p.subPath) == 0 || p.spec == spec) {
			d := spec.Sub(spec.Default)
			if len(p.operands) == 0 {
				seg.Subcommand = strings.TrimSpace(seg.Subcommand + " " + d.Name)
				spec = d
			}
		}
	}
	f.spec = spec
}

// describe records what the program is (categories, repository code, git)
// and the effects it has whatever its options, and reports a program off
// the read-only allowlist.
func (f *finisher) describe() {
	p, seg, spec := f.p, f.seg, f.spec
	for _, c := range p.root.Categories {
		seg.Categories = addCat(seg.Categories, c)
	}
	if spec != p.root {
		for _, c := range spec.Categories {
			seg.Categories = addCat(seg.Categories, c)
		}
	}
	// The program's hidden inputs, then each subcommand's on the way to
	// the spec in force (docker compose's, then docker compose ps's).
	seg.HiddenInputs = append([]HiddenInput(nil), p.root.HiddenInputs...) // nil when none
	cur := p.root
	for _, name := range p.subPath {
		if cur = cur.Sub(name); cur == nil {
			break
		}
		seg.HiddenInputs = append(seg.HiddenInputs, cur.HiddenInputs...)
	}
	if spec != p.root && spec != cur {
		seg.HiddenInputs = append(seg.HiddenInputs, spec.HiddenInputs...)
	}
	seg.RunsGit = p.root.RunsGit || spec.RunsGit
	seg.Helpers = append([]string(nil), p.root.Helpers...) // nil when none
	if spec != p.root {
		seg.Helpers = append(seg.Helpers, spec.Helpers...)
	}
	f.name = p.specName()
	if spec != p.spec {
		f.name += " " + spec.Name // the default subcommand (git stash: push)
	}
	for _, e := range spec.Effects {
		p.effects = append(p.effects, effectAt{effect: e, doc: spec.Doc, who: f.name, span: seg.Span})
	}
	unless := p.root.Unless
	if spec != p.root {
		unless = append(append([]Unless(nil), unless...), spec.Unless...)
	}
	for _, u := range unless {
		given := false
		for _, o := range seg.Options {
			if o.Known && hasString(u.Options, o.Name) {
				given = true
			}
		}
		if !given {
			p.effects = append(p.effects, effectAt{effect: u.Effect, code: u.Code, doc: u.Doc, who: f.name, span: seg.Span})
		}
	}
	if !spec.ReadOnly && !p.unknownSub {
		msg := f.name + " is not on the read-only allowlist"
		if spec.Doc != "" {
			msg += ": " + spec.Doc
		}
		f.w.find("not-read-only", msg, seg.Span, seg.Index)
	}
}

// readMode works out how the operands are read: where, with which effect
// flags, whether git prints tracked content, and who produces dynamic ones.
func (f *finisher) readMode() {
	p := f.p
	f.cwd = f.seg.Cwd
	if p.cwdOpt != nil {
		f.cwd = p.optCwd()
	}
	f.mode = scan(p.effects)
	// git prints tracked content when an option asks for it (log -p), or
	// by default (show, diff, grep) unless an option asks for names or
	// counts instead (diff --stat, grep -l).
	specTracked := hasString(f.spec.Effects, EffectGitTracked)
	optionTracked := f.mode.trackedBy > 1 || f.mode.trackedBy == 1 && !specTracked
	f.tracked = optionTracked || specTracked && !f.mode.gitNames
	f.producer = -1
	switch {
	case p.c.xargs:
		f.producer, f.dynSource = p.c.producer, "xargs-input"
	case p.c.findExec:
		f.producer = f.seg.Parent
	}
}

// listed adds the read of the paths a list names (sha256sum -c LIST):
// what they are is only known when the list is read.
func (f *finisher) listed(path string, sp Span) {
	f.w.r.Reads = append(f.w.r.Reads, PathRef{Path: path, Kind: "dynamic", Dynamic: "files-from",
		Source: "operand", Segment: f.seg.Index, Cwd: f.cwd, Producer: -1, Span: sp})
}

// codeArgs records the operands that carry code in their role.
func (f *finisher) codeArgs() {
	p, seg := f.p, f.seg
	for k, op := range seg.Operands {
		if k < len(p.opCarries) && p.opCarries[k] != "" {
			base, _ := op.Role.Base()
			seg.Code = append(seg.Code, CodeArg{Carries: p.opCarries[k], Via: string(base), Span: op.Span})
		}
	}
}

// roleSpec is the spec of the role among the effective roles, or nil.
func (f *finisher) roleSpec(role Role) *OperandSpec {
	for ri := range f.roles {
		if f.roles[ri].Role == role {
			return &f.roles[ri]
		}
	}
	return nil
}

// operand records operand k: its role's effect, and what its role's
// handler makes of it.
func (f *finisher) operand(k int, op Operand) {
	role, mismatch := op.Role.Base()
	r := f.roleSpec(role)
	if op.Role == "" {
		f.w.find("unexpected-operand", f.name+" does not take the operand "+quote(op.Value)+" in a read-only spelling", op.Span, f.seg.Index)
		return
	}
	if r != nil {
		eff := r.Effect
		if mismatch {
			eff = r.Else
		}
		if eff != "" {
			f.p.effects = append(f.p.effects, effectAt{effect: eff, code: r.codeFor(mismatch), doc: r.Doc, who: f.name + " " + quote(op.Value), span: op.Span})
		}
	}
	var h *roleHandler
	if r != nil {
		h = r.handler()
	} else {
		h = roleOf(role)
	}
	if h != nil && h.apply != nil {
		h.apply(f, k, op)
	}
}

// plain reports whether no role can be reached by the later words of a
// word that may expand to several with any consequence: then they are not
// analysed, which costs time quadratic in the words (grep with thousands
// of globs).
func (f *finisher) plain() bool {
	for i := range f.roles {
		r := &f.roles[i]
		if h := r.handler(); h != nil && h.expands {
			return false
		}
		if r.Effect != "" || r.Else != "" {
			return false
		}
	}
	return true
}

// shifted records what the later words of a word that may expand to
// several (unquoted $x, a glob) do in the roles they reach: uniq *.txt can
// be uniq a.txt b.txt, which writes b.txt.
func (f *finisher) shifted() {
	p, seg := f.p, f.seg
	if f.plain() {
		return
	}
	shifted := 0
	for k := range seg.Operands {
		if k >= len(p.opInfo) || !p.opInfo[k].multi {
			continue
		}
		if shifted++; shifted > maxShifted {
			f.w.find("limit-words", fmt.Sprintf("more than %d words that may expand to several; the rest were not analysed", maxShifted), seg.Operands[k].Span, seg.Index)
			break
		}
		op := seg.Operands[k]
		l := &f.late
		*l = lateOperand{word: op, who: f.name + " " + quote(op.Value) + " (may expand to several words)"}
		for _, a := range p.shiftedRoles(k, f.roles) {
			if a.role == nil {
				break
			}
			eff := a.role.Effect
			if a.mismatch {
				eff = a.role.Else
			}
			if eff != "" {
				p.effects = append(p.effects, effectAt{effect: eff, code: a.role.Code, doc: a.role.Doc, who: l.who, span: op.Span})
			}
			if h := a.role.handler(); h != nil && h.late != nil {
				h.late(f, l)
			}
		}
		own, _ := op.Role.Base()
		if l.write && (roleOf(own) == nil || !roleOf(own).writes) {
			f.w.r.Writes = append(f.w.r.Writes, pathRef(op.Arg, "operand", seg.Index, f.cwd, -1))
		}
	}
}

// appended records what the input xargs appends as operands does: it takes
// the next roles, with their effects, and cannot match a role's pattern.
func (f *finisher) appended() {
	p, seg, spec := f.p, f.seg, f.spec
	if f.dynSource == "" || !p.c.xargsAppend || len(p.nested) != 0 || p.stopped || spec.Stdin == "always" ||
		len(spec.Subcommands) > 0 && len(p.subPath) == 0 {
		return
	}
	l := &f.late
	*l = lateOperand{xargs: true, who: f.name + " (operands from xargs)"}
	for k, a := range p.appendedRoles(f.roles) {
		role := a.role
		if role == nil {
			if k == 0 {
				f.w.find("unexpected-operand", "xargs appends its input to "+f.name+", which takes no such operand in a read-only spelling", seg.Span, seg.Index)
			}
			break
		}
		eff := role.Effect
		if a.mismatch {
			eff = role.Else
		}
		if eff != "" {
			p.effects = append(p.effects, effectAt{effect: eff, code: role.codeFor(a.mismatch), doc: role.Doc, who: l.who, span: seg.Span})
		}
		if h := role.handler(); h != nil && h.late != nil {
			h.late(f, l)
		}
	}
	ref := PathRef{Path: "", Kind: "dynamic", Dynamic: f.dynSource, Source: f.dynSource, Segment: seg.Index, Cwd: f.cwd,
		Producer: f.producer, Span: seg.Span, Recursive: f.mode.recursive || l.recursive}
	if l.read {
		f.w.r.Reads = append(f.w.r.Reads, ref)
		f.pathOperands++
	}
	if l.write {
		ref.Recursive = false
		f.w.r.Writes = append(f.w.r.Writes, ref)
	}
}

// implicitReads adds what git prints of the whole repository, and the
// path a program reads when given none (ls, find, rg: ".").
func (f *finisher) implicitReads() {
	p, seg, spec := f.p, f.seg, f.spec
	outside := p.roles != nil && !hasGitpath(p.roles) // git diff --no-index
	if f.tracked && !f.narrowed && !outside {
		// git prints what the whole repository tracks.
		f.w.r.Reads = append(f.w.r.Reads, PathRef{Path: ".", Kind: "literal", Source: "git-tracked", Segment: seg.Index,
			Cwd: f.cwd, Producer: -1, Span: seg.Span, Repo: true, Tracked: true})
	}
	if f.pathOperands != 0 {
		return
	}
	imp := spec.Implicit
	if imp == "" && p.root.Implicit != "" && spec == p.root {
		imp = p.root.Implicit
	}
	if imp == "" && f.mode.recursive {
		imp = "."
	}
	if imp == "" {
		return
	}
	rec := f.mode.recursive
	for _, r := range f.roles {
		if r.Role == RoleTree {
			rec = true
		}
	}
	f.w.r.Reads = append(f.w.r.Reads, PathRef{Path: imp, Kind: "literal", Source: "implicit", Segment: seg.Index, Cwd: f.cwd, Producer: -1, Span: seg.Span, Recursive: rec})
}

// cwdWrites records the directory a program that writes where it runs
// writes (git clean, git commit: the program or subcommand is of category
// write; tar -x: an option is): the one a cwd option (-C DIR) moves it to
// (several combine: git -C a -C b is a/b), else the one it runs in (cd
// /tmp && tar -xf a.tgz writes /tmp). Only a program that names no path it
// writes: touch, cp and rm write their operands, not their directory.
func (f *finisher) cwdWrites() {
	p, seg, w := f.p, f.seg, f.w
	writesHere := p.writesHere || hasString(p.root.Categories, CategoryWrite) || hasString(f.spec.Categories, CategoryWrite)
	for i := range w.r.Writes {
		if w.r.Writes[i].Segment == seg.Index {
			writesHere = false
		}
	}
	switch {
	case p.cwdOpt != nil && writesHere:
		w.r.Writes = append(w.r.Writes, pathRef(*p.cwdOpt, "cwd-flag", seg.Index, p.cwdBase, -1))
	case writesHere && seg.Cwd.Known && seg.Cwd.Path != ".":
		w.r.Writes = append(w.r.Writes, PathRef{Path: ".", Kind: "literal", Source: "cwd-flag", Segment: seg.Index, Cwd: seg.Cwd, Producer: -1, Span: seg.Span})
	}
}

// stdin works out whether the program reads stdin, and reports a read
// nothing feeds and code run from a fed stdin. fl are the flags of every
// effect.
func (f *finisher) stdin(fl effectFlags) {
	p, seg, spec := f.p, f.seg, f.spec
	stdin := spec.Stdin
	switch {
	case fl.stdin:
		stdin = "always"
	case fl.exec && stdin == "no-operands":
		// python -c CODE, awk -f FILE: the program is already not
		// reversible, and whether it reads stdin depends on the code it
		// runs.
		stdin = ""
	}
	if p.info {
		stdin = "" // --help, --version: prints and exits
	}
	if fl.noStdin && !p.readsInput {
		stdin = "" // jq -n: null input (unless input or inputs reads on)
	}
	if stdin == "no-operands" && p.roles != nil && !hasFileRole(p.roles) {
		// An option replaced the operands with ones that are not files
		// (shuf -i 1-10, shuf -e a b): the input is not stdin.
		stdin = ""
	}
	readsStdin := stdin == "always" || stdin == "no-operands" && f.pathOperands == 0 && !f.mode.recursive && spec.Implicit == ""
	if f.mode.lists && readsStdin {
		f.listed("-", seg.Span) // cat SUMS | sha256sum -c: stdin is the list
	}
	if !p.c.stdinFed && !p.unsafe && readsStdin && !p.noStdin {
		f.w.find("stdin-read", f.name+" reads stdin, which nothing feeds: it would wait for input", seg.Span, seg.Index)
	}
	if stdin == "no-operands" && f.pathOperands > 0 && f.pathOperands == f.vanishing && !f.mode.recursive && spec.Implicit == "" &&
		!p.c.stdinFed && !p.unsafe && !p.noStdin {
		// cat $(find . -name '*.md'): no match, no operand, and cat
		// reads the shell's stdin.
		f.w.find("stdin-read", f.name+" reads stdin when the substitution prints nothing, which nothing feeds: it would wait for input (add < /dev/null)", seg.Span, seg.Index)
	}
	if p.c.stdinFed && readsStdin && !p.info && (hasString(p.root.Categories, CategoryShell) || hasString(p.root.Categories, CategoryExec)) {
		f.w.find("stdin-script", f.name+" runs the code it reads from stdin, which is not checked", seg.Span, seg.Index)
	}
}

// findings turns every effect into its finding and category.
func (f *finisher) findings() {
	seg := f.seg
	for _, e := range f.p.effects {
		h := effectHandlers[e.effect]
		if h != nil && h.category != "" {
			seg.Categories = addCat(seg.Categories, h.category)
		}
		code := e.code
		if code == "" && h != nil {
			code = h.code
		}
		if code == "" || h != nil && h.silent {
			continue
		}
		msg := e.who
		if e.doc != "" {
			msg += ": " + e.doc
		}
		f.w.find(code, msg, e.span, seg.Index)
	}
	if f.spec.ReadOnly && len(seg.Categories) == 0 {
		seg.Categories = []Category{CategoryRead}
	}
}

// xargsWords reports what the input xargs appends to the command line
// could become: the subcommand, or an option of a program that has
// dangerous ones.
func (f *finisher) xargsWords() {
	p, seg, spec := f.p, f.seg, f.spec
	if !p.c.xargs || !p.c.xargsAppend || len(p.nested) != 0 || p.stopped {
		return
	}
	switch {
	case len(spec.Subcommands) > 0 && len(p.subPath) == 0:
		f.w.find("dynamic-subcommand", "xargs appends its input to "+f.name+", so the subcommand is only known at run time", seg.Span, seg.Index)
	case spec.risky && !p.endOpts:
		f.w.find("dynamic-argument", "xargs appends its input to "+f.name+", where it could become an option that writes or runs code", seg.Span, seg.Index)
	}
}

// nestedCommands records the commands the program runs (a wrapper's, xargs',
// find -exec's) as segments of their own.
func (f *finisher) nestedCommands() {
	p, seg, w := f.p, f.seg, f.w
	for _, n := range p.nested {
		cc := p.c
		cc.parent = seg.Index
		cc.wrappers = appendCopy(p.c.wrappers, n.wrapper)
		if n.kind != "wrapper" {
			cc.xargs, cc.xargsAppend, cc.findExec = false, false, false
		}
		switch n.kind {
		case "xargs":
			cc.xargs, cc.stdinFed = true, true
			cc.producer = p.c.producer
			if r := xargsReplace(seg.Options); r != "" {
				// -I R: every R in the command becomes an input line.
				for k, a := range n.args {
					if a.Static() && strings.Contains(a.Value, r) {
						n.args[k] = Arg{Value: a.Value, Dynamic: "xargs-input", Span: a.Span}
						pi := placeholderInfo(a.Value, r)
						n.infos[k].canDash = strings.HasPrefix(a.Value, r)
						n.infos[k].prefix, n.infos[k].prefixSet = pi.prefix, true
					}
				}
			} else {
				cc.xargsAppend = true
			}
		case "find-exec":
			cc.findExec = true
		}
		if len(n.args) == 0 {
			continue
		}
		switch {
		case n.inMatchDir:
			// find -execdir: the command runs in each match's directory;
			// its {} is still the match.
			saved := w.saveCwd()
			w.st.cwd = Cwd{}
			w.segment(n.args, n.infos, n.assigns, cc, spanOf(n.args))
			w.restoreCwd(saved)
		case n.kind == "wrapper" && p.cwdOpt != nil:
			// env -C DIR runs the command in DIR, in a child process.
			saved := w.saveCwd()
			w.st.cwd = p.optCwd()
			w.segment(n.args, n.infos, n.assigns, cc, spanOf(n.args))
			w.restoreCwd(saved)
		default:
			w.segment(n.args, n.infos, n.assigns, cc, spanOf(n.args))
		}
	}
}
