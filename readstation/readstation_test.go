package readstation

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shellgate/shellgate/classify"
)

// fixture is a real tree in t.TempDir():
//
//	home/                    Boundary.Home
//	  .ssh/id_rsa .ssh/config .aws/credentials .netrc notes.txt
//	  proj/                  the repository, the root and the cwd
//	    .git/{HEAD,config,objects/,refs/}
//	    README.md src/main.go src/util.go src/pkg/x.go
//	    cfg/.env cfg/app.yaml x.pem/inner.txt docs/"a b.txt" docs/"new\nline.txt" docs/"\xff.txt"
//	    chain1 -> chain2 -> chain3 -> src/main.go
//	    deep -> src/pkg, linked/cfg -> ../cfg
//	    traps/ssh -> ~/.ssh, traps/key -> ~/.ssh/id_rsa, traps/out -> ~/notes.txt, traps/loop -> loop
//	    fifo (a named pipe)
//	  clean/                 a second repository without secrets
//	    .git/ a.go lib/b.go
//	  rootlink -> proj
type fixture struct {
	dir, home, proj, clean string
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	dir := t.TempDir()
	f := fixture{dir: dir, home: filepath.Join(dir, "home")}
	f.proj = filepath.Join(f.home, "proj")
	f.clean = filepath.Join(f.home, "clean")
	files := map[string]string{
		".ssh/id_rsa":             "KEY",
		".ssh/config":             "Host *",
		".aws/credentials":        "[default]",
		".netrc":                  "machine x",
		"notes.txt":               "notes",
		"proj/.git/HEAD":          "ref: refs/heads/main\n",
		"proj/.git/config":        "[core]\n\tbare = false\n",
		"proj/README.md":          "readme",
		"proj/src/main.go":        "package main",
		"proj/src/util.go":        "package main",
		"proj/src/pkg/x.go":       "package pkg",
		"proj/cfg/.env":           "TOKEN=1",
		"proj/cfg/app.yaml":       "a: 1",
		"proj/x.pem/inner.txt":    "inner",
		"proj/docs/a b.txt":       "spaces",
		"proj/docs/new\nline.txt": "newline",
		"proj/docs/\xff.txt":      "latin1",
		"clean/.git/HEAD":         "ref: refs/heads/main\n",
		"clean/.git/config":       "[core]\n\tbare = false\n",
		"clean/a.go":              "package a",
		"clean/lib/b.go":          "package lib",
	}
	for name, data := range files {
		p := filepath.Join(f.home, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(data), 0o644))
	}
	must(t, syscall.Mkfifo(filepath.Join(f.proj, "fifo"), 0o644))
	for _, d := range []string{"proj/.git/objects", "proj/.git/refs", "clean/.git/objects", "clean/.git/refs"} {
		must(t, os.MkdirAll(filepath.Join(f.home, d), 0o755))
	}
	links := [][2]string{
		{"proj/chain1", "chain2"},
		{"proj/chain2", "chain3"},
		{"proj/chain3", "src/main.go"},
		{"proj/deep", "src/pkg"},
		{"proj/linked/cfg", "../cfg"},
		{"proj/traps/ssh", filepath.Join(f.home, ".ssh")},
		{"proj/traps/key", "../../.ssh/id_rsa"},
		{"proj/traps/out", filepath.Join(f.home, "notes.txt")},
		{"proj/traps/loop", "loop"},
		{"rootlink", "proj"},
	}
	for _, l := range links {
		p := filepath.Join(f.home, l[0])
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.Symlink(l[1], p))
	}
	return f
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// writeFiles creates each file (holding "x") under base, with its
// directories.
func writeFiles(t testing.TB, base string, files []string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(base, f)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("x"), 0o644))
	}
}

// writeTree writes files (path below dir → content), with their
// directories.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(body), 0o644))
	}
}

// rootBoundary is a boundary with the default deny rows, one root that is
// also the cwd, dir/home as the home directory, and the test's environment
// as the command's.
func rootBoundary(dir, root string) Boundary {
	return Boundary{Roots: []string{root}, Cwd: root, Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows, Env: ProcessEnv}
}

