package classify

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/benhoyt/goawk/lexer"
	"github.com/benhoyt/goawk/parser"
)

// The awk check parses a program with goawk's parser and reads what it does
// off the syntax tree. goawk keeps its tree in an internal package, so the
// walk goes by reflection over the exported fields of the parsed program:
// every node type it meets must be one awkNodes lists (TestAwkNodeTypes pins
// the list and the fields read to goawk's), and any other fails closed.
//
// goawk parses POSIX awk with few extensions; what the real awk (gawk, mawk,
// busybox) accepts beyond that either fails to parse here (gawk's |&,
// arrays of arrays, its other builtins) or is named below (@ directives,
// SYMTAB), and asks.

// awkASTPackage is the package of goawk's syntax tree types.
const awkASTPackage = "github.com/benhoyt/goawk/internal/ast"

// Bounds on what is parsed: goawk's parser recurses once per nesting
// level, so a long or deeply bracketed program is not parsed at all.
const (
	maxAwkProgram  = 64 << 10
	maxAwkBrackets = 2000
)

// awkNodes are the node types of goawk's syntax tree the walk knows. The
// checks of awkWalk.node read the fields named in awkNodeFields. goawk's
// MultiExpr (print (a, b) while it is parsed) is not left in a parsed
// tree: were one met, the walk would fail closed.
var awkNodes = map[string]bool{
	"Program": true, "Action": true, "Function": true,
	"FieldExpr": true, "NamedFieldExpr": true, "UnaryExpr": true, "BinaryExpr": true,
	"InExpr": true, "CondExpr": true, "NumExpr": true, "StrExpr": true, "RegExpr": true,
	"VarExpr": true, "IndexExpr": true, "AssignExpr": true, "AugAssignExpr": true,
	"IncrExpr": true, "CallExpr": true, "UserCallExpr": true,
	"GetlineExpr": true, "GroupingExpr": true,
	"PrintStmt": true, "PrintfStmt": true, "ExprStmt": true, "IfStmt": true,
	"ForStmt": true, "ForInStmt": true, "WhileStmt": true, "DoWhileStmt": true,
	"BreakStmt": true, "ContinueStmt": true, "NextStmt": true, "NextfileStmt": true,
	"ExitStmt": true, "DeleteStmt": true, "ReturnStmt": true, "BlockStmt": true,
}

// awkNodeFields are the fields (and their kinds) the checks read by name;
// TestAwkNodeTypes holds goawk's types to them.
var awkNodeFields = map[string]map[string]reflect.Kind{
	"Program":       {"Begin": reflect.Slice, "Actions": reflect.Slice, "End": reflect.Slice, "Functions": reflect.Slice},
	"Function":      {"Name": reflect.String, "Params": reflect.Slice},
	"CallExpr":      {"Func": reflect.Int, "Args": reflect.Slice},
	"UserCallExpr":  {"Name": reflect.String, "Args": reflect.Slice},
	"PrintStmt":     {"Redirect": reflect.Int, "Dest": reflect.Interface},
	"PrintfStmt":    {"Redirect": reflect.Int, "Dest": reflect.Interface},
	"GetlineExpr":   {"Command": reflect.Interface, "Target": reflect.Interface, "File": reflect.Interface},
	"StrExpr":       {"Value": reflect.String},
	"VarExpr":       {"Name": reflect.String},
	"IndexExpr":     {"Array": reflect.String},
	"InExpr":        {"Array": reflect.String},
	"ForInStmt":     {"Var": reflect.String, "Array": reflect.String},
	"DeleteStmt":    {"Array": reflect.String},
	"GroupingExpr":  {"Expr": reflect.Interface},
	"AssignExpr":    {"Left": reflect.Interface},
	"AugAssignExpr": {"Left": reflect.Interface},
	"IncrExpr":      {"Expr": reflect.Interface},
}

// awkFinding is one thing an awk program does that is not reading its input.
type awkFinding struct{ code, msg string }

// awkFacts is what an awk program does, read off its parse.
type awkFacts struct {
	// findings holds one finding per code, the first met, in the order met.
	findings []awkFinding
	// reads are the files getline < "file" names as a string literal
	// (the read is awk-read whether or not its name is static).
	reads []string
	// beginOnly is a program of BEGIN blocks alone that never reads its
	// input with a plain getline: awk runs it and exits without reading.
	beginOnly bool
}

// awkScript checks an awk program: system(), pipes, getline from a file or
// command, print/printf redirections, changes to ARGV, ENVIRON, and what
// cannot be parsed.
func (p *argParser) awkScript(a Arg) {
	if !a.Static() {
		p.w.find("dynamic-script", "the awk program is only known at run time", a.Span, p.seg.Index)
		return
	}
	facts := awkCheck(a.Value)
	for _, f := range facts.findings {
		p.w.find(f.code, "awk: "+f.msg, a.Span, p.seg.Index)
	}
	if facts.beginOnly {
		p.noStdin = true // awk 'BEGIN { ... }' exits before reading input
	}
	for _, f := range facts.reads {
		// getline < "file": awk opens the name as written (no ~).
		p.w.r.Reads = append(p.w.r.Reads, pathRef(Arg{Value: f, Span: a.Span}, "script", p.seg.Index, p.seg.Cwd, -1))
		p.w.deviceCheck(Arg{Value: f, Span: a.Span}, p.seg.Cwd, a.Span, p.seg.Index)
	}
}

