//go:build unix

package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLoadPathFIFO: a FIFO named like a case file or a fixture in a corpus
// directory is an error that names it, never a read that blocks.
func TestLoadPathFIFO(t *testing.T) {
	for _, name := range []string{"cases.yaml", FixtureFile} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "ok.sh"), []byte("ls # want allow\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadPath(dir)
			if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "not a regular file") {
				t.Fatalf("LoadPath(dir with FIFO %s) = %v, want an error naming it as not a regular file", name, err)
			}
		})
	}
}
