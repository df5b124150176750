// Package exitmeaning says what an exit status means for the command that
// produced it: grep's exit 1 is "No matches found", not a failure; 137 is
// "Killed by signal SIGKILL".
//
// It reads the command's bash AST (mvdan.cc/sh/v3/syntax), never its text
// split on separators, to find the command whose status bash returned: the
// last statement of the top-level list; for a && b either one (b is the
// one named, a is mentioned when it could have failed); for a || b the
// right side; the last stage of a pipeline, or any stage under
// `set -o pipefail`; every statement after `set -e`; the last statement of
// a subshell, block, if, case or loop body; the script of `bash -c`.
// Wrappers (timeout, env, nice, command, stdbuf, xargs, sudo, the time
// keyword, exec, nohup) are unwrapped with the classifier, so the catalog's
// option knowledge decides where the wrapped program starts, and the
// wrapper's own codes (timeout's 124, xargs's 123) are read first. Path
// prefixes and environment assignments are skipped.
//
// What exit 1 means comes from the command catalog's exit1 field
// (classify.Catalog), with a small built-in table for programs the catalog
// does not describe yet (rg, ag, ack, cmp, pgrep, jq -e, type). For those
// programs 2 and above are real errors. Every program gets the generic
// meanings of 126 (not executable), 127 (not found) and 128+N (killed by
// signal N, by name).
//
// The package runs nothing and touches no file.
package exitmeaning
