//go:build linux && (amd64 || arm64)

package execution

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter of a confined command refuses, with EPERM, what a
// build never needs and an escape does: mounting and namespaces, kernel
// modules, kexec, reboot, the host's name, bpf, perf events, io_uring,
// userfaultfd, keyrings, reading or writing another process's memory,
// attaching to another process, device nodes, raw and packet sockets,
// file handles (open_by_handle_at), injecting terminal input, and
// set-user-ID and set-group-ID bits (chmod, or a file created with them:
// as root, a set-user-ID root program left in a workspace is one its
// users run later as root; openat2, whose mode cannot be inspected,
// answers ENOSYS, so that the C library falls back to openat). clone3
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
	bpfJGT  = 0x20
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

// argHigh is the offset of the high 32 bits of syscall argument i.
func argHigh(i int) uint32 { return argLow(i) + 4 }

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

// setIDBits are the mode bits the filter refuses on a file made or
// changed: set-user-ID and set-group-ID.
const setIDBits = unix.S_ISUID | unix.S_ISGID

// setIDCall is a system call of one architecture that takes a mode
// (open, creat, chmod) and the filter's label that checks it.
type setIDCall struct {
	nr    uintptr
	check string
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
//
// With notify, what it refuses goes to a supervisor instead
// (SECCOMP_RET_USER_NOTIF), which answers EPERM all the same and records
// the system call (superviseSeccomp): the result names what was refused.
//
// memLimit (bytes, 0: none) is the command's RLIMIT_DATA: an mmap of a
// private writable mapping at least that long, which the kernel refuses
// by the limit whatever else the process holds, is answered ENOMEM by
// the filter (or, with notify, by the supervisor, which records it), so
// that the result names the memory limit.
func seccompFilter(allowClone uint32, notify bool, memLimit uint64) ([]unix.SockFilter, error) {
	a := &asm{labels: map[string]int{}}
	a.stmt(bpfLD|bpfW|bpfABS, offArch)
	a.jump(bpfJMP|bpfJEQ|bpfK, auditArch, "", "kill")
	a.stmt(bpfLD|bpfW|bpfABS, offNr)
	if x32Bit != 0 {
		a.jump(bpfJMP|bpfJGE|bpfK, x32Bit, "eperm", "")
	}
	// The set-ID checks first: openat is the most frequent call whose
	// arguments the filter reads.
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_OPENAT, "openat", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_OPENAT2, "enosys", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_FCHMOD, "setid1", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_FCHMODAT, "setid2", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_FCHMODAT2, "setid2", "")
	for _, c := range archSetIDCalls {
		a.jump(bpfJMP|bpfJEQ|bpfK, uint32(c.nr), c.check, "")
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
	if memLimit > 0 {
		a.jump(bpfJMP|bpfJEQ|bpfK, unix.SYS_MMAP, "mmap", "")
	}
	a.stmt(bpfRET|bpfK, seccompRetAllow)

	if memLimit > 0 {
		// mmap(addr, len, prot, flags, fd, off): len >= memLimit (64
		// bits, high word first), PROT_WRITE, not MAP_SHARED (nor
		// MAP_SHARED_VALIDATE): what RLIMIT_DATA counts.
		hi, lo := uint32(memLimit>>32), uint32(memLimit)
		a.label("mmap")
		a.stmt(bpfLD|bpfW|bpfABS, argHigh(1))
		a.jump(bpfJMP|bpfJGT|bpfK, hi, "mmapprot", "")
		a.jump(bpfJMP|bpfJEQ|bpfK, hi, "", "allow")
		a.stmt(bpfLD|bpfW|bpfABS, argLow(1))
		a.jump(bpfJMP|bpfJGE|bpfK, lo, "mmapprot", "allow")
		a.label("mmapprot")
		a.stmt(bpfLD|bpfW|bpfABS, argLow(2))
		a.jump(bpfJMP|bpfJSET|bpfK, unix.PROT_WRITE, "", "allow")
		a.stmt(bpfLD|bpfW|bpfABS, argLow(3))
		a.jump(bpfJMP|bpfJSET|bpfK, unix.MAP_SHARED, "allow", "enomem")
	}

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
	// character or block devices (FIFOs and sockets are fine), no
	// set-ID bits.
	a.label("mknodat")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(2))
	a.jump(bpfJMP|bpfJEQ|bpfK, 0, "devmode", "devmode") // fall into the mode check
	a.label("mknod")
	if sysMknod >= 0 {
		a.stmt(bpfLD|bpfW|bpfABS, argLow(1))
	}
	a.label("devmode")
	a.jump(bpfJMP|bpfJSET|bpfK, setIDBits, "eperm", "")
	a.stmt(bpfALU|bpfAND|bpfK, unix.S_IFMT)
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.S_IFCHR, "eperm", "")
	a.jump(bpfJMP|bpfJEQ|bpfK, unix.S_IFBLK, "eperm", "allow")
	// openat(dirfd, path, flags, mode) and open(path, flags, mode): a
	// file created (O_CREAT, O_TMPFILE) with no set-ID bit; fchmod(fd,
	// mode), chmod(path, mode), creat(path, mode) (setid1), fchmodat
	// and fchmodat2(dirfd, path, mode, ...) (setid2): no set-ID bit.
	a.label("openat")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(2))
	a.jump(bpfJMP|bpfJSET|bpfK, unix.O_CREAT|unix.O_TMPFILE, "", "allow")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(3))
	a.jump(bpfJMP|bpfJSET|bpfK, setIDBits, "eperm", "allow")
	a.label("open")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(1))
	a.jump(bpfJMP|bpfJSET|bpfK, unix.O_CREAT|unix.O_TMPFILE, "", "allow")
	a.label("setid2")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(2))
	a.jump(bpfJMP|bpfJSET|bpfK, setIDBits, "eperm", "allow")
	a.label("setid1")
	a.stmt(bpfLD|bpfW|bpfABS, argLow(1))
	a.jump(bpfJMP|bpfJSET|bpfK, setIDBits, "eperm", "allow")
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
	if notify {
		a.stmt(bpfRET|bpfK, unix.SECCOMP_RET_USER_NOTIF)
	} else {
		a.stmt(bpfRET|bpfK, seccompRetErrno|uint32(unix.EPERM))
	}
	a.label("enosys")
	a.stmt(bpfRET|bpfK, seccompRetErrno|uint32(unix.ENOSYS))
	if memLimit > 0 {
		a.label("enomem")
		if notify {
			a.stmt(bpfRET|bpfK, unix.SECCOMP_RET_USER_NOTIF)
		} else {
			a.stmt(bpfRET|bpfK, seccompRetErrno|uint32(unix.ENOMEM))
		}
	}
	a.label("kill")
	a.stmt(bpfRET|bpfK, seccompRetKill)
	return a.assemble()
}

