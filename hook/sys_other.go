//go:build !unix

package hook

import (
	"errors"
	"os"
)

func checkOwner(string, os.FileInfo) error { return nil }

func lockFile(string) (func(), error) {
	return nil, errors.New("the resident engine needs a unix system")
}
