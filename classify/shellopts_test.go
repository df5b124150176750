package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/internal/testenv"
)

// shellOptionCases are nested shells given options on their command line
// and option-setting builtins in their scripts, read as bash (dialect ""),
// or as zsh ("zsh"). Only the options the catalog proves harmless keep a
// command reversible (TestConfirmShellOptions runs each in the real shell);
// any other, set or unset, glued or clustered, static or not, is a
// set-option finding that names it.
var shellOptionCases = []struct {
	in, dialect, want string
}{
	// bash -o keyword turns a NAME=VALUE word anywhere into an assignment.
	{in: "bash -o keyword -c 'git status' GIT_DIR=x", want: "not reversible: set-option 6-15"},
	{in: "bash -o keyword -c 'git log GIT_DIR=/tmp/x'", want: "not reversible: set-option 6-15"},
	{in: "bash +o keyword -c 'git status'", want: "not reversible: set-option 6-15"},
	{in: "bash -ko keyword -c 'git status'", want: "not reversible: set-option 6-7 set-option 7-16"},
	{in: "bash -kc 'git status' GIT_DIR=x", want: "not reversible: set-option 6-7"},
	{in: "bash -k -c 'git status' GIT_DIR=x", want: "not reversible: set-option 6-7"},
	// bash's -o takes the next word even inside a cluster, and the
	// letters glued to it are options: -oerrexit is -o, -e, -r, -r, -e,
	// -x, -i (interactive: ~/.bashrc runs), -t.
	{in: "bash -oerrexit keyword -c 'git status'", want: "not reversible: set-option 6-22 set-option 8-9 set-option 9-10 shell-startup 12-13 set-option 13-14"},
	{in: "bash -oe errexit -c ls", want: "reversible"},
	{in: "bash -oo errexit pipefail -c ls", want: "reversible"},
	{in: "bash -oo errexit keyword -c ls", want: "not reversible: set-option 7-24"},
	{in: "bash -c -o keyword 'git status'", want: "not reversible: set-option 9-18"},
	{in: "bash -c 'git status' -o keyword", want: "reversible"}, // $0 and $1 of the script
	{in: "bash -O extglob -c ls", want: "not reversible: set-option 6-15"},
	{in: "bash +O extglob -c ls", want: "not reversible: set-option 6-15"},
	{in: "bash -a -c ls", want: "not reversible: set-option 6-7"},
	{in: "bash +B -c 'ls {a,b}'", want: "not reversible: set-option 6-7"},
	{in: "bash +o interactive-comments -c ls", want: "not reversible: set-option 6-28"},
	{in: "bash --posix -c ls", want: "not reversible: set-option 5-12"},
	{in: "bash --debugger -c ls", want: "not reversible: set-option 5-15"},
	{in: "bash -o posix -c ls", want: "not reversible: set-option 6-13"},
	{in: "bash -o \"$O\" -c ls", want: "not reversible: param-value 9-11 set-option 6-12"},
	{in: "bash -l -c ls", want: "not reversible: shell-startup 6-7"},
	{in: "bash --login -c ls", want: "not reversible: shell-startup 5-12"},
	{in: "bash -i -c ls", want: "not reversible: shell-startup 6-7"},
	{in: "bash --rcfile x -c ls", want: "not reversible: shell-startup 5-15"},
	// The options proven harmless.
	{in: "bash -e -c ls", want: "reversible"},
	{in: "bash -euxo pipefail -c ls", want: "reversible"},
	{in: "bash +e -c ls", want: "reversible"},
	{in: "bash -o errexit -o nounset -c ls", want: "reversible"},
	{in: "bash --norc --noprofile -c ls", want: "reversible"},
	{in: "bash -n script.sh", want: "reversible"},
	{in: "bash -n +n script.sh", want: "not reversible: set-option 9-10"},
	// sh and dash: the same cluster rule as bash.
	{in: "sh -o keyword -c ls", want: "not reversible: set-option 4-13"},
	{in: "dash -oerrexit -c ls", want: "not reversible: set-option 6-17 set-option 8-9 set-option 9-10 shell-startup 12-13 set-option 13-14 source 18-20"},
	{in: "sh -f -c 'ls *'", want: "not reversible: set-option 4-5"},
	{in: "sh -a -c ls", want: "not reversible: set-option 4-5"},
	{in: "sh -eu -c ls", want: "reversible"},
	{in: "dash +x -c ls", want: "reversible"},
	// zsh reads -o's value glued to it; its single letters are options.
	{in: "zsh -o globsubst -c ls", want: "not reversible: set-option 5-16"},
	{in: "zsh -oglobsubst -c ls", want: "not reversible: set-option 5-15"},
	{in: "zsh +o globsubst -c ls", want: "not reversible: set-option 5-16"},
	{in: "zsh -oerrexit -c ls", want: "reversible"},
	{in: "zsh -o shwordsplit -c ls", want: "not reversible: set-option 5-18"},
	{in: "zsh -k -c ls", want: "not reversible: set-option 5-6"},
	{in: "zsh -y -c ls", want: "not reversible: set-option 5-6"},
	{in: "zsh --globsubst -c ls", want: "not reversible: set-option 4-15"},
	{in: "zsh --emulate sh -c ls", want: "not reversible: set-option 4-16"},
	{in: "zsh -l -c ls", want: "not reversible: shell-startup 5-6"},
	{in: "zsh -f -c ls", want: "reversible"},
	{in: "zsh --no-rcs -c ls", want: "reversible"},
	{in: "zsh -o norcs -c ls", want: "reversible"},
	{in: "zsh +o rcs -c ls", want: "reversible"},
	{in: "zsh -eu -c ls", want: "reversible"},
	// Option-setting builtins inside the script, or at the top.
	{in: "bash -c 'set -k; git status GIT_DIR=x'", want: "not reversible: set-option 14-15"},
	{in: "bash -c 'set -o keyword; git status GIT_DIR=x'", want: "not reversible: set-option 14-23"},
	{in: "set -a; ls", want: "not reversible: set-option 5-6"},
	{in: "set +o braceexpand; ls", want: "not reversible: set-option 5-18"},
	{in: "set -ok keyword", want: "not reversible: set-option 5-15 set-option 6-7"},
	{in: "set -e; ls", want: "reversible"},
	{in: "set +ex; ls", want: "reversible"},
	{in: "set -o pipefail; ls", want: "reversible"},
	{in: "set -o", want: "reversible"},
	{in: "shopt -s extglob; ls", want: "not reversible: set-option 7-8"},
	{in: "shopt -u nullglob", want: "not reversible: set-option 7-8"},
	{in: "shopt", want: "reversible"},
	{in: "shopt -p extglob", want: "reversible"},
	{in: "setopt globsubst", dialect: "zsh", want: "not reversible: set-option 7-16"},
	{in: "unsetopt nomatch; ls", dialect: "zsh", want: "not reversible: set-option 9-16"},
	{in: "setopt -k", dialect: "zsh", want: "not reversible: set-option 8-9"},
	{in: "setopt", dialect: "zsh", want: "reversible"},
	{in: "emulate sh", dialect: "zsh", want: "not reversible: set-option 8-10"},
	{in: "emulate", dialect: "zsh", want: "reversible"},
	{in: "zsh -c 'setopt globsubst; ls'", want: "not reversible: set-option 15-24"},
	// A startup file named by the environment of the segment.
	{in: "BASH_ENV=x bash -c ls", want: "not reversible: env-assignment 0-10"},
	{in: "ENV=x sh -i -c ls", want: "not reversible: env-assignment 0-5 shell-startup 10-11"},
	{in: "ZDOTDIR=x zsh -c ls", want: "not reversible: env-assignment 0-9"},
}

