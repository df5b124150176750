// Package confirm proves the catalog's read-only claims against the real
// programs: it runs every command shellgate allows in a decoy workspace,
// under strace, and fails a case when the program does something a
// read-only command must not do.
//
// The decoy ([NewDecoy]) is a home directory with a fake SSH key, cloud and
// registry credentials, a git repository that commits a .env and token
// files, a canary secret in the environment, and a system git config whose
// helpers (pager, credential helper, ssh command, editor, …) leave a marker
// when anything runs them. Every secret holds a canary string.
//
// A run ([Run]) is bounded: a timeout that stops the whole process group,
// an output cap, stdin from /dev/null. The trace ([ParseTrace]) records
// every program executed, every file opened, created, removed or renamed,
// every socket. [Judge] turns a trace and the output into the claims that
// broke: a write, a program outside the case's declared set (the programs
// its segments name and the helpers their catalog entries declare), a
// socket or a name lookup, an open of a file a deny row covers, a canary in
// the output.
//
// The test in this package (TestConfirm) generates the cases: the embedded
// corpus's allowed cases, hand-written probes, and for every read-only
// program each option the catalog calls safe, alone and with decoy operands
// (a file, a directory, "-", "@file", "host:file", a glob). Only the cases
// the real gate allows in the decoy are run; it prints
// "confirmed N of M read-only programs (K spellings), unconfirmed: …".
package confirm
