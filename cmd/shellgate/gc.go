package main

import (
	"os"
	"runtime/debug"

	"github.com/shellgate/shellgate/rego"
)

// residentGC sets the collector's target for a long-lived engine, unless
// the user chose one with GOGC.
func residentGC() {
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	debug.SetGCPercent(rego.ResidentGCPercent)
}
