package gitrepo

import "strings"

// When names the commands for which git runs what a key names.
type When string

// The occasions on which git runs a configured program.
const (
	// WhenIndex: commands that compare the work tree with the index and
	// refresh it (status, diff, describe --dirty, add, commit).
	WhenIndex When = "index"
	// WhenDiff: commands that print a diff or convert a blob (diff, log
	// -p, show, blame, grep --textconv).
	WhenDiff When = "diff"
	// WhenSignature: commands that show a commit's signature (log and
	// show with log.showSignature, verify-commit).
	WhenSignature When = "signature"
	// WhenAlways: every command that reads the configuration.
	WhenAlways When = "always"
	// WhenNetwork: commands that contact a remote (fetch, pull, push,
	// clone, ls-remote, and a lazy fetch of a partial clone).
	WhenNetwork When = "network"
	// WhenTTY: output to a terminal (the pager).
	WhenTTY When = "tty"
	// WhenEditor: commands that open an editor (commit, rebase -i, tag -a).
	WhenEditor When = "editor"
	// WhenWrite: commands that write the work tree, the index or history
	// (checkout, merge, archive, submodule update, add -p).
	WhenWrite When = "write"
	// WhenTool: commands that start a named tool (difftool, mergetool,
	// help --web, instaweb).
	WhenTool When = "tool"
	// WhenAlias: a command word that is not git's own and names an alias.
	WhenAlias When = "alias"
)

// Value conditions: which values of a key make git run something.
const (
	ValueAny      = ""         // any value
	ValueNotFalse = "notfalse" // a value that is not a boolean false ("", false, no, off, 0)
	ValueBang     = "bang"     // a value that begins with "!" (a shell command)
	ValueExt      = "ext"      // a value that begins with "ext::" (the ext transport runs it)
	ValueAlways   = "always"   // "always" (protocol.allow: every transport, ext:: included)
	// ValueSignatureFormat: a pretty format that may verify signatures (a
	// %G placeholder), or the name of a format of the configuration
	// (pretty.<name>), which may have one (see SignatureFormat).
	ValueSignatureFormat = "signatureformat"
)

// Subsection rules of a HelperKey.
const (
	SubNone     = ""  // section.key, no subsection
	SubRequired = "*" // section.SUB.key
	SubOptional = "?" // either
)

// HelperKey is a configuration key whose value makes git run a program
// (or write a file): a row of the table Keys.
type HelperKey struct {
	// Section and Key are lower-case; Key "" matches every key of the
	// section (pager.<cmd>).
	Section, Key string
	// Sub is SubNone, SubRequired, SubOptional, or a subsection that must
	// match exactly (protocol.ext.allow).
	Sub string
	// SubPrefix, when set, is a prefix the subsection must have
	// (url."ext::…".insteadOf).
	SubPrefix string
	// Value is the value condition (ValueAny, ValueNotFalse, …).
	Value string
	// When says which commands run it.
	When When
	// Driver is set for a driver's key (diff, filter, merge): git runs it
	// only for paths whose attributes select the driver.
	Driver string
	// BuiltinIfTrue: a boolean true runs git's own code (core.fsmonitor
	// = true is git's built-in monitor), so in the user's configuration
	// only another value (a program) counts.
	BuiltinIfTrue bool
	// UserOnly: git reads the key only from the system and global
	// configuration (and the environment's), never from a repository's.
	UserOnly bool
	// Known are values that, in the user's configuration, name a program
	// the table knows (git-lfs, as `git lfs install` writes it): its own
	// repository inputs that run programs or write elsewhere are rows of
	// this table (lfs.extension.<name>.clean, lfs.storage), and it is found
	// through PATH like git itself (KnownPrograms), so the driver does not
	// count there. In a repository's own configuration every value counts.
	Known []string
	// Runs are the read-only commands, of ReadCommands, that run it in a
	// repository without a terminal (a driver's: for a path its attributes
	// select). TestKeysRunWhenTheTableSays holds each row to real git.
	Runs []string
	// Doc says what git runs.
	Doc string
}

