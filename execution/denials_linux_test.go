//go:build linux

package execution

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// allocProgram builds a Go program that allocates 3 GiB at once. (A Go
// program whose heap grows in steps past the limit is no test: the
// runtime sometimes dies of a SIGSEGV in its collector instead of saying
// "out of memory", 4 runs in 10 here.)
func allocProgram(t *testing.T) string {
	t.Helper()
	goTool := needTool(t, "go")
	dir := t.TempDir()
	src := `package main

import (
	"fmt"
	"os"
)

func main() {
	b := make([]byte, 3<<30)
	b[len(b)-1] = 1
	fmt.Println("ESCAPED: allocated 3 GiB at once", len(os.Args))
}
`
	for name, body := range map[string]string{"main.go": src, "go.mod": "module alloc\n\ngo 1.22\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(goTool, "build", "-o", "alloc", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "alloc")
}

// TestSandboxDenialsNamed runs, confined in workspace-write, what the
// memory limit and the seccomp filter refuse, with the real python3, a
// real Go program, mknod and chroot, and checks that the result names
// the refusal (the memory limit with its size, the system call) and that
// the guess from the output adds no read or write for them.
func TestSandboxDenialsNamed(t *testing.T) {
	needLandlock(t)
	python := needTool(t, "/usr/bin/python3", "python3")
	alloc := allocProgram(t)
	memory := func(what string) func(SandboxDenial) bool {
		return func(d SandboxDenial) bool {
			return d.Op == "memory" && strings.HasPrefix(d.Path, "memory limit ") && strings.Contains(d.Line, what)
		}
	}
	syscall := func(name string) func(SandboxDenial) bool {
		return func(d SandboxDenial) bool { return d.Op == "syscall" && strings.HasPrefix(d.Path, name) }
	}
	for _, tc := range []struct {
		name, cmd string
		memMB     int64
		want      func(SandboxDenial) bool
		marker    string
	}{
		// One allocation beyond the limit: the filter refuses it itself
		// and records its size (3 GiB and Python's header).
		{"python3 3 GiB", python + ` -c 'x = bytearray(3 << 30); print("ESCAPED")'`, 0,
			memory("memory limit (2048 MiB per process, RLIMIT_DATA) refused an allocation of 307"),
			"[sandbox: allocation over the memory limit 2048 MiB per process denied under workspace-write mode]"},
		// A heap that grows by mappings under the limit: the kernel's
		// refusal (RLIMIT_DATA) shows in the program's output.
		{"python3 heap growth", python + ` -c 'k = []
while len(k) < 48: k.append(bytearray(64 << 20))
print("ESCAPED", len(k))'`, 256, memory("MemoryError"),
			"[sandbox: allocation over the memory limit 256 MiB per process denied under workspace-write mode]"},
		{"Go 3 GiB at once", alloc, 0, memory("memory limit (2048 MiB per process, RLIMIT_DATA) refused an allocation of 30"),
			"[sandbox: allocation over the memory limit 2048 MiB per process denied under workspace-write mode]"},
		{"mknod", "mknod dev c 1 3; echo x > dev; ls -l dev", 0, syscall("mknod"), "[sandbox: syscall mknod"},
		{"chroot", "chroot / /bin/true || echo refused", 0, syscall("chroot"), "[sandbox: syscall chroot denied under workspace-write mode]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			out := runSpec(t, context.Background(), Spec{Command: tc.cmd, Dir: dir, Timeout: time.Minute,
				Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{dir, filepath.Dir(alloc)}, Limits: ResourceLimits{MemoryMB: tc.memMB}}})
			text := out.Output.String()
			if strings.Contains(text, "ESCAPED") {
				t.Fatalf("not refused:\n%s", text)
			}
			if !slices.ContainsFunc(out.Sandbox.Denied, tc.want) {
				t.Errorf("the result does not name the refusal: denied %+v\n%s", out.Sandbox.Denied, text)
			}
			if !strings.Contains(text, tc.marker) {
				t.Errorf("the output lacks %q:\n%s", tc.marker, text)
			}
			for _, d := range out.Sandbox.Denied {
				if d.Op == "read" || d.Op == "write" {
					t.Errorf("a wrong guess: %+v", d)
				}
			}
		})
	}
}
