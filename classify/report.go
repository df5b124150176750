package classify

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Span is a half-open byte range [Start, End) into the original command.
// It marshals to JSON as a two-element array.
type Span struct {
	Start int
	End   int
}

// MarshalJSON encodes the span as [start, end].
func (s Span) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 16)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(s.Start), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(s.End), 10)
	return append(b, ']'), nil
}

// UnmarshalJSON decodes a span from [start, end].
func (s *Span) UnmarshalJSON(b []byte) error {
	var a [2]int
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("span: %w", err)
	}
	s.Start, s.End = a[0], a[1]
	return nil
}

// String formats the span as "start-end".
func (s Span) String() string { return strconv.Itoa(s.Start) + "-" + strconv.Itoa(s.End) }

// Report describes what a command does. It is the classifier's whole output
// and, serialised to JSON, the "report" part of the policy input. Its JSON
// field names are a stable contract.
type Report struct {
	// Command is the command exactly as given.
	Command string `json:"command"`
	// Parse says whether the command parsed as bash.
	Parse ParseResult `json:"parse"`
	// Segments lists every simple command anywhere in the command, in
	// source order (a wrapped command follows its wrapper).
	Segments []Segment `json:"segments"`
	// Redirects lists every redirection, with the segment it belongs to
	// (-1 for a redirect on a compound command).
	Redirects []Redirect `json:"redirects"`
	// Reads lists every path the command may read.
	Reads []PathRef `json:"reads"`
	// Writes lists every path the command may write (or delete).
	Writes []PathRef `json:"writes"`
	// Cd lists every directory change (cd, pushd, popd, git -C is not one).
	Cd []CdStep `json:"cd"`
	// Reversible is true only when the command is proven read-only: every
	// segment is on the allowlist in a safe spelling and the shape is safe.
	Reversible bool `json:"reversible"`
	// Findings are the reasons the command is not reversible, or notes.
	Findings []Finding `json:"findings"`
	// Substitutions lists every command and process substitution, with
	// where its output lands; the policy judges each one that a
	// command-substitution or process-substitution finding names.
	Substitutions []Substitution `json:"substitutions,omitempty"`
	// Dialect is the shell language the command was read in: "bash",
	// "zsh", "sh", or "bash+zsh" when the shell was not known and both
	// readings were judged (a finding only one reading has names it).
	Dialect string `json:"shell,omitempty"`
}

// ParseResult is the outcome of parsing the command.
type ParseResult struct {
	OK bool `json:"ok"`
	// Error is the parser's message ("1:5: reached EOF without closing quote").
	Error string `json:"error,omitempty"`
	// Span locates the error.
	Span *Span `json:"span,omitempty"`
}