// ReadCommands are the read-only commands the table's Runs are measured
// on.
var ReadCommands = []string{"status", "diff", "log -p"}

// Keys are the configuration keys that make git run a program: the one
// table the read station consults (a row per key, data, not a switch).
var Keys = []HelperKey{
	{Section: "core", Key: "fsmonitor", Value: ValueNotFalse, BuiltinIfTrue: true, When: WhenIndex, Runs: []string{"status", "diff"}, Doc: "the file system monitor hook, run to learn which files changed"},
	{Section: "core", Key: "hookspath", When: WhenIndex, Runs: []string{"status", "diff"}, Doc: "the hooks directory: git status and git diff run its post-index-change hook when a refresh rewrites the index"},
	{Section: "diff", Key: "external", When: WhenDiff, Runs: []string{"diff"}, Doc: "the external diff program git diff runs (log -p only with --ext-diff)"},
	{Section: "diff", Sub: SubRequired, Key: "textconv", When: WhenDiff, Driver: "diff", Runs: []string{"diff", "log -p"}, Doc: "a diff driver's text conversion program"},
	{Section: "diff", Sub: SubRequired, Key: "command", When: WhenDiff, Driver: "diff", Runs: []string{"diff"}, Doc: "a diff driver's external diff program"},
	{Section: "filter", Sub: SubRequired, Key: "clean", When: WhenIndex, Driver: "filter", Known: []string{"git-lfs clean -- %f"}, Runs: []string{"status", "diff"}, Doc: "a filter's clean program, run on a work tree file git hashes"},
	{Section: "filter", Sub: SubRequired, Key: "process", When: WhenIndex, Driver: "filter", Known: []string{"git-lfs filter-process"}, Runs: []string{"status", "diff"}, Doc: "a filter's long-running process"},
	{Section: "filter", Sub: SubRequired, Key: "smudge", When: WhenWrite, Driver: "filter", Known: []string{"git-lfs smudge -- %f"}, Doc: "a filter's smudge program, run on checkout"},
	{Section: "lfs", Sub: SubRequired, SubPrefix: "extension.", Key: "clean", When: WhenIndex, Runs: []string{"status", "diff"}, Doc: "a Git LFS extension's clean program: git-lfs runs it on every file its filter cleans (git-lfs ignores it in .lfsconfig)"},
	{Section: "lfs", Sub: SubRequired, SubPrefix: "extension.", Key: "smudge", When: WhenWrite, Doc: "a Git LFS extension's smudge program, run on checkout"},
	{Section: "lfs", Key: "storage", When: WhenIndex, Runs: []string{"status", "diff"}, Doc: "the directory Git LFS writes the objects of the files its filter cleans to (git-lfs ignores it in .lfsconfig)"},
	{Section: "merge", Sub: SubRequired, Key: "driver", When: WhenWrite, Driver: "merge", Doc: "a merge driver"},
	{Section: "log", Key: "showsignature", Value: ValueNotFalse, When: WhenSignature, Runs: []string{"log -p"}, Doc: "makes git log run gpg.program (or gpg) on every signed commit"},
	{Section: "format", Key: "pretty", Value: ValueSignatureFormat, When: WhenSignature, Runs: []string{"log -p"}, Doc: "the default format of git log and show: a %G placeholder makes them run gpg.program (or gpg) on every signed commit"},
	{Section: "gpg", Sub: SubOptional, Key: "program", When: WhenSignature, Doc: "the signing program, run to verify a signature"},
	{Section: "gpg", Sub: SubOptional, Key: "defaultkeycommand", When: WhenSignature, Doc: "a command that names the signing key"},
	{Section: "trace2", Key: "normaltarget", UserOnly: true, When: WhenAlways, Runs: []string{"status", "diff", "log -p"}, Doc: "a file (or socket) every git command writes its trace to (read from the user's configuration only)"},
	{Section: "trace2", Key: "perftarget", UserOnly: true, When: WhenAlways, Runs: []string{"status", "diff", "log -p"}, Doc: "a file (or socket) every git command writes its trace to (read from the user's configuration only)"},
	{Section: "trace2", Key: "eventtarget", UserOnly: true, When: WhenAlways, Runs: []string{"status", "diff", "log -p"}, Doc: "a file (or socket) every git command writes its trace to (read from the user's configuration only)"},
	{Section: "core", Key: "pager", When: WhenTTY, Doc: "the pager, run when output goes to a terminal"},
	{Section: "pager", Sub: SubOptional, Key: "", When: WhenTTY, Doc: "a command's pager, run when output goes to a terminal"},
	{Section: "core", Key: "editor", When: WhenEditor, Doc: "the editor"},
	{Section: "sequence", Sub: SubOptional, Key: "editor", When: WhenEditor, Doc: "the rebase todo editor"},
	{Section: "core", Key: "sshcommand", When: WhenNetwork, Doc: "the ssh program of ssh transports"},
	{Section: "core", Key: "askpass", When: WhenNetwork, Doc: "the program that asks for a password"},
	{Section: "core", Key: "gitproxy", When: WhenNetwork, Doc: "the proxy command of git:// transports"},
	{Section: "credential", Sub: SubOptional, Key: "helper", When: WhenNetwork, Doc: "a credential helper"},
	{Section: "remote", Sub: SubRequired, Key: "uploadpack", When: WhenNetwork, Doc: "the program run on the remote side (locally for a local remote)"},
	{Section: "remote", Sub: SubRequired, Key: "receivepack", When: WhenNetwork, Doc: "the program run on the remote side of a push"},
	{Section: "remote", Sub: SubRequired, Key: "proxy", When: WhenNetwork, Doc: "the remote's proxy"},
	{Section: "remote", Sub: SubRequired, Key: "vcs", When: WhenNetwork, Doc: "the remote helper git-remote-<vcs>"},
	{Section: "remote", Sub: SubRequired, Key: "url", Value: ValueExt, When: WhenNetwork, Doc: "an ext:: URL, a command the transport runs"},
	{Section: "remote", Sub: SubRequired, Key: "pushurl", Value: ValueExt, When: WhenNetwork, Doc: "an ext:: URL, a command the transport runs"},
	{Section: "url", Sub: SubRequired, SubPrefix: "ext::", Key: "insteadof", When: WhenNetwork, Doc: "rewrites URLs to an ext:: command"},
	{Section: "url", Sub: SubRequired, SubPrefix: "ext::", Key: "pushinsteadof", When: WhenNetwork, Doc: "rewrites push URLs to an ext:: command"},
	{Section: "protocol", Sub: "ext", Key: "allow", Value: ValueAlways, When: WhenNetwork, Doc: "allows the ext:: transport, which runs a command"},
	{Section: "protocol", Key: "allow", Value: ValueAlways, When: WhenNetwork, Doc: "allows every transport, ext:: (which runs a command) included"},
	{Section: "core", Key: "alternaterefscommand", When: WhenNetwork, Doc: "the command that lists an alternate's refs"},
	{Section: "uploadpack", Key: "packobjectshook", When: WhenNetwork, Doc: "a wrapper of pack-objects on the serving side"},
	{Section: "hook", Sub: SubRequired, Key: "command", When: WhenIndex, Doc: "a configured hook (git 2.46 and later)"},
	{Section: "tar", Sub: SubRequired, Key: "command", When: WhenWrite, Doc: "the compressor of git archive"},
	{Section: "submodule", Sub: SubRequired, Key: "update", Value: ValueBang, When: WhenWrite, Doc: "a shell command git submodule update runs"},
	{Section: "interactive", Key: "difffilter", When: WhenWrite, Doc: "the filter of git add -p"},
	{Section: "difftool", Sub: SubOptional, Key: "cmd", When: WhenTool, Doc: "a diff tool"},
	{Section: "difftool", Sub: SubOptional, Key: "path", When: WhenTool, Doc: "a diff tool's program"},
	{Section: "mergetool", Sub: SubOptional, Key: "cmd", When: WhenTool, Doc: "a merge tool"},
	{Section: "mergetool", Sub: SubOptional, Key: "path", When: WhenTool, Doc: "a merge tool's program"},
	{Section: "browser", Sub: SubOptional, Key: "cmd", When: WhenTool, Doc: "a web browser"},
	{Section: "browser", Sub: SubOptional, Key: "path", When: WhenTool, Doc: "a web browser's program"},
	{Section: "man", Sub: SubOptional, Key: "cmd", When: WhenTool, Doc: "a man viewer"},
	{Section: "man", Sub: SubOptional, Key: "path", When: WhenTool, Doc: "a man viewer's program"},
	{Section: "web", Key: "browser", When: WhenTool, Doc: "the web browser"},
}

