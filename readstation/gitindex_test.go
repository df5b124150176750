package readstation

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/internal/testenv"
)

// The fixtures in testdata/gitindex were written by git 2.39
// (testdata/gitindex/gen.sh).
func TestParseIndex(t *testing.T) {
	base := []string{"README.md", "docs/guide.md", "src/config/.env", "src/main.go"}
	for _, tc := range []struct {
		file        string
		want        []string
		unsupported bool
	}{
		{file: "v2.index", want: base},
		{file: "v3.index", want: []string{"README.md", "docs/guide.md", "new.txt", "src/config/.env", "src/main.go"}},
		{file: "v4.index", want: base},
		{file: "sha256.index", want: base},
		{file: "split.index", unsupported: true},
		{file: "sparse.index", unsupported: true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "gitindex", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := parseIndex(data)
			if tc.unsupported {
				if !errors.Is(err, errIndexUnsupported) {
					t.Fatalf("parseIndex = %q, %v; want errIndexUnsupported", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("paths (-want +got):\n%s", d)
			}
		})
	}
}

// TestParseIndexSkipHash: with index.skipHash (git 2.40) the trailing
// checksum is zero; the paths are read all the same.
func TestParseIndexSkipHash(t *testing.T) {
	for _, name := range []string{"v2.index", "v4.index", "sha256.index"} {
		data, err := os.ReadFile(filepath.Join("testdata", "gitindex", name))
		if err != nil {
			t.Fatal(err)
		}
		n := sha1.Size
		if name == "sha256.index" {
			n = 32
		}
		copy(data[len(data)-n:], make([]byte, n))
		got, err := parseIndex(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d := cmp.Diff([]string{"README.md", "docs/guide.md", "src/config/.env", "src/main.go"}, got); d != "" {
			t.Errorf("%s: paths (-want +got):\n%s", name, d)
		}
	}
}

func TestParseIndexCorrupt(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "gitindex", "v2.index"))
	if err != nil {
		t.Fatal(err)
	}
	// resum recomputes the SHA-1 trailer, so the parser's own checks are
	// what fails.
	resum := func(b []byte) []byte {
		body := b[:len(b)-sha1.Size]
		s := sha1.Sum(body)
		return append(append([]byte{}, body...), s[:]...)
	}
	mutate := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, data...)) }
	cases := map[string][]byte{
		"empty":        {},
		"no header":    []byte("DIRX\x00\x00\x00\x02\x00\x00\x00\x00"),
		"version 5":    mutate(func(b []byte) []byte { b[7] = 5; return resum(b) }),
		"bad checksum": mutate(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }),
		"truncated":    resum(data[:200]),
		"huge count":   mutate(func(b []byte) []byte { b[8] = 0x7f; return resum(b) }),
		"bad name len": mutate(func(b []byte) []byte { b[12+40+20+1]++; return resum(b) }),
		"bad padding": mutate(func(b []byte) []byte {
			b[bytes.Index(b, []byte("docs/guide.md"))+len("docs/guide.md")+2] = 'x'
			return resum(b)
		}),
		"dotdot path": mutate(func(b []byte) []byte { copy(b[12+40+20+2:], "../a.md.x"); return resum(b) }),
		"extension size": mutate(func(b []byte) []byte {
			return resum(append(b[:len(b)-sha1.Size], append([]byte("ABCD\xff\xff\xff\xff"), make([]byte, sha1.Size)...)...))
		}),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			paths, err := parseIndex(b)
			if name == "dotdot path" {
				// The parser reads it; the station refuses it (below).
				if err != nil || !strings.HasPrefix(paths[0], "../") {
					t.Fatalf("parseIndex = %q, %v", paths, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("parseIndex accepted a corrupt index: %q", paths)
			}
		})
	}
}