func TestShellOptions(t *testing.T) {
	for _, tc := range shellOptionCases {
		d := DialectBash
		if tc.dialect == "zsh" {
			d = DialectZsh
		}
		r := Classify(tc.in, WithDialect(d))
		if diff := diffString(tc.want, verdict(r)); diff != "" {
			t.Errorf("%s: Classify(%q) (-want +got):\n%s", d, tc.in, diff)
		}
		for _, f := range r.Findings {
			if f.Code == "set-option" && !strings.Contains(f.Message, "not proven harmless") && !strings.Contains(f.Message, "changes") && !strings.Contains(f.Message, "reads the script") && !strings.Contains(f.Message, "can change") {
				t.Errorf("%q: set-option %q does not say why", tc.in, f.Message)
			}
		}
	}
}

// TestShellOptionMessage: the finding names the option, value included.
func TestShellOptionMessage(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"bash -o keyword -c 'git status'", "bash -o keyword: "},
		{"bash -k -c ls", "bash -k: "},
		{"zsh +o globsubst -c ls", "zsh +o globsubst: "},
		{"bash -c 'set -o keyword'", "set -o keyword: "},
		{"bash -O extglob -c ls", "bash -O: "},
	} {
		r := Classify(tc.in, WithDialect(DialectBash))
		var got []string
		for _, f := range r.Findings {
			if f.Code == "set-option" {
				got = append(got, f.Message)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
			t.Errorf("Classify(%q): set-option messages %q, want one starting %q", tc.in, got, tc.want)
		}
	}
}

