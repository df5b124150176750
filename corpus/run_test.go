package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLay(t *testing.T) {
	base := t.TempDir()
	t.Cleanup(func() { Unlay(base) })
	fx := Fixture{
		{Path: "src/a.go", Kind: KindFile, Content: "package a\n"},
		{Path: "build", Kind: KindDir},
		{Path: "run.sh", Kind: KindFile, Content: "#!/bin/sh\n", Perm: 0o755},
		{Path: "keys", Kind: KindSymlink, Target: "~/.ssh"},
		{Path: "readme", Kind: KindSymlink, Target: "src/a.go"},
		{Path: "~/.ssh/id_rsa", Kind: KindFile, Content: "secret\n"},
		{Path: "locked", Kind: KindDir, Perm: permNone},
	}
	l, err := fx.Lay(base)
	if err != nil {
		t.Fatal(err)
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return "error: " + err.Error()
		}
		return string(b)
	}
	mode := func(p string) os.FileMode {
		st, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode()
	}
	if got := read(filepath.Join(l.Work, "src/a.go")); got != "package a\n" {
		t.Errorf("src/a.go = %q", got)
	}
	if got := read(filepath.Join(l.Work, "keys/id_rsa")); got != "secret\n" {
		t.Errorf("keys/id_rsa through the symlink to ~/.ssh = %q", got)
	}
	if got, _ := os.Readlink(filepath.Join(l.Work, "keys")); got != filepath.Join(l.Home, ".ssh") {
		t.Errorf("keys -> %q, want the fixture home's .ssh", got)
	}
	if got, _ := os.Readlink(filepath.Join(l.Work, "readme")); got != "src/a.go" {
		t.Errorf("readme -> %q, want a relative target kept as written", got)
	}
	if m := mode(filepath.Join(l.Work, "run.sh")); m.Perm() != 0o755 {
		t.Errorf("run.sh mode %v, want 0755", m)
	}
	if m := mode(filepath.Join(l.Work, "locked")); !m.IsDir() || m.Perm() != 0 {
		t.Errorf("locked mode %v, want a directory with mode 0000", m)
	}
	if m := mode(filepath.Join(l.Work, ".git")); !m.IsDir() {
		t.Errorf(".git marker missing: %v", m)
	}
	if got := l.Resolve("~/.ssh/id_rsa"); got != filepath.Join(l.Home, ".ssh", "id_rsa") {
		t.Errorf("Resolve(~/.ssh/id_rsa) = %q", got)
	}
}

func TestLaySharedHome(t *testing.T) {
	base, home := t.TempDir(), t.TempDir()
	seen := map[string]string{}
	a := Fixture{{Path: "~/.netrc", Kind: KindFile, Content: "x"}, {Path: "a", Kind: KindFile, Content: "a"}}
	b := Fixture{{Path: "~/.netrc", Kind: KindFile, Content: "x"}, {Path: "~/other", Kind: KindFile, Content: "o"}}
	c := Fixture{{Path: "~/.netrc", Kind: KindFile, Content: "different"}}
	for i, fx := range []Fixture{a, b} {
		dir := filepath.Join(base, string(rune('a'+i)))
		os.Mkdir(dir, 0o755)
		if _, err := fx.LayShared(dir, home, seen); err != nil {
			t.Fatalf("fixture %d: %v", i, err)
		}
	}
	dir := filepath.Join(base, "c")
	os.Mkdir(dir, 0o755)
	if _, err := c.LayShared(dir, home, seen); err == nil || !strings.Contains(err.Error(), "~/.netrc: another fixture lays it differently") {
		t.Errorf("conflicting home entry: error = %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "other")); err != nil {
		t.Errorf("shared home lacks ~/other: %v", err)
	}
}

func TestCompare(t *testing.T) {
	yes, no := true, false
	got := Outcome{
		Action:     Ask,
		Reasons:    []Reason{{Code: "redirect-write"}, {Code: "not-read-only"}, {Code: "redirect-write"}},
		Reversible: false,
		Reads:      []Read{{Path: "a", Verdict: "ok"}, {Path: "~/.ssh/id_rsa", Verdict: "denied"}},
	}
	for _, tc := range []struct {
		name   string
		expect Expect
		want   []string
	}{
		{"match", Expect{Action: Ask, Reasons: []string{"redirect-write"}, Reversible: &no, Reads: map[string]string{"a": "ok"}}, nil},
		{"action", Expect{Action: Allow}, []string{"action: want allow, got ask"}},
		{"missing reason", Expect{Action: Ask, Reasons: []string{"redirect-write", "find-exec"}}, []string{"reason find-exec: missing"}},
		{"reversible", Expect{Action: Ask, Reversible: &yes}, []string{"reversible: want true, got false"}},
		{"read verdict", Expect{Action: Ask, Reads: map[string]string{"~/.ssh/id_rsa": "ok", "b": "ok"}}, []string{
			"read b: want ok, got no such read",
			"read ~/.ssh/id_rsa: want ok, got denied",
		}},
		{"exit meaning without an interpreter", Expect{Action: Ask, ExitMeaning: &ExitMeaning{Code: 1, Error: &no}}, []string{
			"exit_meaning: the checker cannot interpret exit codes",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := compare(Case{Command: "x", Expect: tc.expect}, got, nil)
			if diff := cmp.Diff(tc.want, p); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
	if got := got.String(); got != "ask [redirect-write not-read-only]" {
		t.Errorf("Outcome.String() = %q", got)
	}
}

func TestDerive(t *testing.T) {
	for _, tc := range []struct{ from, want string }{{Allow, Allow}, {Ask, Deny}, {Deny, Deny}} {
		c := Case{Name: "f.sh:1", Mode: ModeDefault, Command: "x", Expect: Expect{Action: tc.from, ExitMeaning: &ExitMeaning{Code: 1}}}
		d, err := Derive(c, ModeReadonly)
		if err != nil {
			t.Fatal(err)
		}
		if d.Expect.Action != tc.want || d.Mode != ModeReadonly || d.Name != "f.sh:1 [readonly]" || !d.Derived || d.Expect.ExitMeaning != nil {
			t.Errorf("Derive(%s) = %+v", tc.from, d)
		}
	}
	if _, err := Derive(Case{Name: "n", Mode: ModeReadonly}, ModeReadonly); err == nil {
		t.Error("deriving from a readonly case succeeded")
	}
}

func TestSummaryAndFigures(t *testing.T) {
	rs := []Result{
		{Kind: "case", Pass: true, Want: &Expect{Action: Allow}, Got: &Outcome{Action: Allow}},
		{Kind: "case", Pass: false, Want: &Expect{Action: Allow}, Got: &Outcome{Action: Ask}},
		{Kind: "case", Pass: false, Want: &Expect{Action: Deny}, Got: &Outcome{Action: Allow}},
		{Kind: "case", Pass: false, Want: &Expect{Action: Deny}, Got: &Outcome{Action: Ask}},
		{Kind: "case", Pass: false, Want: &Expect{Action: Ask}, Err: "boom"},
		{Kind: "rego", Pass: true},
	}
	if got := Summarize(rs).String(); got != "2 passed, 4 failed" {
		t.Errorf("summary = %q", got)
	}
	want := Figures{ReadOnly: 2, ReadOnlyAllowed: 1, Unsafe: 3, UnsafeAllowed: 1, UnsafeDenied: 2, DeniedAsked: 1}
	if diff := cmp.Diff(want, Measure(rs)); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
}
