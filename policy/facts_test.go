package policy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
)

func TestComputeFacts(t *testing.T) {
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
		f := ComputeFacts(&Input{Command: c.cmd, Cwd: c.cwd, Report: r})
		var got []w
		for _, fw := range f.Writes {
			got = append(got, w{fw.Path, fw.Established, fw.OutsideRoots, fw.Critical, fw.Device})
		}
		if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(w{})); diff != "" {
			t.Errorf("%q in %q (-want +got):\n%s", c.cmd, c.cwd, diff)
		}
		if f.Mode != ModeDefault || len(f.Segments) != len(r.Segments) {
			t.Errorf("%q: facts %+v", c.cmd, f)
		}
	}
}

func TestFactsGrantAndMode(t *testing.T) {
	cfg, err := ParseConfig([]byte("mode: readonly\ngrants: [make lint]\n"), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r := classify.Classify("make lint && make test")
	f := ComputeFacts(&Input{Command: r.Command, Report: r, Config: cfg})
	if diff := cmp.Diff([]SegmentFacts{{Grant: "make lint"}, {Grant: ""}}, f.Segments); diff != "" {
		t.Errorf("segments (-want +got):\n%s", diff)
	}
	if f.Mode != ModeReadonly {
		t.Errorf("mode %q: the config's mode applies when the input has none", f.Mode)
	}
	f = ComputeFacts(&Input{Command: r.Command, Report: r, Config: cfg, Mode: ModeDefault})
	if f.Mode != ModeDefault {
		t.Errorf("mode %q: the input's mode wins", f.Mode)
	}
}

func TestShellgateConfigWrites(t *testing.T) {
	home := "/h"
	cfg := &Config{Path: "/etc/sg/gate.yaml", PolicyDirs: []string{"/w/policy/", "~/rego"}}
	for _, tc := range []struct {
		path string
		want bool
	}{
		{"/w/.shellgate.yaml", true},
		{"/w/src/.shellgate.yaml", true},
		{"/etc/sg/gate.yaml", true},
		{"/w/policy", true},
		{"/w/policy/allow.rego", true},
		{"/h/rego/x.rego", true},
		{"/w/policyx", false},
		{"/w/shellgate.yaml", false},
		{"/etc/sg/other.yaml", false},
		{"/h/regox", false},
		{"", false},
	} {
		if got := shellgateConfig(tc.path, cfg, home); got != tc.want {
			t.Errorf("shellgateConfig(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	// A "~" policy dir with no home directory known protects nothing by
	// that name, and does not match relative to "/".
	if shellgateConfig("/rego/x", &Config{PolicyDirs: []string{"~/rego"}}, "") {
		t.Error("~/rego matched /rego/x with no home directory")
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
