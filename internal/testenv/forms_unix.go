//go:build unix

package testenv

import (
	"os"
	"syscall"
)

// FileForm is a way to lay something at a path that is not a readable
// regular file.
type FileForm struct {
	// Name says what it is ("FIFO").
	Name string
	// Plant lays it at p.
	Plant func(p string) error
}

// UnreadableForms are the forms a file shellgate reads (its config, a
// policy module, the trust store) may take that are not a readable
// regular file: each must fail closed at once, never block.
var UnreadableForms = []FileForm{
	{"directory", func(p string) error { return os.Mkdir(p, 0o755) }},
	{"dangling symlink", func(p string) error { return os.Symlink(p+".gone", p) }},
	{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
	{"symlink to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }},
	{"symlink to /dev/stdin", func(p string) error { return os.Symlink("/dev/stdin", p) }},
}
