package classify

import (
	"slices"
	"strconv"
	"strings"
)

// Role names an operand role: what an operand in that place of a command
// line is to the program (a catalog operand's role, Operand.Role). An
// operand that fails its role's match is reported with the role and a
// trailing "!" ("file!"); Base strips it.
type Role string

// The operand roles the catalog may use. Each has a handler (roleRegistry)
// that says what an operand in the role means.
const (
	RoleFile    Role = "file"    // a file the program reads ("-" is stdin)
	RoleDir     Role = "dir"     // a directory the program lists, not its tree (ls DIR)
	RoleTree    Role = "tree"    // a directory read with everything below it (du DIR)
	RoleWrite   Role = "write"   // a path the program writes (tee FILE)
	RoleDelete  Role = "delete"  // a path the program removes (rm FILE)
	RolePattern Role = "pattern" // a pattern or expression (grep PATTERN)
	RoleScript  Role = "script"  // shell code the program runs (bash -c SCRIPT), judged as a command
	RoleCommand Role = "command" // a command the program runs: this word and all after it (env CMD...)
	RoleText    Role = "text"    // text the program prints or compares (echo TEXT)
	RoleNumber  Role = "number"  // a number (seq N, sleep N)
	RoleAny     Role = "any"     // a word that names no path and runs nothing (a script's arguments)
	RoleName    Role = "name"    // a name to look up (which NAME, type NAME)
	RoleAssign  Role = "assign"  // a NAME=VALUE assignment (env NAME=VALUE... CMD)
	RoleSource  Role = "source"  // a file whose code the program runs (source FILE)
	RoleURL     Role = "url"     // a URL (curl URL)
	RoleExec    Role = "exec"    // a file the program reads to run (python SCRIPT)
	RoleAwk     Role = "awk"     // an awk program, checked as such
	RoleSed     Role = "sed"     // a sed script, checked as such
	RoleJq      Role = "jq"      // a jq program, checked as such
	RoleGitpath Role = "gitpath" // a git revision, REV:PATH or pathspec (git log -- PATH)
	RoleRefspec Role = "refspec" // a ref to update on a remote, [+]SRC[:DST] (git push origin +main): Segment.Pushes
	RoleFormat  Role = "format"  // a printf format, whose numeric conversions zsh reads as arithmetic
)

// Base is the role without the "!" of an operand that failed the role's
// match, and whether it had one.
func (r Role) Base() (Role, bool) {
	if s, ok := strings.CutSuffix(string(r), "!"); ok {
		return Role(s), true
	}
	return r, false
}

// A roleHandler says what an operand in one role means, in the style of
// go/analysis's Analyzer: a value with a name, a doc and the functions the
// argument parser dispatches to. Its flags are the sets of roles that the
// parser and the catalog check treat alike.
type roleHandler struct {
	// Name is the role.
	Name Role
	// Doc says what an operand in the role is.
	Doc string

	// apply records operand k, which has the role, once the segment's
	// words are parsed: the path it reads or writes, the script it
	// checks. Nil: the role names nothing the report tracks.
	apply func(f *finisher, k int, op Operand)
	// late records an operand only known at run time that takes the role:
	// the later words of a word that may expand to several, or the input
	// xargs appends. Nil: nothing to record.
	late func(f *finisher, l *lateOperand)
	// script checks a static program in the role (sed, awk, jq); with
	// valueRole, option values of the role (sed -e) are joined into one
	// script and checked the same way.
	script    func(p *argParser, a Arg)
	valueRole bool

	// carries is what an operand in the role carries unless the catalog
	// says otherwise (OperandSpec.Carries).
	carries string
	// file: an operand in the role is a path read as a file, so the
	// program does not read stdin for want of one.
	file bool
	// runs: the role runs what it holds (a command or a script): the
	// program's option set is risky, and no fixed role after a repeating
	// one can be assigned from the end.
	runs bool
	// supplied: an option of effect pattern (grep -e) supplies the
	// operand in this role, which then is not expected.
	supplied bool
	// writes: an operand in the role is written.
	writes bool
	// expands: a word that may expand to several matters when its later
	// words reach the role (they are written, or run): the later words of
	// every such word are analysed.
	expands bool
}