// filters keeps the filter of each allowClone: it is the same for every
// command.
var filters sync.Map // filterKey -> []unix.SockFilter

type filterKey struct {
	allowClone uint32
	notify     bool
	memLimit   uint64
}

func cachedFilter(allowClone uint32, notify bool, memLimit uint64) ([]unix.SockFilter, error) {
	k := filterKey{allowClone, notify, memLimit}
	if p, ok := filters.Load(k); ok {
		return p.([]unix.SockFilter), nil
	}
	prog, err := seccompFilter(allowClone, notify, memLimit)
	if err != nil {
		return nil, err
	}
	filters.Store(k, prog)
	return prog, nil
}

// installSeccomp installs the filter on the calling thread only (no
// TSYNC): the thread must be locked and have no_new_privs set. With
// notify it returns the filter's listener (close-on-exec), which
// superviseSeccomp serves; else -1. memLimit is the command's
// RLIMIT_DATA in bytes (0: none; see seccompFilter).
func installSeccomp(allowClone uint32, notify bool, memLimit uint64) (int, error) {
	prog, err := cachedFilter(allowClone, notify, memLimit)
	if err != nil {
		return -1, err
	}
	var flags uintptr
	if notify {
		flags = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, errno := unix.RawSyscall(unix.SYS_SECCOMP, 1 /* SECCOMP_SET_MODE_FILTER */, flags, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return -1, fmt.Errorf("seccomp: %w", errno)
	}
	if !notify {
		return -1, nil
	}
	return int(r), nil
}

// The kernel's struct seccomp_notif and seccomp_notif_resp.
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// refusedCalls are the system calls the seccomp filter refused in one run.
type refusedCalls struct {
	mu    sync.Mutex
	count map[string]int
	order []string
	// memLimitMB is the run's memory limit (RLIMIT_DATA, MiB); mem
	// counts the allocations refused by it, memMax is the largest.
	memLimitMB int64
	mem        int
	memMax     uint64
	// notify, when set, is called after each refusal is recorded (a
	// kept helper's tells its runner that there is something to ask
	// for).
	notify func()
}

// addMemory records an allocation of size bytes the memory limit refused.
func (r *refusedCalls) addMemory(size uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mem++
	r.memMax = max(r.memMax, size)
}

func (r *refusedCalls) add(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.count == nil {
		r.count = map[string]int{}
	}
	if r.count[name] == 0 {
		r.order = append(r.order, name)
	}
	r.count[name]++
}

// denials returns one SandboxDenial per system call refused.
func (r *refusedCalls) denials() []SandboxDenial {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []SandboxDenial
	if r.mem > 0 {
		line := fmt.Sprintf("the sandbox's memory limit (%d MiB per process, RLIMIT_DATA) refused an allocation of %d MiB", r.memLimitMB, r.memMax>>20)
		if r.mem > 1 {
			line += fmt.Sprintf(" (%d allocations refused)", r.mem)
		}
		out = append(out, SandboxDenial{Op: "memory", Path: memoryLimitPath(r.memLimitMB), Line: line})
	}
	for _, name := range r.order {
		line := name + " was refused by the sandbox (seccomp filter: EPERM)"
		if n := r.count[name]; n > 1 {
			line += fmt.Sprintf(", %d times", n)
		}
		out = append(out, SandboxDenial{Op: "syscall", Path: name, Line: line})
	}
	return out
}

// superviseSeccomp answers every system call the filter of the listener
// fd refused with EPERM, as a filter without a supervisor does, and
// records it in r. It returns, closing fd, once no process uses the
// filter any more.
func superviseSeccomp(fd int, r *refusedCalls) {
	defer unix.Close(fd)
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(pfd, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if pfd[0].Revents&unix.POLLIN == 0 {
			return // POLLHUP: the filter has no user left
		}
		var req seccompNotif
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&req))); errno != 0 {
			if errno == unix.EINTR || errno == unix.ENOENT {
				continue // the caller is gone
			}
			return
		}
		errno := unix.EPERM
		if uintptr(req.Nr) == unix.SYS_MMAP {
			// Only an allocation over the memory limit reaches here.
			r.addMemory(req.Args[1])
			errno = unix.ENOMEM
		} else {
			r.add(syscallName(req.Nr, req.Args))
		}
		// (Told before the caller goes on: a refusal is known to the
		// runner by the time the refused process could end.)
		if r.notify != nil {
			r.notify()
		}
		resp := seccompNotifResp{ID: req.ID, Error: -int32(errno)}
		_, _, _ = unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
	}
}

