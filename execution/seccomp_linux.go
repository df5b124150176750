//go:build linux && (amd64 || arm64)

package execution

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter of a confined command refuses, with EPERM, what a
// build never needs and an escape does: mounting and namespaces, kernel
// modules, kexec, reboot, the host's name, bpf, perf events, io_uring,
// userfaultfd, keyrings, reading or writing another process's memory,
// attaching to another process, device nodes, raw and packet sockets,
// file handles (open_by_handle_at) and injecting terminal input. clone3
// answers ENOSYS (its flags cannot be inspected), so that the C library
// falls back to clone, whose namespace flags are refused. Setting the
// limits or priority of another process is refused too. It is written
// as classic BPF by hand (no cgo, no libseccomp).

const (
	seccompRetAllow = 0x7fff0000
	seccompRetErrno = 0x00050000
	seccompRetKill  = 0x80000000 // SECCOMP_RET_KILL_PROCESS

	bpfLD   = 0x00
	bpfW    = 0x00
	bpfABS  = 0x20
	bpfJMP  = 0x05
	bpfJEQ  = 0x10
	bpfJGE  = 0x30
	bpfJSET = 0x40
	bpfK    = 0x00
	bpfRET  = 0x06
	bpfALU  = 0x04
	bpfAND  = 0x50

	offNr   = 0
	offArch = 4
)

// argLow is the offset of the low 32 bits of syscall argument i in
// struct seccomp_data (little-endian).
func argLow(i int) uint32 { return 16 + 8*uint32(i) }

// nsFlags are the clone and unshare flags that make a namespace.
const nsFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
	unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP | 0x80 /* CLONE_NEWTIME */

// deniedSyscalls are refused whatever their arguments.
func deniedSyscalls() []uintptr {
	return append([]uintptr{
		unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT, unix.SYS_SETNS,
		unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOVE_MOUNT,
		unix.SYS_OPEN_TREE, unix.SYS_MOUNT_SETATTR,
		unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE,
		unix.SYS_DELETE_MODULE, unix.SYS_REBOOT, unix.SYS_SETHOSTNAME, unix.SYS_SETDOMAINNAME,
		unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER,
		unix.SYS_IO_URING_REGISTER, unix.SYS_USERFAULTFD, unix.SYS_ACCT, unix.SYS_SWAPON,
		unix.SYS_SWAPOFF, unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_PROCESS_VM_READV,
		unix.SYS_PROCESS_VM_WRITEV, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY, unix.SYS_KEYCTL,
		unix.SYS_QUOTACTL, unix.SYS_VHANGUP, unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME,
		unix.SYS_CLOCK_ADJTIME, unix.SYS_PIDFD_GETFD, unix.SYS_FANOTIFY_INIT,
	}, archDeniedSyscalls...)
}

// asm is a tiny BPF assembler with labels.
type asm struct {
	prog   []unix.SockFilter
	labels map[string]int
	fix    []asmFix
}

type asmFix struct {
	at     int
	jt, jf string
}

func (a *asm) stmt(code uint16, k uint32) { a.prog = append(a.prog, unix.SockFilter{Code: code, K: k}) }

// jump adds a conditional jump to the labels jt and jf ("" is the next
// instruction).
func (a *asm) jump(code uint16, k uint32, jt, jf string) {
	a.fix = append(a.fix, asmFix{len(a.prog), jt, jf})
	a.prog = append(a.prog, unix.SockFilter{Code: code, K: k})
}

func (a *asm) label(name string) { a.labels[name] = len(a.prog) }

func (a *asm) assemble() ([]unix.SockFilter, error) {
	for _, f := range a.fix {
		for i, l := range []string{f.jt, f.jf} {
			if l == "" {
				continue
			}
			to, ok := a.labels[l]
			if !ok {
				return nil, fmt.Errorf("seccomp: no label %s", l)
			}
			off := to - f.at - 1
			if off < 0 || off > 255 {
				return nil, fmt.Errorf("seccomp: jump to %s out of range (%d)", l, off)
			}
			if i == 0 {
				a.prog[f.at].Jt = uint8(off)
			} else {
				a.prog[f.at].Jf = uint8(off)
			}
		}
	}
	return a.prog, nil
}

