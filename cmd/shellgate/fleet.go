package main

import (
	"context"
	"fmt"

	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/rego/fleet"
	"github.com/shellgate/shellgate/trust"
)

// OPAConfigEnv names the environment variable that gives every command
// (check, run, mcp, serve and the one-shot hook) an OPA configuration when
// no --opa-config is given: set it in the agents' environment so that the
// resident engine the hook client starts, and the hook's fallback, decide
// with the team's bundle too.
const OPAConfigEnv = "SHELLGATE_OPA_CONFIG"

// fleetWait is how long a command waits for a first bundle when none is
// persisted.
var fleetWait = fleet.DefaultWait

// startFleet reads the OPA config at path (--opa-config) and starts the
// engine of its policy bundle (see fleet.Engine): the policy source a
// gate.Decider decides with. This is the one place OPA's plugins start.
func startFleet(path string) (*fleet.Engine, error) {
	raw, err := readSmallFile(path)
	if err != nil {
		return nil, fmt.Errorf("--opa-config: %w", err)
	}
	wait := fleetWait
	if wait == 0 {
		wait = -1
	}
	return fleet.NewEngine(context.Background(), raw, fleet.EngineOptions{Wait: wait})
}

// fleetDecider is the decider of the policy bundle f, for commands run in
// this process's environment.
func fleetDecider(f *fleet.Engine) *gate.Decider {
	return gate.NewSourceDecider(f, gate.PipelineOptions{Env: readstation.ProcessEnv})
}

// readSmallFile reads a regular file of at most 1 MiB.
// It never blocks on a FIFO or a device (trust.ReadRegular).
func readSmallFile(path string) ([]byte, error) {
	return trust.ReadRegular(path, 1<<20)
}
