package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shellgate/shellgate/internal/testenv"
)

// awkDialects are the real awks the check answers for: the program's name
// on PATH and the arguments before the program.
var awkDialects = []struct {
	name string
	argv []string
}{
	{"mawk", []string{"mawk"}},
	{"gawk", []string{"gawk"}},
	{"busybox", []string{"busybox", "awk"}},
}

// awkRealCases are programs run by the real awks under strace in a temp
// dir that holds notes.txt, data.csv, secret.txt and lib.awk. does lists
// what an awk did beyond reading the operands ("exec" for any program it
// ran, "write F", "read F" for files of the dir); by, where the awks
// differ, what each did. A program the check finds nothing in must do
// nothing but read its operands in every awk.
var awkRealCases = []struct {
	prog  string
	files []string
	does  []string
	by    map[string][]string
}{
	{prog: `{ print $1 }`, files: []string{"notes.txt"}},
	{prog: `BEGIN { FS = "," } { s += $2 } END { print s }`, files: []string{"data.csv"}},
	{prog: `NR == 1`, files: []string{"notes.txt", "data.csv"}},
	{prog: `!seen[$0]++`, files: []string{"notes.txt"}},
	{prog: `/system/ { print "system(1) | sh > x" }`, files: []string{"notes.txt"}},
	{prog: "# system(\"touch pwned\")\n{ print }", files: []string{"notes.txt"}},
	{prog: `{ a = $1 / 2; b = a / 3 } END { print a, b }`, files: []string{"data.csv"}},
	{prog: `BEGIN { fflush(); close("x") } 1`, files: []string{"notes.txt"}},
	{prog: `{ print ARGV[1], ARGC, FILENAME }`, files: []string{"notes.txt"}},
	{prog: `{ while ((getline line) > 0) n++ } END { print n }`, files: []string{"notes.txt"}},
	{prog: `function f(x) { return x * 2 } BEGIN { print f(2) }`},
	{prog: `BEGINFILE { print FILENAME } 1`, files: []string{"notes.txt"}},
	{prog: `{ printf "%s %d\n", toupper($0), length($0) }`, files: []string{"notes.txt"}},
	{prog: `{ print > "/dev/stderr" }`, files: []string{"notes.txt"}},
	// /[/]/ runs in every awk; goawk does not parse it, so it asks
	{prog: `/[/]/`, files: []string{"notes.txt"}},

	{prog: `BEGIN { system("touch pwned") }`, does: []string{"exec", "write pwned"}},
	{prog: `{ print > "out.txt" }`, files: []string{"notes.txt"}, does: []string{"write out.txt"}},
	{prog: `{ print >> "out.txt" }`, files: []string{"notes.txt"}, does: []string{"write out.txt"}},
	{prog: `{ print | "cat" }`, files: []string{"notes.txt"}, does: []string{"exec"}},
	{prog: `BEGIN { "date" | getline d }`, does: []string{"exec"}},
	{prog: `BEGIN { while ((getline l < "secret.txt") > 0) n++ }`, does: []string{"read secret.txt"}},
	{prog: `BEGIN { ARGV[1] = "secret.txt"; ARGC = 2 } 1`, does: []string{"read secret.txt"}},
	{prog: `BEGIN { split("secret.txt", ARGV, " "); ARGC = 2 } 1`, does: []string{"read secret.txt"}},
	{prog: `function f(a) { a[1] = "secret.txt" } BEGIN { f(ARGV); ARGC = 2 } 1`, does: []string{"read secret.txt"}},
	// getline < "a" "b": gawk and mawk open "a", busybox "ab" (so the
	// check names neither); every awk decodes \x2f
	{prog: `BEGIN { getline < "secret" ".txt" }`, by: map[string][]string{
		"mawk": {"read secret"}, "gawk": {"read secret"}, "busybox": {"read secret.txt"},
	}},
	{prog: `BEGIN { getline < "\x73ecret.txt" }`, does: []string{"read secret.txt"}},
	// gawk only: the others refuse the program (and do nothing)
	{prog: `@include "lib.awk"`, by: map[string][]string{"gawk": {"exec", "read lib.awk", "write pwned"}}},
	{prog: `BEGIN { print "x" |& "cat"; close("cat") }`, by: map[string][]string{"gawk": {"exec"}}},
}

// straceLine matches an execve or an open in strace -f's output.
var straceLine = regexp.MustCompile(`^(?:\[pid +\d+\] |\d+ +)?(execve|openat|open|creat)\((?:AT_FDCWD, )?"([^"]*)"(?:, ([A-Z_|]+))?`)

// straceWrites matches the open flags of a write.
var straceWrites = regexp.MustCompile(`O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND`)