// awkCheck parses an awk program and returns what it does; a program it
// cannot parse has the one finding awk-unparsed.
func awkCheck(src string) awkFacts {
	prog, why := awkParse(src)
	if prog == nil {
		return awkFacts{findings: []awkFinding{{code: "awk-unparsed", msg: "the program could not be parsed (" + why + "), so what it does is not known"}}}
	}
	w := &awkWalk{seen: map[string]bool{}, alone: map[uintptr]bool{}}
	w.walk(reflect.ValueOf(&prog.ResolvedProgram.Program).Elem())
	if w.unknown != "" {
		return awkFacts{findings: []awkFinding{{code: "awk-unparsed", msg: "the program has syntax the check does not know (" + w.unknown + "), so what it does is not known"}}}
	}
	if w.fileRead {
		w.find("awk-read", "getline < file reads a file chosen by the program")
	}
	p := prog.ResolvedProgram.Program
	beginOnly := len(p.Begin) > 0 && len(p.Actions) == 0 && len(p.End) == 0 && !w.inputGetline
	return awkFacts{findings: w.findings, reads: w.reads, beginOnly: beginOnly}
}

// awkParse parses src with goawk, or says why it did not. goawk stops at a
// NUL byte as at the end of the program, so one is not parsed; nor is a
// program too long or too deeply bracketed to parse in bounded time.
func awkParse(src string) (prog *parser.Program, why string) {
	switch {
	case strings.IndexByte(src, 0) >= 0:
		return nil, "it holds a NUL byte"
	case len(src) > maxAwkProgram:
		return nil, fmt.Sprintf("it is over %d bytes", maxAwkProgram)
	case strings.Count(src, "(")+strings.Count(src, "[")+strings.Count(src, "{") > maxAwkBrackets:
		return nil, fmt.Sprintf("it has over %d brackets", maxAwkBrackets)
	}
	defer func() {
		// goawk recovers its own parse errors; anything else it panics
		// with is a program it could not parse.
		if r := recover(); r != nil {
			prog, why = nil, fmt.Sprint("goawk failed: ", r)
		}
	}()
	prog, err := parser.ParseProgram([]byte(src), nil)
	if err != nil {
		return nil, err.Error()
	}
	return prog, ""
}

// awkWalk visits goawk's syntax tree.
type awkWalk struct {
	findings []awkFinding
	seen     map[string]bool
	reads    []string
	fileRead bool // a getline < file
	// alone are the getline expressions that stand alone (a statement, or
	// in parentheses by themselves): only there do all awks agree on the
	// file's name (busybox reads getline < "a" "b" from "ab", gawk and
	// mawk from "a").
	alone        map[uintptr]bool
	inputGetline bool   // a plain getline, which reads the input
	unknown      string // a node type the walk does not know
}

// walk walks the tree from its root; a panic in reflection (a tree not
// shaped as awkNodeFields says) is syntax the check does not know.
func (w *awkWalk) walk(root reflect.Value) {
	defer func() {
		if r := recover(); r != nil {
			w.unknownThing(fmt.Sprint("the walk failed: ", r))
		}
	}()
	w.value(root)
}

// find records a finding, once per code.
func (w *awkWalk) find(code, msg string) {
	if !w.seen[code] {
		w.seen[code] = true
		w.findings = append(w.findings, awkFinding{code: code, msg: msg})
	}
}

var awkPositionType = reflect.TypeOf(lexer.Position{})

// value walks any value of the tree: nodes, lists of them, and the plain
// fields (names, numbers, tokens, positions) in them.
func (w *awkWalk) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			w.value(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			w.value(v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == awkPositionType {
			return
		}
		w.node(v)
		for i := range v.NumField() {
			w.value(v.Field(i))
		}
	case reflect.String, reflect.Bool, reflect.Int, reflect.Float64:
	default:
		w.unknownThing(v.Type().String())
	}
}

// unknownThing records the first thing in the tree the walk does not know.
func (w *awkWalk) unknownThing(what string) {
	if w.unknown == "" {
		w.unknown = what
	}
}