// boundary is the default boundary for a cwd under the fixture's home.
func (f fixture) boundary(t testing.TB, cwd string) Boundary {
	t.Helper()
	b, err := DefaultBoundary(filepath.Join(f.home, cwd))
	must(t, err)
	b.Home = f.home    // never the real home
	b.Env = ProcessEnv // the tests set the variables they judge
	return b
}

// summary renders a station as one line per read and helper, with the
// fixture's directory shown as $T.
func (f fixture) summary(st *Station) []string {
	out := []string{}
	for _, r := range st.Reads {
		s := r.Path + " " + string(r.Verdict)
		if r.Row != "" {
			s += " " + r.Row
		}
		if len(r.Matches) > 0 {
			s += " [" + strings.Join(r.Matches, " ") + "]"
		}
		out = append(out, strings.ReplaceAll(s, f.home, "~"))
	}
	for _, h := range st.RepoHelpers {
		out = append(out, strings.ReplaceAll("helper "+h.Key+"="+h.Value+" in "+h.File, f.home, "~"))
	}
	return out
}

func judge(t testing.TB, cmd string, b Boundary) *Station {
	t.Helper()
	r := classify.Classify(cmd)
	if !r.Parse.OK {
		t.Fatalf("%q does not parse: %s", cmd, r.Parse.Error)
	}
	return Judge(r, b)
}

