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

// batchMemoryLimit is the soft limit of the Go heap during --batch (when
// GOMEMLIMIT is not set): a few times the live heap of a batch (10–15 MiB
// over the agent corpus).
const batchMemoryLimit = 64 << 20

// batchGC tunes the collector for check --batch and returns what undoes
// it. A batch is a resident engine for its length: its live heap is small
// and every decision allocates, so the collector runs less often, but more
// often again as the heap nears batchMemoryLimit, so that the resident set
// stays flat however long the stream. GOGC and GOMEMLIMIT, when set, are
// the user's choice and left alone.
func batchGC() (restore func()) {
	gc, mem := -2, int64(-2)
	if _, set := os.LookupEnv("GOGC"); !set {
		gc = debug.SetGCPercent(rego.ResidentGCPercent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		mem = debug.SetMemoryLimit(batchMemoryLimit)
	}
	return func() {
		if gc != -2 {
			debug.SetGCPercent(gc)
		}
		if mem != -2 {
			debug.SetMemoryLimit(mem)
		}
	}
}
