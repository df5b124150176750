//go:build !linux

package execution

import "syscall"

// inheritedCloseOnExec marks every descriptor of this process from 3 on
// close-on-exec (see the Linux version): each one below the open-files
// limit (at most 1<<16) that is open.
func inheritedCloseOnExec() error {
	var lim syscall.Rlimit
	n := uint64(1 << 16)
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < n {
		n = lim.Cur
	}
	for fd := 3; uint64(fd) < n; fd++ {
		syscall.CloseOnExec(fd)
	}
	return nil
}

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
