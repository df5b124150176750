//go:build linux && !amd64 && !arm64

package execution

import "errors"

// installSeccomp: no filter is written for this architecture.
func installSeccomp(allowClone uint32, notify bool, memLimit uint64) (int, error) {
	return -1, errors.New("no seccomp filter for this architecture")
}

// refusedCalls: nothing is refused without a filter.
type refusedCalls struct{ memLimitMB int64 }

func (r *refusedCalls) denials() []SandboxDenial { return nil }

func superviseSeccomp(fd int, r *refusedCalls) {}

// seccompAvailable says whether this architecture has a filter.
const seccompAvailable = false