// Segment is one simple command: a program with its arguments.
type Segment struct {
	// Index is the segment's position in Report.Segments.
	Index int `json:"index"`
	// Program is argv[0] as written in the source.
	Program string `json:"program"`
	// Name is the resolved program name: quotes and escapes removed, path
	// prefix stripped. Empty when the program word is dynamic.
	Name string `json:"name"`
	// PathPrefixed is set when the program was written with a directory
	// (./x, /usr/bin/rm).
	PathPrefixed bool `json:"path_prefixed,omitempty"`
	// DynamicProgram is set when the program name is not static.
	DynamicProgram bool `json:"dynamic_program,omitempty"`
	// Known is set when the program is in the catalog.
	Known bool `json:"known"`
	// Subcommand is the catalog subcommand path ("log", "stash list").
	Subcommand string `json:"subcommand,omitempty"`
	// Args is argv[1:] (after the subcommand words are still included).
	Args []Arg `json:"args"`
	// Assigns are env-assignment prefixes (FOO=1 cmd).
	Assigns []Assign `json:"assigns,omitempty"`
	// Options are the options the catalog recognised (or not).
	Options []Opt `json:"options,omitempty"`
	// Operands are the non-option arguments with their catalog roles.
	Operands []Operand `json:"operands,omitempty"`
	// Wrappers names the wrappers around this segment, outermost first
	// (["timeout", "env"]).
	Wrappers []string `json:"wrappers,omitempty"`
	// Parent is the index of the segment that wraps or runs this one
	// (a wrapper, bash -c, find -exec, xargs), or -1.
	Parent int `json:"parent"`
	// Context is where the segment sits in the command's structure.
	Context Context `json:"context"`
	// Cwd is the directory the segment runs in.
	Cwd Cwd `json:"cwd"`
	// Categories are the effect classes of this segment: read, write,
	// network, destructive, exec, privilege, interactive.
	Categories []Category `json:"categories,omitempty"`
	// ReadOnly is set when this segment on its own is proven read-only.
	ReadOnly bool `json:"read_only"`
	// HiddenInputs are the files through which the program runs code,
	// reaches the network or prints a secret they chose, whatever the
	// command says (catalog hidden_inputs); the read station looks for them
	// and judges them.
	HiddenInputs []HiddenInput `json:"hidden_inputs,omitempty"`
	// RunsGit is set when the program runs git in its repository (catalog
	// runs_git): the read station checks the repository's helpers.
	RunsGit bool `json:"runs_git,omitempty"`
	// Helpers are the programs the program may start on its own (catalog
	// helpers: go env runs gcc, npm's script runs node), which it finds
	// through PATH: the read station looks them up there as it looks up
	// the program itself.
	Helpers []string `json:"helpers,omitempty"`
	// GitRepo is set on a segment that runs git when the command points
	// git at a repository, config or work tree other than the one it finds
	// from Cwd (catalog git_repo: GIT_DIR=x, --git-dir, --bare,
	// --work-tree); nil when nothing does.
	GitRepo *GitRepo `json:"git_repo,omitempty"`
	// Code lists the arguments that carry code or a command (catalog
	// carries): the code python -c runs, the script of bash -c, the
	// command env or xargs runs, a sed program, make's VAR=value. A
	// suggested grant never puts a wildcard over one.
	Code []CodeArg `json:"code,omitempty"`
	// Walk is how the program reads a directory tree (catalog walk): nil
	// when the catalog says nothing of it.
	Walk *Walk `json:"walk,omitempty"`
	// Produces is set on a program whose printed paths are bounded by the
	// paths it reads (catalog produces_paths: find, grep -l, git ls-files),
	// so that the reads of a command they feed (through xargs, or find's
	// {}) can be judged by walking its roots.
	Produces *Produces `json:"produces,omitempty"`
	// InputArgs is set on a program that runs a command with the words it
	// reads from stdin as arguments (catalog input_args: xargs).
	InputArgs *InputArgs `json:"input_args,omitempty"`
	// ConfigAlias is the word the program looks up as an alias in the git
	// config of the repository it runs in (catalog config_aliases: git's
	// alias.NAME), "" when there is none or it is not static.
	ConfigAlias string `json:"config_alias,omitempty"`
	// Span covers the whole simple command.
	Span Span `json:"span"`
	// Traits say what kind of program it is, from the catalog (traits):
	// "shell", "runs-script", "formatter", "stops-system",
	// "deletes-matches", "signals" (the Trait constants). The policy tests
	// these rather than lists of program names.
	Traits []string `json:"traits,omitempty"`
	// Pushes are the refs the segment updates on a remote: its static
	// operands in the catalog role refspec (git push origin +main), each
	// with whether the update is forced.
	Pushes []Push `json:"pushes,omitempty"`
}

// Push is one ref a segment updates on a remote (an operand in the catalog
// role refspec, [+]SRC[:DST]).
type Push struct {
	// Branch is the remote ref it updates: DST, else SRC, without a
	// leading "refs/heads/" ("main" for HEAD:refs/heads/main; a tag stays
	// "refs/tags/v1").
	Branch string `json:"branch"`
	// Force is set when the update may rewrite the remote's history: the
	// refspec begins with "+", or an option of effect force is given
	// (--force, --force-with-lease).
	Force bool `json:"force,omitempty"`
	// Span locates the refspec.
	Span Span `json:"span"`
}

// Walk is how a segment reads a directory tree, from the catalog's walk
// and the segment's arguments.
type Walk struct {
	// NamesOnly: the program lists names and metadata below a root and
	// never reads a file's contents (find, du, tree, ls -R).
	NamesOnly bool `json:"names_only,omitempty"`
	// SkipHidden: the program skips names that begin with "." below a root
	// (rg without --hidden, ls without -a), unless HiddenEnv is set.
	SkipHidden bool `json:"skip_hidden,omitempty"`
	// HiddenEnv names an environment variable that, when set, may make the
	// program show hidden names all the same (RIPGREP_CONFIG_PATH names a
	// config file that may say --hidden).
	HiddenEnv string `json:"hidden_env,omitempty"`
	// HiddenIgnoreFiles are the files (relative to a directory) whose
	// negated patterns show hidden names all the same (rg's .ignore
	// saying !.env): the walk reads them (see HiddenSpec.IgnoreFiles).
	HiddenIgnoreFiles []string `json:"hidden_ignore_files,omitempty"`
	// HiddenGitExcludes: the user's git excludes file is one of them
	// (see HiddenSpec.GitExcludes).
	HiddenGitExcludes bool `json:"hidden_git_excludes,omitempty"`
	// Hint says, for a message, how to exclude a subtree from the read.
	Hint string `json:"hint,omitempty"`
	// Excludes are the subtrees and files the program is told to skip.
	Excludes []Exclude `json:"excludes,omitempty"`
}

