// Package corpus holds shellgate's corpus format, its fixtures, the corpus
// runner, the policy-versus-policy diff and the audit of command histories.
//
// A corpus is a set of cases. Each case is a command, the mode it is judged
// in, the directory it runs in and a small fixture tree of files, plus the
// decision it must get: an action (allow, ask or deny) and, optionally, reason
// codes that must be among the decision's reasons, the reversible verdict,
// read-station verdicts and the meaning of an exit code.
//
// Cases are written in two formats:
//
//   - YAML files (*.yaml, *.yml): a list of cases, or a mapping with a shared
//     "files" fixture, a shared "mode", a "config" (the .shellgate.yaml
//     syntax: grants, roots, deny rows) its cases are judged under, and the
//     "cases" list. Unknown keys are errors that name the file and line.
//   - plain shell files (*.sh): one command per line with a trailing
//     "# want allow|ask|deny [code…]" comment, removed before the command is
//     judged. Lines starting with "#" are comments, except the directives
//     "#mode: readonly" (the mode of the following lines) and
//     "#modes: default readonly" (each following line is judged in both
//     modes; see [Derive]).
//
// A directory's fixture.yaml, when present, is the fixture of the .sh cases
// in that directory and of the YAML cases that give no files of their own.
// Fixture paths are relative to a fresh workspace directory; paths starting
// with "~/" are laid in a fresh home directory, so cases about ~/.ssh are
// hermetic (the gate reads the home directory from $HOME, so one run shares
// one home; see [Options].Home). Nothing a case names is ever run: the
// runner only asks a [Checker] (the real gate: classify, read station,
// policy; see [GateFactory]) for a decision.
//
// [Run] compares decisions with expectations, [Diff] compares two policy
// sets on the same cases, and [Extract] with [Audit] judges the shell
// commands of a history or an agent transcript. [Measure] computes the two
// figures the project's corpus is held to: the share of read-only cases
// allowed without asking and the share of unsafe cases allowed.
//
// The project's own corpus is embedded ([Embedded]); cmd/shellgate's test,
// diff and audit subcommands are thin wiring over this package.
package corpus
