package classify

import (
	"path"
	"strings"
	"testing"
)

// TestMayBeDeviceStatic holds mayBeDevice's shortcut for static relative
// paths (nothing climbs out of the directory) to the whole computation:
// resolve against the directory, clean, and ask isDevice.
func TestMayBeDeviceStatic(t *testing.T) {
	paths := []string{"src", "a/b", "./dev/zero", "dev/zero", "dev", "proc/self/root", "x/../dev/zero",
		"../dev/zero", "../../dev/zero", "...", "a/.../b", ".//dev//zero", "null", "fd/0", "self/fd/0",
		"kmsg", "proc", "./", ".", "a/./b/.", "dev/null", "dev/stdin"}
	cwds := []Cwd{{Path: ".", Known: true}, {Path: "/", Known: true}, {Path: "/dev", Known: true},
		{Path: "/proc", Known: true}, {Path: "/tmp", Known: true}, {Path: "//dev", Known: true},
		{Path: "/a/../dev", Known: true}, {Path: "~", Known: true}, {Path: "~/dev", Known: true},
		{Path: "sub", Known: true}, {Path: "/proc/self", Known: true}, {Path: "/devx", Known: true}}
	for _, c := range cwds {
		for _, p := range paths {
			base := "/p"
			switch {
			case strings.HasPrefix(c.Path, "/"):
				base = c.Path
			case c.Path == "~" || strings.HasPrefix(c.Path, "~/"):
				base = "/h" + c.Path[1:]
			case c.Path != "" && c.Path != ".":
				base = "/p/" + c.Path
			}
			want := isDevice(path.Clean(base + "/" + p))
			if got := mayBeDevice(Arg{Value: p}, c, false); got != want {
				t.Errorf("mayBeDevice(%q) in %q = %v, want %v", p, c.Path, got, want)
			}
		}
	}
}