// Exclude kinds: what an Exclude's glob is matched against.
const (
	ExcludeFile = "file" // the base name of a file that is not a directory (grep --exclude)
	ExcludeDir  = "dir"  // the base name of a directory (grep --exclude-dir)
	ExcludePath = "path" // a gitignore-style glob of the path below the root (rg -g '!GLOB')
	// ExcludeInclude: a base-name glob of the only files (not directories)
	// the program reads (grep --include, gofmt's *.go): a file that matches
	// none of a segment's include globs is skipped.
	ExcludeInclude = "include"
)

// Exclude is one glob a segment is told to skip.
type Exclude struct {
	// Kind is ExcludeFile, ExcludeDir, ExcludePath or ExcludeInclude.
	Kind string `json:"kind"`
	// Glob is the pattern as given (without rg's leading "!").
	Glob string `json:"glob"`
}

// Produces says what the paths a producer segment prints are bounded by.
type Produces struct {
	// Without, when set, lists the options one of which makes the program
	// print paths; none of them is given, so it prints other lines (grep
	// without -l).
	Without []string `json:"without,omitempty"`
	// Other is an option given that makes it print text other than paths
	// (find -printf).
	Other string `json:"other,omitempty"`
	// Nul is set when the paths are printed NUL-separated (find -print0).
	Nul bool `json:"nul,omitempty"`
	// DefaultRoot is what it reads when the segment names no path: "cwd",
	// "repo" (the git top level of its cwd), or "" (it must name one).
	DefaultRoot string `json:"default_root,omitempty"`
	// NameGlob, when set, is the one name pattern every path it prints
	// matches (find -name PAT with no operator that could print others).
	NameGlob string `json:"name_glob,omitempty"`
}

// InputArgs says how a program splits the input it turns into arguments.
type InputArgs struct {
	// Nul is set when the input is split at NUL bytes only (xargs -0).
	Nul bool `json:"nul,omitempty"`
	// Replace is the word replaced by each input line (xargs -I R), or "".
	Replace string `json:"replace,omitempty"`
}

// CodeArg is an argument (or a run of arguments) that carries code or a
// command: what it holds chooses what runs.
type CodeArg struct {
	// Carries is what it carries: "code", "command", "file", "module" or
	// "config" (the Carries constants).
	Carries string `json:"carries"`
	// Via is the option as written ("-c") or the operand role ("script",
	// "command") that makes it carry code.
	Via string `json:"via"`
	// Span covers it: an option with its value, an operand, or a command's
	// words (find -exec CMD... ; covers the option through the terminator).
	Span Span `json:"span"`
}

// Arg is one word of a command line.
type Arg struct {
	// Value is the word's static value (quotes removed), or its source text
	// when Dynamic is set.
	Value string `json:"value"`
	// Dynamic names why the value is not known statically: "param",
	// "command-substitution", "process-substitution", "arithmetic", "glob",
	// "brace", "tilde", "extglob". Empty for a static word.
	Dynamic string `json:"dynamic,omitempty"`
	// Pattern is the glob pattern (quoted metacharacters escaped with a
	// backslash) when Dynamic is "glob", and the path with a leading "~"
	// for "tilde"; readstation expands it.
	Pattern string `json:"pattern,omitempty"`
	// Dots is set on a glob whose matches include dot files (zsh's D
	// glob qualifier), Globstar on one whose "**" is recursive (zsh).
	Dots     bool `json:"dots,omitempty"`
	Globstar bool `json:"globstar,omitempty"`
	// Span locates the word.
	Span Span `json:"span"`
}

// Static reports whether the word's value is known statically.
func (a Arg) Static() bool { return a.Dynamic == "" }

// Assign is an environment assignment prefix.
type Assign struct {
	Name  string `json:"name"`
	Value Arg    `json:"value"`
	Span  Span   `json:"span"`
}