// Match reports whether e names a program the row's condition makes git
// run.
func (k *HelperKey) Match(e Entry) bool {
	section, sub, key := splitName(e.Name)
	if section != k.Section || k.Key != "" && key != k.Key {
		return false
	}
	hasSub := strings.Count(e.Name, ".") >= 2
	switch k.Sub {
	case SubNone:
		if hasSub {
			return false
		}
	case SubRequired:
		if !hasSub {
			return false
		}
	case SubOptional:
	default:
		if !hasSub || sub != k.Sub {
			return false
		}
	}
	// (Case-insensitively: git-lfs reads its keys so, and a superset only
	// asks more.)
	if k.SubPrefix != "" && !strings.HasPrefix(strings.ToLower(sub), k.SubPrefix) {
		return false
	}
	switch k.Value {
	case ValueNotFalse:
		b, ok := parseBool(e.Value, e.NoValue)
		return !ok || b
	case ValueBang:
		return strings.HasPrefix(e.Value, "!")
	case ValueExt:
		return strings.HasPrefix(e.Value, "ext::")
	case ValueAlways:
		return strings.EqualFold(e.Value, "always")
	case ValueSignatureFormat:
		return SignatureFormat(e.Value)
	}
	return true
}

// builtinFormats are git's own pretty formats (pretty.c): a
// pretty.<name> of the configuration cannot replace one.
var builtinFormats = []string{"oneline", "short", "medium", "full", "fuller", "reference", "email", "mboxrd", "raw"}

