package execution

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSandboxModeOrder(t *testing.T) {
	tests := []struct {
		a, b SandboxMode
		want bool
	}{
		{SandboxWorkspaceWrite, SandboxReadOnly, true},
		{SandboxFullAccess, SandboxReadOnly, true},
		{SandboxFullAccess, SandboxWorkspaceWrite, true},
		{SandboxReadOnly, SandboxReadOnly, false},
		{SandboxReadOnly, SandboxWorkspaceWrite, false},
		{"root", SandboxReadOnly, false},
		{SandboxFullAccess, "", false},
	}
	for _, tc := range tests {
		if got := tc.a.Wider(tc.b); got != tc.want {
			t.Errorf("%q.Wider(%q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	if _, err := ParseSandboxMode("danger-full-access"); err == nil {
		t.Errorf("ParseSandboxMode accepted an unknown mode")
	}
}

func TestPathCandidates(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"touch: cannot touch 'x': Permission denied", []string{"x"}},
		{"mkdir: cannot create directory ‘d/e’: Permission denied", []string{"d/e"}},
		{"cat: /home/u/.netrc: Permission denied", []string{"/home/u/.netrc"}},
		{"bash: line 1: /root/out: Permission denied", []string{"/root/out"}},
		{`python: can't open file "/x/y.py": [Errno 13] Permission denied`, []string{"/x/y.py"}},
		{"no path here: Permission denied", nil},
		{"verifying m@v1: open /root/go/pkg/mod/x.ziphash: permission denied", []string{"/root/go/pkg/mod/x.ziphash"}},
		{"open /a/b: read-only file system", []string{"/a/b"}},
		{"esc.sh: 1: cannot create .git/hooks/pre-commit: Read-only file system", []string{"1", ".git/hooks/pre-commit"}},
		{"error: could not lock config file .git/config: Read-only file system", []string{".git/config"}},
		{"sh: 1: cannot create .envrc: Read-only file system", []string{"1", ".envrc"}},
		{"tool: the build failed: Permission denied", nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, pathCandidates(tc.line)); diff != "" {
			t.Errorf("pathCandidates(%q) (-want +got):\n%s", tc.line, diff)
		}
	}
}

