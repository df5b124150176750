package readstation

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
)

// TestJudgeWrites: where writes land, through cd, "..", symlinks that lead
// out (dangling ones too: writing through one creates its target), globs,
// the home directory and devices, against the workspace found from the cwd.
func TestJudgeWrites(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	home := filepath.Join(dir, "home")
	ws := filepath.Join(dir, "ws")
	t.Setenv("HOME", home)
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(ws, "src"), filepath.Join(home, "x"), filepath.Join(dir, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A symlink inside the workspace that leads out of it.
	if err := os.Symlink(filepath.Join(dir, "outside"), filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	// Dangling symlinks: writing through one creates its target.
	for name, target := range map[string]string{
		"dangling":    filepath.Join(dir, "outside", "newfile"),
		"reldangling": "../outside/new2",
		"deepdangle":  filepath.Join(dir, "nowhere", "deeper"),
		"chain":       "dangling",
		"inlink":      filepath.Join(ws, "src", "new3"),
	} {
		if err := os.Symlink(target, filepath.Join(ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	type w struct {
		path                               string
		established, outside, crit, device bool
	}
	cases := []struct {
		cmd  string
		cwd  string
		want []w
	}{
		{"touch a", ws, []w{{filepath.Join(ws, "a"), true, false, false, false}}},
		{"touch src/a", filepath.Join(ws, "src"), []w{{filepath.Join(ws, "src", "src", "a"), true, false, false, false}}},
		{"cd src && touch ../b", ws, []w{{filepath.Join(ws, "b"), true, false, false, false}}},
		{"touch ../a", ws, []w{{filepath.Join(dir, "a"), true, true, false, false}}},
		{"touch escape/a", ws, []w{{filepath.Join(ws, "escape", "a"), true, true, false, false}}},
		{"touch dangling", ws, []w{{filepath.Join(ws, "dangling"), true, true, false, false}}},
		{"echo x > reldangling", ws, []w{{filepath.Join(ws, "reldangling"), true, true, false, false}}},
		{"touch deepdangle", ws, []w{{filepath.Join(ws, "deepdangle"), true, true, false, false}}},
		{"touch chain", ws, []w{{filepath.Join(ws, "chain"), true, true, false, false}}},
		{"touch inlink", ws, []w{{filepath.Join(ws, "inlink"), true, false, false, false}}},
		{"rm -rf ~", ws, []w{{home, true, true, true, false}}},
		{"rm -rf ~/x", ws, []w{{filepath.Join(home, "x"), true, true, false, false}}},
		{"rm -rf /", ws, []w{{"/", true, true, true, false}}},
		{"rm -rf /usr", ws, []w{{"/usr", true, true, true, false}}},
		{"rm -rf .", ws, []w{{ws, true, false, true, false}}},
		{"rm -rf src/..", ws, []w{{ws, true, false, true, false}}},
		{"rm -rf *", ws, []w{{ws, true, false, true, false}}},
		{"rm -rf src/*", ws, []w{{filepath.Join(ws, "src"), true, false, false, false}}},
		{"rm -rf *.o", ws, []w{{ws, true, false, false, false}}},
		{"rm -rf *~important", ws, []w{{ws, true, false, false, false}}},
		{"rm -rf .*", ws, []w{{ws, true, false, true, false}}},
		{"rm -rf ~/*", ws, []w{{home, true, true, true, false}}},
		{"rm -rf ~/*.log", ws, []w{{home, true, true, false, false}}},
		{"rm -rf /*", ws, []w{{"/", true, true, true, false}}},
		{"rm -rf " + dir, ws, []w{{dir, true, true, true, false}}},
		{"dd if=x of=/dev/sda", ws, []w{{"/dev/sda", true, true, false, true}}},
		{"echo x > /dev/null", ws, nil},
		{"rm -rf $DIR", ws, []w{{"", false, false, false, false}}},
		{"touch a", "", []w{{"", false, false, false, false}}},
		{"touch /abs/a", "", []w{{"/abs/a", true, true, false, false}}},
	}
	for _, c := range cases {
		r := classify.Classify(c.cmd)
		b, _ := NewBoundary(c.cwd, Options{}) // "" fails, and still judges absolute writes
		f := JudgeWrites(r, b)
		var got []w
		for _, fw := range f.Writes {
			got = append(got, w{fw.Path, fw.Established, fw.OutsideRoots, fw.Critical, fw.Device})
		}
		if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(w{})); diff != "" {
			t.Errorf("%q in %q (-want +got):\n%s", c.cmd, c.cwd, diff)
		}
		if again := f.Again(); !cmp.Equal(again.Writes, f.Writes) {
			t.Errorf("%q: judged again: %+v, first %+v", c.cmd, again.Writes, f.Writes)
		}
	}
}

// TestJudgeWritesRoots: the roots writes are judged against are the
// boundary's, made absolute as the reads' matcher makes them.
func TestJudgeWritesRoots(t *testing.T) {
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	t.Setenv("HOME", home)
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(ws, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	b, err := NewBoundary(filepath.Join(ws, "src"), Options{Roots: []string{"~/x", "rel", "/abs/../opt"}})
	if err != nil {
		t.Fatal(err)
	}
	got := JudgeWrites(classify.Classify("touch a"), b)
	want := []string{ws, filepath.Join(home, "x"), filepath.Join(ws, "src", "rel"), "/opt"}
	if diff := cmp.Diff(want, got.Roots); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	if got.Home != home {
		t.Errorf("home %q, want %q", got.Home, home)
	}
	if w := JudgeWrites(classify.Classify("cat a"), b); len(w.Writes) != 0 || len(w.Roots) != 0 {
		t.Errorf("a command that writes nothing: %+v", w)
	}
}

// TestResolverMatchesEvalSymlinks: for paths that exist, the resolver
// agrees with filepath.EvalSymlinks, through relative and absolute links,
// chains, ".." inside a link's target, and with its cache warm.
func TestResolverMatchesEvalSymlinks(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	for _, d := range []string{"a/b/c", "x/y", "z"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "a/b/c/f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"rel":        "a/b",
		"abs":        filepath.Join(dir, "x"),
		"chain":      "rel",
		"up":         "a/b/c/../..",
		"x/y/back":   "../../a",
		"a/b/c/self": ".",
		"z/deep":     "../chain/c",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{"a/b/c/f", "rel/c/f", "abs/y", "chain/c", "up/b/c/f", "x/y/back/b/c/f",
		"a/b/c/self/self/f", "z/deep/f", "chain/c/../c/f", "abs/y/back/b"}
	rs := newResolver()
	for round := 0; round < 2; round++ {
		for _, p := range paths {
			abs := filepath.Join(dir, p)
			want, err := filepath.EvalSymlinks(abs)
			if err != nil {
				t.Fatalf("EvalSymlinks(%s): %v", p, err)
			}
			if got := rs.real(abs); got != want {
				t.Errorf("round %d: real(%s) = %s, want %s", round, p, got, want)
			}
		}
	}
	// A loop of links is not resolved: the path comes back as given.
	if err := os.Symlink("loop2", filepath.Join(dir, "loop1")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop1", filepath.Join(dir, "loop2")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "loop1", "f")
	if got := newResolver().real(p); got != p {
		t.Errorf("real(loop) = %s, want it unchanged", got)
	}
}
