//go:build !linux

package execution

import "syscall"

func setSubreaper() {}

// groupAlive reports whether the process group still has a member.
// Without /proc a zombie member counts as alive.
func groupAlive(pgid int, reap bool) bool {
	return syscall.Kill(-pgid, 0) != syscall.ESRCH
}

// exitedNoReap cannot tell without reaping here: the runner then waits
// for the shell in a goroutine.
func exitedNoReap(pid int) bool { return false }

// userProcesses counts this user's processes: -1, unknown here (the
// process limit is then not set).
func userProcesses() int { return -1 }