// node checks one node of the tree.
func (w *awkWalk) node(v reflect.Value) {
	t := v.Type()
	if t.PkgPath() != awkASTPackage || !awkNodes[t.Name()] || !v.CanAddr() {
		w.unknownThing(t.String())
		return
	}
	field := func(name string) reflect.Value { return v.FieldByName(name) }
	switch t.Name() {
	case "CallExpr":
		w.call(lexer.Token(field("Func").Int()), field("Args"))
	case "UserCallExpr":
		args := field("Args")
		for i := range args.Len() {
			// an array is passed by reference: f(ARGV) may change it
			w.argument(args.Index(i))
		}
	case "PrintStmt", "PrintfStmt":
		w.redirect(lexer.Token(field("Redirect").Int()), field("Dest"))
	case "GetlineExpr":
		w.getline(field("Command"), field("Target"), field("File"), w.alone[v.Addr().Pointer()])
	case "ExprStmt", "GroupingExpr":
		if e := field("Expr"); !e.IsNil() && e.Elem().Kind() == reflect.Pointer && e.Elem().Elem().Type().Name() == "GetlineExpr" {
			w.alone[e.Elem().Pointer()] = true
		}
	case "NamedFieldExpr":
		// goawk's @"field"; gawk reads @include "file", @load "lib" and
		// @name() (an indirect call) here
		w.find("awk-exec", "an @ directive loads code or calls a function by name")
	case "VarExpr":
		w.name(field("Name").String())
	case "IndexExpr", "InExpr":
		w.name(field("Array").String())
	case "ForInStmt":
		w.name(field("Array").String())
		w.name(field("Var").String())
		w.changes(field("Var").String())
	case "DeleteStmt":
		w.name(field("Array").String())
		w.changes(field("Array").String())
	case "Function":
		params := field("Params")
		for i := range params.Len() {
			w.name(params.Index(i).String())
		}
	case "AssignExpr", "AugAssignExpr":
		w.lvalue(field("Left"))
	case "IncrExpr":
		w.lvalue(field("Expr"))
	}
}

// call checks a call of a builtin.
func (w *awkWalk) call(fn lexer.Token, args reflect.Value) {
	switch fn {
	case lexer.F_SYSTEM:
		w.find("awk-exec", "system() runs a shell command")
	case lexer.F_SPLIT:
		// split(s, a): the array is filled
		if args.Len() > 1 {
			w.lvalue(args.Index(1))
		}
	case lexer.F_SUB, lexer.F_GSUB:
		// sub(re, repl, target): the target is changed
		if args.Len() > 2 {
			w.lvalue(args.Index(2))
		}
	}
}

// redirect checks where print or printf writes: > and >> write a file,
// | runs a command; no redirection writes to the standard output.
func (w *awkWalk) redirect(op lexer.Token, dest reflect.Value) {
	if dest.IsNil() {
		return
	}
	switch op {
	case lexer.GREATER, lexer.APPEND:
		w.find("awk-write", "print > file writes to a file")
	case lexer.PIPE:
		w.find("awk-exec", "a | pipes to or from a shell command")
	default:
		w.unknownThing("print redirection " + op.String())
	}
}

// getline checks a getline: from a command it runs one, from a file it
// reads one (named when the getline stands alone and the name is a string
// literal without a backslash); a plain getline reads the input.
func (w *awkWalk) getline(command, target, file reflect.Value, alone bool) {
	w.lvalue(target)
	switch {
	case !command.IsNil():
		w.find("awk-exec", "a | pipes to or from a shell command")
	case !file.IsNil():
		w.fileRead = true
		f := file.Elem()
		if alone && f.Kind() == reflect.Pointer && f.Elem().Type().Name() == "StrExpr" {
			if s := f.Elem().FieldByName("Value").String(); s != "" && !strings.ContainsAny(s, "\\\x00") {
				w.reads = append(w.reads, s)
			}
		}
	default:
		w.inputGetline = true
	}
}

// awkNames are variables whose use is a finding: ENVIRON holds the
// environment, gawk's SYMTAB reaches every variable by name (ARGV,
// ENVIRON) and FUNCTAB every function.
var awkNames = map[string]awkFinding{
	"ENVIRON": {code: "env-print", msg: "ENVIRON holds the environment variables, where tokens live"},
	"SYMTAB":  {code: "awk-read", msg: "gawk's SYMTAB reaches ARGV and ENVIRON by name, which is not checked"},
	"FUNCTAB": {code: "awk-exec", msg: "gawk's FUNCTAB reaches functions by name, which is not checked"},
}

// name checks the name of a variable or array the program uses.
func (w *awkWalk) name(n string) {
	if f, ok := awkNames[n]; ok {
		w.find(f.code, f.msg)
	}
}

// changes checks a variable or array the program changes: ARGV and ARGC
// are the files awk reads after BEGIN (and FILENAME names them).
func (w *awkWalk) changes(n string) {
	switch n {
	case "ARGV", "ARGC", "FILENAME":
		w.find("awk-read", "changing "+n+" makes awk read files chosen by the program")
	}
}

// lvalue checks an expression the program assigns to (a variable, an
// array element, or a whole array a builtin fills).
func (w *awkWalk) lvalue(v reflect.Value) {
	for v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return
	}
	switch v.Type().Name() {
	case "VarExpr":
		w.changes(v.FieldByName("Name").String())
	case "IndexExpr":
		w.changes(v.FieldByName("Array").String())
	case "GroupingExpr":
		w.lvalue(v.FieldByName("Expr"))
	}
}

// argument checks an argument to a user function: an array passes by
// reference, so the function may change it.
func (w *awkWalk) argument(v reflect.Value) { w.lvalue(v) }
