//go:build linux && !amd64 && !arm64

package execution

import "errors"

// installSeccomp: no filter is written for this architecture.
func installSeccomp(allowClone uint32) error {
	return errors.New("no seccomp filter for this architecture")
}

// seccompAvailable says whether this architecture has a filter.
const seccompAvailable = false
