// Package fleet is shellgate's OPA-facing management plane: it writes
// shellgate's policy, catalog and config as an OPA bundle (optionally
// signed as OPA signs bundles), and runs OPA's own plugins (bundle, decision
// logs, status) from an OPA configuration file, so that a shellgate engine
// is an OPA agent: it downloads signed bundles from any bundle server
// (polled with ETags, persisted for offline starts) and uploads masked
// decision logs to any OPA-compatible collector.
//
// The bundle layout:
//
//	/.manifest                 revision and roots (shellgate, shellgate_bundle, system/log)
//	/default/*.rego            shellgate's embedded default policy
//	/policy/DIR/....rego       the modules of each DIR given (package shellgate...)
//	/system/log/mask.rego      the default decision-log mask (DefaultMask), unless a DIR has package system.log
//	/shellgate_bundle/data.json  {"config": YAML text, "catalog": YAML text} (data.shellgate_bundle)
//
// An Engine is a policy source of the one pipeline (rego.Source): it gives
// the bundle in force (its modules, config and catalog, compiled once when
// accepted) and takes every decision made with it into the decision log,
// with the assignment values and denied reads masked. gate.Decider decides
// with it (gate.NewSourceDecider): a project config found from a command's
// cwd may only tighten the bundle (policy.ResolveUnder), and while no
// bundle was ever loaded every command is denied
// (policy-bundle-unavailable). The package does not import gate: the
// pipeline reads straight off the packages.
//
// Like package rego, it is engine-side only: the thin hook client never
// imports it.
package fleet
