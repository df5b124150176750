package execution

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/internal/testenv"
)

// TestRunReportDir runs commands in the real shells with ReportDir: the
// directory the shell ended in comes back when the shell reported one
// well-formed path, and nothing otherwise; the output and the exit status
// are the command's own.
func TestRunReportDir(t *testing.T) {
	// tree makes a fresh directory for one run: sub, a directory whose
	// name has a newline, gone (which a command deletes) and link -> sub.
	tree := func(t *testing.T) string {
		dir, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"sub", "a\nb", "gone"} {
			if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	// want is the directory reported, relative to the tree ("" none,
	// "." the tree itself; absolute as is).
	tests := []struct {
		name, shell, command, want string
	}{
		{"no cd", "bash", "true", "."},
		{"cd", "bash", "cd sub", "sub"},
		{"cd zsh", "zsh", "cd sub", "sub"},
		{"sh reports nothing", "sh", "cd sub", ""},
		{"cd then fail", "bash", "cd sub; false", "sub"},
		{"exit status", "bash", "cd sub && exit 7", "sub"},
		{"exit status zsh", "zsh", "cd sub && exit 7", "sub"},
		{"physical through a symlink", "bash", "cd link", "sub"},
		{"subshell cd does not count", "bash", "(cd sub); x=$(cd sub); echo $x", "."},
		{"output and line numbers", "bash", "echo one; nosuchprogram-xyz; echo $LINENO", "."},
		{"own EXIT trap: no report", "bash", "trap 'echo bye' EXIT; cd sub", ""},
		{"forged extra report", "bash", "echo /etc >&75; cd sub", ""},
		// The runner cannot tell this one from the shell's own report:
		// the caller judges every directory before it uses it.
		{"forged lone report", "bash", "trap - EXIT; echo /etc >&75", "/etc"},
		{"a directory with a newline", "bash", "cd 'a\nb'", ""},
		{"exec: no report", "bash", "cd sub && exec true", ""},
		{"deleted directory", "bash", "cd gone && rmdir ../gone", ""},
		{"descriptor 9 is the command's", "bash", "exec 9>f9 && cd sub && cat ../f9 && echo end", "sub"},
		{"killed: no report", "bash", "cd sub; kill -KILL $$", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testenv.LookPath(t, tt.shell) // unconfirmed without the shell; CI fails
			plainDir := tree(t)
			plain := runSpec(t, context.Background(), Spec{Command: tt.command, Shell: tt.shell, Dir: plainDir})
			dir := tree(t)
			out := runSpec(t, context.Background(), Spec{Command: tt.command, Shell: tt.shell, Dir: dir, ReportDir: true})
			if plain.FinalDir != "" {
				t.Errorf("without ReportDir: FinalDir = %q, want none", plain.FinalDir)
			}
			want := tt.want
			if want != "" && !filepath.IsAbs(want) {
				want = filepath.Join(dir, want)
			}
			if out.FinalDir != want {
				t.Errorf("%s -c %q: FinalDir = %q, want %q", tt.shell, tt.command, out.FinalDir, want)
			}
			// The command's output and status are its own.
			type seen struct {
				Exit           int
				Signal, Output string
			}
			norm := func(o Outcome, d string) seen {
				return seen{o.ExitCode, o.Signal, strings.ReplaceAll(o.Output.Head, d, "DIR")}
			}
			if strings.Contains(tt.command, ">&75") {
				return // only the report's own descriptor is there
			}
			if diff := cmp.Diff(norm(plain, plainDir), norm(out, dir)); diff != "" {
				t.Errorf("%s -c %q: the run differs with ReportDir (-without +with):\n%s", tt.shell, tt.command, diff)
			}
		})
	}
}

func TestReadDirReport(t *testing.T) {
	tests := map[string]string{
		"/a/b\n":                                 "/a/b",
		"/\n":                                    "/",
		"":                                       "",
		"/a/b":                                   "",
		"a/b\n":                                  "",
		"/a/../b\n":                              "",
		"/a/b/\n":                                "",
		"/a\n/b\n":                               "",
		"/a\x00b\n":                              "",
		"/a\xffb\n":                              "",
		"\n":                                     "",
		"/a/b\n\n":                               "",
		"/" + string(make([]byte, maxDirReport)): "",
	}
	for in, want := range tests {
		f, err := os.CreateTemp(t.TempDir(), "r")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(in); err != nil {
			t.Fatal(err)
		}
		if got := readDirReport(f); got != want {
			t.Errorf("readDirReport(%q) = %q, want %q", in, got, want)
		}
		f.Close()
	}
}

// FuzzReadDirReport: whatever a command writes on the report's descriptor,
// the runner takes one clean absolute path or nothing.
func FuzzReadDirReport(f *testing.F) {
	for _, s := range []string{"/a/b\n", "/\n", "", "/a\n/b\n", "/a/../b\n", "/a\x00\n", "rel\n"} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, in string) {
		fh, err := os.CreateTemp(dir, "r")
		if err != nil {
			t.Fatal(err)
		}
		defer os.Remove(fh.Name())
		defer fh.Close()
		if _, err := fh.WriteString(in); err != nil {
			t.Fatal(err)
		}
		got := readDirReport(fh)
		if got == "" {
			return
		}
		if got+"\n" != in || !filepath.IsAbs(got) || filepath.Clean(got) != got || strings.ContainsAny(got, "\n\x00") {
			t.Errorf("readDirReport(%q) = %q", in, got)
		}
	})
}
