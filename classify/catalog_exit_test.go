package classify

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCatalogValidateRejectsFacts feeds catalogs with malformed exit,
// exit_status and traits fields: each must fail with an error that names
// the offending part.
func TestCatalogValidateRejectsFacts(t *testing.T) {
	const head = "programs:\n  - name: foo\n    options:\n      - names: [--quiet, -q]\n"
	tests := []refusedCatalog{
		{"status 0", head + "    exit: {0: fine}\n", []string{"foo", `exit: "0" is not within 1-255`}},
		{"status 256", head + "    exit: {256: big}\n", []string{"foo", `"256" is not within 1-255`}},
		{"status not a number", head + "    exit: {one: x}\n", []string{"foo", `exit: "one" is not a status or a range N-M`}},
		{"range backwards", head + "    exit: {5-2: x}\n", []string{"foo", `"5-2" is not within 1-255`}},
		{"range half", head + "    exit: {5-: x}\n", []string{"foo", `"5-" is not a status or a range`}},
		{"leading zero", head + "    exit: {01: x}\n", []string{"foo", `"01" is not a status`}},
		{"blank message", head + "    exit: {1: {message: \" \"}}\n", []string{"foo", "exit 1: no message"}},
		{"no message", head + "    exit: {1: {error: true}}\n", []string{"foo", "exit 1: no message"}},
		{"unknown key", head + "    exit: {1: {message: x, severity: 3}}\n", []string{"field severity not found in exit meaning"}},
		{"sequence", head + "    exit: {1: [x]}\n", []string{"an exit meaning is a message or a mapping"}},
		{"when unknown option", head + "    exit: {1: {message: x, when: [--loud]}}\n", []string{"foo", `exit 1: when: "--loud" is not an option`}},
		{"overlap", head + "    exit: {1-3: x, 2: y}\n", []string{"foo", "statuses 1-3 and 2-2 overlap"}},
		{"overlap with options", head + "    exit: {1: {message: x, when: [-q]}, 1-2: {message: y, when: [--quiet]}}\n", []string{"foo", "overlap"}},
		{"unknown placeholder", head + "    exit: {1: \"{status} failed\"}\n", []string{"foo", "only {code} and {command}"}},
		{"command in message", head + "    exit: {1: \"{command} failed\"}\n", []string{"foo", "{command} belongs in command"}},
		{"command without command", head + "    exit: {1: {message: x, command: it failed}}\n", []string{"foo", "does not name the {command}"}},
		{"unknown exit_status", head + "    exit_status: parent\n", []string{"foo", `unknown exit_status "parent"`}},
		{"exit_status command without a command", head + "    exit_status: command\n", []string{"foo", "exit_status: command on a program that runs no command"}},
		{"legacy exit1", head + "    exit1: No matches\n", []string{"foo", `exit1 is replaced by exit: write exit: {"1": "No matches"}`}},
		{"unknown trait", head + "    traits: [shell, teapot]\n", []string{"foo", `unknown trait "teapot"`}},
		{"subcommand status", "programs:\n  - name: foo\n    subcommands:\n      - name: bar\n        exit: {300: x}\n", []string{"foo bar", `"300" is not within 1-255`}},
	}
	checkRefused(t, tests)
}

// TestExitMeaningOf reads a small catalog's exit meanings: options that
// gate a meaning, ranges, a subcommand's inherited meanings, and a
// meaning with options preferred over one without.
func TestExitMeaningOf(t *testing.T) {
	c, err := ParseCatalog([]byte(`
programs:
  - name: foo
    options:
      - names: [--quiet, -q]
      - names: [--exit-code]
    exit:
      1: {message: Differs, when: [--exit-code, -q]}
      2-4: {message: "Broke ({code})", error: true}
      9: Nine
      9-10: {message: Quiet nine, when: [-q]}
    subcommands:
      - name: bar
        exit: {1: Bar one}
      - name: baz
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	foo := c.Lookup("foo")
	opt := func(name, written string) Opt { return Opt{Name: name, Written: written, Known: true} }
	tests := []struct {
		p    *Program
		code int
		opts []Opt
		want string
	}{
		{foo, 1, nil, "-"},
		{foo, 1, []Opt{opt("--quiet", "-q")}, "Differs"},
		{foo, 1, []Opt{opt("--exit-code", "--exit-code")}, "Differs"},
		{foo, 1, []Opt{{Name: "--exit-code", Written: "--exit-code"}}, "-"}, // not a known option
		{foo, 3, nil, "error: Broke (3)"},
		{foo, 5, nil, "-"},
		{foo, 9, nil, "Nine"},
		{foo, 9, []Opt{opt("--quiet", "--quiet")}, "Quiet nine"},
		{foo, 10, nil, "-"},
		{foo.Sub("bar"), 1, nil, "Bar one"},
		{foo.Sub("bar"), 2, nil, "error: Broke (2)"},
		{foo.Sub("baz"), 1, []Opt{opt("--quiet", "-q")}, "Differs"},
	}
	for _, tt := range tests {
		got := "-"
		if m, ok := tt.p.ExitMeaningOf(tt.code, tt.opts); ok {
			got = m.Message
			if m.Error {
				got = "error: " + got
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %d %v (-want +got):\n%s", tt.p.Name, tt.code, tt.opts, diff)
		}
	}
}

// TestShellDialect checks that the catalog's shell entries (with their
// dialect) name the shells, whatever the spelling of their path.
func TestShellDialect(t *testing.T) {
	c := DefaultCatalog()
	for in, want := range map[string]Dialect{
		"bash": DialectBash, "/bin/bash": DialectBash, "-zsh": DialectZsh, " zsh ": DialectZsh,
		"/usr/bin/zsh": DialectZsh, "sh": DialectSh, "dash": DialectSh, "/bin/dash": DialectSh,
		"ksh": DialectUnknown, "fish": DialectUnknown, "grep": DialectUnknown, "": DialectUnknown,
		"nosuchshell": DialectUnknown,
	} {
		if got := c.ShellDialect(in); got != want {
			t.Errorf("ShellDialect(%q) = %q, want %q", in, got, want)
		}
	}
}
