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
//
// The hostile workspace ([NewHostile]) is the decoy planted with every trap
// of [Traps] that can share one repository: files a cloned repository or
// the home directory controls that turn an allowed read into code
// execution, network access or a leaked secret (core.fsmonitor, hooks, a
// textconv driver, a clean filter, an unlisted gitlink, a promisor remote,
// toolchain pins, rc files, …). Each trap leaves a marker when it runs, and
// every server it names is a 127.0.0.1 listener the test owns.
// TestConfirmHostile runs the cases there as TestConfirm does (each entry
// and option alone and with a file) and prints "hostile: confirmed N of M
// read-only programs, asked K …". TestHostileTraps is the acceptance table:
// for each trap and each command it turns harmful, the command is allowed
// in a plain repository ([NewPlain]), asked (readonly: denied) in the
// planted one with a reason naming the planted file, and the real program
// really falls into the trap there.
package confirm