// syscallName names a refused system call, with the argument that made it
// refused where that is what tells it apart.
func syscallName(nr int32, args [6]uint64) string {
	n := uintptr(nr)
	name, ok := syscallNames[n]
	if !ok {
		name = fmt.Sprintf("syscall %d", nr)
	}
	switch n {
	case unix.SYS_SOCKET:
		switch args[0] {
		case unix.AF_PACKET:
			return "socket(AF_PACKET)"
		case unix.AF_INET, unix.AF_INET6:
			return "socket(SOCK_RAW)"
		}
	case unix.SYS_CLONE, unix.SYS_UNSHARE:
		return name + " of a namespace"
	case unix.SYS_MKNODAT:
		if args[2]&setIDBits != 0 {
			return "mknodat (a set-user-ID or set-group-ID bit)"
		}
		return "mknodat (a device node)"
	case unix.SYS_OPENAT, unix.SYS_FCHMOD, unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2:
		return name + " (a set-user-ID or set-group-ID bit)"
	case unix.SYS_PTRACE:
		return "ptrace (attach to another process)"
	case unix.SYS_PRLIMIT64:
		return "prlimit64 (another process's limits)"
	case unix.SYS_SETPRIORITY, unix.SYS_IOPRIO_SET:
		return name + " (another process)"
	case unix.SYS_IOCTL:
		return "ioctl (terminal input)"
	}
	if sysMknod >= 0 && n == uintptr(sysMknod) && args[1]&setIDBits != 0 {
		return "mknod (a set-user-ID or set-group-ID bit)"
	}
	return name
}

