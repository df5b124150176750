//go:build !unix

package trust

import "os"

func checkOwner(string, os.FileInfo) error { return nil }
