//go:build linux

package execution

// auditArch is AUDIT_ARCH_AARCH64; arm64 has no x32-like second table.
const (
	auditArch = 0xc00000b7
	x32Bit    = 0
)

// sysMknod is mknod(2): arm64 has only mknodat.
var sysMknod = -1

// archDeniedSyscalls are refused on this architecture besides the common
// ones.
var archDeniedSyscalls = []uintptr{}

// archSyscallNames names the refused system calls only this architecture has.
// archSetIDCalls: arm64 has only the *at calls that take a mode.
var archSetIDCalls = []setIDCall{}

var archSyscallNames = map[uintptr]string{}