// syscallNames names the system calls the filter refuses.
var syscallNames = func() map[uintptr]string {
	m := map[uintptr]string{
		unix.SYS_MOUNT: "mount", unix.SYS_UMOUNT2: "umount2", unix.SYS_PIVOT_ROOT: "pivot_root", unix.SYS_CHROOT: "chroot",
		unix.SYS_SETNS: "setns", unix.SYS_FSOPEN: "fsopen", unix.SYS_FSCONFIG: "fsconfig", unix.SYS_FSMOUNT: "fsmount",
		unix.SYS_FSPICK: "fspick", unix.SYS_MOVE_MOUNT: "move_mount", unix.SYS_OPEN_TREE: "open_tree",
		unix.SYS_MOUNT_SETATTR: "mount_setattr", unix.SYS_KEXEC_LOAD: "kexec_load", unix.SYS_KEXEC_FILE_LOAD: "kexec_file_load",
		unix.SYS_INIT_MODULE: "init_module", unix.SYS_FINIT_MODULE: "finit_module", unix.SYS_DELETE_MODULE: "delete_module",
		unix.SYS_REBOOT: "reboot", unix.SYS_SETHOSTNAME: "sethostname", unix.SYS_SETDOMAINNAME: "setdomainname",
		unix.SYS_BPF: "bpf", unix.SYS_PERF_EVENT_OPEN: "perf_event_open", unix.SYS_IO_URING_SETUP: "io_uring_setup",
		unix.SYS_IO_URING_ENTER: "io_uring_enter", unix.SYS_IO_URING_REGISTER: "io_uring_register",
		unix.SYS_USERFAULTFD: "userfaultfd", unix.SYS_ACCT: "acct", unix.SYS_SWAPON: "swapon", unix.SYS_SWAPOFF: "swapoff",
		unix.SYS_OPEN_BY_HANDLE_AT: "open_by_handle_at", unix.SYS_PROCESS_VM_READV: "process_vm_readv",
		unix.SYS_PROCESS_VM_WRITEV: "process_vm_writev", unix.SYS_ADD_KEY: "add_key", unix.SYS_REQUEST_KEY: "request_key",
		unix.SYS_KEYCTL: "keyctl", unix.SYS_QUOTACTL: "quotactl", unix.SYS_VHANGUP: "vhangup",
		unix.SYS_SETTIMEOFDAY: "settimeofday", unix.SYS_CLOCK_SETTIME: "clock_settime", unix.SYS_CLOCK_ADJTIME: "clock_adjtime",
		unix.SYS_PIDFD_GETFD: "pidfd_getfd", unix.SYS_FANOTIFY_INIT: "fanotify_init",
		unix.SYS_CLONE: "clone", unix.SYS_UNSHARE: "unshare", unix.SYS_SOCKET: "socket", unix.SYS_MKNODAT: "mknodat",
		unix.SYS_PTRACE: "ptrace", unix.SYS_IOCTL: "ioctl", unix.SYS_PRLIMIT64: "prlimit64",
		unix.SYS_SETPRIORITY: "setpriority", unix.SYS_IOPRIO_SET: "ioprio_set",
		unix.SYS_OPENAT: "openat", unix.SYS_FCHMOD: "fchmod", unix.SYS_FCHMODAT: "fchmodat", unix.SYS_FCHMODAT2: "fchmodat2",
	}
	for nr, name := range archSyscallNames {
		m[nr] = name
	}
	return m
}()

// seccompAvailable says whether this architecture has a filter.
const seccompAvailable = true
