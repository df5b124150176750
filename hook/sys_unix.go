//go:build unix

package hook

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile takes an exclusive lock on path and returns the locked file, or
// fails with ErrRunning.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrRunning
		}
		return nil, err
	}
	return f, nil
}

// unlockFile releases a lock lockFile or replaceLock took.
func unlockFile(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}

// replaceLock makes a new lock file, locks it, and renames it over path:
// the lock at path is then this process's, whoever holds the old file.
func replaceLock(path string) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		unlockFile(f)
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}
