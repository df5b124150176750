//go:build linux || aix || solaris || illumos || android || openbsd || dragonfly

package readstation

import "syscall"

// statCtime is st's status-change time in nanoseconds.
func statCtime(st *syscall.Stat_t) int64 { return int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec) }
