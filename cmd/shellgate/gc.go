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
// neither GOGC nor GOMEMLIMIT is set): about seven times the live heap of
// a batch (10–16 MiB over the agent corpus), so that the collector runs
// about once per 80 MiB allocated, a thousand or two decisions, and the
// resident set stays flat near 120 MB however long the stream.
const batchMemoryLimit = 96 << 20

// batchGCPercent is the collector's target percentage during --batch: off,
// so that the memory limit alone decides when it runs. A batch is a
// resident engine for its length: its live heap is small and every
// decision allocates tens of KiB, so a cycle costs about the same (a mark
// of the live heap) however much garbage it collects. Over 25,000 agent
// commands GOGC=400 under a 64 MiB limit ran 39 cycles; this runs about
// 17, for 4.5 s of CPU instead of 5.9 s (load average 6, three runs
// each), resident set 120 MB instead of 87. A higher limit saves cycles
// but a batch then pays for more fresh pages. With decisions evaluated
// from the plan, the first 3,000 agent commands run no cycle under this
// limit or under 128 MiB, and 25,000 run 8 cycles against 5: 128 MiB
// took 2 % less user time there (7 % in another round), the same system
// time and 30 MB more resident set (152 MB against 122), so the limit
// stays.
const batchGCPercent = -1

// batchGC tunes the collector for check, one command or a batch, and
// returns what undoes it (see batchGCPercent and batchMemoryLimit). GOGC and GOMEMLIMIT, when
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