// readRole is how an operand in a role that reads a path is read.
type readRole struct {
	dir     bool // a directory: "-" is a name, not stdin, and no device is read
	tree    bool // everything below it is read
	lists   bool // under effect lists, it lists the paths read (sha256sum -c)
	sourced bool // its code runs in the program: never read recursively, an exec finding
}

// roleRegistry is every operand role, with its handler. Validate rejects a
// catalog role not listed here; TestRoleRegistry checks that every role the
// embedded catalog uses is.
var roleRegistry = []*roleHandler{
	{Name: RoleFile, Doc: "a file the program reads; \"-\" is stdin", apply: readRole{lists: true}.apply, late: readRole{}.late, file: true},
	{Name: RoleDir, Doc: "a directory the program reads the entries of", apply: readRole{dir: true}.apply, late: readRole{}.late, file: true},
	{Name: RoleTree, Doc: "a directory the program reads with everything below it", apply: readRole{dir: true, tree: true}.apply, late: readRole{tree: true}.late, file: true},
	{Name: RoleSource, Doc: "a file whose code the program runs", apply: readRole{sourced: true}.apply, late: readRole{sourced: true}.late, file: true, carries: CarriesFile},
	{Name: RoleExec, Doc: "a file the program runs as code", apply: readRole{}.apply, late: readRole{}.late, file: true, carries: CarriesFile},
	{Name: RoleGitpath, Doc: "a git revision, REV:PATH or pathspec: the tracked paths git prints", apply: applyGitpath, late: readRole{}.late},
	{Name: RoleWrite, Doc: "a path the program writes", apply: applyWrite, late: lateWrite, writes: true, expands: true},
	{Name: RoleDelete, Doc: "a path the program removes", apply: applyWrite, late: lateWrite, writes: true, expands: true},
	{Name: RoleScript, Doc: "shell code the program runs, judged as a command of its own", apply: applyScript, late: lateCode, runs: true, supplied: true, expands: true, carries: CarriesCode},
	{Name: RoleCommand, Doc: "a command the program runs: this word and the words after it, judged as a segment of its own", late: lateCommand, runs: true, expands: true, carries: CarriesCommand},
	{Name: RoleSed, Doc: "a sed script, checked for commands that write or run", apply: checkWith((*argParser).sedScript), late: lateCode, script: (*argParser).sedScript, valueRole: true, supplied: true, expands: true, carries: CarriesCode},
	{Name: RoleAwk, Doc: "an awk program, checked for statements that write, run or read", apply: checkWith((*argParser).awkScript), late: lateCode, script: (*argParser).awkScript, valueRole: true, supplied: true, expands: true, carries: CarriesCode},
	{Name: RoleJq, Doc: "a jq program, checked for what it reads", apply: checkWith((*argParser).jqProgram), script: (*argParser).jqProgram, carries: CarriesCode},
	{Name: RolePattern, Doc: "a pattern or expression the program matches", supplied: true},
	{Name: RoleText, Doc: "text the program prints or compares"},
	{Name: RoleNumber, Doc: "a number"},
	{Name: RoleAny, Doc: "a word that names no path and runs nothing"},
	{Name: RoleName, Doc: "a name the program looks up"},
	{Name: RoleAssign, Doc: "a NAME=VALUE assignment, set in the environment of the command that follows"},
	{Name: RoleURL, Doc: "a URL"},
	{Name: RoleFormat, Doc: "a printf format: zsh's printf reads the argument of a numeric conversion as arithmetic, where a name is a variable", apply: applyFormat},
	{Name: RoleRefspec, Doc: "a ref to update on a remote, [+]SRC[:DST]: the remote ref DST (else SRC) is updated, forced by a leading \"+\" or an option of effect force (Segment.Pushes)", apply: applyRefspec},
}

// roleHandlers indexes roleRegistry by name; roleCarries is what each
// role carries (the catalog check reads it).
var (
	roleHandlers = map[Role]*roleHandler{}
	roleCarries  = map[Role]string{}
)

func init() {
	for _, h := range roleRegistry {
		roleHandlers[h.Name] = h
		if h.carries != "" {
			roleCarries[h.Name] = h.carries
		}
	}
}

// roleOf is the handler of a role, nil when it has none ("" or unknown).
func roleOf(r Role) *roleHandler { return roleHandlers[r] }

