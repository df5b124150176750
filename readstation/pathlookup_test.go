package readstation

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/internal/testenv"
)

// TestPathPrograms: a bare program name that PATH resolves to a file of
// the workspace (through a directory in a root or a relative entry) is a
// program the repository chose; one that resolves outside, or a PATH that
// names nothing of the workspace, is not. Each row is held to the real
// bash's own lookup (command -v) in the same directory and PATH.
func TestPathPrograms(t *testing.T) {
	bash := testenv.LookPath(t, "bash")
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	ws, sys := filepath.Join(dir, "ws"), filepath.Join(dir, "sys")
	writeTree(t, dir, map[string]string{"ws/README": "x\n", "ws/bin/notes": "not a program\n"})
	for _, p := range []string{"ws/bin/git", "ws/node_modules/.bin/grep", "ws/sub/ls", "ws/.venv/bin/gcc", "sys/gcc", "sys/git", "sys/grep", "sys/ls", "sys/timeout"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, p), []byte("#!/bin/sh\n"), 0o755))
	}
	// A symlink in PATH's system directory to a program in the workspace
	// (npm link makes these): the user's own doing, not followed.
	must(t, os.Symlink(filepath.Join(ws, "bin", "git"), filepath.Join(sys, "tig")))
	tests := []struct {
		cmd, cwd, path string
		want           []string
	}{
		{cmd: "git status", path: sys, want: nil},
		{cmd: "git status", path: ws + "/bin:" + sys, want: []string{"$T/ws/bin/git"}},
		{cmd: "git status", path: sys + ":" + ws + "/bin", want: nil},
		{cmd: "git status", path: "bin:" + sys, want: []string{"$T/ws/bin/git"}},
		{cmd: "grep -r x .", path: "node_modules/.bin:" + sys, want: []string{"$T/ws/node_modules/.bin/grep"}},
		{cmd: "cd sub && ls", path: ":" + sys, want: []string{"$T/ws/sub/ls"}},
		{cmd: "ls", path: ":" + sys, want: nil},
		{cmd: "timeout 5 git log", path: ws + "/bin:" + sys, want: []string{"$T/ws/bin/git"}},
		{cmd: "notes", path: ws + "/bin:" + sys, want: nil},
		{cmd: "tig", path: sys, want: nil},
		{cmd: "tig", path: ws + "/none:" + sys, want: nil},
		// The programs a program starts through PATH (catalog helpers):
		// go env runs gcc (redrepo).
		{cmd: "go env", path: ws + "/.venv/bin:" + sys, want: []string{"$T/ws/.venv/bin/gcc"}},
		{cmd: "go env", path: sys + ":" + ws + "/.venv/bin", want: nil},
		{cmd: "cat README", path: ws + "/.venv/bin:" + sys, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.path+" "+tc.cmd, func(t *testing.T) {
			b := Boundary{Roots: []string{ws}, Cwd: ws, Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows, Env: EnvMap{"PATH": tc.path}}
			st := judge(t, tc.cmd, b)
			var got []string
			for _, h := range st.RepoHelpers {
				if h.Key == "PATH" {
					got = append(got, strings.ReplaceAll(h.File, dir, "$T"))
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PATH programs (-want +got):\n%s", diff)
			}
			// bash's own lookup of each flagged program lands on the file.
			for _, h := range st.RepoHelpers {
				name := filepath.Base(h.File)
				cd := ws
				if strings.HasPrefix(tc.cmd, "cd sub") {
					cd = filepath.Join(ws, "sub")
				}
				cmd := exec.Command(bash, "-c", "command -v "+name)
				cmd.Dir, cmd.Env = cd, []string{"PATH=" + tc.path}
				out, _ := cmd.Output()
				got := strings.TrimSpace(string(out))
				if !filepath.IsAbs(got) {
					got = filepath.Join(cd, got)
				}
				if got != h.File {
					t.Errorf("bash runs %q for %s, the station says %q", got, name, h.File)
				}
			}
		})
	}
	// A root that holds the home directory is not the workspace: a program
	// in ~/bin is the user's.
	home := filepath.Join(dir, "sys")
	st0 := judge(t, "git status", Boundary{Roots: []string{dir}, Cwd: ws, Home: home, DenyRows: DefaultDenyRows, Env: EnvMap{"PATH": sys}})
	if len(st0.RepoHelpers) != 0 {
		t.Errorf("root holding home: %v", st0.RepoHelpers)
	}
	// Not known: nothing is looked up.
	st := judge(t, "git status", Boundary{Roots: []string{ws}, Cwd: ws, DenyRows: DefaultDenyRows, Env: EnvMap{}})
	if len(st.RepoHelpers) != 0 {
		t.Errorf("PATH not known: %v", st.RepoHelpers)
	}
}

