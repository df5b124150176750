//go:build unix

package trust

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadRegular: every form that is not a regular file within the bound
// is an error that says what it is, returned without blocking; only a
// missing file wraps fs.ErrNotExist.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	if err := os.WriteFile(p("ok"), []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p("fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"ok", "link-ok"}, {"/dev/zero", "zero"}, {"/dev/stdin", "stdin"}, {p("gone"), "dangling"}, {"loop", "loop"}, {p("fifo"), "link-fifo"}} {
		if err := os.Symlink(l[0], p(l[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(p("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p("big"), make([]byte, 11), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, want string }{
		{"ok", ""},
		{"link-ok", ""},
		{"fifo", "FIFO"},
		{"link-fifo", "FIFO"},
		{"zero", "device"},
		{"stdin", "not a regular file"},
		{"dangling", "does not exist"},
		{"loop", "loops"},
		{"dir", "directory"},
		{"big", "limit"},
		{"missing", "no such file"},
	} {
		b, err := ReadRegular(p(tc.name), 10)
		switch {
		case tc.want == "" && (err != nil || string(b) != "data"):
			t.Errorf("%s: %q %v", tc.name, b, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
		if errors.Is(err, fs.ErrNotExist) != (tc.name == "missing") {
			t.Errorf("%s: errors.Is(err, fs.ErrNotExist) = %v", tc.name, errors.Is(err, fs.ErrNotExist))
		}
	}
	// A store that is a FIFO is refused, never waited on.
	if _, err := Load(p("fifo")); err == nil || !strings.Contains(err.Error(), "FIFO") {
		t.Errorf("Load(FIFO): %v", err)
	}
	// A policy directory with a module that is a link to a device.
	tree := p("tree")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(tree, "x.rego")); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTree(tree); err == nil || !strings.Contains(err.Error(), "device") {
		t.Errorf("ReadTree with a link to /dev/zero: %v", err)
	}
}
