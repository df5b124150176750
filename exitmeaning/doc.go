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
// a subshell, block, if, case or loop body; the script of `bash -c`. The
// AST is the classifier's (classify.WithStatements): the command is parsed
// once, and each simple command is read from the classifier's report (its
// program, subcommand and options as the catalog parses them), never from
// its words again. InterpretParsed takes a report and statements the
// caller already has (the gate's, from the check before its run), and
// parses nothing. The command is read in the dialect of the shell that ran
// it (WithDialect: zsh's noglob returns the status of the command it runs;
// in bash it is no program), and a nested shell's script in that shell's.
//
// Everything a program's status means comes from the command catalog
// (classify.Catalog): its exit field says what each status means (grep's
// 1 is "No matches found", git's 128 "git stopped with a fatal error"),
// with the options a meaning needs (jq's 1 only with -e); exit_status:
// command says a wrapper (timeout, env, sudo, exec) returns the status of
// the command it runs unless the status is one of its own (timeout's 124);
// exit_status: zero says a program (echo) is not where a failure came
// from. For a program whose 1 is an outcome, 2 and above are errors it
// reported. A program the catalog does not know gets the generic meanings
// only: 126 (not executable), 127 (not found) and 128+N (killed by signal
// N, by name). A catalog file that adds or replaces a program (WithCatalog)
// changes its meanings with no change here.
//
// The package runs nothing and touches no file.
package exitmeaning