// Opt is an option as the program will parse it.
type Opt struct {
	// Name is the canonical option name as the catalog lists it first
	// ("--output"), or as written when unknown.
	Name string `json:"name"`
	// Written is the option as written ("--out", "-o" inside "-uo").
	Written string `json:"written"`
	// Value is the option's value, when it takes one.
	Value *Arg `json:"value,omitempty"`
	// Known is set when the catalog knows the option.
	Known bool `json:"known"`
	// Effects are the catalog effects of the option.
	Effects []Effect `json:"effects,omitempty"`
	// Span covers the option (and its value when glued or in the next word).
	Span Span `json:"span"`
}

// Operand is a non-option argument with its catalog role.
type Operand struct {
	Arg
	// Role is the catalog role: file, dir, tree, write, delete, pattern,
	// script, command, text, ... (the Role constants), with a trailing "!"
	// when the operand fails the role's match.
	Role Role `json:"role"`
}

// Context is where a segment sits in the command.
type Context struct {
	// Pipeline is the 0-based stage and PipelineLen the number of stages
	// (1 when not in a pipeline).
	Pipeline    int `json:"pipeline"`
	PipelineLen int `json:"pipeline_len"`
	// Substitution is set inside $(...), `...`, <(...) or >(...).
	Substitution bool `json:"substitution,omitempty"`
	Loop         bool `json:"loop,omitempty"`
	Background   bool `json:"background,omitempty"`
	Negated      bool `json:"negated,omitempty"`
	Subshell     bool `json:"subshell,omitempty"`
	Function     bool `json:"function,omitempty"`
	Condition    bool `json:"condition,omitempty"`
	// StdinFed is set when stdin comes from a pipe, a redirect or a wrapper.
	StdinFed bool `json:"stdin_fed,omitempty"`
	// Depth is how many string-nested commands (bash -c) deep it is.
	Depth int `json:"depth,omitempty"`
}

// Cwd is the directory a segment runs in, relative to the request's cwd
// when not absolute; "~" and "~/x" are relative to the home directory.
type Cwd struct {
	Path  string `json:"path"`
	Known bool   `json:"known"`
	// After lists the indexes of the cd steps this cwd assumes succeeded.
	After []int `json:"after,omitempty"`
}

// Redirect is one redirection.
type Redirect struct {
	Op string `json:"op"`
	// Fd is the file descriptor number when written ("2" in 2>file).
	Fd       string `json:"fd,omitempty"`
	Target   Arg    `json:"target"`
	Mode     string `json:"mode"` // read, write, dup, heredoc, herestring, readwrite
	Harmless bool   `json:"harmless"`
	Segment  int    `json:"segment"`
	Span     Span   `json:"span"`
}

// PathRef is a path a command may read or write.
type PathRef struct {
	// Path is the static path ("~/x" for home-relative), the glob pattern,
	// or the source text when Kind is "dynamic".
	Path string `json:"path"`
	// Kind is "literal", "glob" or "dynamic".
	Kind string `json:"kind"`
	// Dynamic says why a dynamic path is unknown (as Arg.Dynamic, or
	// "xargs-input", "find-match").
	Dynamic string `json:"dynamic,omitempty"`
	// Recursive is set when the whole tree under the path is read.
	Recursive bool `json:"recursive,omitempty"`
	// Source is where the path came from: operand, option, redirect,
	// source, cwd-flag, implicit, git-config (the git config files a
	// command prints from, judged for a credential), git-tracked (the
	// paths a repository tracks, judged against the deny rows).
	Source  string `json:"source"`
	Segment int    `json:"segment"`
	Cwd     Cwd    `json:"cwd"`
	// Home is set when a leading "~" in Path means the home directory
	// (written as ~ or $HOME), not a file named "~".
	Home bool `json:"home,omitempty"`
	// Producer is the segment whose output supplies the path (the stage
	// before xargs, find for -exec, or the one trusted producer an
	// unquoted $(...) operand runs), or -1.
	Producer int  `json:"producer"`
	Span     Span `json:"span"`
	// Split is set on a glob read through an unquoted loop variable (for
	// f in *.py; do cat $f; done): the shell splits each match on
	// whitespace and globs it again, so a match holding a space or a glob
	// character is not the path read.
	Split bool `json:"split,omitempty"`
	// OptionLike is set on an operand that expands at run time (a glob, a
	// loop variable) where the program still parses options: a match that
	// begins with "-" (a file named "-r") would be read as an option, not
	// as the path.
	OptionLike bool `json:"option_like,omitempty"`
	// Repo is set when Path is relative to the repository's top level, not
	// to Cwd (git show REV:PATH).
	Repo bool `json:"repo,omitempty"`
	// IfExists is set on a word that is read only when it exists: git takes
	// an operand before "--" as a path when there is one, else as a
	// revision (git log main, git diff a.txt).
	IfExists bool `json:"if_exists,omitempty"`
	// PathGlob, on a recursive read, is a git pathspec glob: only the paths
	// below Path whose path relative to it matches are read ("*" and "?"
	// match "/" too: git log -- '*.env' reads every .env at any depth).
	PathGlob string `json:"path_glob,omitempty"`
	// Tracked is set on a path git prints the tracked content or history
	// of (git log -p -- DIR, git grep x -- DIR; catalog effect
	// git-tracked): a directory stands for every path the repository
	// tracks below it. The read of Source "git-tracked" (Path ".", Repo)
	// is the whole repository, for a command no pathspec narrows.
	Tracked bool `json:"tracked,omitempty"`
	// Dots is set on a glob whose matches include names that begin with a
	// dot (zsh's D glob qualifier: cat *(D.) reads .env).
	Dots bool `json:"dots,omitempty"`
	// Globstar is set on a glob in which a "**" component matches any
	// number of directories (zsh, where **/ is recursive by default).
	Globstar bool `json:"globstar,omitempty"`
}

