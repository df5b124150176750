package readstation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseGitConfig(t *testing.T) {
	src := `# comment
[core]pager=less
	FSMonitor = "./a b" ; trailing comment
	editor = vim # another
	sshCommand = "ssh -o 'X=1' \
-i key"
	quoted = "semi;colon # kept"
	bare
[diff "My Driver"]
	textconv = ./conv
[Filter.Crypt]
	smudge = ./dec
[alias]
	st = "!f() { echo \"hi\"; }; f"
[broken
	key = v
[core] pager = more
`
	var got []string
	for _, e := range parseGitConfig([]byte(src), "cfg") {
		got = append(got, e.name()+"="+e.value)
	}
	want := []string{
		"core.pager=less",
		"core.fsmonitor=./a b",
		"core.editor=vim",
		"core.sshcommand=ssh -o 'X=1' -i key",
		"core.quoted=semi;colon # kept",
		"core.bare=true",
		"diff.My Driver.textconv=./conv",
		"filter.crypt.smudge=./dec",
		`alias.st=!f() { echo "hi"; }; f`,
		// git refuses the file at "[broken": the entries before it.
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestRepoUnreadable: git reads a repository file the station cannot read
// (larger than its cap, not a regular file, or reached through a --git-dir
// that is not known statically): the commands that file may configure are
// not known, so the station is not established.
func TestRepoUnreadable(t *testing.T) {
	tests := []struct {
		name  string
		cmd   string
		setup func(t *testing.T, f fixture)
		want  []string // the reads, "path verdict" with the fixture's home as ~
	}{
		{"plain config", "git status", func(t *testing.T, f fixture) {}, []string{". ok"}},
		{"config past the cap", "git status", func(t *testing.T, f fixture) {
			big := strings.Repeat("# pad\n", maxConfigBytes/6+10) + "[core]\n\tfsmonitor = ./evil\n"
			must(t, os.WriteFile(filepath.Join(f.clean, ".git/config"), []byte(big), 0o644))
		}, []string{". ok", "~/clean/.git/config not-established"}},
		{"included config past the cap", "git log", func(t *testing.T, f fixture) {
			must(t, os.WriteFile(filepath.Join(f.clean, ".git/config"), []byte("[include]\n\tpath = big.cfg\n"), 0o644))
			big := strings.Repeat(";\n", maxConfigBytes/2+10) + "[core]\n\tpager = ./evil\n"
			must(t, os.WriteFile(filepath.Join(f.clean, ".git/big.cfg"), []byte(big), 0o644))
		}, []string{"~/clean/.git/big.cfg not-established"}},
		{"config is a directory", "git status", func(t *testing.T, f fixture) {
			must(t, os.Remove(filepath.Join(f.clean, ".git/config")))
			must(t, os.Mkdir(filepath.Join(f.clean, ".git/config"), 0o755))
		}, []string{". ok", "~/clean/.git/config not-established"}},
		{"dynamic --git-dir", "git --git-dir=$X log", func(t *testing.T, f fixture) {}, []string{"$X not-established"}},
		{"--git-dir of rev-parse", "git rev-parse --git-dir", func(t *testing.T, f fixture) {}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tc.setup(t, f)
			st := judge(t, tc.cmd, f.boundary(t, "clean"))
			got := []string{}
			for _, r := range st.Reads {
				got = append(got, strings.ReplaceAll(r.Path, f.home, "~")+" "+string(r.Verdict))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: reads (-want +got):\n%s", tc.cmd, diff)
			}
			wantEst := len(tc.want) == 0 || len(tc.want) == 1 && strings.HasSuffix(tc.want[0], " ok")
			if st.Established != wantEst {
				t.Errorf("%s: established = %v, want %v", tc.cmd, st.Established, wantEst)
			}
		})
	}
}

// TestGitFileCacheBound: the repository files kept across calls stay
// within maxGitCacheBytes however many large ones are read.
func TestGitFileCacheBound(t *testing.T) {
	dir := t.TempDir()
	data := []byte(strings.Repeat("#\n", maxConfigBytes/2))
	for i := 0; i < 2*maxGitCacheBytes/maxConfigBytes+2; i++ {
		p := filepath.Join(dir, strings.Repeat("c", i+1))
		must(t, os.WriteFile(p, data, 0o644))
		if got, _, why := readSmallStamp(p); len(got) != len(data) || why != "" {
			t.Fatalf("read %d bytes (%s), want %d", len(got), why, len(data))
		}
	}
	gitFileCache.Lock()
	held := 0
	for _, f := range gitFileCache.m {
		held += len(f.data)
	}
	gitFileCache.Unlock()
	if held > maxGitCacheBytes {
		t.Errorf("the cache holds %d bytes, over %d", held, maxGitCacheBytes)
	}
}

// TestGitPointedElsewhere: what points git at another repository, config
// or work tree (the segment's GitRepo facts, from the catalog's git_repo)
// is judged as git uses it. The repository is proj, whose .git/config
// sets core.fsmonitor; proj/sub is a clean repository of its own; proj's
// top level also looks like a git directory (HEAD, objects, refs) with a
// config of its own, which git --bare reads. A work tree does not move the
// directory git finds its repository from (git --work-tree=sub status in
// proj runs proj's fsmonitor), and is not inspected; an assignment that
// points git elsewhere is a read the station cannot establish.
func TestGitPointedElsewhere(t *testing.T) {
	f := newFixture(t)
	must(t, os.WriteFile(filepath.Join(f.proj, ".git/config"), []byte("[core]\n\tfsmonitor = ./m\n"), 0o644))
	writeGitDir(t, filepath.Join(f.proj, "sub/.git"), "[core]\n\tbare = false\n")
	writeGitDir(t, f.proj, "[core]\n\tbare = true\n\tpager = ./p\n")
	monitor := "helper core.fsmonitor=./m in ~/proj/.git/config"
	tests := []struct {
		cmd  string
		want []string
	}{
		{"git status", []string{". ok", monitor}},
		{"git -C sub status", []string{"sub ok", ". ok"}},
		{"git --work-tree=sub status", []string{"sub ok", ". ok", "sub not-established", monitor}},
		// The tracked content is judged in sub's repository, not proj's
		// that git prints: the work tree's own read says so.
		{"git --work-tree sub log -p", []string{"sub ok", ". ok", "sub not-established", monitor}},
		{"git -C sub --work-tree=.. status", []string{"sub ok", ".. ok", ". ok", ".. not-established"}},
		{"git --work-tree=$X status", []string{"$X not-established", ". not-established", "$X not-established", monitor}},
		{"GIT_WORK_TREE=sub git status", []string{". ok", "sub not-established", monitor}},
		{"git --bare log", []string{"helper core.pager=./p in ~/proj/config"}},
		{"git -C sub --bare log", []string{"sub ok"}},
		{"git --bare --git-dir=.git log", []string{monitor}},
		{"GIT_CONFIG_GLOBAL=g git status", []string{". ok", "g not-established", monitor}},
		{"env GIT_DIR=/elsewhere git status", []string{". ok", "/elsewhere not-established", monitor}},
		{"GIT_DIR=/elsewhere timeout 5 git status", []string{". ok", "/elsewhere not-established", monitor}},
		{"GIT_COMMON_DIR=/elsewhere go list", []string{"/elsewhere not-established", monitor}},
		{"GIT_PAGER=cat git status", []string{". ok", monitor}},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			st := judge(t, tc.cmd, f.boundary(t, "proj"))
			if diff := cmp.Diff(tc.want, f.summary(st)); diff != "" {
				t.Errorf("%s: station (-want +got):\n%s", tc.cmd, diff)
				for _, r := range st.Reads {
					t.Logf("  %s: %s (%s)", r.Path, r.Message, r.Real)
				}
			}
		})
	}
}

// writeGitDir makes dir look like a git directory (HEAD, objects, refs)
// with the config given.
func writeGitDir(t *testing.T, dir, config string) {
	t.Helper()
	for _, d := range []string{"objects", "refs"} {
		must(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	must(t, os.WriteFile(filepath.Join(dir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "config"), []byte(config), 0o644))
}
