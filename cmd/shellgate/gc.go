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
// GOMEMLIMIT is not set): about ten times the live heap of a batch (10–15
// MiB over the agent corpus), so that the collector runs once per hundred
// MiB allocated, a thousand or two decisions, and the resident set stays
// flat near 150 MB however long the stream.
const batchMemoryLimit = 128 << 20

// batchGCPercent is the collector's target percentage during --batch (when
// GOGC is not set): off, so that the memory limit alone decides when it
// runs. A batch is a resident engine for its length: its live heap is
// small and every decision allocates tens of KiB, so each cycle costs
// about the same (a mark of the live heap) however much garbage it
// collects; a cycle per hundred MiB costs a third of the CPU of a cycle
// per forty (GOGC=400 under a 64 MiB limit: 5.0 s against 3.9 s of CPU for
// 25,000 agent commands, resident set 87 against 150 MB).
const batchGCPercent = -1

// batchGC tunes the collector for check --batch and returns what undoes
// it (see batchGCPercent and batchMemoryLimit). GOGC and GOMEMLIMIT, when
// set, are the user's choice: then neither is changed, since either alone
// would leave the heap unbounded or the collector running constantly.
func batchGC() (restore func()) {
	_, gcSet := os.LookupEnv("GOGC")
	_, memSet := os.LookupEnv("GOMEMLIMIT")
	if gcSet || memSet {
		return func() {}
	}
	mem := debug.SetMemoryLimit(batchMemoryLimit)
	gc := debug.SetGCPercent(batchGCPercent)
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(mem)
	}
}