// CdStep is one change of directory.
type CdStep struct {
	Index   int    `json:"index"`
	Program string `json:"program"` // cd, pushd, popd
	// Target is the argument as given ("" for cd alone, "-" for cd -).
	Target Arg `json:"target"`
	// From and To are the cwd before and after the step.
	From    Cwd  `json:"from"`
	To      Cwd  `json:"to"`
	Segment int  `json:"segment"`
	Span    Span `json:"span"`
	// Scoped is set when the change cannot leak out (subshell, pipeline).
	Scoped bool `json:"scoped,omitempty"`
}

// Substitution kinds: what a Substitution's text is.
const (
	SubstCommand    = "command"     // $(...) or `...`: its output becomes words
	SubstProcessIn  = "process-in"  // <(...): the word is a pipe its output is read from
	SubstProcessOut = "process-out" // >(...): the word is a pipe written into its input
	SubstOther      = "other"       // zsh's =(...) (a temporary file), or anything else
)

// Substitution is one command or process substitution and where its
// output lands. The segments it runs are those whose span lies inside
// Span (they have Context.Substitution set).
type Substitution struct {
	// Kind is one of the Subst constants.
	Kind string `json:"kind"`
	// Span covers the substitution, $( through ).
	Span Span `json:"span"`
	// Host is the segment whose argument the substitution is part of,
	// or -1 when it is anywhere else: the program word, an assignment, a
	// redirect target, a loop's words, a test or arithmetic, a here
	// document, or a place whose spans are not exact (a script string
	// with escapes).
	Host int `json:"host"`
	// Role is where the output lands in the host: the operand's role
	// (without a trailing "!"), or "option-value" for an option's value.
	Role string `json:"role,omitempty"`
	// OptionLike is set when the host still parses options where the
	// word sits and the output could begin with "-": a field of it could
	// be read as an option (none after "--").
	OptionLike bool `json:"option_like,omitempty"`
	// OptionEffects, when OptionLike, are the catalog effects of the
	// options the host program has there (write, exec, reads-file,
	// recursive, ...): what a hostile output could turn it into.
	OptionEffects []string `json:"option_effects,omitempty"`
	// Split is set on an unquoted $(...): the shell splits its output into
	// words (and bash globs each), so it may be several arguments.
	Split bool `json:"split,omitempty"`
	// ShiftRoles, on an operand that may expand to several words, are the
	// roles its later words reach, sorted ("" when a word would be one the
	// program takes no operand for): grep -- $(cat list) b gives grep
	// files to read.
	ShiftRoles []string `json:"shift_roles,omitempty"`
}

// Finding is one reason a command is not reversible, with a stable code.
type Finding struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Span    Span   `json:"span"`
	// Segment is the segment index, or -1.
	Segment int `json:"segment"`
	// Dialect names the reading that found it when the command was read
	// in several dialects and not every reading did ("zsh"); its message
	// then begins with the dialect ("zsh: ...").
	Dialect string `json:"dialect,omitempty"`
}
