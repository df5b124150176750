//go:build linux

package execution

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

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
