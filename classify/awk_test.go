package classify

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/benhoyt/goawk/parser"
	"github.com/google/go-cmp/cmp"
)

// awkEveryNode is a program with a node of every type awkNodes lists.
const awkEveryNode = `function f(a, b) { return a[1] + b }
BEGIN { x = 1; x += 2; x++; --x; y = x ? 1 : 2
	if (x) print; else printf "%d\n", x
	for (i = 0; i < 2; i++) continue
	for (k in a) break
	while (0) { }
	do { } while (0)
	delete a[1]; z = (1, 2) in a; s = ($1 ~ /re/) "x"; u = -x; n = f(a, 1); l = length($0)
	getline v < "file"; @"name"
	exit 0 }
{ $2 = 1; getline; nextfile; next }
{ { y = /re/ } }`

// awkTreeTypes returns the struct types met in a parsed program's tree,
// by name, and the names of those of goawk's AST package.
func awkTreeTypes(t *testing.T, src string) (ast map[string]bool, all map[string]reflect.Type) {
	t.Helper()
	prog, err := parser.ParseProgram([]byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	ast, all = map[string]bool{}, map[string]reflect.Type{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Struct:
			if v.Type().PkgPath() == awkASTPackage {
				ast[v.Type().Name()] = true
			}
			all[v.Type().Name()] = v.Type()
			for i := range v.NumField() {
				walk(v.Field(i))
			}
		}
	}
	walk(reflect.ValueOf(&prog.ResolvedProgram.Program).Elem())
	return ast, all
}

