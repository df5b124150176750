//go:build linux

package execution

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// inheritedCloseOnExec marks every descriptor of this process from 3 on
// close-on-exec. Go opens its own so, but one this process inherited
// without it (an agent's pipe, a file its parent opened for writing)
// would pass to a confined command, which could write through it where
// Landlock, which checks a path when it is opened, does not look. A
// command's own descriptors (ExtraFiles) are put in place in the child
// after the fork, so they still reach it; only this process's later
// children lose what it inherited.
func inheritedCloseOnExec() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	// Before Linux 5.11: each open descriptor, as /proc lists them.
	ents, rerr := os.ReadDir("/proc/self/fd")
	if rerr != nil {
		return err
	}
	for _, e := range ents {
		fd, aerr := strconv.Atoi(e.Name())
		if aerr != nil || fd < 3 {
			continue
		}
		if _, ferr := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); ferr != nil && ferr != unix.EBADF {
			return ferr
		}
	}
	return nil
}

func setSubreaper() {
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// groupAlive reports whether the process group has a member that is not
// a zombie. kill(-pgid, 0) answers the common case (no member at all) in
// one system call; otherwise /proc tells zombies from live processes, and
// with reap, zombies that are this process's children are reaped.
func groupAlive(pgid int, reap bool) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	d, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return true
	}
	self := os.Getpid()
	alive := false
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces and ")"
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || i+2 >= len(b) {
			continue
		}
		f := bytes.Fields(b[i+2:])
		if len(f) < 3 {
			continue
		}
		pg, _ := strconv.Atoi(string(f[2]))
		if pg != pgid {
			continue
		}
		state := f[0][0]
		if state == 'Z' || state == 'X' {
			if ppid, _ := strconv.Atoi(string(f[1])); reap && ppid == self && pid != pgid {
				var ws unix.WaitStatus
				_, _ = unix.Wait4(pid, &ws, unix.WNOHANG, nil)
			}
			continue
		}
		alive = true
	}
	return alive
}

// exitedNoReap reports whether the child pid has exited, without reaping
// it (waitid with WNOWAIT), so that exec.Cmd.Wait still collects it.
func exitedNoReap(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	// With WNOHANG and nothing to report, info stays zero; a report sets
	// Signo to SIGCHLD.
	return err == nil && info.Signo == int32(unix.SIGCHLD)
}

// userProcesses counts the processes of this user (the owner of their
// /proc directory), as RLIMIT_NPROC counts them.
func userProcesses() int {
	d, err := os.Open("/proc")
	if err != nil {
		return 0
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return 0
	}
	uid := uint32(os.Getuid())
	n := 0
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		var st unix.Stat_t
		if unix.Stat("/proc/"+name, &st) == nil && st.Uid == uid {
			n++
		}
	}
	return n
}
