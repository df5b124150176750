// Package readstation is shellgate's one model of the file system: it
// builds the boundary (NewBoundary, the one constructor: the workspace
// found from the cwd, the configured roots, the deny rows, the home
// directory), judges every path a command may read against it, on the real
// file system, judges where every write lands (JudgeWrites), matches shell
// patterns (globs, grep --exclude, find -name) and keeps an admission to
// re-check right before the command is spawned. No other package looks at
// the file system to judge a command. It does not decide allow, ask or
// deny: the policy does, from the Station and Writes it returns.
//
// # Judging a read
//
// Judge takes the classifier's Report (classify/) and a Boundary. For every
// read in the report it:
//
//   - finds the directory the segment runs in: the request's cwd, moved by
//     every cd step before it (cd -L semantics, lexical). Each cd step a
//     relative read depends on must lead to an existing directory, or the
//     read is not-established; git -C is applied the same way;
//   - folds "~" and $HOME to Boundary.Home;
//   - resolves the path as a program opening it would: every component
//     looked up with lstat, every symlink followed (not only the last),
//     ".." applied to the real parent (so "cd link && cat ../x" reads next
//     to the link's target, not next to the link);
//   - judges both the path as written (absolute, cleaned lexically) and the
//     real path: each must stay inside a root and match no deny row;
//   - expands globs against the file system the way bash does by default
//     (no dotglob, no globstar) and judges every match: the station lists
//     directories itself (caps and caches below) and asks one function,
//     matchPattern, whether a name matches a component; it reads patterns
//     with mvdan.cc/sh/v3/pattern ([!x], [^x], [[:alpha:]], ranges,
//     escapes, an unmatched "[" as a literal). When zsh may run the command
//     (Report.Dialect other than bash or sh), a component with a character
//     zsh's options can make an operator (^ # ~ ( | < >) is not matched;
//     nor is an extended pattern, nor "?" or a bracket expression against a
//     name outside ASCII (the locale decides those): each makes the read
//     not-established. Agreement with real bash, zsh, grep and find is
//     tested (pattern_test.go); no match means the
//     pattern reaches the program as a literal word, judged as such; a
//     match the program would not take as that path is not established:
//     one that begins with "-" where the program still parses options
//     (PathRef.OptionLike: a file named -r makes grep x * recursive), or
//     one with whitespace or a glob character that an unquoted loop
//     variable splits and globs again (PathRef.Split);
//   - denies a read of a git config file that holds a credential (the
//     token actions/checkout keeps in http.<url>.extraheader, a password
//     or token in a remote URL), whatever the deny rows say: cat
//     .git/config, a recursive read through .git, and the config files
//     git config --list or git remote -v print (PathRef.Source
//     "git-config", judged for a credential only), a config that includes
//     a file a deny row covers among them; the config files whose values
//     git config KEY prints (Source "git-config-value") only for such an
//     include (git config registry.token with include.path =
//     ~/.cargo/credentials.toml);
//   - judges the paths git prints from its object store like files (git
//     show HEAD:.env reads .env): a path relative to the repository's top
//     level (PathRef.Repo), a word that is a path only when it exists and
//     a revision otherwise (PathRef.IfExists), and a pathspec glob matched
//     against every path below the cwd (PathRef.PathGlob);
//   - reports, as RepoHelpers, the files through which a program runs
//     code or reaches the network whatever the command says (catalog
//     hidden_inputs: pnpm's .pnpmfile.cjs, the release a .yarnrc.yml's
//     yarnPath names, the toolchain a rust-toolchain.toml's path names, a
//     kubeconfig's exec plugin), looked for from the directory the program
//     runs in up to the root or in the home directory, and the checks a
//     regular expression cannot make (hiddenChecks: the Go toolchain
//     go.mod, go.work and the go env files choose, the modules go list
//     would download, the toolchain rustup would install, the manifests
//     go.work and Cargo.toml name by a path, the config files a .npmrc
//     names, judged as reads, the pages man finds beside a PATH entry in
//     the home directory);
//   - judges what a repository tracks where git prints it (catalog effect
//     git-tracked: git grep, git log -p, git show, git diff): the index
//     (versions 2 to 4, SHA-1 or SHA-256; a split or sparse index is not
//     established) lists the tracked paths, and one a deny row covers
//     makes the read denied in the tree (PathRef.Source "git-tracked" for
//     the whole repository when no pathspec narrows it; PathRef.Tracked
//     for a directory pathspec). History is not read: a secret committed
//     once and removed since is still printed by git log -p;
//   - for a recursive reader (grep -r, rg, find, ls -R, du, tree: the
//     report's Recursive flag) looks under the tree: a deny row anchored
//     below it (~/.ssh/** under "grep -r x ~") is found by one lstat; rows
//     that match anywhere (**/.env) are found by walking the tree, bounded
//     by MaxWalkDirs; every symlink found is resolved and its target judged.
//     A tree outside the roots is asked about anyway: it gets only a short
//     walk (64 directories, the roots inside it skipped) that makes it
//     denied when a denied path is near its top (grep -r . /proc/self sees
//     /proc/self/environ); past that it stays outside-roots.
//     How a program walks is the catalog's (walk in classify/catalog.yaml),
//     read here as the segment's facts (classify.Walk), never by its name:
//     a program that skips hidden names unless told (rg without --hidden/-u
//     and without RIPGREP_CONFIG_PATH set, ls without -a/-A, tree without
//     -a) has them skipped by the check too, except one a negated pattern
//     of its ignore files may match (walk.hidden.ignore_files: rg's
//     .ignore saying !.env, read where the walk lists a directory and
//     above the root, and the user's git excludes file as rg finds it,
//     walk.hidden.git_excludes; hiddenLift); a link to a directory inside
//     the roots is walked too (grep -R, find -L and xargs consumers follow
//     links); the exclude options the catalog lists (grep
//     --exclude/--exclude-dir, rg -g '!GLOB') are honoured, so the hint a
//     denied tree read gives ("exclude it with --exclude-dir=DIR", the
//     catalog's exclude_hint) works (grep --exclude only without
//     --include: the last matching one wins); other exclude options (find
//     -prune, du --exclude, tree -I) are not read, and the tree is judged
//     whole; a names-only program (find, du, tree, ls -R) is judged against
//     the deny rows at its root only;
//   - dynamic words (parameters, substitutions, ~user, braces) are
//     not-established; reads fed by a producer are judged by the producer's
//     roots (below).
//
// Verdicts, worst last: ok, missing (does not exist inside the roots:
// reading it fails, nothing leaks), outside-roots, not-established, denied.
// A read with several candidates (glob matches, producer roots) gets the
// worst. Hitting MaxGlobMatches or MaxWalkDirs, a permission error, a
// symlink loop, a device, FIFO or socket (other than /dev/null) or an
// invalid Boundary is not-established, never ok.
// Station.Established is true only when every read is ok or missing.
//
// # Writes
//
// JudgeWrites resolves each write candidate of the report (cwd after cd,
// "~" folded, ".." cleaned, every symlink followed as far as the path
// exists, a dangling one to its target, since writing through it creates
// the target) and says whether it lands outside the roots, on a critical
// path ("/", a top-level directory, the home directory, a root or an
// ancestor of one, or every entry of one for a glob) or on a device. It
// judges on a boundary NewBoundary failed to build, too (a cwd that does
// not exist): writes are then judged against what is known. Writes.Again
// judges them again right before the spawn.
//
// # Deny rows
//
// Rows are gitignore-style patterns, compiled once per distinct Boundary
// (see ValidateRow for the syntax): "~/" rows are under Home, "/" rows are
// absolute, "**/x" rows and rows without a slash match at any depth, other
// relative rows are anchored at each root. A row that matches a directory
// matches everything under it, and "x/**" matches x itself: "ls ~/.ssh" is
// denied. The matcher is in Go (literal, prefix and suffix components are
// compared without path.Match); rows are matched against both the written
// and the real path. On macOS and Windows, whose usual file systems ignore
// case, rows and paths are compared lower-cased (~/.SSH/ID_RSA is denied
// too). DefaultDenyRows holds the defaults.
//
// # Trusted producers
//
// "find src -name '*.go' | xargs wc -l" feeds paths to wc at run time. The
// report marks such reads dynamic with a Producer segment (xargs-input, or
// find-match for find -exec's {}). A read fed by a trusted producer is
// judged by walking the producer's roots as recursive reads; any other
// producer leaves it not-established. The trusted producers are the
// catalog's (produces_paths in classify/catalog.yaml: any_of, none_of, nul,
// default_root, name_filter), read here as the segment's facts
// (classify.Produces); the embedded catalog has:
//
//	producer      spelling required                       roots when none named
//	find          no -printf -fprintf -fprint -fprint0     the cwd
//	              -fls -ls -exec -execdir -ok -okdir
//	              (for xargs; {} of -exec is always a path)
//	grep          -l or -L (--files-with(out)-match(es))   none: must name a path
//	rg            -l, --files-with-matches,                the cwd
//	              --files-without-match or --files
//	git ls-files  no --format --debug --eol                the repository's top level
//	git diff      --name-only; no --no-index --line-prefix   the repository's top level
//	              --output, nor an option that prints more
//	              (--stat, --name-status, --patch, ...)
//
// Further conditions: the word is the producer's path alone (appended by
// xargs, or exactly "{}" / xargs' -I string: "{}/../x" is not bounded),
// for xargs the producer runs in the same directory as the reader (so its
// relative output means the same paths; find's {} is the match wherever
// -exec or -execdir runs the command), its program is not
// written with a path, and, unless both sides are NUL-separated (find
// -print0, grep -Z, rg -0 or git ls-files -z, with xargs -0), a name under
// the roots that xargs would split at a blank or newline is judged word by
// word where the reader opens the words (the first below the root, the
// others in the reader's directory): each must be inside the roots, real
// path included, covered by no deny row, and not start with "-" (an
// option); a name with a quote or backslash (xargs' own quoting) is never
// established. A simple find -name PAT limits the judged names to those
// it prints, unless the reader is recursive (grep -r {} reads the whole
// tree of a printed directory): then every name is judged. How xargs
// splits its input (-0, -I) is the catalog's input_args
// (classify.InputArgs).
//
// An unquoted $(...) file operand whose one command is such a producer
// (wc -l $(git ls-files), cat $(find . -name '*.md'); catalog
// produces_paths substitution says which producers and options) is
// judged the same way, as xargs' input is, with the shell's rules instead
// of xargs': a printed name holding IFS whitespace or a character bash
// would glob-expand (* ? [ ( \) is not established (zsh does not glob
// it, bash does: both are held to), nor, where the reader still parses
// options, one starting with "-"; for git ls-files the index is checked
// too, since it may name paths the work tree no longer has.
//
// # Repository-controlled helpers
//
// A read-only git command can still run code its repository chose, and so
// can a program that runs git there (catalog runs_git: git itself, and go
// list, which stamps main packages with git status). For every such segment the station finds the
// repository (after cd and -C,
// through .git files and commondir, bare repositories too), reads the
// configuration git reads there with package gitrepo (exactly as git 2.39
// reads it: system, global, local, worktree and GIT_CONFIG_COUNT from the
// agent's environment, includes and includeIf; a file git refuses, or one
// the station cannot read, is not established) and the attributes
// (core.attributesFile, info/attributes and the .gitattributes from the
// top level down to the cwd), and reports a RepoHelper naming the key and
// the file for each key of gitrepo.Keys (the table of keys that make git
// run a program: core.fsmonitor, diff.external, diff.*.textconv,
// filter.*.clean, core.pager, credential.helper, …) and alias.<the word
// used> (catalog config_aliases: classify.Segment.ConfigAlias); and every
// attribute line that selects a diff, filter or merge driver the
// configuration defines. In the repository's own configuration every key
// of the table counts; in the user's (system, global) and the
// environment's only the value git uses of a key that git status, git
// diff or git log -p runs without a terminal (gitrepo.IsHelper): a
// developer's core.pager, core.editor or credential.helper asks nothing.
// core.worktree in the repository's configuration that points outside its
// top level is not established. A config file git reads with a key outside
// any section (gitrepo.Entry.PrintsKey: git prints it in an error on every
// command) is judged as a read: a one-word token file, included or linked,
// is denied under its deny row, and asked about outside the roots. The configs of the repository's
// submodules are read too (git
// status and git diff run git in each, with its own config): the git
// directories under <common>/modules, nested ones included, and a .git
// directory at a path .gitmodules names. Config files are re-read only
// when their size, mtime or inode changed.
//
// What points git elsewhere is the catalog's git_repo, read as the
// segment's facts (classify.Segment.GitRepo): a git directory named
// statically (git --git-dir=DIR) is the repository whose config is read,
// and one named bare (git --bare) is the directory git runs in; a work
// tree (git --work-tree=DIR) does not move the directory git finds its
// repository from. A git segment whose directory cannot be established
// (cd "$X"), or that an assignment (GIT_DIR, GIT_CONFIG_GLOBAL, on it or
// on a segment that runs it), a work tree or a git directory not known
// statically points elsewhere, or whose repository has a file git reads
// that the station cannot (larger than 1 MiB, not a regular file,
// unreadable), adds a read of its own with source "repository" and
// verdict not-established.
//
// # Hooks, submodules, partial clones, repositories elsewhere
//
// Beyond its config, a repository can make a read-only git command run
// code, reach the network or print another repository (githooks.go,
// submodule.go, gitpromisor.go, gitredirect.go; each trap built with the
// real git and its decision checked in gate's TestGitTrapsConfirm). For
// every git segment the station looks at the repository and every
// submodule git steps into: each gitlink its index records (mode 160000,
// at any depth, whether .gitmodules names it or not) whose .git is a
// directory or a gitdir: file, and their own gitlinks, up to 64
// repositories and 8 levels (past that, not established); the git
// directories under <common>/modules and at the paths .gitmodules names.
// In each it reports as a RepoHelper (Kind "hook") every executable file
// (or symlink to one) of a hook a read-only command runs (readHooks:
// post-index-change under git status, git diff and git describe, held to
// the real git by TestGitHooksConfirm) in <common>/hooks and in every
// core.hooksPath (relative to the work tree's top level, ~/ the home
// directory); core.hooksPath itself is no longer reported. It reports a
// promisor remote (remote.NAME.promisor, extensions.partialClone, or a
// .promisor pack) as a RepoHelper of Kind "promisor": every git segment
// there may fetch. It judges like reads the git directory a .git file or
// symlink names, a commondir and every alternate object directory, unless
// git's own layout points back (a linked worktree's gitdir file, a
// submodule's core.worktree): outside the roots they are asked about.
// Every git read of tracked content also judges what the submodules track
// (submodule.recurse, diff.submodule=diff print it).
//
// # Cost
//
// Judge caches lookups within one call, compiles the rows once per
// distinct Boundary, and keeps a cross-call cache of real paths: a path's
// cached real path is reused only when one stat of the path (the kernel's
// own resolution) reaches the same device and inode as when it was
// resolved component by component. A read of an existing file then costs
// one stat. A tree found clean is remembered with a stamp of every
// directory listed (device, inode, mtime, ctime) and every link resolved;
// the next check of that tree stats the directories instead of listing
// them, and walks again on any difference. Directories changed within 2s
// of the walk are not trusted to show a later change (git's racy-index
// rule), so such a tree is not remembered. BenchmarkJudge reports ns/op
// and fscalls/op; BenchmarkStatBaseline is one stat on the same machine.
//
// # Admission
//
// Station.Admission holds every candidate the judgment established: each
// path (as resolved: real path, existence, type, device and inode), each
// glob's match set, and each repository config or attributes file read or
// looked for (size, mtime and inode, or absence; one that can no longer
// be stat'ed is a change), each .git repository discovery looked at, and
// the pieces of names xargs splits. Admission.Recheck
// re-establishes them right before the spawn; a re-pointed symlink, a
// replaced file, a created or removed path, a glob that matches
// differently or a repository config that changed returns a *ChangeError
// whose code is changed-since-check (errors.Is(err, ErrChanged)). Tree walks are not
// repeated: a tree's root is re-checked, its contents are not.
package readstation
