package main

import (
	"math"
	"os"
	"runtime/debug"
	"testing"

	"github.com/shellgate/shellgate/rego"
)

func TestResidentGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)

	t.Setenv("GOGC", "150")
	residentGC()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, the percent became %d; want the user's choice left alone (100 here)", got)
	}

	// t.Setenv restores GOGC afterwards; unset it for this part.
	t.Setenv("GOGC", "")
	unsetenv(t, "GOGC")
	residentGC()
	if got := debug.SetGCPercent(100); got != rego.ResidentGCPercent {
		t.Errorf("without GOGC, the percent is %d; want %d", got, rego.ResidentGCPercent)
	}
}

// TestBatchGC: --batch turns the percent off under a soft memory limit,
// and restores both; GOGC or GOMEMLIMIT set by the user leaves both alone
// (GOGC=off under no limit would let the heap grow without bound).
func TestBatchGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	state := func() (int, int64) {
		gc := debug.SetGCPercent(100)
		debug.SetGCPercent(gc)
		return gc, debug.SetMemoryLimit(-1)
	}
	for _, env := range []map[string]string{{}, {"GOGC": "150"}, {"GOMEMLIMIT": "1GiB"}} {
		for _, k := range []string{"GOGC", "GOMEMLIMIT"} {
			if v, ok := env[k]; ok {
				t.Setenv(k, v)
			} else {
				t.Setenv(k, "")
				unsetenv(t, k)
			}
		}
		restore := batchGC()
		gc, mem := state()
		wantGC, wantMem := batchGCPercent, int64(batchMemoryLimit)
		if len(env) > 0 {
			wantGC, wantMem = 100, math.MaxInt64
		}
		if gc != wantGC || mem != wantMem {
			t.Errorf("%v: percent %d, limit %d; want %d, %d", env, gc, mem, wantGC, wantMem)
		}
		restore()
		if gc, mem := state(); gc != 100 || mem != math.MaxInt64 {
			t.Errorf("%v: after restore, percent %d, limit %d; want 100, no limit", env, gc, mem)
		}
	}
}

// unsetenv removes k for the rest of the test (t.Setenv has already
// arranged for its old value to come back).
func unsetenv(t *testing.T, k string) {
	t.Helper()
	if err := os.Unsetenv(k); err != nil {
		t.Fatal(err)
	}
}
