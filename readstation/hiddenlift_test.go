package readstation

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/internal/testenv"
)

// TestHiddenLift: an ignore file's negated pattern makes rg search a
// hidden name it skips otherwise. For each ignore file the real rg says
// whether it prints the hidden cfg/.env, and the station must judge that
// .env whenever rg reads it (it may judge it when rg does not: a part of
// a pattern is matched on its own, a superset).
func TestHiddenLift(t *testing.T) {
	rg := testenv.LookPath(t, "rg")
	tests := []struct {
		name  string
		files map[string]string // below home
		rg    bool              // the real rg prints cfg/.env
		judge bool              // the station judges it
	}{
		{"none", nil, false, false},
		{".ignore !.env", map[string]string{"proj/.ignore": "!.env\n"}, true, true},
		{".rgignore !.env", map[string]string{"proj/.rgignore": "!.env\n"}, true, true},
		{".gitignore !.*", map[string]string{"proj/.gitignore": "!.*\n"}, true, true},
		{"nested .gitignore !.env", map[string]string{"proj/cfg/.gitignore": "# keep it\n!.env\n"}, true, true},
		{"anchored !/cfg/.env (rg 13 does not match it below a path operand)", map[string]string{"proj/.ignore": "!/cfg/.env\n"}, false, true},
		{"a class ![.]env", map[string]string{"proj/.ignore": "![.]env\n"}, true, true},
		{"exclude !.env", map[string]string{"proj/.git/info/exclude": "!.env\n"}, true, true},
		{"a parent's .ignore", map[string]string{".ignore": "!.env\n"}, true, true},
		{"other names only", map[string]string{"proj/.gitignore": ".vscode/*\n!.vscode/settings.json\n!.env.example\n!*.keep\n"}, false, false},
		{"not negated", map[string]string{"proj/.ignore": ".env\n"}, false, false},
		{"an unreadable ignore file", map[string]string{"proj/.ignore": "fifo"}, false, true},
		// The user's git excludes file (redrepo4).
		{"~/.config/git/ignore !.env", map[string]string{".config/git/ignore": "!.env\n"}, true, true},
		{"~/.gitconfig's core.excludesFile !.env", map[string]string{".gitconfig": "[core]\n\texcludesFile = ~/my-ignore\n", "my-ignore": "!.env\n"}, true, true},
		{"~/.config/git/config's core.excludesFile !.env", map[string]string{".config/git/config": "[core]\nexcludesfile=~/my-ignore\n", "my-ignore": "!.env\n"}, true, true},
		{"an absolute core.excludesFile !.env", map[string]string{".gitconfig": "[user]\n  ExcludesFile = $H/my-ignore\n", "my-ignore": "!.env\n"}, true, true},
		{"a quoted core.excludesFile (rg 14 strips the quotes)", map[string]string{".gitconfig": "[core]\n\texcludesFile = \"~/my-ignore\"\n", "my-ignore": "!.env\n"}, false, true},
		{"core.excludesFile not negated", map[string]string{".gitconfig": "[core]\n\texcludesFile = ~/my-ignore\n", "my-ignore": ".env\n!.vscode/settings.json\n"}, false, false},
		{"an unreadable ~/.gitconfig", map[string]string{".gitconfig": "fifo"}, false, true},
	}
	t.Setenv("RIPGREP_CONFIG_PATH", "")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			for p, c := range tc.files {
				full := filepath.Join(f.home, p)
				must(t, os.MkdirAll(filepath.Dir(full), 0o755))
				if c == "fifo" {
					must(t, syscall.Mkfifo(full, 0o644))
					continue
				}
				must(t, os.WriteFile(full, []byte(strings.ReplaceAll(c, "$H", f.home)), 0o644))
			}
			if tc.files["proj/.ignore"] != "fifo" && tc.files[".gitconfig"] != "fifo" {
				cmd := exec.Command(rg, "TOKEN", "cfg")
				cmd.Dir = f.proj
				cmd.Env = []string{"HOME=" + f.home, "PATH=/usr/bin:/bin"}
				out, _ := cmd.CombinedOutput()
				if got := strings.Contains(string(out), "cfg/.env"); got != tc.rg {
					t.Fatalf("the real rg printed cfg/.env: %v, want %v (%s)", got, tc.rg, out)
				}
			}
			b := f.boundary(t, "proj")
			b.Env = EnvMap{"RIPGREP_CONFIG_PATH": "", "XDG_CONFIG_HOME": ""}
			got := f.summary(judge(t, "rg TOKEN cfg", b))
			want := []string{"cfg ok"}
			if tc.judge {
				want = []string{"cfg denied **/.env"}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// FuzzHiddenLift feeds an ignore file's reader any content: nothing
// panics, and a negated pattern whose last part is a plain name (no glob
// character) shows that name, and in upper case when it is ASCII (the
// reader errs towards showing, never away from it).
func FuzzHiddenLift(f *testing.F) {
	for _, s := range []string{"!.env\n", "# c\n!/cfg/.env\r\n", "!.*\n", "![\n", "!**/.secret\n!a/[!b]c\n", "\xff!\x00"} {
		f.Add(s, ".env")
	}
	f.Fuzz(func(t *testing.T, data, name string) {
		l := &hiddenLift{from: map[string]string{}}
		l.add("/ws/.ignore", []byte(data))
		l.shows(name)
		for _, line := range strings.Split(data, "\n") {
			pat, ok := strings.CutPrefix(strings.TrimRight(line, " \t\r"), "!")
			if !ok || len(l.globs) >= maxLiftGlobs || l.all != "" {
				continue
			}
			parts := strings.Split(pat, "/")
			last := parts[len(parts)-1]
			if last == "" || strings.ContainsAny(last, `*?[\`) {
				continue
			}
			if l.shows(last) == "" {
				t.Fatalf("%q: the negated name %q is not shown", data, last)
			}
			if upper := strings.ToUpper(last); isASCII(last) && l.shows(upper) == "" {
				t.Fatalf("%q: the negated name %q is not shown as %q", data, last, upper)
			}
		}
	})
}
