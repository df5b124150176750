package policy

import (
	"fmt"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/readstation"
)

// Boundary returns the read station's boundary for a command run in cwd
// under this config: the workspace root and the config's roots (plus
// extraRoots), the default deny rows extended by the config's (or replaced
// by them when ReplaceDefaultDenyRows is set). It fails on a cwd that is not
// a directory and on a deny row that does not compile.
func (c *Config) Boundary(cwd string, extraRoots ...string) (readstation.Boundary, error) {
	b, err := readstation.DefaultBoundary(cwd)
	if err != nil {
		return b, err
	}
	if c == nil {
		c = DefaultConfig()
	}
	b.Roots = append(b.Roots, c.Roots...)
	b.Roots = append(b.Roots, extraRoots...)
	if c.ReplaceDefaultDenyReads {
		b.DenyRows = nil
	}
	for _, row := range c.DenyReads {
		if err := readstation.ValidateRow(row); err != nil {
			return b, fmt.Errorf("%s: deny_reads: %q: %v", c.where(), row, err)
		}
		b.DenyRows = append(b.DenyRows, row)
	}
	if err := b.Validate(); err != nil {
		return b, err
	}
	return b, nil
}

// Judge runs the read station on r for a command run in cwd: the
// station part of the policy input.
func (c *Config) Judge(r *classify.Report, cwd string, extraRoots ...string) (*readstation.Station, error) {
	b, err := c.Boundary(cwd, extraRoots...)
	if err != nil {
		return nil, err
	}
	return readstation.Judge(r, b), nil
}