// TestAwkNodeTypes pins the reflection over goawk's tree to goawk: every
// type awkNodes lists is met in a parsed program, and every field the checks
// read by name is there with the kind they read. A goawk that renames a type
// or a field fails here (and its unknown types fail closed in the check).
func TestAwkNodeTypes(t *testing.T) {
	seen, types := awkTreeTypes(t, awkEveryNode)
	var missing, extra []string
	for n := range awkNodes {
		if !seen[n] {
			missing = append(missing, n)
		}
	}
	for n := range seen {
		if !awkNodes[n] {
			extra = append(extra, n)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("node types listed but not met: %v; met but not listed: %v", missing, extra)
	}
	// Every type the walk reads fields of, with its fields (met in the
	// program above).
	for name, fields := range awkNodeFields {
		typ, ok := types[name]
		if !ok {
			t.Errorf("%s: not met in the program", name)
			continue
		}
		for f, kind := range fields {
			sf, ok := typ.FieldByName(f)
			if !ok {
				t.Errorf("%s has no field %s", name, f)
				continue
			}
			if sf.Type.Kind() != kind {
				t.Errorf("%s.%s is a %s, the check reads a %s", name, f, sf.Type.Kind(), kind)
			}
		}
	}
}

// TestAwkUnknownNode checks that a type the walk does not know fails closed.
func TestAwkUnknownNode(t *testing.T) {
	type Stranger struct{ Name string }
	w := &awkWalk{seen: map[string]bool{}, alone: map[uintptr]bool{}}
	w.value(reflect.ValueOf([]any{&Stranger{"x"}}))
	if w.unknown == "" {
		t.Fatal("an unknown node type was walked over")
	}
	w = &awkWalk{seen: map[string]bool{}, alone: map[uintptr]bool{}}
	w.value(reflect.ValueOf(map[string]int{}))
	if w.unknown == "" {
		t.Fatal("an unknown kind was walked over")
	}
}

// awkCheckCases are programs and what the check reads off them: the
// finding codes, the files named, and whether it reads its input.
var awkCheckCases = []struct {
	prog      string
	codes     []string
	reads     []string
	beginOnly bool
}{
	{prog: `{ print $1 }`},
	{prog: `BEGIN { print 1 + 2 }`, beginOnly: true},
	{prog: `BEGIN { print "}" } # note`, beginOnly: true},
	{prog: "BEGIN { x = 1 }\nEND { print x }"},
	{prog: `function f(x) { return x } BEGIN { print f(1) }`, beginOnly: true},
	{prog: `BEGIN { getline; print }`},
	{prog: `BEGIN { while ((getline line) > 0) n++ }`},
	{prog: `BEGIN { print length() }`, beginOnly: true},
	// what a hand lexer had to tell apart: strings, regexps, comments, division
	{prog: `/system/ { print "system(1) | sh > x" }`},
	{prog: "# system(1) | sh\n{ print }"},
	{prog: `{ a = $1 / 2; b = a / 3; c = a /2/ 1 }`},
	{prog: `$1 ~ /a|b/ && $2 !~ "x|y" || $3 > 3`},
	{prog: `{ print ($1 > 3) }`},
	{prog: `{ print $1, $2 > $3 }`, codes: []string{"awk-write"}},
	{prog: `{ print > "/dev/stderr" }`, codes: []string{"awk-write"}},
	{prog: `{ printf "%s", $0 >> "log" }`, codes: []string{"awk-write"}},
	{prog: `{ print | "sort" }`, codes: []string{"awk-exec"}},
	{prog: `{ printf("%s\n", $0) | "sh" }`, codes: []string{"awk-exec"}},
	{prog: `BEGIN { "date" | getline d }`, codes: []string{"awk-exec"}, beginOnly: true},
	{prog: `BEGIN { cmd = "id"; while ((cmd | getline x) > 0) n++ }`, codes: []string{"awk-exec"}, beginOnly: true},
	{prog: `{ system($0) }`, codes: []string{"awk-exec"}},
	{prog: `BEGIN { if (0) system("x") }`, codes: []string{"awk-exec"}, beginOnly: true},
	{prog: `function never() { system("x") } { print }`, codes: []string{"awk-exec"}},
	{prog: `BEGIN { fflush(); fflush("x"); close("x") }`, beginOnly: true},
	// getline from a file: read, and named when it is a plain string
	{prog: `BEGIN { getline < "a"; getline x < "b"; while ((getline l < "c") > 0) n++ }`, codes: []string{"awk-read"}, reads: []string{"a", "b", "c"}, beginOnly: true},
	{prog: `BEGIN { getline < f }`, codes: []string{"awk-read"}, beginOnly: true},
	{prog: `BEGIN { getline < "a" "b" }`, codes: []string{"awk-read"}, beginOnly: true},
	{prog: `BEGIN { getline < "a\\b" }`, codes: []string{"awk-read"}, beginOnly: true},
	{prog: `BEGIN { getline line < "/inet/tcp/0/127.0.0.1/80" }`, codes: []string{"awk-read"}, reads: []string{"/inet/tcp/0/127.0.0.1/80"}, beginOnly: true},
	// ARGV and ARGC name the files awk reads after BEGIN
	{prog: `BEGIN { ARGV[1] = "/etc/shadow"; ARGC = 2 } 1`, codes: []string{"awk-read"}},
	{prog: `BEGIN { ARGV[ARGC++] = "x" } 1`, codes: []string{"awk-read"}},
	{prog: `BEGIN { split("x y", ARGV) } 1`, codes: []string{"awk-read"}},
	{prog: `BEGIN { sub(/a/, "b", ARGV[1]) } 1`, codes: []string{"awk-read"}},
	{prog: `BEGIN { getline ARGV[1] < "list" } 1`, codes: []string{"awk-read"}, reads: []string{"list"}},
	{prog: `BEGIN { delete ARGV } 1`, codes: []string{"awk-read"}},
	{prog: `BEGIN { for (ARGC in a) ; } 1`, codes: []string{"awk-read"}},
	{prog: `function f(a) { a[1] = "x" } BEGIN { f(ARGV) } 1`, codes: []string{"awk-read"}},
	{prog: `{ FILENAME = "x" }`, codes: []string{"awk-read"}},
	{prog: `{ print ARGV[1], ARGC, FILENAME; if (1 in ARGV) n++ }`},
	{prog: `{ print ENVIRON["HOME"] }`, codes: []string{"env-print"}},
	{prog: `BEGIN { for (k in ENVIRON) print k }`, codes: []string{"env-print"}, beginOnly: true},
	{prog: `function f(ENVIRON) { } 1`, codes: []string{"env-print"}}, // gawk refuses it
	{prog: `{ x = "ENVIRON" }`},
	// gawk and its dialect: what goawk rejects fails closed, what it
	// parses otherwise than gawk is named
	{prog: `@include "lib.awk"`, codes: []string{"awk-exec"}},
	{prog: `@load "filefuncs"; BEGIN { }`, codes: []string{"awk-exec"}},
	{prog: `BEGIN { f = "system"; @f("x") }`, codes: []string{"awk-unparsed"}},
	{prog: `@namespace "x"; BEGIN { }`, codes: []string{"awk-exec"}},
	{prog: `BEGIN { print "x" |& "sh" }`, codes: []string{"awk-unparsed"}},
	{prog: `BEGIN { "sh" |& getline }`, codes: []string{"awk-unparsed"}},
	{prog: `BEGIN { for (k in SYMTAB) print k }`, codes: []string{"awk-read"}, beginOnly: true},
	{prog: `BEGIN { for (k in FUNCTAB) print k }`, codes: []string{"awk-exec"}, beginOnly: true},
	{prog: `BEGIN { PROCINFO["sorted_in"] = "@ind_str_asc"; print PROCINFO["pid"] }`, beginOnly: true},
	{prog: `BEGINFILE { print FILENAME }`},
	{prog: `{ a[$1][$2] = 1 }`, codes: []string{"awk-unparsed"}},
	{prog: `{ print strftime("%Y") }`, codes: []string{"awk-unparsed"}},
	{prog: `{ print gensub(/a/, "b", "g") }`, codes: []string{"awk-unparsed"}},
	{prog: `{ match($0, /a(b)/, m) }`, codes: []string{"awk-unparsed"}},
	{prog: `{ n = asort(a, ARGV) }`, codes: []string{"awk-unparsed"}},
	// goawk ends a regexp at the first "/", gawk and mawk not inside a
	// bracket expression: a split the check does not follow is unparsed
	{prog: `/[/]/`, codes: []string{"awk-unparsed"}},
	{prog: `/[/]/ { system("x") } /]/`, codes: []string{"awk-unparsed"}},
	// what goawk's lexer ends early: NUL is its end of input
	{prog: "BEGIN { }\x00{ system(\"x\") }", codes: []string{"awk-unparsed"}},
	{prog: "{ print }\r\n", codes: nil},
	// too long or too deep to parse in bounded time
	{prog: "BEGIN { x = " + strings.Repeat("(", maxAwkBrackets+1) + "1" + strings.Repeat(")", maxAwkBrackets+1) + " }", codes: []string{"awk-unparsed"}},
	{prog: "BEGIN { x = 1 }" + strings.Repeat(" ", maxAwkProgram), codes: []string{"awk-unparsed"}},
	// unparsable
	{prog: `{ print $1`, codes: []string{"awk-unparsed"}},
	{prog: `{ ... }`, codes: []string{"awk-unparsed"}},
	{prog: `print`, codes: []string{"awk-unparsed"}},
	{prog: `{ undefined_function(1) }`, codes: []string{"awk-unparsed"}},
	{prog: `{ x = /[/ }`, codes: []string{"awk-unparsed"}},
	{prog: ``},
	// several findings, one per code, in the order met
	{prog: `{ print > "x"; system("y"); print > "z"; getline < "w" }`, codes: []string{"awk-write", "awk-exec", "awk-read"}, reads: []string{"w"}},
}

// TestAwkCheck runs the check on awkCheckCases.
func TestAwkCheck(t *testing.T) {
	for _, tc := range awkCheckCases {
		f := awkCheck(tc.prog)
		var codes []string
		for _, fd := range f.findings {
			codes = append(codes, fd.code)
			if fd.msg == "" {
				t.Errorf("awkCheck(%q): %s has no message", tc.prog, fd.code)
			}
		}
		type got struct {
			Codes, Reads []string
			BeginOnly    bool
		}
		want := got{tc.codes, tc.reads, tc.beginOnly}
		if diff := cmp.Diff(want, got{codes, f.reads, f.beginOnly}); diff != "" {
			name := tc.prog
			if len(name) > 80 {
				name = name[:80] + "…"
			}
			t.Errorf("awkCheck(%q) (-want +got):\n%s", name, diff)
		}
	}
}

// TestAwkUnparsedReason checks that a program that does not parse says so,
// with goawk's reason.
func TestAwkUnparsedReason(t *testing.T) {
	f := awkCheck(`{ print $1`)
	if len(f.findings) != 1 || !strings.Contains(f.findings[0].msg, "could not be parsed (parse error at 1:11") {
		t.Errorf("findings: %+v", f.findings)
	}
	r := Classify(`awk '{ print $1' f`)
	var msgs []string
	for _, fd := range r.Findings {
		msgs = append(msgs, fd.Code+": "+fd.Message)
	}
	if !slices.ContainsFunc(msgs, func(m string) bool {
		return strings.HasPrefix(m, "awk-unparsed: awk: the program could not be parsed")
	}) {
		t.Errorf("findings: %q", msgs)
	}
}

// awkSeeds are the awk programs of the tests, for the fuzz target.
func awkSeeds() []string {
	var out []string
	for _, tc := range awkCheckCases {
		if len(tc.prog) < 4096 {
			out = append(out, tc.prog)
		}
	}
	out = append(out, awkEveryNode)
	for _, c := range awkRealCases {
		out = append(out, c.prog)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// FuzzAwkCheck checks the awk check on any program: no panic, the same
// facts twice, every finding with a code and a message; and a program it
// finds nothing in parses, keeps finding nothing when goawk prints it back
// (the walk saw the whole tree), and run as awk -- 'PROG' f has no awk
// finding in Classify's report.
func FuzzAwkCheck(f *testing.F) {
	for _, s := range awkSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prog string) {
		a := awkCheck(prog)
		if b := awkCheck(prog); !reflect.DeepEqual(a, b) {
			t.Fatalf("awkCheck(%q) is not deterministic: %+v then %+v", prog, a, b)
		}
		for _, fd := range a.findings {
			if fd.code == "" || fd.msg == "" {
				t.Fatalf("awkCheck(%q): a finding without code or message: %+v", prog, fd)
			}
		}
		if len(a.findings) > 0 {
			return
		}
		parsed, why := awkParse(prog)
		if parsed == nil {
			t.Fatalf("awkCheck(%q) found nothing in a program that does not parse: %s", prog, why)
		}
		// goawk's printer does not always print what it parses back
		// ("+ +0" prints as "++0"): only a print that parses is checked.
		if again := awkCheck(parsed.String()); len(again.findings) > 0 && again.findings[0].code != "awk-unparsed" {
			t.Fatalf("awkCheck(%q) found nothing, but in goawk's print of it %q: %+v", prog, parsed.String(), again.findings)
		}
		if strings.ContainsAny(prog, "'\\$`\"") || !utf8Valid(prog) {
			return
		}
		cmd := "awk -- '" + prog + "' f" // -- : a program "-E" is not an option
		if r := Classify(cmd); !r.Reversible && r.Parse.OK {
			for _, fd := range r.Findings {
				if strings.HasPrefix(fd.Code, "awk-") || fd.Code == "env-print" {
					t.Fatalf("Classify(%q): %s though awkCheck found nothing", cmd, fd.Code)
				}
			}
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
