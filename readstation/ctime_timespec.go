//go:build darwin || ios || freebsd || netbsd

package readstation

import "syscall"

// statCtime is st's status-change time in nanoseconds.
func statCtime(st *syscall.Stat_t) int64 {
	return int64(st.Ctimespec.Sec)*1e9 + int64(st.Ctimespec.Nsec)
}
