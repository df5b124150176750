// Package execution runs shell commands: a runner, its output capture,
// the environment a command gets and the kernel sandbox it runs in. It
// decides no policy: what it is told to run, in which sandbox mode, with
// which roots and reads, comes from its caller (package gate decides it),
// and it can be used alone, as the Example shows.
//
// BashRunner runs `bash -c COMMAND` (zsh -f or sh when the Spec says so)
// in a process group of its own with stdin from /dev/null and stdout and
// stderr merged into one pipe. A timeout, the caller's context and the
// capture cap stop the whole process tree (SIGTERM to the group, SIGKILL
// after a grace). The output is decoded as UTF-8 with replacement, ANSI
// escapes removed, and kept in bounded memory as a head and a tail with
// one line saying what was left out and where the whole output was
// spilled (Output).
//
// BuildEnv makes the managed environment a command runs in: variables
// that make bash, the loader or git run unseen code are removed
// (RemovedEnv), pagers, prompts and colors are switched off (ManagedEnv),
// and git's repository-controlled helpers are overridden for the run
// through git's own GIT_CONFIG_COUNT overrides (GitOverrides). WithOffline
// adds the variables that keep toolchains offline (OfflineEnv).
//
// A Spec with a Confinement runs in a SandboxMode: read-only (no write
// anywhere but /dev/null; reads only in the roots, the toolchains in use
// (ToolchainDirs) and the system's program and library directories),
// workspace-write (writes only in the roots, a private TMPDIR and the
// workspace's build caches in the per-user SandboxCacheDir, one per set
// of roots, so that no workspace's command plants code in another's
// builds; the files other programs run
// later, ProtectedNames, ProtectedSuffixes and ProtectedGitNames, and
// what a repository's configuration names in the roots (its hooks
// directory, husky's scripts, included files, helper programs), stay
// read-only, at a root's top and beneath it, and those a command makes
// beneath it are moved aside after the run, as are the FIFOs it leaves
// (loose objects' too) and what a paused rebase, cherry-pick or revert
// gained that git would run when continued: exec lines, a merge
// strategy that is not git's) or
// full-access (no confinement), with no network unless the Confinement
// allows it. On Linux this is Landlock (the best ABI the kernel offers)
// applied from a locked, throwaway OS thread that then forks the shell,
// so no helper program has to be found; the network is also cut by a
// network namespace, and the command runs without capabilities, with
// no_new_privs, a seccomp filter, resource limits (ResourceLimits) and,
// where it can, a process cap of its own. It also runs in a PID
// namespace of its own, with a /proc of it; the run's end kills
// everything left in it. Without root a threaded program can make no
// mount or PID namespace, so the command starts through this program
// again (a helper: /proc/self/exe, run from the package's init) in a new
// user namespace with the user's own uid mapped, which binds the
// protected paths read-only, makes the PID namespace (Linux 6.16 on) and confines itself
// before it starts the shell (userns_linux.go); where that cannot run,
// the result's Note and SandboxSupport.Missing say what is missing. On macOS it is a Seatbelt
// profile run by sandbox-exec. A runner that cannot enforce a Confinement
// does not start the command. An operation the sandbox refused is listed
// in Outcome.Sandbox and marked in the output by a SandboxMarker line: a
// system call the seccomp filter refused by name (the filter reports it),
// an allocation the memory limit refused by the limit, a protected path
// the command made by its name, a file by what the output says.
package execution
