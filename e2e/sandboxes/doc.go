// Package sandboxes measures shellgate's sandbox side by side with
// Codex's (`codex sandbox`) and Claude Code's sandbox-runtime (`srt`), on
// this machine, in their workspace-write modes: the everyday tasks of
// issue 26 (Go, a pyenv python, rustup and cargo, npm, git, with the
// toolchains in the real home) and the escapes of issue 26, each from a
// script in the workspace, checked on the real system after the run. It
// also measures what each sandbox costs on `bash -c true` and on one
// task, as ratios to an unconfined run.
//
// It is a measurement, not a gate: TestCompare runs only with
// SHELLGATE_COMPARE=1 and prints a markdown table; with
// SHELLGATE_COMPARE_OUT=FILE it also writes the table into FILE
// (docs/sandbox-comparison.md) between its markers. See that file for how
// to rerun it.
//
// The tasks and their workspace are internal/sandboxtasks', the ones
// shellgate's own sandbox test (gate's TestSandboxEverydayTasks) runs.
//
// The package holds tests only.
package sandboxes