// TestAwkRealDialects runs awkRealCases with the real mawk, gawk and
// busybox awk under strace: what the check finds nothing in only reads its
// operands, and what it finds something in really does what is listed.
func TestAwkRealDialects(t *testing.T) {
	strace := testenv.LookPath(t, "strace")
	for _, d := range awkDialects {
		t.Run(d.name, func(t *testing.T) {
			bin := testenv.LookPath(t, d.argv[0])
			for _, tc := range awkRealCases {
				dir := t.TempDir()
				for name, content := range map[string]string{
					"notes.txt": "alpha 1\nbeta 2\n", "data.csv": "a,1\nb,2\n",
					"secret.txt": "token\n", "lib.awk": "BEGIN { system(\"touch pwned\") }\n",
				} {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				trace := filepath.Join(dir, ".trace")
				args := append([]string{"-f", "-qq", "-o", trace, "-e", "trace=execve,open,openat,creat", bin}, d.argv[1:]...)
				args = append(append(args, tc.prog), tc.files...)
				cmd := exec.Command(strace, args...)
				cmd.Dir = dir
				cmd.Run() // a program an awk refuses exits non-zero: what it did is in the trace
				out, err := os.ReadFile(trace)
				if err != nil {
					t.Fatal(err)
				}
				did := awkTraceEffects(string(out), tc.files)
				want := tc.does
				if tc.by != nil {
					want = tc.by[d.name]
				}
				if diff := cmp.Diff(want, did); diff != "" {
					t.Errorf("%s %q %v (-want +got):\n%s", d.name, tc.prog, tc.files, diff)
				}
				checked := awkCheck(tc.prog)
				if len(checked.findings) == 0 && len(did) > 0 {
					t.Errorf("%s %q: the check finds nothing, but the awk did %v", d.name, tc.prog, did)
				}
			}
		})
	}
}

// awkTraceEffects reads strace's output: "exec" when a program past the
// first ran, "write F" for a file of the dir opened to write, "read F" for
// one read that is not an operand (absolute paths are the system's).
func awkTraceEffects(trace string, operands []string) []string {
	var did []string
	execs := 0
	for _, line := range strings.Split(trace, "\n") {
		m := straceLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		call, path, flags := m[1], m[2], m[3]
		if call == "execve" {
			execs++
			continue
		}
		if filepath.IsAbs(path) || path == "." {
			continue
		}
		if call == "creat" || straceWrites.MatchString(flags) {
			did = append(did, "write "+path)
		} else if !slices.Contains(operands, path) {
			did = append(did, "read "+path)
		}
	}
	if execs > 1 {
		did = append(did, "exec")
	}
	sort.Strings(did)
	return slices.Compact(did)
}

// awkHiddenContexts are what may stand before a "/" in an awk program:
// after some goawk reads a regexp, after others a division. Each is tried
// as "CTX /1; system(...); x = 1/ 1", where a regexp would hide the call.
var awkHiddenContexts = []string{
	"x = length", "x = length()", "getline", "x = getline", "getline x", "x = 1 in a",
	"x = $", "print", "printf", "x = (1)", "x = a[1]", "x = NF", "x = 1", "x = !", "x = -",
	"x = 1,", "x = a++", `x = "s"`, "x = y", "close", "x = /a/", "x = 1 ~", "if (1)",
	"x = 1 ?", "x = 1 ? 2 :", "getline <", `"c" | getline`, "x = 1 <", "print 1 >",
	"x = f()", "x = 1e", "x = 0x", "x = srand", "x = rand()", "exit", "delete a", "}{",
	"x = a[1]++", "print(1)", "n = split(s, a)", "return",
}

// awkHiddenPrograms hide a call where a lexer could go wrong: escapes,
// line continuations, comments, carriage returns and other blanks.
var awkHiddenPrograms = []string{
	`BEGIN { x = "a\"; system("touch pwned"); y = "" }`,
	"BEGIN { x = \"a\\\n\"; system(\"touch pwned\"); y = \"\" }",
	"BEGIN { x = \"a\\\r\n\"; system(\"touch pwned\"); y = \"\" }",
	"BEGIN { x = 1 # c \\\nsystem(\"touch pwned\") }",
	"BEGIN { x = 1 # c \rsystem(\"touch pwned\") }",
	"BEGIN { x = 1 }\r system(\"touch pwned\")",
	`BEGIN { x = /a\/; system("touch pwned"); y = /; }`,
	`BEGIN { x = /[\/]; system("touch pwned"); y = /; }`,
	`BEGIN { x = /[[:alpha:]/]; system("touch pwned"); y = /; }`,
	"BEGIN { x = /a\\\n/; system(\"touch pwned\") }",
	`BEGIN { x = "\x22; system(\x22touch pwned\x22); y = \x22" }`,
	"BEGIN { x = 1 }\\\n\n BEGIN { system(\"touch pwned\") }",
	"BEGIN { x = 1 }\f BEGIN { system(\"touch pwned\") }",
	"BEGIN { x = 1 }\v BEGIN { system(\"touch pwned\") }",
	"BEGIN\n{ system(\"touch pwned\") }",
	"BEGIN { x = 1; \\\n system(\"touch pwned\") }",
	`BEGIN { print("a")("b") > "pwned" }`,
	`BEGIN { print 1, 2 > "pwned" "" }`,
	`BEGIN { "touch pwned" | getline > 0 }`,
	`BEGIN { a = "touch pwned"; a | getline }`,
}

// TestAwkHiddenCode runs programs that hide a call from a lexer that goes
// wrong with the real awks: a program the check finds nothing in must not
// make any of them run the call (it would leave the file pwned).
func TestAwkHiddenCode(t *testing.T) {
	progs := slices.Clone(awkHiddenPrograms)
	for _, c := range awkHiddenContexts {
		progs = append(progs, `function f() { return 1 } BEGIN { `+c+` /1; system("touch pwned"); x = 1/ 1 }`)
	}
	for _, d := range awkDialects {
		t.Run(d.name, func(t *testing.T) {
			bin := testenv.LookPath(t, d.argv[0])
			ran := 0
			for _, prog := range progs {
				dir := t.TempDir()
				cmd := exec.Command(bin, append(slices.Clone(d.argv[1:]), prog)...)
				cmd.Dir = dir
				cmd.Run() // most of these programs are refused by some awk
				if _, err := os.Stat(filepath.Join(dir, "pwned")); err != nil {
					continue
				}
				ran++
				if f := awkCheck(prog); len(f.findings) == 0 {
					t.Errorf("%s ran the hidden call of %q, which the check finds nothing in", d.name, prog)
				}
			}
			if ran == 0 {
				t.Errorf("%s ran none of the calls: the test proves nothing", d.name)
			}
		})
	}
}