// handler is the handler of the spec's role: the one found when the
// catalog was built, or (a spec not built) looked up.
func (r *OperandSpec) handler() *roleHandler {
	if r.h != nil {
		return r.h
	}
	return roleOf(r.Role)
}

// apply reads an operand in a path role.
func (how readRole) apply(f *finisher, k int, op Operand) {
	w, p, seg := f.w, f.p, f.seg
	f.pathOperands++
	if op.Static() && op.Value == "-" && hasString(p.root.Categories, CategoryNavigate) {
		return // cd - goes back to $OLDPWD
	}
	if op.Static() && isStdin(op.Value) && !how.dir {
		if !p.c.stdinFed {
			w.find("stdin-read", f.name+" reads stdin (\"-\"), which nothing feeds", op.Span, seg.Index)
		}
		if f.mode.lists && how.lists {
			f.listed(op.Value, op.Span)
		}
		return
	}
	if w.pipeWord(op.Arg) {
		// diff <(sort a) <(sort b): a pipe, not a path; what the
		// substitution's commands read is judged with them.
		return
	}
	ref := pathRef(op.Arg, "operand", seg.Index, f.cwd, -1)
	if op.Dynamic == "find-match" || op.Dynamic == "xargs-input" {
		ref.Producer = f.producer
	}
	if op.Dynamic == "command-substitution" && w.loneSplitSubst(op.Span) {
		f.vanishing++
	}
	ref.Recursive = how.tree || f.mode.recursive && !how.sourced
	ref.OptionLike = k < len(p.opInfo) && p.opInfo[k].optPos && p.opInfo[k].canDash
	w.r.Reads = append(w.r.Reads, ref)
	if f.mode.lists && how.lists {
		f.listed(op.Value, op.Span)
	}
	if !how.dir {
		w.deviceCheck(op.Arg, f.cwd, op.Span, seg.Index)
	}
	if how.sourced {
		p.effects = append(p.effects, effectAt{effect: EffectExec, code: "source", doc: "runs the code in " + quote(op.Value), who: f.name, span: op.Span})
	}
}

// late marks the input xargs appends as read; a word that may expand to
// several is read through its own role already.
func (how readRole) late(f *finisher, l *lateOperand) {
	l.read = true
	l.recursive = l.recursive || how.tree
	if how.sourced && l.xargs {
		f.p.effects = append(f.p.effects, effectAt{effect: EffectExec, code: "source", doc: "runs code from files named by its input", who: l.who, span: f.seg.Span})
	}
}

// applyGitpath reads what a git revision or pathspec names.
func applyGitpath(f *finisher, k int, op Operand) {
	w := f.w
	f.pathOperands++
	var info wordInfo
	if k < len(f.p.opInfo) {
		info = f.p.opInfo[k]
	}
	first := len(w.r.Reads)
	w.gitPathRead(op, info, f.seg.Index, f.cwd)
	for i := first; i < len(w.r.Reads); i++ {
		// git grep --no-index DIR reads DIR's tree.
		w.r.Reads[i].Recursive = w.r.Reads[i].Recursive || f.mode.recursive
		w.r.Reads[i].Tracked = f.tracked
		// A pathspec (after --) names what git prints; a word before --
		// may be a revision.
		f.narrowed = f.narrowed || info.afterDashes
	}
	if op.Static() && !info.afterDashes && strings.Contains(op.Value, ":") && !strings.HasPrefix(op.Value, ":/") && len(w.r.Reads) > first {
		// REV:PATH: one blob or tree, read as such. (:/TEXT is a commit;
		// REV: is the whole top tree, which git grep searches.)
		f.narrowed = true
	}
}

// applyWrite records a written (or removed) operand: a path operand all the
// same, so no stdin read and no implicit ".".
func applyWrite(f *finisher, _ int, op Operand) {
	f.pathOperands++
	ref := pathRef(op.Arg, "operand", f.seg.Index, f.cwd, -1)
	if op.Dynamic == "find-match" || op.Dynamic == "xargs-input" {
		// find -exec rm {} +: the paths written come from find.
		ref.Producer = f.producer
	}
	f.w.r.Writes = append(f.w.r.Writes, ref)
}