// TestHiddenInputsBesidePath: a hidden input looked for beside PATH's
// directories (catalog in: path; man-db's pages in BIN/man, BIN/../man,
// BIN/../share/man) is found beside the workspace's, not beside the
// system's, and not with a PATH not known (redrepo).
func TestHiddenInputsBesidePath(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	ws, sys := filepath.Join(dir, "ws"), filepath.Join(dir, "sys")
	for _, d := range []string{"ws/.venv/bin", "ws/.venv/share/man/man1", "ws/tools/bin/man", "ws/empty/bin", "sys/bin", "sys/share/man/man1"} {
		must(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	tests := []struct {
		path string
		want []string
	}{
		{path: ws + "/.venv/bin:" + sys + "/bin", want: []string{"$T/ws/.venv/share/man"}},
		{path: ws + "/tools/bin:" + sys + "/bin", want: []string{"$T/ws/tools/bin/man"}},
		{path: ".venv/bin:" + sys + "/bin", want: []string{"$T/ws/.venv/share/man"}},
		{path: ws + "/empty/bin:" + sys + "/bin", want: nil},
		{path: sys + "/bin", want: nil},
		{path: "?", want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			env := EnvMap{"PATH": tc.path}
			if tc.path == "?" {
				env = EnvMap{}
			}
			b := Boundary{Roots: []string{ws}, Cwd: ws, Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows, Env: env}
			st := judge(t, "man ls", b)
			var got []string
			for _, h := range st.RepoHelpers {
				got = append(got, strings.ReplaceAll(h.File, dir, "$T"))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("man ls with PATH %s (-want +got):\n%s", tc.path, diff)
			}
		})
	}
}

// TestEnvInterpreter: the program a script's #!/usr/bin/env line names,
// which env finds through PATH (a version manager's shim, an npm bin).
func TestEnvInterpreter(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range []struct{ first, want string }{
		{"#!/usr/bin/env bash\n", "bash"},
		{"#!/usr/bin/env node\n", "node"},
		{"#! /usr/bin/env  python3 -u\n", "python3"},
		{"#!/usr/bin/env -S deno run --allow-all\n", "deno"},
		{"#!/usr/bin/env -S NODE_OPTIONS=x node\n", "node"},
		{"#!/bin/env perl\n", "perl"},
		{"#!/bin/sh\n", ""},
		{"#!/usr/bin/python3\n", ""},
		{"#!/usr/bin/env /opt/x/bin/node\n", ""},
		{"#!/usr/bin/env\n", ""},
		{"\x7fELF\x02\x01\x01", ""},
		{"echo hi\n", ""},
	} {
		p := filepath.Join(dir, fmt.Sprint(i))
		must(t, os.WriteFile(p, []byte(tc.first+"rest of the script\n"), 0o755))
		if got := envInterpreter(p); got != tc.want {
			t.Errorf("%q: envInterpreter = %q, want %q", tc.first, got, tc.want)
		}
	}
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o755))
	if got := envInterpreter(filepath.Join(dir, "fifo")); got != "" {
		t.Errorf("a FIFO: envInterpreter = %q (and it must not block)", got)
	}
}

// FuzzEnvInterpreter: any first line gives a bare program name or none.
func FuzzEnvInterpreter(f *testing.F) {
	for _, s := range []string{"#!/usr/bin/env bash\n", "#!/usr/bin/env -S a b\n", "#!\n", "#!/usr/bin/env\t\tx"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "script")
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
		if got := envInterpreter(p); strings.ContainsAny(got, "/ \t\n") {
			t.Errorf("%q: envInterpreter = %q, not a bare name", data, got)
		}
	})
}
