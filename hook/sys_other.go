//go:build !unix

package hook

import (
	"errors"
	"os"
)

func lockFile(string) (*os.File, error) {
	return nil, errors.New("the resident engine needs a unix system")
}

func unlockFile(f *os.File) {
	if f != nil {
		f.Close()
	}
}

func replaceLock(string) (*os.File, error) {
	return nil, errors.New("the resident engine needs a unix system")
}
