//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// startDetached starts name in a new session, with no stdio, and does not
// wait for it.
func startDetached(name string, args []string) error {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
