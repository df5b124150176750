// Package gate is shellgate's whole pipeline: one request in, one result
// out. A Gate validates the request, resolves its working directory,
// classifies the command (package classify), judges its reads against the
// read boundary (package readstation), asks the policy (packages policy and
// rego), asks an Approver when the policy says ask, re-checks the reads'
// admission and where each write lands right before the spawn (a change
// is CHANGED_SINCE_CHECK), runs the command through a Runner and
// says what its exit status means (package exitmeaning).
//
// Commands run through package execution: the default Runner
// (execution.BashRunner) runs the shell in a process group of its own,
// in a managed environment (execution.BuildEnv), with bounded output. A
// command allowed as reversible also runs with the toolchains told to
// stay offline (execution.WithOffline: go list does not fetch modules or
// switch Go versions).
//
// The kernel enforces what the gate decided. Every command runs confined
// in an execution.SandboxMode: read-only, workspace-write or full-access,
// with no network unless the decision approved egress. The mode follows
// the decision (Gate.Run); Request.Sandbox and the config key "sandbox"
// choose it explicitly, and Request.Escalate asks a person for a wider
// mode for one call. Where the runner cannot confine, a read-only run is
// refused (SANDBOX_UNAVAILABLE) unless the config says "sandbox: off".
// Landlock cannot deny a subpath of a granted tree: the deny rows inside
// the roots (.env, keys) stay the read station's job.
//
// A Gate is the library's front door: built once from options (config,
// policy directories and modules, catalog, roots, runner, limits), safe for
// concurrent use, it answers every question about a command: Decide (may
// it run? allow, ask or deny, with reasons and spans), Explain (why: the
// facts and every rule that fired), Grant (the narrowest config grants
// that would allow it next time) and Run (decide, approve, re-check, run,
// say what the exit code means); Start is Run in the background. A
// Classifier describes a command without deciding.
//
// The stages up to the decision are a Pipeline: it has the same Decide,
// Explain and Grant over a policy input built from a policy.Request (the
// command, cwd, mode, shell and environment, read once at the edge), and
// Check, which answers as shellgate check does (CheckResult, the JSON
// contract of check --json). A Decider is the one way the shellgate CLI's
// check, explain, grant and run, the resident engine and the MCP server
// decide: it gives each request the pipeline of its policy source, one
// local Pipeline (NewDecider) or a policy bundle (a rego.Source, such as
// package rego/fleet's Engine: NewSourceDecider), whose pipelines are
// rebuilt when the bundle changes, tightened by a project's config found
// from the request's cwd, and log every decision.
//
// A Batcher is check --batch: it decides a stream of commands (ReadBatch
// reads one per line, or one JSON object per line with its own cwd, mode
// and shell) on every core through a Checker (a Pipeline's Batch, which
// builds each cwd's boundary once per batch, or a bundle's Decider), and
// answers each in input order, with at most a few lines per worker in
// flight; a line it cannot decide is an error answer in its place.
//
// A configuration found in a project (policy.SourceProject) is judged
// against the user's trust store first (policy.Resolve): until the user
// trusts its exact content, only its tightening part applies, its Rego
// modules may only add deny and ask reasons, and a decision the ignored
// part would have made more permissive carries the reason
// project-config-untrusted.
//
// The gate never runs a command that the policy did not allow or a person
// did not approve: every refusal is a Result with status error and a code.
package gate