// FuzzParseIndex: any bytes give paths or an error, never a panic, and a
// path is never empty.
func FuzzParseIndex(f *testing.F) {
	for _, name := range []string{"v2.index", "v3.index", "v4.index", "sha256.index", "split.index", "sparse.index"} {
		data, err := os.ReadFile(filepath.Join("testdata", "gitindex", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The entries' parser on its own too: a mutated index rarely
		// keeps a valid checksum.
		if len(data) >= 12 && string(data[:4]) == "DIRC" {
			if v := binary.BigEndian.Uint32(data[4:8]); v >= 2 && v <= 4 {
				for _, n := range []int{sha1.Size, 32} {
					if paths, err := parseEntries(data, v, n); err == nil && slices.Contains(paths, "") {
						t.Fatal("an empty path from the entries")
					}
				}
			}
		}
		// The gitlinks alone are the full parse's gitlinks.
		all, errAll := parseIndexEntries(data, nil)
		links, errLinks := parseIndexEntries(data, func(m uint32) bool { return m&0o170000 == gitlinkMode })
		if (errAll == nil) != (errLinks == nil) {
			t.Fatalf("the full parse: %v; the gitlinks alone: %v", errAll, errLinks)
		}
		var want []indexEntry
		for _, e := range all {
			if e.mode&0o170000 == gitlinkMode {
				want = append(want, e)
			}
		}
		if errAll == nil && !slices.Equal(want, links) {
			t.Fatalf("gitlinks %v, want %v", links, want)
		}
		paths, err := parseIndex(data)
		if err != nil {
			return
		}
		for _, p := range paths {
			if p == "" {
				t.Fatal("an empty path")
			}
		}
	})
}

// trackedRepo makes a work tree at dir/name whose index is the fixture
// index (README.md, docs/guide.md, src/config/.env, src/main.go tracked),
// with the directories and README.md on disk.
func trackedRepo(t *testing.T, dir, name, index string) string {
	t.Helper()
	top := filepath.Join(dir, name)
	for _, d := range []string{".git/objects", ".git/refs", "src/config", "docs"} {
		must(t, os.MkdirAll(filepath.Join(top, d), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(top, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(top, "README.md"), []byte("r\n"), 0o644))
	if index != "" {
		data, err := os.ReadFile(filepath.Join("testdata", "gitindex", index))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(top, ".git/index"), data, 0o644))
	}
	return top
}

// TestJudgeTracked: git commands that print what a repository tracks
// read every tracked path no pathspec leaves out, from the index.
func TestJudgeTracked(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	repo := trackedRepo(t, dir, "repo", "v2.index")
	trackedRepo(t, dir, "v4", "v4.index")
	trackedRepo(t, dir, "sha256", "sha256.index")
	trackedRepo(t, dir, "split", "split.index")
	trackedRepo(t, dir, "fresh", "")
	must(t, os.MkdirAll(filepath.Join(dir, "plain", "a"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "plain", "b"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "plain", "a", ".env"), []byte("T=1\n"), 0o644))
	bare := filepath.Join(dir, "bare.git")
	for _, d := range []string{"objects", "refs"} {
		must(t, os.MkdirAll(filepath.Join(bare, d), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(bare, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	tests := []struct {
		cmd, cwd string
		want     []string
	}{
		{cmd: "git grep TOKEN", want: []string{". denied **/.env in-tree"}},
		{cmd: "git log -p", want: []string{". denied **/.env in-tree"}},
		{cmd: "git show", want: []string{". denied **/.env in-tree"}},
		{cmd: "git diff HEAD~3", want: []string{"HEAD~3 missing", ". denied **/.env in-tree"}},
		{cmd: "git -C src grep TOKEN", want: []string{"src ok", ". denied **/.env in-tree"}},
		// A pathspec narrows it: a directory to what is tracked below it.
		{cmd: "git log -p -- src", want: []string{"src denied **/.env in-tree"}},
		{cmd: "git grep TOKEN -- docs README.md", want: []string{"docs ok", "README.md ok"}},
		// A glob the shell expands to a directory (after --, so a pathspec).
		{cmd: "git log -p -- sr*", want: []string{"sr* denied **/.env in-tree"}},
		{cmd: "git log -p -- d*", want: []string{"d* ok"}},
		{cmd: "git diff -- src/main.go", want: []string{"src/main.go missing"}},
		{cmd: "git show HEAD:README.md", want: []string{"README.md ok"}},
		// A word before -- that exists is a pathspec; one that does not is
		// a revision.
		{cmd: "git diff README.md", want: []string{"README.md ok", ". ok"}},
		{cmd: "git log -p docs", want: []string{"docs ok", ". ok"}},
		{cmd: "git log -p src", want: []string{"src denied **/.env in-tree", ". ok"}},
		{cmd: "git log -p main", want: []string{"main missing", ". denied **/.env in-tree"}},
		// Names and counts print no content.
		{cmd: "git diff --stat", want: []string{}},
		{cmd: "git grep -l TOKEN", want: []string{}},
		{cmd: "git log --oneline", want: []string{}},
		// The other index formats.
		{cmd: "git grep TOKEN", cwd: "v4", want: []string{". denied **/.env in-tree"}},
		{cmd: "git grep TOKEN", cwd: "sha256", want: []string{". denied **/.env in-tree"}},
		// A split index does not list the gitlinks git steps into either.
		{cmd: "git grep TOKEN", cwd: "split", want: []string{". not-established", "$T/split/.git/index not-established"}},
		// Nothing tracked yet, no repository, a bare one.
		{cmd: "git grep TOKEN", cwd: "fresh", want: []string{". ok"}},
		{cmd: "git grep TOKEN", cwd: "plain", want: []string{". ok"}},
		// Outside a repository git diff compares directories whole.
		{cmd: "git diff a b", cwd: "plain", want: []string{"a denied **/.env in-tree", "b ok", ". ok"}},
		{cmd: "git log -p", cwd: "bare.git", want: []string{". not-established"}},
	}
	for _, tc := range tests {
		t.Run(tc.cwd+" "+tc.cmd, func(t *testing.T) {
			cwd := repo
			if tc.cwd != "" {
				cwd = filepath.Join(dir, tc.cwd)
			}
			st := judge(t, tc.cmd, rootBoundary(dir, cwd))
			got := []string{}
			for _, r := range st.Reads {
				s := strings.ReplaceAll(r.Path, dir, "$T") + " " + string(r.Verdict)
				if r.Row != "" {
					s += " " + r.Row
				}
				if r.InTree {
					s += " in-tree"
				}
				got = append(got, s)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s: station (-want +got):\n%s", tc.cmd, d)
				for _, r := range st.Reads {
					t.Logf("  %s: %s", r.Path, r.Message)
				}
			}
		})
	}
}

// TestJudgeTrackedChanges: the index is read again when it changes, and
// one that lists a path leaving the work tree is not trusted.
func TestJudgeTrackedChanges(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	repo := trackedRepo(t, dir, "repo", "v2.index")
	data, err := os.ReadFile(filepath.Join("testdata", "gitindex", "v2.index"))
	must(t, err)
	rename := func(from, to string) []byte {
		b := bytes.Replace(append([]byte{}, data...), []byte(from), []byte(to), 1)
		body := b[:len(b)-sha1.Size]
		s := sha1.Sum(body)
		return append(body, s[:]...)
	}
	b := rootBoundary(dir, repo)
	verdict := func() string {
		st := judge(t, "git grep TOKEN", b)
		return string(st.Reads[0].Verdict) + ": " + st.Reads[0].Message
	}
	replace := func(index []byte) {
		// A new file renamed over the index, as git writes it.
		tmp := filepath.Join(repo, ".git", "index.lock")
		must(t, os.WriteFile(tmp, index, 0o644))
		must(t, os.Rename(tmp, filepath.Join(repo, ".git", "index")))
	}
	if v := verdict(); !strings.HasPrefix(v, string(VerdictDenied)) {
		t.Fatalf("tracked .env: %s", v)
	}
	replace(rename("src/config/.env", "src/config/.enx"))
	if v := verdict(); !strings.HasPrefix(v, string(VerdictOK)) {
		t.Fatalf("after .env left the index: %s", v)
	}
	replace(data)
	if v := verdict(); !strings.HasPrefix(v, string(VerdictDenied)) {
		t.Fatalf("after .env came back: %s", v)
	}
	replace(rename("src/config/.env", "../../conf/.env"))
	if v := verdict(); !strings.HasPrefix(v, string(VerdictNotEstablished)) || !strings.Contains(v, "leaves the work tree") {
		t.Fatalf("a path out of the work tree: %s", v)
	}
	must(t, os.WriteFile(filepath.Join(repo, ".git", "index"), []byte("DIRC garbage"), 0o644))
	if v := verdict(); !strings.HasPrefix(v, string(VerdictNotEstablished)) {
		t.Fatalf("a corrupt index: %s", v)
	}
}

// BenchmarkTrackedIndex measures judging "git grep x" in a repository
// whose index lists 100 000 paths (one a .env): "cold" reads, verifies and
// judges the whole index (once per change of the index), "warm" is every
// later decision while the index is unchanged.
func BenchmarkTrackedIndex(b *testing.B) {
	dir := b.TempDir()
	top := filepath.Join(dir, "repo")
	for _, d := range []string{".git/objects", ".git/refs"} {
		must(b, os.MkdirAll(filepath.Join(top, d), 0o755))
	}
	must(b, os.WriteFile(filepath.Join(top, ".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	// A version 2 index: 62 bytes of stat data, object name and flags per
	// entry, the path, NUL padding to 8 bytes; the SHA-1 of it all last.
	var idx []byte
	idx = append(idx, "DIRC\x00\x00\x00\x02"...)
	const n = 100000
	idx = binary.BigEndian.AppendUint32(idx, n)
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("pkg%03d/sub%02d/file%05d.go", i/1000, i/100%10, i)
		if i == n/2 {
			p = fmt.Sprintf("pkg%03d/sub%02d/.env", i/1000, i/100%10)
		}
		start := len(idx)
		idx = append(idx, make([]byte, 40+sha1.Size)...)
		binary.BigEndian.PutUint32(idx[start+24:], 0o100644)
		idx = binary.BigEndian.AppendUint16(idx, uint16(len(p)))
		idx = append(idx, p...)
		for pad := (62 + len(p) + 8) &^ 7; len(idx)-start < pad; {
			idx = append(idx, 0)
		}
	}
	sum := sha1.Sum(idx)
	idx = append(idx, sum[:]...)
	must(b, os.WriteFile(filepath.Join(top, ".git/index"), idx, 0o644))
	bd := rootBoundary(dir, top)
	r := classify.Classify("git grep x")
	check := func(b *testing.B) {
		st := Judge(r, bd)
		if len(st.Reads) != 1 || st.Reads[0].Verdict != VerdictDenied {
			b.Fatalf("reads %+v", st.Reads)
		}
	}
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			trackedCache.Lock()
			trackedCache.m = nil
			trackedCache.Unlock()
			check(b)
		}
	})
	b.Run("warm", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			check(b)
		}
	})
	// git status reads no tracked content, only the gitlinks git steps
	// into: its cold cost is the parse, not the deny rows.
	status := classify.Classify("git status")
	b.Run("status-cold", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			gitlinkCache.Lock()
			gitlinkCache.m = nil
			gitlinkCache.Unlock()
			if st := Judge(status, bd); !st.Established {
				b.Fatalf("reads %+v", st.Reads)
			}
		}
	})
}