// SignatureFormat reports whether git log would verify signatures to
// format commits as value says (--format, --pretty, format.pretty): a
// user format (one with a "%", or "format:"/"tformat:") with a %G
// placeholder, or a name that is not exactly one of git's own formats.
// git takes a name for the shortest format, its own or a pretty.<name>
// of the configuration, that the name begins (case-insensitively), so
// any other name may be a configured format, which may have %G.
func SignatureFormat(value string) bool {
	for _, b := range builtinFormats {
		if strings.EqualFold(value, b) {
			return false
		}
	}
	user := strings.Contains(value, "%")
	for _, p := range []string{"format:", "tformat:"} {
		if rest, ok := strings.CutPrefix(value, p); ok {
			value, user = rest, true
		}
	}
	if !user {
		return true
	}
	for i := 0; i < len(value); i++ {
		if value[i] != '%' || i+1 == len(value) {
			continue
		}
		switch value[i+1] {
		case 'G':
			return true
		case '%':
			i++ // "%%" is a literal "%"
		}
	}
	return false
}

// RunByReadCommand reports whether a read-only command (ReadCommands) can
// run the row's program: the rows that ask in the user's own (system,
// global) configuration.
func (k *HelperKey) RunByReadCommand() bool { return len(k.Runs) > 0 }

// known reports whether value is one of the row's Known values (spaces
// around it and between words as git-lfs and a person write them).
func (k *HelperKey) known(value string) bool {
	v := strings.Join(strings.Fields(value), " ")
	for _, w := range k.Known {
		if v == w {
			return true
		}
	}
	return false
}

// KnownPrograms are the programs the Known values run, found through
// PATH by the shell git starts them with: a file of that name in a
// directory of the workspace on PATH is the repository's choice (the read
// station looks them up as it looks up the command's own programs).
var KnownPrograms = []string{"git-lfs"}

