package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/readstation"
)

// TestComputeFactsWrites: the facts carry the file-system model's writes
// as they are, index the ones that matter, and add what only the config
// knows (shellgate's own configuration); writes nobody judged get no
// facts (the engine refuses that input).
func TestComputeFactsWrites(t *testing.T) {
	r := classify.Classify("rm -rf / && dd if=x of=/dev/sda && touch /w/.shellgate.yaml ../out")
	if len(r.Writes) != 4 {
		t.Fatalf("writes %+v", r.Writes)
	}
	ws := &readstation.Writes{Home: "/h", Roots: []string{"/w"}, Writes: []readstation.Write{
		{Path: "/", Real: "/", Established: true, OutsideRoots: true, Critical: true},
		{Path: "/dev/sda", Real: "/dev/sda", Established: true, OutsideRoots: true, Device: true},
		{Path: "/w/.shellgate.yaml", Real: "/w/.shellgate.yaml", Established: true},
		{Path: "/out", Real: "/elsewhere/out", Established: true, OutsideRoots: true},
	}}
	f := ComputeFacts(&Input{Command: r.Command, Cwd: "/w", Report: r, Writes: ws})
	want := []WriteFacts{
		{Write: ws.Writes[0]},
		{Write: ws.Writes[1]},
		{Write: ws.Writes[2], ShellgateConfig: true},
		{Write: ws.Writes[3]},
	}
	if diff := cmp.Diff(want, f.Writes); diff != "" {
		t.Errorf("writes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/w"}, f.Roots); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	if f.Home != "/h" {
		t.Errorf("home %q", f.Home)
	}
	idx := map[string][]int{}
	for _, k := range []string{"write:critical", "write:outside-roots", "write:device", "write:shellgate-config"} {
		idx[k] = f.Index[k]
	}
	if diff := cmp.Diff(map[string][]int{"write:critical": {0}, "write:outside-roots": {0, 1, 3}, "write:device": {1}, "write:shellgate-config": {2}}, idx); diff != "" {
		t.Errorf("index (-want +got):\n%s", diff)
	}
	if f := ComputeFacts(&Input{Command: r.Command, Cwd: "/w", Report: r}); len(f.Writes) != 0 || len(f.Roots) != 0 || !f.Has.Writes {
		t.Errorf("writes not judged: %+v", f)
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
