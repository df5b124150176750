package readstation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNpmConfigFiles: the files a .npmrc names by userconfig, globalconfig
// and prefix are judged as reads (the real npm 11.19 printed each one's
// line: hostile traps npmrc-userconfig, npmrc-prefix-link).
func TestNpmConfigFiles(t *testing.T) {
	const does = "print its lines as config keys it does not know"
	tests := []struct {
		name  string
		files map[string]string // below $T; "->X" a link to $T/X
		env   EnvMap
		want  []string
	}{
		{name: "none", files: map[string]string{"home/proj/.npmrc": "registry=https://r.example/\n"}, want: []string{}},
		{name: "userconfig with ${HOME}", files: map[string]string{"home/proj/.npmrc": "userconfig=${HOME}/.netrc\n"},
			want: []string{"denied: npm ls reads $T/home/.netrc ($T/home/proj/.npmrc says userconfig=${HOME}/.netrc) and would " + does + `, and $T/home/.netrc matches deny row "~/.netrc"`}},
		{name: "globalconfig with ~", files: map[string]string{"home/.npmrc": "globalconfig = ~/.netrc\n"},
			want: []string{"denied: npm ls reads $T/home/.netrc ($T/home/.npmrc says globalconfig = ~/.netrc) and would " + does + `, and $T/home/.netrc matches deny row "~/.netrc"`}},
		// Spelled as npm's ini parser reads them (each printed the secret's
		// line with the real npm 11.19; USERCONFIG= and userconfig[]= did not).
		{name: "a quoted key", files: map[string]string{"home/proj/.npmrc": "\"userconfig\"=~/.netrc\n"},
			want: []string{"denied: npm ls reads $T/home/.netrc ($T/home/proj/.npmrc says \"userconfig\"=~/.netrc) and would " + does + `, and $T/home/.netrc matches deny row "~/.netrc"`}},
		{name: "single quotes and an inline comment", files: map[string]string{"home/proj/.npmrc": "'userconfig' = '~/.netrc'\nglobalconfig = ~/.netrc ; shared\n"},
			want: []string{
				"denied: npm ls reads $T/home/.netrc ($T/home/proj/.npmrc says 'userconfig' = '~/.netrc') and would " + does + `, and $T/home/.netrc matches deny row "~/.netrc"`,
				"denied: npm ls reads $T/home/.netrc ($T/home/proj/.npmrc says globalconfig = ~/.netrc ; shared) and would " + does + `, and $T/home/.netrc matches deny row "~/.netrc"`,
			}},
		{name: "keys npm does not take", files: map[string]string{"home/proj/.npmrc": "USERCONFIG=~/.netrc\nuserconfig[]=~/.netrc\n; userconfig=~/.netrc\n"}, want: []string{}},
		{name: "prefix whose etc/npmrc is a link to a secret", files: map[string]string{"home/.npmrc": "prefix=~/g\n", "home/g/etc/npmrc": "->home/.netrc"},
			want: []string{"denied: npm ls reads $T/home/g/etc/npmrc ($T/home/.npmrc says prefix=~/g) and would " + does + `, and $T/home/g/etc/npmrc resolves to $T/home/.netrc, which matches deny row "~/.netrc"`}},
		{name: "prefix whose etc/npmrc is the user's own", files: map[string]string{"home/.npmrc": "prefix=~/g\n", "home/g/etc/npmrc": "color=false\n"}, want: []string{}},
		{name: "prefix whose etc/npmrc does not exist", files: map[string]string{"home/.npmrc": "prefix=~/g\n"}, want: []string{}},
		{name: "a file out of the roots and the home", files: map[string]string{"home/proj/.npmrc": "userconfig=$T/elsewhere/x\n", "elsewhere/x": "a=b\n"},
			want: []string{"outside-roots: npm ls reads $T/elsewhere/x ($T/home/proj/.npmrc says userconfig=$T/elsewhere/x) and would " + does + ", and $T/elsewhere/x is outside the roots ($T/home/proj)"}},
		{name: "a variable not known", files: map[string]string{"home/proj/.npmrc": "userconfig=${SECRET_DIR}/x\n"},
			want: []string{"not-established: npm ls reads $T/home/proj/.npmrc, whose userconfig names a file through $SECRET_DIR, whose value is not known, so which file npm reads (and quotes) cannot be established"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if r, err := filepath.EvalSymlinks(dir); err == nil {
				dir = r
			}
			files := map[string]string{"home/.netrc": "machine x password y\n", "home/proj/package.json": "{}\n"}
			for p, c := range tc.files {
				files[p] = c
			}
			for p, c := range files {
				full := filepath.Join(dir, p)
				must(t, os.MkdirAll(filepath.Dir(full), 0o755))
				if target, ok := strings.CutPrefix(c, "->"); ok {
					must(t, os.Symlink(filepath.Join(dir, target), full))
					continue
				}
				must(t, os.WriteFile(full, []byte(strings.ReplaceAll(c, "$T", dir)), 0o644))
			}
			env := EnvMap{"PATH": "/usr/bin:/bin", "BASH_ENV": ""} // HOME from the boundary
			proj := filepath.Join(dir, "home", "proj")
			st := judge(t, "npm ls --no-update-notifier", Boundary{Roots: []string{proj}, Cwd: proj, Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows, Env: env})
			got := []string{}
			for _, r := range st.Reads {
				if r.Source == "repository" {
					got = append(got, strings.ReplaceAll(string(r.Verdict)+": "+r.Message, dir, "$T"))
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
