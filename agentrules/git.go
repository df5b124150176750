package agentrules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/trust"
)

// maxIndexBytes bounds the git index read.
const maxIndexBytes = 64 << 20

// untracked reports whether git is known not to track path: the nearest
// .git above it is a directory whose index lists every tracked path and
// not this one. Anything else (no repository, a .git file, an index that
// cannot be read or is split or sparse) is not known.
func untracked(path string) bool {
	dir := filepath.Dir(path)
	for {
		gd := filepath.Join(dir, ".git")
		if fi, err := os.Lstat(gd); err == nil {
			if !fi.IsDir() {
				return false
			}
			data, err := trust.ReadRegular(filepath.Join(gd, "index"), maxIndexBytes)
			if err != nil {
				// A repository with no commit and nothing added yet has
				// no index: it tracks nothing.
				return isNotExist(err)
			}
			paths, err := readstation.IndexPaths(data)
			if err != nil {
				return false
			}
			rel, err := filepath.Rel(dir, path)
			if err != nil || strings.HasPrefix(rel, "..") {
				return false
			}
			return !slices.Contains(paths, filepath.ToSlash(rel))
		}
		up := filepath.Dir(dir)
		if up == dir {
			return false
		}
		dir = up
	}
}
