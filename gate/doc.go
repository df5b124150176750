// Package gate is shellgate's whole pipeline: one request in, one result
// out. A Gate validates the request, resolves its working directory,
// classifies the command (package classify), judges its reads against the
// read boundary (package readstation), asks the policy (packages policy and
// rego), asks an Approver when the policy says ask, re-checks the reads'
// admission and where each write lands right before the spawn (a change
// is CHANGED_SINCE_CHECK), runs the command through a Runner and
// says what its exit status means (package exitmeaning).
//
// The default Runner, BashRunner, runs `bash -c COMMAND` in a process group
// of its own with stdin from /dev/null and stdout and stderr merged into
// one pipe. A timeout, the caller's context and the capture cap stop the
// whole process tree (SIGTERM to the group, SIGKILL after a grace). The
// output is decoded as UTF-8 with replacement, ANSI escapes removed, and
// kept in bounded memory as a head and a tail with one line saying what
// was left out and where the whole output was spilled.
//
// Every command runs in a managed environment (BuildEnv): variables that
// make bash, the loader or git run unseen code are removed (RemovedEnv),
// pagers, prompts and colors are switched off (ManagedEnv), and git's
// repository-controlled helpers are overridden for the run through git's
// own GIT_CONFIG_COUNT overrides (GitOverrides). A command allowed as
// reversible also runs with the toolchains told to stay offline
// (OfflineEnv: go list does not fetch modules or switch Go versions).
//
// The kernel enforces what the gate decided. BashRunner confines every
// command it starts in a SandboxMode: read-only (no write anywhere but
// /dev/null; reads only in the roots and the system's program and
// library directories), workspace-write (writes only in the roots and a
// private TMPDIR) or full-access (no confinement), with no network unless
// the decision approved egress. The mode follows the decision (Gate.Run);
// Request.Sandbox and the config key "sandbox" choose it explicitly, and
// Request.Escalate asks a person for a wider mode for one call. On Linux
// this is Landlock (the best ABI the kernel offers) applied from a locked,
// throwaway OS thread that then forks bash, so no helper program has to
// be found and a library user gets the same confinement; the network is
// also cut by a network namespace. On macOS it is a Seatbelt profile
// (SeatbeltProfile) run by sandbox-exec. Where neither is possible a
// read-only run is refused (SANDBOX_UNAVAILABLE) unless the config says
// "sandbox: off". An operation the sandbox refused is listed in
// Result.Sandbox and marked in the output by a SandboxMarker line. Landlock
// cannot deny a subpath of a granted tree: the deny rows inside the roots
// (.env, keys) stay the read station's job.
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
