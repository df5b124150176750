// Package catalogtest builds program catalogs for the tests of packages
// outside classify: the embedded catalog extended by a catalog file, as a
// project's or a bundle's catalog extends it.
package catalogtest

import (
	"testing"

	"github.com/shellgate/shellgate/classify"
)

// Frob is a catalog file of one made-up program, frob, whose exit status 3
// means "Frob jammed" (an error): a meaning that only a gate built with
// this catalog can give.
const Frob = `
programs:
  - name: frob
    doc: frobs files
    exit:
      3: {message: Frob jammed, error: true}
    operands: [file...]
`

// Extend returns the embedded catalog extended by the catalog file src,
// and fails t when src does not parse or does not extend it.
func Extend(t testing.TB, src string) *classify.Catalog {
	t.Helper()
	ext, err := classify.ParseCatalog([]byte(src), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := classify.DefaultCatalog().Extend(ext)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}
