//go:build unix

package readstation

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadRegular: the station's bounded read takes a regular file whole
// (up to its bound and one byte), and refuses a FIFO with no writer and a
// device at once, by the open file's type: a path swapped for one after
// a stat is never waited on.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	reg, fifo := filepath.Join(dir, "config"), filepath.Join(dir, "fifo")
	must(t, os.WriteFile(reg, []byte("0123456789"), 0o644))
	must(t, syscall.Mkfifo(fifo, 0o644))
	if data, err := readRegular(reg, 100); err != nil || string(data) != "0123456789" {
		t.Errorf("regular: %q, %v", data, err)
	}
	if data, err := readRegular(reg, 4); err != nil || string(data) != "01234" {
		t.Errorf("bounded: %q, %v (want the bound and one byte)", data, err)
	}
	for _, p := range []string{fifo, "/dev/zero", dir} {
		if _, err := readRegular(p, 100); err == nil || !strings.Contains(err.Error(), "it is a") {
			t.Errorf("%s: %v, want refused by its type", p, err)
		}
	}
}
