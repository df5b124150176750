//go:build linux

package execution

import "golang.org/x/sys/unix"

// auditArch is AUDIT_ARCH_X86_64; x32Bit marks the x32 system calls,
// which are refused.
const (
	auditArch = 0xc000003e
	x32Bit    = 0x40000000
)

// sysMknod is mknod(2) (arm64 has only mknodat).
const sysMknod = unix.SYS_MKNOD

// archDeniedSyscalls are refused on this architecture besides the common
// ones: port I/O, the old sysctl, uselib.
var archDeniedSyscalls = []uintptr{unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS__SYSCTL, unix.SYS_USELIB}

// archSetIDCalls are the calls that take a mode only this architecture
// has: open(path, flags, mode), creat(path, mode), chmod(path, mode).
var archSetIDCalls = []setIDCall{{unix.SYS_OPEN, "open"}, {unix.SYS_CREAT, "setid1"}, {unix.SYS_CHMOD, "setid1"}}

// archSyscallNames names the refused system calls only this architecture has.
var archSyscallNames = map[uintptr]string{
	unix.SYS_OPEN: "open (a set-user-ID or set-group-ID bit)", unix.SYS_CREAT: "creat (a set-user-ID or set-group-ID bit)",
	unix.SYS_CHMOD: "chmod (a set-user-ID or set-group-ID bit)",
	unix.SYS_IOPL:  "iopl", unix.SYS_IOPERM: "ioperm", unix.SYS__SYSCTL: "_sysctl", unix.SYS_USELIB: "uselib",
	unix.SYS_MKNOD: "mknod (a device node)",
}