// TestDetectDenials judges error lines on a real file system: only a
// refusal the sandbox explains is listed, not one the file permissions
// explain or one inside what the sandbox grants.
func TestDetectDenials(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	secret := filepath.Join(home, "secret")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	ro := &confinedSets{mode: SandboxReadOnly, read: []string{root}}
	ww := &confinedSets{mode: SandboxWorkspaceWrite, read: []string{root}, write: []string{root}}
	prot := &confinedSets{mode: SandboxWorkspaceWrite, read: []string{root}, write: []string{root},
		protected: []string{filepath.Join(root, ".git/hooks"), filepath.Join(root, ".git/config")}}
	tests := []struct {
		name string
		sets *confinedSets
		out  string
		want []SandboxDenial
	}{
		{"write in root, read-only", ro, "touch: cannot touch 'x': Permission denied\n",
			[]SandboxDenial{{Op: "write", Path: filepath.Join(root, "x"), Line: "touch: cannot touch 'x': Permission denied"}}},
		{"write in root, workspace-write", ww, "touch: cannot touch 'x': Permission denied\n", nil},
		{"write in home, workspace-write", ww, "touch: cannot touch '" + home + "/y': Permission denied\n",
			[]SandboxDenial{{Op: "write", Path: filepath.Join(home, "y"), Line: "touch: cannot touch '" + home + "/y': Permission denied"}}},
		{"read outside", ro, "cat: " + secret + ": Permission denied",
			[]SandboxDenial{{Op: "read", Path: secret, Line: "cat: " + secret + ": Permission denied"}}},
		{"parent missing", ro, "touch: cannot touch '/nonexistent-dir/x': Permission denied", nil},
		{"network", ro, "curl: (7) Failed to connect to 127.0.0.1 port 80 after 0 ms: Couldn't connect to server",
			[]SandboxDenial{{Op: "network", Line: "curl: (7) Failed to connect to 127.0.0.1 port 80 after 0 ms: Couldn't connect to server"}}},
		{"network allowed", &confinedSets{mode: SandboxReadOnly, read: []string{root}, network: true}, "bash: connect: Network is unreachable", nil},
		{"plain output", ro, "all good\n", nil},
		// EPERM is the seccomp filter's or a missing capability's: no
		// read or write is guessed from it (the filter names the call).
		{"chroot refused", ww, "chroot: cannot change root directory to '/': Operation not permitted", nil},
		{"mknod refused", ww, "mknod: " + secret + ": Operation not permitted", nil},
		{"out of memory, no limit", ww, "MemoryError", nil},
		// A protected path bound read-only, in dash's and git's words
		// (the path after the words, relative to the directory).
		{"protected hook, dash", prot, "esc.sh: 1: cannot create .git/hooks/pre-commit: Read-only file system",
			[]SandboxDenial{{Op: "write", Path: filepath.Join(root, ".git/hooks/pre-commit"), Line: "esc.sh: 1: cannot create .git/hooks/pre-commit: Read-only file system"}}},
		{"protected config, git", prot, "error: could not write config file .git/config: Device or resource busy",
			[]SandboxDenial{{Op: "write", Path: filepath.Join(root, ".git/config"), Line: "error: could not write config file .git/config: Device or resource busy"}}},
		{"out of memory", &confinedSets{mode: SandboxWorkspaceWrite, memoryMB: 64}, "fatal error: runtime: out of memory\nMemoryError",
			[]SandboxDenial{{Op: "memory", Path: "memory limit 64 MiB per process", Line: "fatal error: runtime: out of memory (an allocation failed under the sandbox's memory limit, memory limit 64 MiB per process)"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := detectDenials(&Output{Head: tc.out}, tc.sets, root)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("denials (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAddMarkers(t *testing.T) {
	o := Output{Head: "touch: cannot touch 'x': Permission denied"}
	addMarkers(&o, []SandboxDenial{{Op: "network"}, {Op: "write"}, {Op: "write"}}, SandboxReadOnly, nil)
	want := "touch: cannot touch 'x': Permission denied\n[sandbox: write denied under read-only mode]\n[sandbox: network denied under read-only mode]\n"
	if diff := cmp.Diff(want, o.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestAddMarkersProtected: a write of a protected path (one bound
// read-only, as husky's install met .git/config and .husky/_, or one
// made and undone) names the protected path and how a person lets one
// call write it.
func TestAddMarkersProtected(t *testing.T) {
	prot := &confinedSets{protected: []string{"/ws/.git/config", "/ws/.husky/_"}}
	head := "error: could not write config file .git/config: Device or resource busy\nx: cannot create .husky/_/h: Read-only file system"
	o := Output{Head: head}
	addMarkers(&o, []SandboxDenial{
		{Op: "write", Path: "/ws/.envrc", Undone: true},
		{Op: "write", Path: "/ws/.git/config"},
		{Op: "write", Path: "/ws/.husky/_/h"},
		{Op: "write", Path: "/ws/.husky/_/pre-commit"},
		{Op: "write", Path: "/elsewhere/x"},
	}, SandboxWorkspaceWrite, prot.protectedOf)
	want := head + "\n[sandbox: write denied under workspace-write mode]\n" +
		"[sandbox: write of the protected /ws/.envrc denied under workspace-write mode]\n" +
		"[sandbox: write of the protected /ws/.git/config denied under workspace-write mode]\n" +
		"[sandbox: write of the protected /ws/.husky/_ denied under workspace-write mode]\n" +
		"[sandbox: protected paths are what other programs run or obey later; a person can let one call write one: shellgate run --unprotect PATH]\n"
	if diff := cmp.Diff(want, o.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