// applyRefspec records the remote ref a static refspec updates and
// whether the update is forced (a leading "+", or an option of effect
// force). A dynamic one names no ref the report can give.
func applyRefspec(f *finisher, _ int, op Operand) {
	if !op.Static() {
		return
	}
	ref, plus := strings.CutPrefix(op.Value, "+")
	if i := strings.LastIndexByte(ref, ':'); i >= 0 {
		ref = ref[i+1:]
	}
	force := plus
	for _, o := range f.seg.Options {
		if o.Known && hasString(o.Effects, EffectForce) {
			force = true
		}
	}
	f.seg.Pushes = append(f.seg.Pushes, Push{Branch: strings.TrimPrefix(ref, "refs/heads/"), Force: force, Span: op.Span})
}

// applyScript keeps a shell script operand to parse once the segment is
// recorded (bash -c SCRIPT).
func applyScript(f *finisher, _ int, op Operand) {
	f.pathOperands++
	f.p.scripts = append(f.p.scripts, op.Arg)
}

// checkWith applies a program check (sed, awk, jq) to an operand.
func checkWith(check func(p *argParser, a Arg)) func(f *finisher, k int, op Operand) {
	return func(f *finisher, _ int, op Operand) { check(f.p, op.Arg) }
}

func lateWrite(_ *finisher, l *lateOperand) { l.write = true }

func lateCommand(f *finisher, l *lateOperand) { l.runs(f, "dynamic-program", "a command") }

func lateCode(f *finisher, l *lateOperand) { l.runs(f, "dynamic-script", "code") }

// hasFileRole reports whether the roles include a path that is read.
func hasFileRole(roles []OperandSpec) bool {
	for i := range roles {
		if h := roles[i].handler(); h != nil && h.file {
			return true
		}
	}
	return false
}

// applyFormat checks a printf format (operand k) in zsh: its printf reads
// the argument of every numeric conversion (%d, %x, %f, ...) as an
// arithmetic expression, so a word there that is not a number names a
// variable whose value prints, or shows in the error when it is not a
// number (printf %d AWS_SECRET_ACCESS_KEY; zsh 5.9: "bad math expression:
// ... at `//admin:S3...'"). bash's printf does not. The arguments are
// matched to the conversions in order, the format reused while arguments
// remain; a format not known statically, or with positional (%1$d)
// conversions, makes every argument numeric.
func applyFormat(f *finisher, k int, op Operand) {
	args := f.seg.Operands[k+1:]
	var slots []bool
	known := op.Static()
	if known {
		slots, known = printfSlots(op.Value)
	}
	if known && !slices.Contains(slots, true) {
		return
	}
	if !f.w.zsh {
		if f.w.zshStandIn {
			f.w.zshReads()
		}
		return
	}
	for i, a := range args {
		numeric := !known || len(slots) > 0 && slots[i%len(slots)]
		if numeric && (!a.Static() || !isNumber(strings.TrimPrefix(a.Value, "-")) && !isDecimal(a.Value)) {
			f.w.find("arithmetic-expansion", "in zsh, printf reads the argument of a numeric conversion ("+quote(a.Value)+") as arithmetic, where a name is a variable whose value prints", a.Span, f.seg.Index)
			return
		}
	}
}

// isDecimal reports a decimal number with a fraction or exponent (1.5,
// -2e3): digits, one point, an exponent, signs; no name.
func isDecimal(s string) bool {
	if s == "" || strings.Trim(s, "0123456789.eE+-") != "" || strings.IndexAny(s, "0123456789") < 0 {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// printfSlots lists the arguments a printf format takes, in order: true
// for one read as a number (a numeric conversion, a * width or
// precision), false for %s, %b, %q and %c. ok is false for a format it
// does not follow (a positional %1$d, a conversion cut short).
func printfSlots(format string) (slots []bool, ok bool) {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		if j < len(format) && format[j] == '%' {
			i = j
			continue
		}
		for j < len(format) && strings.IndexByte("-+ #0123456789.*'$", format[j]) >= 0 {
			switch format[j] {
			case '$':
				return nil, false
			case '*':
				slots = append(slots, true)
			}
			j++
		}
		if j >= len(format) {
			return nil, false
		}
		switch format[j] {
		case 's', 'b', 'q', 'c':
			slots = append(slots, false)
		default:
			slots = append(slots, true)
		}
		i = j
	}
	return slots, true
}