// Lookup returns the first row that e matches.
func Lookup(e Entry) (*HelperKey, bool) {
	for i := range Keys {
		if Keys[i].Match(e) {
			return &Keys[i], true
		}
	}
	return nil, false
}

// Repository reports whether a scope is the repository's own (local,
// worktree): every row there asks, since the repository chose it.
func (s Scope) Repository() bool { return s == ScopeLocal || s == ScopeWorktree }

// Helper is a setting that makes git run a program.
type Helper struct {
	Entry
	// Row is the table row it matches; nil for an alias.
	Row *HelperKey
}

// Helpers returns the settings of c that make git run a program for a
// command: in the repository's own configuration every row of Keys, and
// alias.<alias> when alias is the command's first word; in the user's
// (system, global) and the environment's, only the value git uses (the
// last of its name), for the rows a read-only command runs without a
// driver (a driver counts when attributes select it: see Drivers), and
// not core.fsmonitor = true (git's built-in monitor), and the alias. Keys that run only on a terminal, in an
// editor, over the network or when writing do not ask there: those are
// the settings a developer keeps in ~/.gitconfig (core.pager, core.editor,
// credential.helper), and a read-only command without a terminal does not
// run them.
func Helpers(c *Config, alias string) []Helper {
	var out []Helper
	shadowed := c.Shadowed()
	for i, e := range c.Entries {
		if !e.Scope.Repository() && shadowed[i] {
			continue
		}
		if row, ok := IsHelper(e, alias); ok {
			out = append(out, Helper{Entry: e, Row: row})
		}
	}
	return out
}

// Shadowed returns, for each entry of c, whether a later entry has its
// name, so that git does not use its value (for a key of one value; every
// key of the table that a read-only command runs is one).
func (c *Config) Shadowed() []bool {
	last := make(map[string]int, len(c.Entries))
	for i, e := range c.Entries {
		if row, ok := Lookup(e); ok && row.UserOnly && e.Scope.Repository() {
			continue // git does not read it there, so it sets nothing
		}
		last[e.Name] = i
	}
	out := make([]bool, len(c.Entries))
	for i, e := range c.Entries {
		out[i] = last[e.Name] != i
	}
	return out
}

// IsHelper reports whether e, in its scope, is a setting Helpers returns
// for a command whose first word is alias, and the row it matches (nil
// for an alias).
func IsHelper(e Entry, alias string) (*HelperKey, bool) {
	if alias != "" && e.Section() == "alias" && strings.Count(e.Name, ".") == 1 && strings.EqualFold(e.Key(), alias) {
		return nil, true
	}
	row, ok := Lookup(e)
	if !ok {
		return nil, false
	}
	if e.Scope.Repository() {
		return row, !row.UserOnly
	}
	if row.BuiltinIfTrue {
		if b, ok := parseBool(e.Value, e.NoValue); ok && b {
			return row, false
		}
	}
	return row, row.Driver == "" && row.RunByReadCommand()
}

// DriverKey returns "kind=name" (diff=x) when e names a driver's program
// that counts (see Drivers), else "".
func DriverKey(e Entry) string {
	row, ok := Lookup(e)
	if !ok || row.Driver == "" || !e.Scope.Repository() && (!row.RunByReadCommand() || row.known(e.Value)) {
		return ""
	}
	return row.Driver + "=" + e.Subsection()
}

// Drivers returns the drivers (diff, filter, merge) of c that name a
// program, by "kind=name" (diff=x): a path whose attributes select one
// makes git run it. In the user's configuration only the drivers a
// read-only command runs count (a filter's clean, not its smudge).
func Drivers(c *Config) map[string]Entry {
	out := map[string]Entry{}
	for _, e := range c.Entries {
		if k := DriverKey(e); k != "" {
			out[k] = e
		}
	}
	return out
}

