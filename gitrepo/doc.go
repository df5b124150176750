// Package gitrepo is shellgate's model of git's configuration, read
// exactly as git 2.39 reads it: the syntax of a config file (ParseFile,
// byte for byte as git's config.c), every scope git reads (system, global,
// local, worktree, and GIT_CONFIG_COUNT from the environment git runs in),
// include.path and includeIf (gitdir:, gitdir/i:, onbranch:, hasconfig:),
// and the table of keys that make git run a program (Keys), with when git
// runs each (Helpers, Drivers).
//
// It holds the line between what it knows and what it guesses: a file
// git refuses, a file or variable it cannot read, a spelling it does not
// read exactly as git does, is a *NotEstablishedError (the caller asks,
// naming the file), never a partial list. A condition it cannot evaluate
// exactly is taken as true (Config.Superset): reading more than git reads
// can only find more programs. Tests hold each reading to the real git
// (`git config --list --show-origin --show-scope -z`), on a table of
// tricky inputs and a fuzz target, and each row of Keys to what git
// status, git diff and git log -p really run.
//
// It reads files only through the Files the caller gives it (the read
// station records each one for its re-check before the command is
// spawned) and does not import the read station, the classifier or the
// policy engine.
//
// What git does beyond this package: git 2.39 refuses a repository owned
// by another user unless safe.directory (read from the system, global
// and command scopes only) names it: it dies before it reads the local
// configuration, so reading that configuration as if git obeyed it only
// ever asks more.
package gitrepo
