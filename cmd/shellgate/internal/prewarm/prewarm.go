// Package prewarm starts compiling the embedded default policy while the
// rest of the program initializes, for a subcommand that decides with it:
// the compilation is the longest part of a single check, and the packages
// initialized after this one (the OPA plugins, the MCP SDK, the HTTP
// server) take a few milliseconds that it can overlap. The shellgate
// command imports it for that effect alone.
package prewarm

import (
	"os"
	"runtime/debug"
	"strings"

	"github.com/shellgate/shellgate/rego"
)

func init() {
	if !Wanted(os.Args[1:], os.Getenv) {
		return
	}
	if os.Args[1] == "check" {
		checkGC()
	}
	rego.Prewarm()
}

// checkGC applies, before the compilation starts, the collector's settings
// check runs with (batchGC in cmd/shellgate/gc.go: no GOGC target, a soft
// memory limit of 96 MiB, unless GOGC or GOMEMLIMIT is set): compiling
// before check sets them would otherwise run a collection that check then
// avoids.
func checkGC() {
	_, gcSet := os.LookupEnv("GOGC")
	_, memSet := os.LookupEnv("GOMEMLIMIT")
	if gcSet || memSet {
		return
	}
	debug.SetMemoryLimit(96 << 20)
	debug.SetGCPercent(-1)
}

// deciders are the subcommands that decide with the policy.
var deciders = map[string]bool{"check": true, "hook": true, "run": true, "explain": true, "grant": true}

// Wanted reports whether the command line args (without the program's
// name) will most likely compile the embedded default policy alone: a
// subcommand that decides, with no --policy and no OPA configuration. A
// wrong guess costs the compilation's CPU time on another core, never a
// different decision: rego.New takes the prewarmed policy only when it
// compiles the same modules.
func Wanted(args []string, getenv func(string) string) bool {
	if len(args) == 0 || !deciders[args[0]] || getenv("SHELLGATE_OPA_CONFIG") != "" {
		return false
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		f := strings.TrimLeft(a, "-")
		if f != a && (strings.HasPrefix(f, "policy") || strings.HasPrefix(f, "opa-config")) {
			return false
		}
	}
	return true
}