// TestRepoReadsUnderAnUnresolvableCwd: a cwd that cannot be resolved (a
// symlink loop) leaves git's repository unknown, so what it prints from
// the repository (its tracked paths, its config) is not established.
func TestRepoReadsUnderAnUnresolvableCwd(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	loop := filepath.Join(dir, "loop")
	must(t, os.Symlink("loop", loop))
	b := Boundary{Roots: []string{dir}, Cwd: loop, Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows}
	for _, cmd := range []string{"git grep TOKEN", "git config --list"} {
		st := judge(t, cmd, b)
		for _, r := range st.Reads {
			if (r.Source == "git-tracked" || r.Source == "git-config" && r.Path == ".git/config") && r.Verdict != VerdictNotEstablished {
				t.Errorf("%s: %s is %s (%s), want not-established", cmd, r.Path, r.Verdict, r.Message)
			}
		}
		if st.Established {
			t.Errorf("%s: the station is established", cmd)
		}
	}
}

// TestIndexEntriesAgainstGit holds parseIndexEntries to git ls-files
// --stage on indexes the real git wrote (versions 2, 3 and 4), with
// regular files, an executable, a symlink and gitlinks at several depths:
// the same paths with the same modes, and the gitlinks alone when only
// they are kept.
func TestIndexEntriesAgainstGit(t *testing.T) {
	git := testenv.LookPath(t, "git")
	dir := t.TempDir()
	env := []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
	run := func(args ...string) string {
		t.Helper()
		c := exec.Command(git, args...)
		c.Dir, c.Env = dir, env
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "-q", ".")
	writeTree(t, dir, map[string]string{"a.txt": "a\n", "dir/b.txt": "b\n", "dir/sub dir/c.txt": "c\n"})
	must(t, os.Chmod(filepath.Join(dir, "dir/b.txt"), 0o755))
	must(t, os.Symlink("a.txt", filepath.Join(dir, "link")))
	run("add", ".")
	sha := strings.Repeat("ab", 20)
	for _, p := range []string{"vendor/lib", "deep/er/inner", "z"} {
		run("update-index", "--add", "--cacheinfo", "160000,"+sha+","+p)
	}
	writeTree(t, dir, map[string]string{"ita.txt": "i\n"})
	run("add", "-N", "ita.txt") // an extended flag: version 3 at least
	for _, v := range []string{"2", "3", "4"} {
		t.Run("v"+v, func(t *testing.T) {
			run("update-index", "--index-version", v)
			want, links := []string{}, []string{}
			for _, l := range strings.Split(strings.TrimSpace(run("ls-files", "--stage")), "\n") {
				meta, path, _ := strings.Cut(l, "\t")
				mode := strings.Fields(meta)[0]
				want = append(want, mode+" "+path)
				if mode == "160000" {
					links = append(links, mode+" "+path)
				}
			}
			data, err := os.ReadFile(filepath.Join(dir, ".git/index"))
			must(t, err)
			for _, keep := range []func(uint32) bool{nil, func(m uint32) bool { return m&0o170000 == gitlinkMode }} {
				es, err := parseIndexEntries(data, keep)
				must(t, err)
				got := []string{}
				for _, e := range es {
					got = append(got, fmt.Sprintf("%06o %s", e.mode, e.path))
				}
				w := want
				if keep != nil {
					w = links
				}
				if d := cmp.Diff(w, got); d != "" {
					t.Errorf("entries (-git ls-files --stage +parseIndexEntries):\n%s", d)
				}
			}
		})
	}
}
