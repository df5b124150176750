//go:build linux

package execution

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadGitPointer: a .git file is read when it is a small regular file;
// a FIFO (never waited on), a symlink, a large file or a missing prefix
// is not read.
func TestReadGitPointer(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain := write("plain", "gitdir: ../x/.git\nmore\n")
	big := write("big", "gitdir: y\n"+string(make([]byte, 5000)))
	other := write("other", "something else\n")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(plain, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    string
		want string
		ok   bool
	}{
		{plain, "../x/.git", true},
		{big, "", false},
		{other, "", false},
		{link, "", false},
		{fifo, "", false},
		{filepath.Join(dir, "missing"), "", false},
	} {
		done := make(chan struct{})
		var got string
		var ok bool
		go func() { got, ok = ReadGitPointer(tc.p, "gitdir:"); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadGitPointer(%s) blocked", filepath.Base(tc.p))
		}
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("ReadGitPointer(%s) = %q, %v; want %q, %v", filepath.Base(tc.p), got, ok, tc.want, tc.ok)
		}
	}
}
