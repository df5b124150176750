package readstation

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shellgate/shellgate/internal/testenv"
)

// TestManPages holds the check man-pages to the real man-db: a page of the
// topic in a directory of pages man finds beside a PATH entry in the home
// directory (or that MANPATH names) is found, and the real man prints the
// secret its .so includes; pages of other topics, or a PATH without home
// directories, keep man ls allowed.
func TestManPages(t *testing.T) {
	man := testenv.LookPath(t, "man")
	secret := "sgcanarymanpages"
	page := func(name string) string {
		return ".TH " + strings.ToUpper(name) + " 1\n.SH NAME\n" + name + " \\- x\n.nf\n.so $H/.secret\n"
	}
	tests := []struct {
		name  string
		files map[string]string // below home
		path  string            // $H the home directory
		env   EnvMap            // over MANPATH=""; "?" makes a variable not known
		cmd   string
		fires bool // the real man prints the secret
		want  []string
	}{
		{name: "no pages", path: "$H/.local/bin:/usr/bin:/bin", cmd: "man ls", want: []string{}},
		{name: "other topics' pages", files: map[string]string{".local/share/man/man1/ipython.1": page("ipython")},
			path: "$H/.local/bin:/usr/bin:/bin", cmd: "man ls", want: []string{}},
		{name: "a page of ls beside ~/.local/bin", files: map[string]string{".local/share/man/man1/ls.1": page("ls")},
			path: "$H/.local/bin:/usr/bin:/bin", cmd: "man ls", fires: true,
			want: []string{" $H/.local/share/man/man1/ls.1: $H/.local/share/man/man1/ls.1 is a page of ls, in the directory of pages man finds beside the PATH entry $H/.local/bin => " + manDoes}},
		{name: "a page of ls beside ~/bin", files: map[string]string{"man/man1/ls.1": page("ls")},
			path: "$H/bin:/usr/bin:/bin", cmd: "man ls", fires: true,
			want: []string{" $H/man/man1/ls.1: $H/man/man1/ls.1 is a page of ls, in the directory of pages man finds beside the PATH entry $H/bin => " + manDoes}},
		// man-db 2.11 took the system's page here (a superset: it
		// matches names without regard to case in other spellings).
		{name: "a page in upper case", files: map[string]string{".local/share/man/man1/LS.1": page("ls")},
			path: "$H/.local/bin:/usr/bin:/bin", cmd: "man ls",
			want: []string{" $H/.local/share/man/man1/LS.1: $H/.local/share/man/man1/LS.1 is a page of ls, in the directory of pages man finds beside the PATH entry $H/.local/bin => " + manDoes}},
		{name: "a page of a topic the system does not have", files: map[string]string{".local/share/man/man1/sgtopic.1": page("sgtopic")},
			path: "/usr/bin:/bin:$H/.local/bin", cmd: "man sgtopic", fires: true,
			want: []string{" $H/.local/share/man/man1/sgtopic.1: $H/.local/share/man/man1/sgtopic.1 is a page of sgtopic, in the directory of pages man finds beside the PATH entry $H/.local/bin => " + manDoes}},
		// man shows the system's page first; -a shows this one too (a superset).
		{name: "after the system's directories", files: map[string]string{".local/share/man/man1/ls.1": page("ls")},
			path: "/usr/bin:/bin:$H/.local/bin", cmd: "man ls",
			want: []string{" $H/.local/share/man/man1/ls.1: $H/.local/share/man/man1/ls.1 is a page of ls, in the directory of pages man finds beside the PATH entry $H/.local/bin => " + manDoes}},
		{name: "a locale's page", files: map[string]string{".local/share/man/de/man1/ls.1": page("ls")},
			path: "$H/.local/bin:/usr/bin:/bin", cmd: "man ls",
			want: []string{" $H/.local/share/man/de/man1/ls.1: $H/.local/share/man/de/man1/ls.1 is a page of ls, in the directory of pages man finds beside the PATH entry $H/.local/bin => " + manDoes}},
		{name: "an index database", files: map[string]string{".local/share/man/index.db": "x", ".local/share/man/man1/ipython.1": page("ipython")},
			path: "$H/.local/bin:/usr/bin:/bin", cmd: "man ls",
			want: []string{" $H/.local/share/man/index.db: $H/.local/share/man/index.db is an index database, whose entries can name any file as a page, in the directory of pages man finds beside the PATH entry $H/.local/bin => " + manDoes}},
		{name: "a topic not known statically", files: map[string]string{".local/share/man/man1/ipython.1": page("ipython")},
			path: "$H/.local/bin:/usr/bin:/bin", cmd: "man $TOPIC",
			want: []string{" $H/.local/share/man/man1/ipython.1: $H/.local/share/man/man1/ipython.1 is a page of any topic, in the directory of pages man finds beside the PATH entry $H/.local/bin => " + manDoes}},
		{name: "MANPATH names it", files: map[string]string{"pages/man1/ls.1": page("ls")},
			path: "/usr/bin:/bin", env: EnvMap{"MANPATH": "$H/pages"}, cmd: "man ls", fires: true,
			want: []string{" $H/pages/man1/ls.1: $H/pages/man1/ls.1 is a page of ls, in the directory of pages man finds that $MANPATH names => " + manDoes}},
		{name: "MANPATH names only the system's", files: map[string]string{".local/share/man/man1/ls.1": page("ls")},
			path: "$H/.local/bin:/usr/bin:/bin", env: EnvMap{"MANPATH": "/usr/share/man"}, cmd: "man ls", want: []string{}},
		{name: "MANPATH not known", files: map[string]string{".local/share/man/man1/ls.1": page("ls")},
			path: "$H/.local/bin:/usr/bin:/bin", env: EnvMap{"MANPATH": "?"}, cmd: "man ls", fires: true,
			want: []string{"not-established: man looks for pages in the directories $MANPATH names, whose value is not known, so whether a page it shows is one a file in the home directory or the workspace chose cannot be established"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if r, err := filepath.EvalSymlinks(dir); err == nil {
				dir = r
			}
			home := filepath.Join(dir, "home")
			files := map[string]string{"proj/README.md": "x\n", ".secret": secret + "\n"}
			for p, c := range tc.files {
				files[p] = c
			}
			for p, c := range files {
				writeTree(t, home, map[string]string{p: strings.ReplaceAll(c, "$H", home)})
			}
			path := strings.ReplaceAll(tc.path, "$H", home)
			env := EnvMap{"PATH": path, "MANPATH": ""}
			for k, v := range tc.env {
				if v == "?" {
					delete(env, k)
					continue
				}
				env[k] = strings.ReplaceAll(v, "$H", home)
			}
			if !strings.Contains(tc.cmd, "$") {
				cmd := exec.Command(man, strings.Fields(tc.cmd)[1:]...)
				cmd.Dir = filepath.Join(home, "proj")
				cmd.Env = []string{"HOME=" + home, "PATH=" + path, "LANG=C", "TERM=dumb", "MANPATH=" + env["MANPATH"]}
				out, _ := cmd.CombinedOutput()
				if got := strings.Contains(string(out), secret); got != tc.fires {
					t.Fatalf("the real man printed the secret: %v, want %v\n%s", got, tc.fires, out)
				}
			}
			st := judge(t, tc.cmd, Boundary{Roots: []string{filepath.Join(home, "proj")}, Cwd: filepath.Join(home, "proj"), Home: home, DenyRows: DefaultDenyRows, Env: env})
			got := hiddenGot(st, dir)
			for i := range got {
				got[i] = strings.ReplaceAll(got[i], "$T/home", "$H")
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s: (-want +got):\n%s", tc.cmd, d)
			}
		})
	}
}

const manDoes = "show that page, which can include any other file (.so) and name preprocessors"

// TestManPagesOf: the names man-db takes for a topic's page.
func TestManPagesOf(t *testing.T) {
	tests := []struct {
		name   string
		topics []string
		want   bool
	}{
		{"ls.1", []string{"ls"}, true},
		{"ls.1.gz", []string{"ls"}, true},
		{"LS.1", []string{"ls"}, true},
		{"ls", []string{"ls"}, true},
		{"lsblk.8", []string{"ls"}, false},
		{"ls.1", []string{"ls.1"}, true},
		{"git-log.1", []string{"git"}, false},
		{"x.1", nil, false},
	}
	for _, tc := range tests {
		if _, got := manPageOf(tc.name, tc.topics, false); got != tc.want {
			t.Errorf("manPageOf(%q, %q) = %v, want %v", tc.name, tc.topics, got, tc.want)
		}
	}
	if _, got := manPageOf("x.1", nil, true); !got {
		t.Error("manPageOf with any: false")
	}
}
