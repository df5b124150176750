package main

import (
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

// unsetenv removes k for the rest of the test (t.Setenv has already
// arranged for its old value to come back).
func unsetenv(t *testing.T, k string) {
	t.Helper()
	if err := os.Unsetenv(k); err != nil {
		t.Fatal(err)
	}
}