// shellProbe is a script whose output shows how the shell read it:
// brace expansion, globbing, quoting, a comment, a NAME=VALUE word after
// the command name (an assignment under -k), a glob in a parameter's
// value (globbed under zsh's globsubst), word splitting of a parameter,
// and whether an assignment is exported (allexport).
const shellProbe = `show() { printf '<%s>' "$@"; printf ' env=%s\n' "${PROBE_ENV-unset}"; }
show {a,b} *.g "x y" PROBE_ENV=1 # c
x='*.g'; y='p q'; show $x $y
V=1; sh -c 'echo "V=${V-unset}"'
`

// startupFiles write a marker each, in a home the shell is given: a
// startup file that runs shows.
var startupFiles = []string{".bashrc", ".bash_profile", ".profile", ".zshenv", ".zshrc", ".zprofile", ".zlogin", ".envrc-sh"}

// runProbe runs shell with args, then -c shellProbe, in a fresh directory
// and home; it returns the standard output and the startup files that ran.
func runProbe(t *testing.T, shell string, args []string) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	work := filepath.Join(dir, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a.g", "b.g"} {
		if err := os.WriteFile(filepath.Join(work, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	marks := filepath.Join(dir, "marks")
	for _, f := range startupFiles {
		script := "echo " + f + " >> " + marks + "\n"
		if err := os.WriteFile(filepath.Join(home, f), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(shell, append(append([]string{}, args...), "-c", shellProbe)...)
	cmd.Dir = work
	// ENV is what sh and dash read when interactive.
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ENV=" + filepath.Join(home, ".envrc-sh"), "TERM=dumb"}
	out, _ := cmd.Output() // a shell that refuses an option prints nothing: no harm
	var ran []string
	if b, err := os.ReadFile(marks); err == nil {
		ran = strings.Fields(string(b))
		sort.Strings(ran)
	}
	return string(out), ran
}

// harmlessOptions lists, from the catalog, the spellings of program's
// options that keep its command reversible: each flag without an effect
// (not -c, -s and the ones that only print), and -o NAME and +o NAME for
// each NAME its match lists.
func harmlessOptions(t *testing.T, program string) [][]string {
	t.Helper()
	spec := DefaultCatalog().Lookup(program)
	if spec == nil || spec.ShellOptions == nil {
		t.Fatalf("%s: no shell_options in the catalog", program)
	}
	alt := regexp.MustCompile(`^\^\(([a-z_|]+)\)\$$`)
	var out [][]string
	for _, o := range spec.Options {
		for _, n := range o.Names {
			switch {
			case n == "-c" || n == "-s" || n == "--shinstdin" || n == "--version" || n == "--help":
			case len(o.Effects) > 0:
			case o.Value == "" && o.Match == "":
				out = append(out, []string{n})
			case o.Value == "required" && o.Match != "":
				m := alt.FindStringSubmatch(o.Match)
				if m == nil {
					t.Fatalf("%s %s: match %q is not a list of names", program, n, o.Match)
				}
				for _, v := range strings.Split(m[1], "|") {
					out = append(out, []string{n, v})
				}
			}
		}
	}
	return out
}

// TestConfirmShellOptions runs every option the catalog proves harmless
// in the real shell, on a probe that shows how the script was read and
// which startup files ran: each reads the probe as the shell does without
// it (or runs nothing: -n), and runs no startup file the plain shell does
// not. The options the catalog refuses that change the reading are run
// too, so that the probe is seen to tell.
func TestConfirmShellOptions(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real shells")
	}
	for _, sh := range []struct {
		name    string
		program string
		// changing are options the catalog refuses, each of which the
		// probe shows changes the reading or runs a startup file.
		changing [][]string
	}{
		{"bash", "bash", [][]string{{"-o", "keyword"}, {"-k"}, {"-a"}, {"+B"}, {"-f"}, {"-i"}, {"-l"}, {"-oerrexit", "keyword"}, {"-o", "noglob"}}},
		{"dash", "sh", [][]string{{"-a"}, {"-f"}, {"-i"}, {"-l"}, {"-o", "allexport"}}},
		{"zsh", "zsh", [][]string{{"-o", "globsubst"}, {"-o", "shwordsplit"}, {"-y"}, {"-a"}, {"-i"}, {"-l"}, {"-oglobsubst"}, {"--globsubst"}, {"--emulate", "sh"}}},
	} {
		t.Run(sh.name, func(t *testing.T) {
			shell := testenv.LookPath(t, sh.name)
			base, baseRan := runProbe(t, shell, nil)
			if !strings.Contains(base, "<a><b><a.g><b.g><x y><PROBE_ENV=1>") && !strings.Contains(base, "<{a,b}><a.g><b.g><x y><PROBE_ENV=1>") {
				t.Fatalf("%s: the probe reads as %q", sh.name, base)
			}
			opts := harmlessOptions(t, sh.program)
			if len(opts) < 8 {
				t.Fatalf("%s: only %d harmless options found in the catalog", sh.program, len(opts))
			}
			for _, args := range opts {
				cmd := sh.program + " " + strings.Join(args, " ") + " -c ls"
				if r := Classify(cmd, WithDialect(DialectBash)); !r.Reversible {
					t.Errorf("%q is listed as harmless but not reversible: %s", cmd, verdict(r))
				}
				out, ran := runProbe(t, shell, args)
				if out != base && out != "" {
					t.Errorf("%s %q reads the probe differently:\n%s", sh.name, args, cmp.Diff(base, out))
				}
				for _, f := range ran {
					if !contains(baseRan, f) {
						t.Errorf("%s %q runs the startup file %s", sh.name, args, f)
					}
				}
			}
			for _, args := range sh.changing {
				cmd := sh.program + " " + strings.Join(args, " ") + " -c ls"
				if r := Classify(cmd, WithDialect(DialectBash)); r.Reversible {
					t.Errorf("%q is reversible", cmd)
				}
				out, ran := runProbe(t, shell, args)
				if out == base && cmp.Equal(ran, baseRan) {
					t.Errorf("%s %q: the probe does not show what it changes (%q)", sh.name, args, out)
				}
			}
		})
	}
}

// TestConfirmZshenv: zsh -c runs ~/.zshenv (and $ZDOTDIR/.zshenv) before
// its script, a file the home directory controls; -f, --no-rcs, -o norcs
// and +o rcs skip it. (The catalog's zsh entry lists it in hidden_inputs,
// which the read station judges.) bash -c and sh -c run no startup file
// here (bash's BASH_ENV and SSH cases are its own hidden inputs).
func TestConfirmZshenv(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real shells")
	}
	zsh := testenv.LookPath(t, "zsh")
	_, ran := runProbe(t, zsh, nil)
	if diff := cmp.Diff([]string{".zshenv"}, ran); diff != "" {
		t.Errorf("zsh -c runs (-want +got):\n%s", diff)
	}
	for _, args := range [][]string{{"-f"}, {"--no-rcs"}, {"-o", "norcs"}, {"+o", "rcs"}} {
		if _, ran := runProbe(t, zsh, args); len(ran) != 0 {
			t.Errorf("zsh %q -c runs %q", args, ran)
		}
	}
	for _, name := range []string{"bash", "dash"} {
		if _, ran := runProbe(t, testenv.LookPath(t, name), nil); len(ran) != 0 {
			t.Errorf("%s -c runs %q", name, ran)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
