//go:build unix

package trust

import (
	"errors"
	"syscall"
)

// openNoBlock opens without blocking (a FIFO with no writer) and without
// taking a terminal as the controlling one.
const openNoBlock = syscall.O_NONBLOCK | syscall.O_NOCTTY

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
