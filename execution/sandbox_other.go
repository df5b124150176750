//go:build !linux && !darwin

package execution

import (
	"errors"
	"os/exec"
)

var errNoSandbox = errors.New("confinement needs Linux (Landlock) or macOS (Seatbelt)")

func sandboxSupport(string) SandboxSupport { return SandboxSupport{Err: errNoSandbox} }

func prepareConfined(*exec.Cmd, *Confinement, string) (func() error, *SandboxInfo, *confinedSets, func() []SandboxDenial, error) {
	return nil, nil, nil, nil, errNoSandbox
}