// seccompFilter builds the filter. allowClone are namespace flags the
// starting thread itself needs on clone (CLONE_NEWPID, or CLONE_NEWUSER
// and CLONE_NEWNET for the unprivileged network guard).
func seccompFilter(allowClone uint32) ([]unix.SockFilter, error) {
	a := &asm{labels: map[string]int{}}
	a.stmt(bpfLD|bpfW|bpfABS, offArch)
	a.jump(bpfJMP|bpfJEQ|bpfK, auditArch, "", "kill")
	a.stmt(bpfLD|bpfW|bpfABS, offNr)
	if x32Bit != 0 {
		a.jump(bpfJMP|bpfJGE|bpfK, x32Bit, "eperm", "")
	}
	for _, nr := range deniedSyscalls() {
		a.jump(bpfJMP|bpfJEQ|bpfK, uint32(nr), "eperm", "")
	}
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_CLONE3, "enosys", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_CLONE, "clone", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_UNSHARE, "unshare", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_SOCKET, "socket", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_MKNODAT, "mknodat", "")
	if sysMknod >= 0 {
		a.jump(bpfJMP|bpfJEQ|bpfK, uint32(sysMknod), "mknod", "")
	}
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_PTRACE, "ptrace", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_IOCTL, "ioctl", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_PRLIMIT64, "prlimit", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_SETPRIORITY, "setpriority", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_IOPRIO_SET, "setpriority", "")
	a.stmt(bpfRET|bpfK, seccompRetAllow)

	a.label("clone")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(0))
	a.jump(bpfJMP|bpfJSET|bpfK, nsFlags&^allowClone, "eperm", "allow")
	a.label("unshare")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(0))
	a.jump(bpfJMP|bpfJSET|bpfK, nsFlags, "eperm", "allow")
	// socket(domain, type, protocol): no packet sockets, no raw IP.
	a.label("socket")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(0))
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.AF_PACKET, "eperm", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.AF_INET, "sockettype", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.AF_INET6, "sockettype", "allow")
	a.label("sockettype")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(1))
	a.stmt(bpfALU|bpfAND|bpfK, 0xf)
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SOCK_RAW, "eperm", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SOCK_PACKET, "eperm", "allow")
	// mknodat(dirfd, path, mode, dev) and mknod(path, mode, dev): no
	// character or block devices (FIFOs and sockets are fine).
	a.label("mknodat")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(2))
	a.jump(bpfJMP|bpfJEQ|bpfK, 0, "devmode", "devmode") // fall into the mode check
	a.label("mknod")
	if sysMknod >= 0 {
		a.stmt(bpfLD|bpfW|bpfABS, argLow(1))
	}
	a.label("devmode")
	a.stmt(bpfALU|bpfAND|bpfK, unix.S_IFMT)
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.S_IFCHR, "eperm", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.S_IFBLK, "eperm", "allow")
	// ptrace: no attaching to another process (tracing one's own
	// children through PTRACE_TRACEME stays).
	a.label("ptrace")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(0))
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.PTRACE_ATTACH, "eperm", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.PTRACE_SEIZE, "eperm", "allow")
	// ioctl: no pushing input into a terminal.
	a.label("ioctl")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(1))
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.TIOCSTI, "eperm", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.TIOCLINUX, "eperm", "allow")

	// prlimit64(pid, resource, new, old): setting another process's
	// limits (pid not 0, new not NULL) is refused; reading them is not.
	a.label("prlimit")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(0))
	a.jump(bpfJMP|bpfJEQ|bpfK, 0, "allow", "")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(2))
	a.jump(bpfJMP|bpfJEQ|bpfK, 0, "", "eperm")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(2)+4)
	a.jump(bpfJMP|bpfJEQ|bpfK, 0, "allow", "eperm")
	// setpriority(which, who, prio) and ioprio_set(which, who, prio):
	// only the caller itself (who 0), not another process or user.
	a.label("setpriority")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(1))
	a.jump(bpfJMP|bpfJEQ|bpfK, 0, "allow", "eperm")

	a.label("allow")
	a.stmt(bpfRET|bpfK, seccompRetAllow)
	a.label("eperm")
	a.stmt(bpfRET|bpfK, seccompRetErrno|uint32(unix.EPERM))
	a.label("enosys")
	a.stmt(bpfRET|bpfK, seccompRetErrno|uint32(unix.ENOSYS))
	a.label("kill")
	a.stmt(bpfRET|bpfK, seccompRetKill)
	return a.assemble()
}

// installSeccomp installs the filter on the calling thread only (no
// TSYNC): the thread must be locked and have no_new_privs set.
func installSeccomp(allowClone uint32) error {
	prog, err := seccompFilter(allowClone)
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, 1 /* SECCOMP_SET_MODE_FILTER */, 0, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}

// seccompAvailable says whether this architecture has a filter.
const seccompAvailable = true
