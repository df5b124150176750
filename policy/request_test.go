package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify"
)

// TestResolveCwd: the one way a request's cwd is resolved, whichever edge
// received it.
func TestResolveCwd(t *testing.T) {
	for _, tc := range []struct{ base, cwd, want string }{
		{"/w", "", "/w"},
		{"/w", "sub", "/w/sub"},
		{"/w", "../x/./y", "/x/y"},
		{"/w", "/abs/./p/", "/abs/p"},
		{"", "", ""},
		{"", "rel", "rel"}, // nobody said where: cwd-unknown, not resolved
		{"", "/abs/../b", "/b"},
	} {
		if got := ResolveCwd(tc.base, tc.cwd); got != tc.want {
			t.Errorf("ResolveCwd(%q, %q) = %q, want %q", tc.base, tc.cwd, got, tc.want)
		}
	}
}

// TestParseRequest: mode and shell are checked and the shell parsed once,
// and Defaults fills only what a request leaves open.
func TestParseRequest(t *testing.T) {
	for _, tc := range []struct {
		command, cwd, mode, shell string
		want                      Request
		err                       string
	}{
		{"ls", "", "", "", Request{Command: "ls", Cwd: "/w"}, ""},
		{"ls", "d", ModeReadonly, "/bin/zsh", Request{Command: "ls", Cwd: "/w/d", Mode: ModeReadonly, Shell: classify.DialectZsh}, ""},
		{"ls", "", "", "dash", Request{Command: "ls", Cwd: "/w", Shell: classify.DialectSh}, ""},
		{"ls", "", "sometimes", "", Request{}, `mode "sometimes": want default or readonly`},
		{"ls", "", "", "fish", Request{}, `unknown shell "fish"`},
	} {
		got, err := ParseRequest(tc.command, tc.cwd, tc.mode, tc.shell, "/w")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseRequest(%q, %q): error %v, want %q", tc.mode, tc.shell, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseRequest(%q, %q, %q, %q) (-want +got):\n%s", tc.command, tc.cwd, tc.mode, tc.shell, diff)
		}
	}
	d := Request{Cwd: "/w", Mode: ModeReadonly, Shell: classify.DialectBash}
	for _, tc := range []struct{ r, want Request }{
		{Request{Command: "ls"}, Request{Command: "ls", Cwd: "/w", Mode: ModeReadonly, Shell: classify.DialectBash}},
		{Request{Command: "ls", Cwd: "x", Mode: ModeDefault, Shell: classify.DialectZsh}, Request{Command: "ls", Cwd: "/w/x", Mode: ModeDefault, Shell: classify.DialectZsh}},
	} {
		if diff := cmp.Diff(tc.want, tc.r.Defaults(d)); diff != "" {
			t.Errorf("Defaults (-want +got):\n%s", diff)
		}
	}
}

// FuzzParseRequest: whatever the fields, ParseRequest never panics, an
// accepted request's mode is "" or valid, and its cwd is absolute and
// clean under an absolute base.
func FuzzParseRequest(f *testing.F) {
	for _, s := range [][3]string{{"", "", ""}, {"sub/../x", "readonly", "zsh"}, {"/a//b/", "default", "-zsh"}, {"..", "x", "fish"}, {"\x00", "", "/bin/sh"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, cwd, mode, shell string) {
		r, err := ParseRequest("ls", cwd, mode, shell, "/base")
		if err != nil {
			return
		}
		if r.Mode != "" && !ValidMode(r.Mode) {
			t.Fatalf("accepted mode %q", r.Mode)
		}
		if !filepath.IsAbs(r.Cwd) || filepath.Clean(r.Cwd) != r.Cwd {
			t.Fatalf("cwd %q from %q is not absolute and clean", r.Cwd, cwd)
		}
	})
}

// TestResolveUnder: under a bundle's config a project config only tightens,
// as an untrusted project config does, even when the user trusts it: its
// deny rows, readonly mode, read-only sandbox, lower limits and problem
// are added; its grants, roots, programs and shell are not; its modules
// apply as untrusted ones.
func TestResolveUnder(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pol"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pol", "p.rego"), []byte("package shellgate\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	proj, err := ParseConfig([]byte("mode: readonly\ngrants: [\"make deploy\"]\nroots: [/elsewhere]\ndeny_reads: [\"**/proj-secret\"]\nread_only_programs: [mytool]\nshell: zsh\nsandbox: read-only\npolicy_dirs: [pol]\n"), filepath.Join(dir, ConfigFileName))
	if err != nil {
		t.Fatal(err)
	}
	proj.Source = SourceProject
	proj.SandboxLimits = &SandboxLimits{Processes: 10, MemoryMB: 999999}
	base, err := ParseConfig([]byte("deny_reads: [\"**/org-secret\"]\nsandbox: workspace-write\n"), "/bundle/shellgate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	base.SandboxLimits = &SandboxLimits{MemoryMB: 100}
	r, err := ResolveUnder(base, proj)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Config
	got := map[string]any{
		"mode": c.Mode, "deny_reads": c.DenyReads, "grants": c.Grants, "roots": c.Roots, "programs": c.ReadOnlyPrograms,
		"shell": c.Shell, "sandbox": c.Sandbox, "limits": *c.SandboxLimits, "untrusted": len(r.UntrustedModules), "trusted": len(r.Modules),
	}
	want := map[string]any{
		"mode": ModeReadonly, "deny_reads": append(append([]string(nil), base.DenyReads...), "**/proj-secret"), "grants": []string(nil), "roots": []string(nil), "programs": []string(nil),
		"shell": "", "sandbox": "read-only", "limits": SandboxLimits{Processes: 10, MemoryMB: 100}, "untrusted": 1, "trusted": 0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ResolveUnder (-want +got):\n%s", diff)
	}
	if len(base.DenyReads) != 1 || base.Mode == ModeReadonly || base.Sandbox != "workspace-write" {
		t.Errorf("the bundle's config was changed: %+v", base)
	}
}
