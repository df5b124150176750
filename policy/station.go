package policy

import (
	"fmt"

	"github.com/shellgate/shellgate/readstation"
)

// Boundary returns the boundary of the file-system model for a command run
// in cwd under this config (readstation.NewBoundary, the one constructor):
// the workspace root and the config's roots (plus extraRoots), the default
// deny rows extended by the config's (or replaced by them when
// ReplaceDefaultDenyReads is set). It fails on a cwd that is not a
// directory and on a deny row that does not compile; the boundary it then
// returns still serves to judge writes (see readstation.NewBoundary).
func (c *Config) Boundary(cwd string, extraRoots ...string) (readstation.Boundary, error) {
	if c == nil {
		c = DefaultConfig()
	}
	var rowErr error
	rows := c.DenyReads
	for _, row := range rows {
		if err := readstation.ValidateRow(row); err != nil {
			// Said in the config's words; the boundary returned (for
			// the writes) leaves the config's rows out.
			rowErr = fmt.Errorf("%s: deny_reads: %q: %v", c.where(), row, err)
			rows = nil
			break
		}
	}
	roots := c.Roots
	if len(extraRoots) > 0 {
		roots = append(append([]string{}, c.Roots...), extraRoots...)
	}
	b, err := readstation.NewBoundary(cwd, readstation.Options{
		Roots: roots, DenyRows: rows, ReplaceDefaultDenyRows: c.ReplaceDefaultDenyReads,
	})
	if err == nil && rowErr != nil {
		err = rowErr
	}
	return b, err
}