func TestJudge(t *testing.T) {
	t.Setenv("RIPGREP_CONFIG_PATH", "")
	f := newFixture(t)
	tests := []struct {
		cmd  string
		cwd  string // under home; default "proj"
		want []string
	}{
		{cmd: "cat README.md", want: []string{"README.md ok"}},
		{cmd: "cat ~/.ssh/id_rsa", want: []string{"~/.ssh/id_rsa denied ~/.ssh/**"}},
		{cmd: `cat "$HOME/.aws/credentials"`, want: []string{"~/.aws/credentials denied ~/.aws/**"}},
		{cmd: "cat ~/.ssh", want: []string{"~/.ssh denied ~/.ssh/**"}},
		{cmd: "cat ../.netrc", want: []string{"../.netrc denied ~/.netrc"}},
		{cmd: "cat ../notes.txt", want: []string{"../notes.txt outside-roots"}},
		{cmd: "cat src/../../notes.txt", want: []string{"src/../../notes.txt outside-roots"}},
		{cmd: "cat src/../README.md", want: []string{"src/../README.md ok"}},
		{cmd: "cat nothere.txt", want: []string{"nothere.txt missing"}},
		{cmd: "cat README.md/x", want: []string{"README.md/x missing"}},
		{cmd: "cat /etc/shadow", want: []string{"/etc/shadow denied /etc/shadow"}},
		{cmd: "cat /proc/self/environ", want: []string{"/proc/self/environ denied /proc/*/environ"}},
		{cmd: "cat /etc/hostname-not-here", want: []string{"/etc/hostname-not-here outside-roots"}},
		{cmd: "diff README.md /dev/null", want: []string{"README.md ok", "/dev/null ok"}},
		{cmd: "cat fifo", want: []string{"fifo not-established"}},
		// Symlinks, followed at every component.
		{cmd: "cat chain1", want: []string{"chain1 ok"}},
		{cmd: "cat traps/key", want: []string{"traps/key denied ~/.ssh/**"}},
		{cmd: "cat traps/ssh/config", want: []string{"traps/ssh/config denied ~/.ssh/**"}},
		{cmd: "cat traps/out", want: []string{"traps/out outside-roots"}},
		{cmd: "cat traps/loop", want: []string{"traps/loop not-established"}},
		{cmd: "cat deep/../util.go", want: []string{"deep/../util.go ok"}},
		// A directory named like a pattern, and the .env rows.
		{cmd: "cat x.pem/inner.txt", want: []string{"x.pem/inner.txt denied **/*.pem"}},
		{cmd: "cat cfg/.env", want: []string{"cfg/.env denied **/.env"}},
		{cmd: "cat cfg/app.yaml", want: []string{"cfg/app.yaml ok"}},
		// Odd names.
		{cmd: "cat 'docs/a b.txt'", want: []string{"docs/a b.txt ok"}},
		{cmd: "cat $'docs/new\\nline.txt'", want: []string{"docs/new\nline.txt ok"}},
		{cmd: "cat 'docs/new\nline.txt'", want: []string{"docs/new\nline.txt ok"}},
		{cmd: "cat $'docs/\\xff.txt'", want: []string{"docs/\xff.txt ok"}},
		{cmd: "cat $'docs/\\xfe.txt'", want: []string{"docs/\xfe.txt missing"}},
		// Globs: every match judged.
		{cmd: "cat src/*.go", want: []string{"src/*.go ok [~/proj/src/main.go ~/proj/src/util.go]"}},
		{cmd: "cat */*.go", want: []string{"*/*.go ok [~/proj/deep/x.go ~/proj/src/main.go ~/proj/src/util.go]"}},
		{cmd: "cat *.pem/*", want: []string{"*.pem/* denied **/*.pem [~/proj/x.pem/inner.txt]"}},
		{cmd: "cat cfg/*", want: []string{"cfg/* ok [~/proj/cfg/app.yaml]"}},
		{cmd: "cat cfg/.*", want: []string{"cfg/.* denied **/.env [~/proj/cfg ~/proj ~/proj/cfg/.env]"}},
		{cmd: "grep -r x .[a-z]*", cwd: "proj/src", want: []string{".[a-z]* missing"}},
		{cmd: "grep -r x .*", cwd: "proj/src", want: []string{".* denied **/*.pem [~/proj/src ~/proj]"}},
		{cmd: "cat ~/.ss*/*", want: []string{"~/.ss*/* denied ~/.ssh/** [~/.ssh/config ~/.ssh/id_rsa]"}},
		{cmd: "cat docs/*.txt", want: []string{"docs/*.txt ok [~/proj/docs/a b.txt ~/proj/docs/new\nline.txt ~/proj/docs/\xff.txt]"}},
		{cmd: "cat src/*.rs", want: []string{"src/*.rs missing"}},
		{cmd: "cat traps/*", want: []string{"traps/* denied ~/.ssh/** [~/proj/traps/key ~/proj/traps/loop ~/proj/traps/out ~/proj/traps/ssh]"}},
		// cd: the cwd a read runs in.
		{cmd: "cd deep && cat x.go", want: []string{"deep ok", "x.go ok"}},
		{cmd: "cd deep && cat ../main.go", want: []string{"deep ok", "../main.go ok"}},
		{cmd: "cd src; cd ..; cat README.md", want: []string{"src ok", ".. ok", "README.md ok"}},
		{cmd: "cd nowhere && cat x", want: []string{"nowhere missing", "x not-established"}},
		{cmd: "cd README.md && cat x", want: []string{"README.md ok", "x not-established"}},
		{cmd: "cd nowhere && cat /etc/shadow", want: []string{"nowhere missing", "/etc/shadow denied /etc/shadow"}},
		{cmd: "cd ~ && cat notes.txt", want: []string{"~ outside-roots", "notes.txt outside-roots"}},
		{cmd: "cd ~/.ssh && cat config", want: []string{"~/.ssh denied ~/.ssh/**", "config denied ~/.ssh/**"}},
		// Dynamic words.
		{cmd: `cat "$FOO"`, want: []string{`"$FOO" not-established`}},
		{cmd: "cat $(ls)", want: []string{". ok", "$(ls) not-established"}},
		// Recursive readers find deny rows under the tree.
		{cmd: "grep -r token ~", want: []string{"~ denied ~/.ssh/**"}},
		{cmd: "grep -r token src", want: []string{"src ok"}},
		{cmd: "grep -r token cfg", want: []string{"cfg denied **/.env"}},
		{cmd: "grep -r token .", want: []string{". denied **/*.pem"}},
		{cmd: "grep -r token traps", want: []string{"traps denied ~/.ssh/**"}},
		// Exclude options the station honours.
		{cmd: "grep -r --exclude=.env token cfg", want: []string{"cfg ok"}},
		{cmd: "grep -r --exclude='.e*' token cfg", want: []string{"cfg ok"}},
		{cmd: "grep -r --exclude='[!x]env' token cfg", want: []string{"cfg ok"}},
		{cmd: "grep -r --exclude=.env --include=.env token cfg", want: []string{"cfg denied **/.env"}}, // the last matching of --include/--exclude wins
		{cmd: "grep -r --exclude-dir=.env token cfg", want: []string{"cfg denied **/.env"}},
		{cmd: "grep -r --exclude=\"$X\" -e token cfg", want: []string{"cfg denied **/.env"}}, // a dynamic exclude excludes nothing we know
		{cmd: "grep -r --exclude-dir=.ssh token ~", want: []string{"~ denied ~/.aws/**"}},
		{cmd: "grep -r --exclude-dir=.ssh --exclude-dir=.aws --exclude=.netrc token ~", want: []string{"~ outside-roots"}},
		{cmd: "grep -r --exclude-dir=ssh --exclude=key token traps", want: []string{"traps not-established"}},
		{cmd: "grep -r --exclude-dir=x.pem --exclude-dir=cfg --exclude-dir=traps --exclude-dir=linked token .", want: []string{". ok"}},
		{cmd: "rg --hidden -g '!.env' token cfg", want: []string{"cfg ok"}},
		{cmd: "rg --hidden -g '!cfg/.env' token .", want: []string{". denied **/*.pem"}},
		{cmd: "rg --hidden -g '!.env' -g '*.yaml' token cfg", want: []string{"cfg denied **/.env"}},
		{cmd: "rg --hidden --iglob '!.env' token cfg", want: []string{"cfg denied **/.env"}},
		{cmd: "du -sh --exclude=.env cfg", want: []string{"cfg ok"}}, // names only
		{cmd: "du -sh docs", want: []string{"docs ok"}},
		{cmd: "grep -R token linked", want: []string{"linked denied **/.env"}},
		{cmd: "rg token cfg", want: []string{"cfg ok"}},
		{cmd: "rg --hidden token cfg", want: []string{"cfg denied **/.env"}},
		{cmd: "ls -R ~/.aws/..", want: []string{"~/.aws/.. outside-roots"}},
		{cmd: "ls -Ra ~/.aws/..", want: []string{"~/.aws/.. outside-roots"}},
		{cmd: "ls -Ra ~/.ssh/..", want: []string{"~/.ssh/.. outside-roots"}},
		{cmd: "ls -R ~/.ssh", want: []string{"~/.ssh denied ~/.ssh/**"}},
		{cmd: "ls -R cfg", want: []string{"cfg ok"}},
		{cmd: "ls -RA cfg", want: []string{"cfg ok"}}, // names only, contents never read
		{cmd: "tree -a cfg", want: []string{"cfg ok"}},
		{cmd: "find cfg -name .env", want: []string{"cfg ok"}},
		{cmd: "find cfg/.env", want: []string{"cfg/.env denied **/.env"}},
		// Reads fed by a producer.
		{cmd: "find src -name '*.go' | xargs wc -l", want: []string{"src ok", " ok [~/proj/src]"}},
		{cmd: "find . -name '*.go' | xargs wc -l", want: []string{". ok", " ok [~/proj]"}}, // only *.go names reach wc
		{cmd: "find . -name '*.pem' | xargs cat", want: []string{". ok", " denied **/*.pem [~/proj]"}},
		{cmd: "find . -name '*.go' -o -name x.pem | xargs cat", want: []string{". ok", " denied **/*.pem [~/proj]"}},
		{cmd: "find . | xargs wc -l", want: []string{". ok", " denied **/*.pem [~/proj]"}},
		// docs/"a b.txt" splits into docs/a and b.txt, both read in the
		// root and denied by no row (split_test.go has the hazards); the
		// newline name splits the same way.
		{cmd: "find docs -type f | xargs cat", want: []string{"docs ok", " ok [~/proj/docs]"}},
		{cmd: "find docs -type f -print0 | xargs -0 cat", want: []string{"docs ok", " ok [~/proj/docs]"}},
		{cmd: "find docs -type f -print0 | xargs cat", want: []string{"docs ok", " ok [~/proj/docs]"}},
		{cmd: "find src -printf '%p\\n' | xargs cat", want: []string{"src ok", " not-established"}},
		{cmd: "find src -name '*.go' -exec cat {} \\;", want: []string{"src ok", "{} ok [~/proj/src]"}},
		{cmd: "find cfg -exec cat {} \\;", want: []string{"cfg ok", "{} denied **/.env [~/proj/cfg]"}},
		{cmd: "find src -exec cat {}/../../README.md \\;", want: []string{"src ok", "{}/../../README.md not-established"}},
		{cmd: "find src -exec cat ../{} \\;", want: []string{"src ok", "../{} not-established"}},
		{cmd: "find src | xargs -I{} cat {}/../x", want: []string{"src ok", "{}/../x not-established"}},
		{cmd: "find src -print0 | xargs -0 -I % cat %", want: []string{"src ok", "% ok [~/proj/src]"}},
		{cmd: "grep -rl foo src | xargs cat", want: []string{"src ok", " ok [~/proj/src]"}},
		{cmd: "grep -r foo src | xargs cat", want: []string{"src ok", " not-established"}},
		{cmd: "ls src | xargs cat", want: []string{"src ok", " not-established"}},
		{cmd: "git ls-files | xargs grep foo", cwd: "clean", want: []string{" ok [~/clean]"}},
		{cmd: "git diff --name-only | xargs grep foo", cwd: "clean", want: []string{" ok [~/clean]"}},
		{cmd: "git diff --name-only HEAD~1 | xargs cat", want: []string{"HEAD~1 missing", " denied **/*.pem [~/proj]"}},
		{cmd: "git diff --stat --name-only | xargs cat", cwd: "clean", want: []string{" not-established"}},
		{cmd: "git diff --name-only --no-index a b | xargs cat", cwd: "clean", want: []string{"a missing", "b missing", " not-established"}},
		{cmd: "git diff | xargs cat", cwd: "clean", want: []string{". ok", " not-established"}},
		{cmd: "git ls-files | xargs grep foo", want: []string{" denied **/*.pem [~/proj]"}},
		{cmd: "git ls-files --format=x | xargs cat", cwd: "clean", want: []string{" not-established"}},
		{cmd: "cd lib && git ls-files | xargs cat", cwd: "clean", want: []string{"lib ok", " ok [~/clean]"}},
		{cmd: "(cd lib && git ls-files) | xargs cat", cwd: "clean", want: []string{"lib ok", " not-established"}},
		// A git segment whose repository cannot be established.
		{cmd: `cd "$X" && git ls-files`, want: []string{`"$X" not-established`, " not-established"}},
		{cmd: `GIT_DIR=/elsewhere git status`, want: []string{". ok", "/elsewhere not-established"}},
		// git -C is a cwd.
		{cmd: "git -C src status", want: []string{"src ok", ". ok"}},
		{cmd: "git -C nowhere status", want: []string{"nowhere missing", ". missing"}},
		// A root that is itself a symlink.
		{cmd: "cat README.md ../proj/README.md", cwd: "rootlink", want: []string{"README.md ok", "../proj/README.md ok"}},
		{cmd: "cat ../proj/../.netrc", cwd: "rootlink", want: []string{"../proj/../.netrc denied ~/.netrc"}},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			cwd := tc.cwd
			if cwd == "" {
				cwd = "proj"
			}
			b := f.boundary(t, cwd)
			st := judge(t, tc.cmd, b)
			if diff := cmp.Diff(tc.want, f.summary(st)); diff != "" {
				t.Errorf("%s: station (-want +got):\n%s", tc.cmd, diff)
				for _, r := range st.Reads {
					t.Logf("  %s: %s (%s)", r.Path, r.Message, r.Real)
				}
			}
			est := true
			for _, r := range st.Reads {
				if r.Verdict != VerdictOK && r.Verdict != VerdictMissing {
					est = false
				}
			}
			if st.Established != est {
				t.Errorf("established = %v, want %v", st.Established, est)
			}
		})
	}
}