// FileKey is a configuration key whose value names a file that a
// read-only command reads and may print: a row of the table FileKeys.
type FileKey struct {
	// Section and Key are lower-case (no subsection).
	Section, Key string
	// Commands are the git commands (the catalog's subcommand) that read it.
	Commands []string
	// Doc says what git does with the file.
	Doc string
}

// FileKeys are the configuration keys whose file a read-only command
// reads: the read station judges the file each names (every value: they
// are lists) as a read of the command. blame.ignoreRevsFile: git blame
// parses each line as a revision and dies with the first one it cannot,
// printing it ("fatal: invalid object name: <line>"): a repository's
// config pointing at ~/.git-credentials printed the token (redteam, git
// 2.39.5 under strace).
var FileKeys = []FileKey{
	{Section: "blame", Key: "ignorerevsfile", Commands: []string{"blame"}, Doc: "the revisions git blame ignores, one a line; a line that is not one is printed in the error"},
	// git check-attr -a prints every word after a line's pattern as an
	// attribute: ~/.netrc's "machine h login u password SECRET" printed
	// SECRET for the path "machine" (redrepo).
	{Section: "core", Key: "attributesfile", Commands: []string{"check-attr"}, Doc: "the attributes file; git check-attr prints the words after a line's first as the attributes of the paths it matches"},
}

// NoIndexKeys are configuration keys (a boolean true) that make a git
// command run outside any repository read the directory it runs in as
// --no-index does, every file of the tree: with grep.fallbackToNoIndex in
// ~/.gitconfig, git grep in a directory that is no repository printed a
// .env there (redrepo, git 2.39.5).
var NoIndexKeys = []FileKey{
	{Section: "grep", Key: "fallbacktonoindex", Commands: []string{"grep"}, Doc: "git grep outside a repository searches the files of the directory as git grep --no-index does"},
}

// IsTrue reports whether e's value is a boolean true as git reads it.
func IsTrue(e Entry) bool {
	b, ok := parseBool(e.Value, e.NoValue)
	return ok && b
}

// PrintedFiles are the files of a git directory (its common directory's)
// whose lines git prints to a read-only command, in its output or in an
// error: a link there to a file elsewhere (~/.netrc) makes git print that
// file. objects/info/alternates: "object directory <line> does not exist"
// (every command that reads objects); shallow: "bad shallow line: <line>";
// info/grafts: "bad graft data: <line>"; packed-refs: "unexpected line in
// .git/packed-refs: <line>" (commands that list refs); info/attributes:
// git check-attr prints a line's words. The state of a paused operation
// (in the worktree's own git directory): rebase-merge/ and rebase-apply/
// head-name and onto, which git status prints as the branch rebased and
// the commit it is onto (git branch the branch), rebase-merge/done and
// git-rebase-todo, whose lines git status lists, BISECT_START (git status
// and git branch: "bisecting, started from branch '<line>'") and
// MERGE_HEAD (git blame: "unknown line in '.git/MERGE_HEAD': <line>").
// A linked worktree's locked (the reason git worktree list -v and
// --porcelain print) and gitdir (the path git worktree list prints); a
// name with "*" is a glob.
// TestPrintedFilesMatchGit and TestPrintedStateFilesMatchGit hold the list
// to git 2.39: a link to a file with a canary, in place of each of these
// and of the other files of a git directory (and of each paused rebase,
// merge and bisect), prints the canary exactly for these (redrepo,
// redrepo2).
var PrintedFiles = []string{"objects/info/alternates", "shallow", "info/grafts", "packed-refs", "info/attributes",
	"rebase-merge/head-name", "rebase-merge/onto", "rebase-merge/done", "rebase-merge/git-rebase-todo",
	"rebase-apply/head-name", "rebase-apply/onto", "BISECT_START", "MERGE_HEAD",
	"worktrees/*/locked", "worktrees/*/gitdir"}

// HookNames are the hooks git 2.39 runs (githooks(5)), each a file of
// that name in the hooks directory.
var HookNames = []string{"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit",
	"pre-merge-commit", "prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout",
	"post-merge", "pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
	"reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
	"fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit",
	"post-index-change"}
