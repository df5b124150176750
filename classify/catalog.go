package classify

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed catalog.yaml
var defaultCatalogYAML []byte

// catalog.bin is catalog.yaml decoded and written in a binary form (see
// catalog_bin.go), which loads in a fraction of the time (start-up
// matters: a hook runs before every command). TestCatalogBin fails when it
// is stale; `go generate ./classify` rewrites it.
//
//go:embed catalog.bin
var defaultCatalogBin string

// Carries names what an argument carries when it carries code or a
// command (catalog "carries"): a grant never puts a wildcard over such an
// argument, since the wildcard would allow any code at all.
const (
	CarriesCode    = "code"    // program text that is run: python -c CODE, bash -c SCRIPT, a sed, awk or jq program
	CarriesCommand = "command" // a command line, or the program of one: env CMD..., xargs CMD..., find -exec CMD... ;
	CarriesFile    = "file"    // a file or directory whose code is run: python SCRIPT, make -f MAKEFILE, make -C DIR
	CarriesModule  = "module"  // a module or package that is run: python -m MOD, npx PKG
	CarriesConfig  = "config"  // settings that can name a program to run: git -c KEY=VALUE
	CarriesNone    = "none"    // says the catalog decided: nothing run is chosen by this argument
)

var knownCarries = map[string]bool{
	CarriesCode: true, CarriesCommand: true, CarriesFile: true, CarriesModule: true,
	CarriesConfig: true, CarriesNone: true,
}

// valueRoleCarries is what an option value with a value_role carries.
var valueRoleCarries = map[Role]string{RoleSed: CarriesCode, RoleAwk: CarriesCode}

// HiddenInput is a file a program reads whatever the command says, through
// which it runs code, reaches the network or prints a secret the file
// chose: pnpm's .pnpmfile.cjs, the yarn release a .yarnrc.yml names, the
// Go toolchain a go.mod's toolchain line names, a kubeconfig's exec
// plugin. The read station looks for it where In says, judges it (Match,
// Format and Keys, Check), and reports each one that applies as a RepoHelper, which the
// policy asks about with a reason that names the file.
type HiddenInput struct {
	// File is the file's name or path below where it is looked for
	// (".pnpmfile.cjs", ".cargo/config.toml", "go/env"); its last element
	// may be a glob ("contexts/meta/*/meta.json"). Empty with Check.
	File string `yaml:"file,omitempty" json:"file,omitempty"`
	// In says where File is looked for: "" (or "up") the directory the
	// program runs in and every parent up to the root, "cwd" that
	// directory only, or a directory: alternatives separated by "|", the
	// first that applies wins, each "~" or "~/PATH" (the home directory)
	// or "$VAR" or "$VAR/PATH" (when the variable is set to an absolute
	// path; one whose value is not known is not established):
	// "$CARGO_HOME|~/.cargo", "$XDG_CONFIG_HOME|~/.config". "path": in
	// every directory of PATH that is the workspace's (as the station's
	// lookup of programs finds them) and in its parent (man-db finds pages
	// in BIN/man, BIN/../man and BIN/../share/man); a PATH not known
	// names none.
	In string `yaml:"in,omitempty" json:"in,omitempty"`
	// FileEnv is an environment variable that, when set, names the file
	// itself (a list, as PATH is: KUBECONFIG), in place of In and File;
	// the value "off" names none (GOENV=off).
	FileEnv string `yaml:"file_env,omitempty" json:"file_env,omitempty"`
	// Match, when set, is a regular expression for a line of the file
	// that makes the program do it (^\s*yarnPath:); without it the
	// file's existence does.
	Match string `yaml:"match,omitempty" json:"match,omitempty"`
	// Key names the setting Match finds, for a person ("yarnPath").
	Key string `yaml:"key,omitempty" json:"key,omitempty"`
	// Format, in place of Match, reads the file as a document: "toml",
	// "json" or "yaml" (see HiddenInputFormats), decoded by the format's
	// standard library, so that every spelling of a key (quoted, dotted,
	// escaped, an inline table, a flow mapping) reads as the program
	// reads it, and a key's name in a comment or a value does not. A
	// file that does not decode is not established.
	Format string `yaml:"format,omitempty" json:"format,omitempty"`
	// Keys, with Format, are the settings that make the program do it:
	// dotted paths into the document ("build.rustc-wrapper", "env"),
	// where "*" is any key of a table or any element of an array
	// ("users.*.user.exec", "target.*.runner"). One present, with any
	// value (or one Value matches), makes the program do it.
	Keys []string `yaml:"keys,omitempty" json:"keys,omitempty"`
	// Value, with Keys, is a regular expression a key's value must match
	// to count ("^ssh://"); a value that is not a string (a table, a
	// number) counts whatever it holds.
	Value string `yaml:"value,omitempty" json:"value,omitempty"`
	// FoldCase, with Keys, matches their names without regard to case,
	// as Go's encoding/json does when it decodes into a struct (docker's
	// meta.json, kubectl's kubeconfig).
	FoldCase bool `yaml:"fold_case,omitempty" json:"fold_case,omitempty"`
	// Check names a comparison the station makes where a regular
	// expression cannot be exact (see the read station's hidden-input
	// checks: go-toolchain, go-modules, rust-toolchain): it reads the
	// files and the environment itself.
	Check string `yaml:"check,omitempty" json:"check,omitempty"`
	// Via, when set, is a glob the program the agent's PATH would run must
	// resolve to (symbolic links followed) for the input to apply: a
	// version manager's shim ("**/.volta/**"). A PATH not known applies.
	Via string `yaml:"via,omitempty" json:"via,omitempty"`
	// Unless are environment variables whose value, when known and
	// matching the regular expression, makes the input harmless
	// (RUSTUP_AUTO_INSTALL: "^(0|false)$"); a variable not known does not.
	Unless map[string]string `yaml:"unless_env,omitempty" json:"unless_env,omitempty"`
	// Env are the other environment variables the input's Check reads,
	// so that a request carries them.
	Env []string `yaml:"env,omitempty" json:"env,omitempty"`
	// Does says what the program would do, for a person: the end of "so
	// kubectl get would ..." ("run the program its exec plugin names").
	// Required for a file outside the project (In not up or cwd).
	Does string `yaml:"does,omitempty" json:"does,omitempty"`
	// Reads, in place of Match, Format and Check, says the program parses
	// the file and prints its lines when they do not parse (cargo's TOML
	// errors quote the line, go's name a go.mod line's first word): the
	// station judges the file as a read the command makes, so a link to
	// a secret (Cargo.toml -> ~/.netrc) or a file a deny row covers is
	// denied, a link out of the roots is asked about, and one that is not
	// a regular file (a FIFO) is not established.
	Reads bool `yaml:"reads,omitempty" json:"reads,omitempty"`
	// LinksOnly, with Reads, judges the file only when it is a symbolic
	// link: the file itself is where the program keeps its own
	// credentials (a deny row covers ~/.npmrc and a project's .npmrc),
	// which it reads without printing them, and only a link makes it
	// another file (npm quoted the lines of an .npmrc linked to ~/.netrc).
	LinksOnly bool `yaml:"links_only,omitempty" json:"links_only,omitempty"`
}

// Catalog is the command catalog: what each program does, as data.
type Catalog struct {
	// HarmlessEnv lists environment variables that may prefix a command
	// without making it unsafe (LC_ALL=C grep ...).
	HarmlessEnv []string `yaml:"harmless_env" json:"harmless_env,omitempty"`
	// HarmlessVars lists variables whose value may be shown without asking
	// ($HOME, $PWD); any other variable's value may hold a secret.
	HarmlessVars []string `yaml:"harmless_vars" json:"harmless_vars,omitempty"`
	// Programs are the program specs.
	Programs []*Program `yaml:"programs" json:"programs,omitempty"`

	byName   map[string]*Program
	harmEnv  map[string]bool
	harmVars map[string]bool
	// lazy: the programs are indexed by name at load and each is built
	// when first looked up (lazyBuild), for the embedded catalog, which
	// the tests validate whole: a single check looks up a few of its
	// hundreds of programs, and building them all was most of its load.
	lazy bool
}

// lazyBuild builds one top-level program of a lazy catalog, with its
// subcommands, once: when it or one of its subcommands is first used.
type lazyBuild struct {
	once sync.Once
	top  *Program
	errs []error
}

// do builds the program once and returns what was wrong with it.
func (l *lazyBuild) do() []error {
	l.once.Do(func() { l.errs = l.top.build(l.top.Name) })
	return l.errs
}

// setLazy makes p and its subcommands built by l.
func (p *Program) setLazy(l *lazyBuild) {
	p.lazy = l
	for _, s := range p.Subcommands {
		if s != nil {
			s.setLazy(l)
		}
	}
}

// ready returns p built, or nil when it is nil or does not build (never
// for the embedded catalog, which the tests validate): a program that
// cannot be built is unknown, and an unknown program is asked about.
func (p *Program) ready() *Program {
	if p == nil || p.lazy == nil {
		return p
	}
	if len(p.lazy.do()) > 0 {
		return nil
	}
	return p
}

// Program is one program's spec. Subcommands are Programs too.
type Program struct {
	Name    string   `yaml:"name" json:"name,omitempty"`
	Aliases []string `yaml:"aliases,omitempty" json:"aliases,omitempty"`
	// Match, on a subcommand, is a regular expression of the words it
	// stands for besides its names (aws's service names, an operation
	// that begins with describe-); a word no subcommand is named is
	// looked up in the subcommands with a Match, in order.
	Match string `yaml:"match,omitempty" json:"match,omitempty"`
	Doc   string `yaml:"doc,omitempty" json:"doc,omitempty"`
	// ReadOnly puts the program on the read-only allowlist.
	ReadOnly bool `yaml:"read_only,omitempty" json:"read_only,omitempty"`
	// Categories are the program's effect classes.
	Categories []Category `yaml:"categories,omitempty" json:"categories,omitempty"`
	// Effects are program-level effects (interactive, follow, ...).
	Effects []Effect `yaml:"effects,omitempty" json:"effects,omitempty"`
	// Syntax is how options are written: "gnu" (default: bundled short
	// options, long options with abbreviations), "long" (find-style
	// single-dash words), "keyvalue" (dd's k=v), "none" (no options: echo).
	Syntax string `yaml:"syntax,omitempty" json:"syntax,omitempty"`
	// ShellOptions says the program takes a shell's options (bash, sh,
	// zsh, the set builtin): "+X" words are options too, and an option
	// the catalog does not list is reported with the spec's code. See
	// ShellOptionsSpec.
	ShellOptions *ShellOptionsSpec `yaml:"shell_options,omitempty" json:"shell_options,omitempty"`
	// StopAtOperand ends option parsing at the first operand (wrappers,
	// POSIX programs).
	StopAtOperand bool `yaml:"stop_at_operand,omitempty" json:"stop_at_operand,omitempty"`
	// NegativeNumbers says a word of "-" and a digit or "." is an operand,
	// a negative number, and ends the options (seq 3 -1 1: GNU seq stops
	// parsing options there).
	NegativeNumbers bool `yaml:"negative_numbers,omitempty" json:"negative_numbers,omitempty"`
	// NumericOption accepts -N as a number option (head -5).
	NumericOption string `yaml:"numeric_option,omitempty" json:"numeric_option,omitempty"`
	// Stdin says when the program reads stdin: "" never, "no-operands"
	// when no file operand is given, "always".
	Stdin string `yaml:"stdin,omitempty" json:"stdin,omitempty"`
	// Options are the options the catalog knows.
	Options []*OptSpec `yaml:"options,omitempty" json:"options,omitempty"`
	// Operands are the operand roles in order; a role ending in "..."
	// repeats.
	Operands []OperandSpec `yaml:"operands,omitempty" json:"operands"`
	// Subcommands are looked up by the first operand.
	Subcommands []*Program `yaml:"subcommands,omitempty" json:"subcommands,omitempty"`
	// Default is the subcommand used when none is given ("stash" → push).
	Default string `yaml:"default,omitempty" json:"default,omitempty"`
	// NoArgs is the finding when the program is run with no argument at
	// all (env and set alone print every variable), or, for a program with
	// a command operand, with no command (env -u X prints them too).
	NoArgs *OperandSpec `yaml:"no_args,omitempty" json:"no_args,omitempty"`
	// NoOperands makes NoArgs the finding too when the program is given
	// options but no operand (printenv -0 prints every variable).
	NoOperands bool `yaml:"no_operands,omitempty" json:"no_operands,omitempty"`
	// Implicit is the path the program reads when given no path operand
	// ("." for ls, find, rg).
	Implicit string `yaml:"implicit,omitempty" json:"implicit,omitempty"`
	// HiddenInputs are the files (and environment) the program reads
	// whatever the command says, through which it runs code, reaches the
	// network or prints a secret they chose: project files, rc files in
	// the home directory, toolchain pins. See HiddenInput. A subcommand's
	// add to its program's.
	HiddenInputs []HiddenInput `yaml:"hidden_inputs,omitempty" json:"hidden_inputs,omitempty"`
	// LegacyRepoCode is the field hidden_inputs replaced ("repo_code");
	// a catalog that still has it is refused with the spelling to use.
	LegacyRepoCode []HiddenInput `yaml:"repo_code,omitempty" json:"-"`
	// RunsGit is set on a program that runs git in the repository it works
	// in (go list stamps main packages with git status): the read station
	// checks that repository's helpers as it does for git.
	RunsGit bool `yaml:"runs_git,omitempty" json:"runs_git,omitempty"`
	// GitRepo says which environment variables and options point the git
	// it runs at another repository, config or work tree (GIT_DIR,
	// --git-dir, --bare, --work-tree); a program with RunsGit needs one.
	// See GitRepoSpec.
	GitRepo *GitRepoSpec `yaml:"git_repo,omitempty" json:"git_repo,omitempty"`
	// Dialect is the language a shell reads its script in ("bash", "zsh",
	// "sh"): bash -c, zsh -c and sh -c scripts are read as such whatever
	// the outer command's dialect. The entries with a dialect are the
	// shells; one shellgate does not read ("ksh") has its scripts not
	// analysed.
	Dialect string `yaml:"dialect,omitempty" json:"dialect,omitempty"`
	// Shells, when set, restricts the entry to commands read in these
	// dialects: a zsh builtin (print, noglob) is not a bash program.
	Shells []string `yaml:"shells,omitempty" json:"shells,omitempty"`
	// Helpers are the programs (by name) a read-only spelling of this
	// program may execute on its own (man runs groff, rg -z a
	// decompressor); the confirm harness fails a run that executes any
	// other. A subcommand's add to its program's.
	Helpers []string `yaml:"helpers,omitempty" json:"helpers,omitempty"`
	// Unconfirmed says why the program's read-only claims cannot be
	// confirmed by running it in a decoy workspace (it needs a daemon, a
	// cluster or an account); the harness reports it with this reason.
	Unconfirmed string `yaml:"unconfirmed,omitempty" json:"unconfirmed,omitempty"`
	// Help says the program handles --help and --version itself: either
	// word as its only argument prints text and exits, reading, writing
	// and running nothing else (rm --help). Set only where the confirm
	// harness ran both: a program whose --help runs a pager, man or a
	// browser (git log --help) must not have it.
	Help bool `yaml:"help,omitempty" json:"help,omitempty"`
	// Caches are files (rows in the deny-row syntax: "**/.git/index",
	// "~/.config/go/telemetry/**") the program writes as its own cache
	// under a read-only spelling; the confirm harness lets those writes
	// pass and fails any other. A subcommand's add to its program's.
	Caches []string `yaml:"caches,omitempty" json:"caches,omitempty"`
	// Opens are deny-row files (rows in that syntax) the program opens by
	// design under a read-only spelling without printing them whole (ps
	// reads /proc/*/cmdline, npm its .npmrc); the confirm harness lets
	// those opens pass, and still fails a run that prints a canary.
	Opens []string `yaml:"opens,omitempty" json:"opens,omitempty"`

	// Unless are effects the program has unless one of the named options
	// is given (netstat looks every address up over DNS unless -n).
	Unless []Unless `yaml:"unless,omitempty" json:"unless,omitempty"`

	// Walk is how the program reads a directory tree: whether it reads
	// names only, which names it skips as hidden and which options show
	// them, which options exclude files or directories, and how a person
	// excludes a subtree (for messages). A subcommand without one has its
	// program's. See WalkSpec.
	Walk *WalkSpec `yaml:"walk,omitempty" json:"walk,omitempty"`
	// ProducesPaths makes the program (or this subcommand alone) a trusted
	// producer of paths: what it prints, in the spelling the rule allows,
	// names only paths under the paths it reads, so a command fed by it
	// (through xargs, or find's {}) is judged by walking those. See
	// ProducesSpec.
	ProducesPaths *ProducesSpec `yaml:"produces_paths,omitempty" json:"produces_paths,omitempty"`
	// InputArgs says the program runs a command with the words it reads
	// from stdin as its arguments (xargs), and which options change how
	// that input is split. See InputArgsSpec.
	InputArgs *InputArgsSpec `yaml:"input_args,omitempty" json:"input_args,omitempty"`
	// ConfigAliases says the first word after the program's options may
	// be an alias the git config of its repository defines (git's
	// alias.NAME), which runs what the config says: the read station
	// counts such an alias as a helper the repository configured.
	ConfigAliases bool `yaml:"config_aliases,omitempty" json:"config_aliases,omitempty"`

	optIndex map[string]*OptSpec
	longs    []string
	subIndex map[string]*Program
	// subMatch are the subcommands with a Match, in order.
	subMatch []*Program
	matchRE  *regexp.Regexp
	risky    bool
	cmdRole  bool
	parent   *Program
	// lazy is set on the programs of a lazy catalog (Catalog.lazy).
	lazy *lazyBuild

	// Exit says what the program's exit statuses mean, by status or range
	// ("1", "128", "1-100"): see ExitMeaning. A subcommand has its
	// program's meanings too, for the statuses it does not list.
	Exit map[string]ExitMeaning `yaml:"exit,omitempty" json:"exit,omitempty"`
	// ExitStatus says whose status the program returns: "" its own,
	// "command" the command's it runs (timeout, sudo), "zero" none that
	// fails (echo). See the ExitStatus constants.
	ExitStatus string `yaml:"exit_status,omitempty" json:"exit_status,omitempty"`
	// LegacyExit1 is the field exit replaced ("exit1: MESSAGE"); a catalog
	// that still has it is refused with the spelling to use instead.
	LegacyExit1 string `yaml:"exit1,omitempty" json:"-"`
	// Traits say what kind of program it is for the policy ("shell",
	// "formatter"; see the Trait constants): a segment of the program
	// carries them (Segment.Traits).
	Traits []string `yaml:"traits,omitempty" json:"traits,omitempty"`
	// Keywords are words the program gives a meaning of their own
	// wherever they stand among its operands, each with an effect and a
	// code (parted's commands that rewrite a partition table); see
	// Keyword. A subcommand's add to its program's.
	Keywords []Keyword `yaml:"keywords,omitempty" json:"keywords,omitempty"`

	exits []exitRange
}

// Unless is an effect a program has unless one of Options is given.
type Unless struct {
	// Options are canonical option names (each an option's first name).
	Options []string `yaml:"options" json:"options"`
	Effect  Effect   `yaml:"effect" json:"effect"`
	Code    string   `yaml:"code,omitempty" json:"code,omitempty"`
	Doc     string   `yaml:"doc,omitempty" json:"doc,omitempty"`
}

// ShellOptionsSpec is how a shell (or its set builtin) reads its options.
// A shell option can change how the script is read or what runs before it
// (bash -o keyword turns a NAME=VALUE word anywhere into an environment
// assignment; -i and -l run startup files; zsh -o globsubst globs
// parameter values), so the catalog lists only the options proven
// harmless, each confirmed against the real shell, and any other (one not
// listed, one whose name is only known at run time) is a finding of Code.
type ShellOptionsSpec struct {
	// NextValue says an option letter that takes a value takes the next
	// word even inside a cluster, and the cluster goes on (bash and dash:
	// -oe errexit is -o errexit -e; -oerrexit is -o, then -e, -r, ...);
	// without it the rest of the word is the value (zsh: -oerrexit).
	NextValue bool `yaml:"next_value,omitempty" json:"next_value,omitempty"`
	// Code is the finding code of an option the catalog does not list.
	Code string `yaml:"code" json:"code,omitempty"`
	// Doc says why such an option is not safe, for the finding's message.
	Doc string `yaml:"doc" json:"doc,omitempty"`
}

// OptSpec is one option of a program in the catalog.
type OptSpec struct {
	// Names are the spellings, canonical first ("--output", "-o").
	Names []string `yaml:"names" json:"names,omitempty"`
	// Value is "" (no value), "required" or "optional" (only glued or
	// after "=").
	Value string `yaml:"value,omitempty" json:"value,omitempty"`
	// Effects are the option's effects.
	Effects []Effect `yaml:"effects,omitempty" json:"effects,omitempty"`
	// Categories are added to the segment's categories.
	Categories []Category `yaml:"categories,omitempty" json:"categories,omitempty"`
	// Operands replace the program's operand roles when the option is given.
	// An empty list (not nil) means: no operands at all.
	Operands []OperandSpec `yaml:"operands,omitempty" json:"operands"`
	// Terminator ends a command option's words (";" or "+").
	Terminator []string `yaml:"terminator,omitempty" json:"terminator,omitempty"`
	// Match restricts the value: a value not matching is unsafe (Else).
	Match string `yaml:"match,omitempty" json:"match,omitempty"`
	// Else is the effect when the value does not match.
	Else Effect `yaml:"else,omitempty" json:"else,omitempty"`
	// ValueRole gives the option's value an operand role: "sed" and "awk"
	// values are checked as scripts (every -e of one sed is one script).
	ValueRole Role `yaml:"value_role,omitempty" json:"value_role,omitempty"`
	// Code is the finding code when the option makes the segment unsafe
	// ("find-delete"); default: derived from the effect.
	Code string `yaml:"code,omitempty" json:"code,omitempty"`
	// Carries says what the option's value carries when it chooses what
	// runs: code, command, file, module or config (see the Carries
	// constants), or none. For an option without a value it is the option
	// word itself and, for a command option (find -exec), the words up to
	// its terminator (bash -c needs none: its script is an
	// operand in the role script). Default: a value_role's ("sed", "awk": code), else nothing.
	// Validate requires it on every option that runs something and takes a
	// value and on command options.
	Carries string `yaml:"carries,omitempty" json:"carries,omitempty"`
	// EndsOptions ends option parsing after the option (and its value):
	// the words after python -c CODE or -m MOD are the program's argv.
	EndsOptions bool `yaml:"ends_options,omitempty" json:"ends_options,omitempty"`
	// Judged says the command a command option takes (find -exec CMD {} +)
	// is judged as a segment of its own, over what the program feeds it
	// (its {} are the program's matches), as a wrapper's command is: the
	// option then adds no finding of its own. Only on command options.
	Judged bool `yaml:"judged,omitempty" json:"judged,omitempty"`
	// InMatchDir says the command runs in each match's directory (find
	// -execdir): a relative path in it other than {} names a file in an
	// unknown directory.
	InMatchDir bool   `yaml:"in_match_dir,omitempty" json:"in_match_dir,omitempty"`
	Doc        string `yaml:"doc,omitempty" json:"doc,omitempty"`

	match *regexp.Regexp
}

// effectsAndElse yields the option's effects, then its Else when it has
// one.
func (o *OptSpec) effectsAndElse(yield func(Effect) bool) {
	for _, e := range o.Effects {
		if !yield(e) {
			return
		}
	}
	if o.Else != "" {
		yield(o.Else)
	}
}

// CarriesWhat returns what the option's value (or, without a value, the
// option and the command it takes) carries, "" when it carries no code.
func (o *OptSpec) CarriesWhat() string {
	c := o.Carries
	if c == "" {
		c = valueRoleCarries[o.ValueRole]
	}
	if c == CarriesNone {
		return ""
	}
	return c
}

// OperandSpec is an operand role of a program in the catalog. In YAML it
// is a string ("file", "file...") or a mapping {role, repeat, match, else,
// doc}.
type OperandSpec struct {
	Role   Role `yaml:"role" json:"role,omitempty"`
	Repeat bool `yaml:"repeat,omitempty" json:"repeat,omitempty"`
	// Match is a regexp the operand must match to take this role; a
	// repeating role with Match ends at the first operand that does not.
	Match string `yaml:"match,omitempty" json:"match,omitempty"`
	// Effect is the effect of an operand in this role ("write").
	Effect Effect `yaml:"effect,omitempty" json:"effect,omitempty"`
	// Else is the effect when Match fails (for non-repeating roles).
	Else Effect `yaml:"else,omitempty" json:"else,omitempty"`
	// Optional marks a role that may be absent; an operand that does not
	// match it is tried against the next role.
	Optional bool `yaml:"optional,omitempty" json:"optional,omitempty"`
	// Code is the finding code for Effect or Else; with both, it is Else's
	// (Effect then has its default code).
	Code string `yaml:"code,omitempty" json:"code,omitempty"`
	// Carries says what an operand in this role carries when it chooses
	// what runs (see OptSpec.Carries); default: the role's own (script,
	// sed, awk and jq carry code, command a command, exec and source a
	// file). Validate requires it on a role whose effect runs something.
	Carries string `yaml:"carries,omitempty" json:"carries,omitempty"`
	Doc     string `yaml:"doc,omitempty" json:"doc,omitempty"`

	match *regexp.Regexp
	// h is the role's handler, found when the catalog is built.
	h *roleHandler
}

// CarriesWhat returns what an operand in the role carries, "" when it
// carries no code.
func (r *OperandSpec) CarriesWhat() string {
	c := r.Carries
	if c == "" {
		if h := r.handler(); h != nil {
			c = h.carries
		}
	}
	if c == CarriesNone {
		return ""
	}
	return c
}

// codeFor returns the finding code of the effect taken: Else's when the
// operand did not match (mismatch), else Effect's.
func (r *OperandSpec) codeFor(mismatch bool) string {
	if r.Effect != "" && r.Else != "" && !mismatch {
		return ""
	}
	return r.Code
}

// UnmarshalYAML accepts "file", "file..." or a mapping.
func (r *OperandSpec) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		s := n.Value
		if strings.HasSuffix(s, "...") {
			r.Repeat = true
			s = strings.TrimSuffix(s, "...")
		}
		r.Role = Role(s)
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: an operand role is a string or a mapping", n.Line)
	}
	if err := knownKeys(n, roleKeys, "operand role"); err != nil {
		return err
	}
	type plain OperandSpec
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*r = OperandSpec(p)
	return nil
}

// roleKeys are the keys an operand role mapping may have.
var roleKeys = map[string]bool{
	"role": true, "repeat": true, "match": true, "effect": true, "else": true,
	"optional": true, "code": true, "doc": true, "carries": true,
}

var (
	defaultOnce sync.Once
	defaultCat  *Catalog
	defaultErr  error
)

// DefaultCatalog returns the embedded catalog. It panics only if the
// embedded file is broken, which the tests rule out.
func DefaultCatalog() *Catalog {
	defaultOnce.Do(func() {
		defaultCat, defaultErr = parseCatalogBin(defaultCatalogBin, "catalog.bin", true)
	})
	if defaultErr != nil {
		panic("classify: embedded catalog: " + defaultErr.Error())
	}
	return defaultCat
}

// ParseCatalog parses and validates a catalog file. Unknown keys are errors.
func ParseCatalog(data []byte, name string) (*Catalog, error) {
	var c Catalog
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := c.build(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &c, nil
}

// Extend returns a new catalog: c with the programs of ext added, a
// program of the same name in ext replacing c's whole entry.
func (c *Catalog) Extend(ext *Catalog) (*Catalog, error) {
	out := &Catalog{
		HarmlessEnv:  append(append([]string{}, c.HarmlessEnv...), ext.HarmlessEnv...),
		HarmlessVars: append(append([]string{}, c.HarmlessVars...), ext.HarmlessVars...),
	}
	replaced := map[string]bool{}
	for _, p := range ext.Programs {
		replaced[p.Name] = true
	}
	for _, p := range c.Programs {
		if !replaced[p.Name] {
			out.Programs = append(out.Programs, p)
		}
	}
	out.Programs = append(out.Programs, ext.Programs...)
	if err := out.build(); err != nil {
		return nil, err
	}
	return out, nil
}

// Lookup returns the spec for a program name, or nil.
func (c *Catalog) Lookup(name string) *Program {
	return c.byName[name].ready()
}

// LookupIn returns the program spec of name in dialect d, or nil: an entry
// restricted to other shells (Program.Shells) is not there. In
// DialectUnknown only unrestricted entries are.
func (c *Catalog) LookupIn(name string, d Dialect) *Program {
	p := c.byName[name].ready()
	if p == nil || len(p.Shells) == 0 {
		return p
	}
	if d != DialectUnknown && hasString(p.Shells, string(d)) {
		return p
	}
	return nil
}

// shellBound reports whether the catalog's entry for name holds in some
// shells only (zsh's noglob), so that LookupIn depends on the dialect.
func (c *Catalog) shellBound(name string) bool {
	p := c.byName[name]
	return p != nil && len(p.Shells) > 0
}

// names yields the program's name, then its aliases.
func (p *Program) names(yield func(string) bool) {
	if !yield(p.Name) {
		return
	}
	for _, a := range p.Aliases {
		if !yield(a) {
			return
		}
	}
}

// Sub returns the subcommand spec, or nil.
func (p *Program) Sub(name string) *Program {
	if p = p.ready(); p == nil {
		return nil
	}
	if s := p.subIndex[name]; s != nil || len(p.subMatch) == 0 {
		return s
	}
	for _, s := range p.subMatch {
		if s.matchRE.MatchString(name) {
			return s
		}
	}
	return nil
}

// HasOption reports whether the program knows the option spelling.
func (p *Program) HasOption(name string) bool { return p.ready() != nil && p.optIndex[name] != nil }

// Validate checks the catalog: no unknown effect, role, category or carries
// names, no duplicate programs or option spellings, every dangerous option
// documented, every regexp valid, and every option or operand that runs
// something says whether it carries code (carries), so that a grant never
// puts a wildcard over code.
func (c *Catalog) Validate() error {
	if !c.lazy {
		return c.build()
	}
	var errs []error
	for _, p := range c.Programs {
		if p != nil && p.lazy != nil {
			errs = append(errs, p.lazy.do()...)
		}
	}
	return errors.Join(errs...)
}

func (c *Catalog) build() error {
	var errs []error
	n := len(c.Programs)
	for _, p := range c.Programs {
		if p != nil {
			n += len(p.Aliases)
		}
	}
	c.byName = make(map[string]*Program, n)
	c.harmEnv = map[string]bool{}
	for _, e := range c.HarmlessEnv {
		c.harmEnv[e] = true
	}
	c.harmVars = map[string]bool{}
	for _, e := range c.HarmlessVars {
		c.harmVars[e] = true
	}
	for i, p := range c.Programs {
		if p == nil {
			errs = append(errs, fmt.Errorf("program %d is empty (null)", i+1))
			continue
		}
		if p.Name == "" {
			errs = append(errs, errors.New("program with no name"))
			continue
		}
		for n := range p.names {
			if c.byName[n] != nil {
				errs = append(errs, fmt.Errorf("program %q: duplicate name %q", p.Name, n))
			}
			c.byName[n] = p
		}
		switch {
		case p.lazy != nil:
			// Shared with a lazy catalog (Extend): built once, by
			// whichever uses it first.
			errs = append(errs, p.lazy.do()...)
		case c.lazy:
			p.setLazy(&lazyBuild{top: p})
		default:
			errs = append(errs, p.build(p.Name)...)
		}
	}
	return errors.Join(errs...)
}

func (p *Program) build(path string) []error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{path}, a...)...))
	}
	if p.checkNulls(bad) {
		return errs
	}
	p.checkFields(bad)
	p.checkFiles(bad)
	errs = append(errs, p.buildOptions(path, bad)...)
	p.checkUnless(bad)
	errs = append(errs, p.buildOperands(path)...)
	if p.NoArgs != nil {
		if p.NoArgs.Code == "" || strings.TrimSpace(p.NoArgs.Doc) == "" {
			bad("no_args needs a code and a doc")
		}
	}
	p.checkKnowledge(bad)
	p.checkGitRepo(bad)
	p.checkKeywords(bad)
	errs = append(errs, p.buildSubcommands(path, bad)...)
	return errs
}

// checkNulls reports each option or subcommand entry that is empty (a
// YAML null) and whether there was one: the program is then not built.
func (p *Program) checkNulls(bad func(string, ...any)) bool {
	found := false
	for i, o := range p.Options {
		if o == nil {
			bad("option %d is empty (null)", i+1)
			found = true
		}
	}
	for i, s := range p.Subcommands {
		if s == nil {
			bad("subcommand %d is empty (null)", i+1)
			found = true
		}
	}
	return found
}

// checkFields checks the program's own enumerated fields: syntax, stdin,
// dialect, shells, categories, effects.
func (p *Program) checkFields(bad func(string, ...any)) {
	switch p.Syntax {
	case "", "gnu", "long", "keyvalue", "none":
	default:
		bad("unknown syntax %q", p.Syntax)
	}
	switch p.Stdin {
	case "", "no-operands", "always":
	default:
		bad("unknown stdin %q", p.Stdin)
	}
	if p.Dialect != "" && !hasString(p.Categories, CategoryShell) {
		bad("dialect %q on a program that is not in the shell category", p.Dialect)
	}
	for _, d := range p.Shells {
		switch Dialect(d) {
		case DialectBash, DialectZsh, DialectSh:
		default:
			bad("unknown shell %q in shells (want bash, zsh or sh)", d)
		}
	}
	for _, cat := range p.Categories {
		if !knownCategories[cat] {
			bad("unknown category %q", cat)
		}
	}
	for _, e := range p.Effects {
		if !knownEffects[e] {
			bad("unknown effect %q", e)
		}
	}
	if p.NumericOption != "" && p.Syntax != "" && p.Syntax != "gnu" {
		bad("numeric_option needs gnu syntax")
	}
	if so := p.ShellOptions; so != nil {
		if so.Code == "" || so.Doc == "" {
			bad("shell_options needs a code and a doc")
		}
		if p.Syntax != "" && p.Syntax != "gnu" {
			bad("shell_options needs gnu syntax")
		}
	}
}

// checkFiles checks the fields the confirm harness and the read station
// read about files and helpers: hidden_inputs, helpers, caches, opens,
// unconfirmed.
func (p *Program) checkFiles(bad func(string, ...any)) {
	if len(p.LegacyRepoCode) > 0 {
		bad("repo_code is now hidden_inputs (same entries)")
	}
	for _, hi := range p.HiddenInputs {
		hi.check(bad)
	}
	for _, h := range p.Helpers {
		if h == "" || strings.ContainsAny(h, "/ \x00") {
			bad("helpers: %q is not a program name", h)
		}
	}
	for _, c := range p.Caches {
		if strings.TrimSpace(c) == "" || strings.ContainsRune(c, 0) {
			bad("caches: %q is not a row", c)
		}
	}
	for _, c := range p.Opens {
		if strings.TrimSpace(c) == "" || strings.ContainsRune(c, 0) {
			bad("opens: %q is not a row", c)
		}
	}
	if p.Unconfirmed != "" && strings.TrimSpace(p.Unconfirmed) == "" {
		bad("unconfirmed: the reason is blank")
	}
}

// buildOptions indexes the options by spelling and checks each.
func (p *Program) buildOptions(path string, bad func(string, ...any)) []error {
	var errs []error
	n := 0
	for _, o := range p.Options {
		n += len(o.Names)
	}
	// A program without options (or subcommands) has no index: a nil
	// map reads as empty, and one more map costs at start-up.
	p.optIndex = nil
	if n > 0 {
		p.optIndex = make(map[string]*OptSpec, n)
	}
	p.longs = nil
	p.risky = false
	for _, o := range p.Options {
		if len(o.Names) == 0 {
			bad("option with no names")
			continue
		}
		for _, n := range o.Names {
			if p.optIndex[n] != nil {
				bad("duplicate option %q", n)
			}
			p.optIndex[n] = o
			if strings.HasPrefix(n, "--") {
				p.longs = append(p.longs, n)
			}
		}
		if o.check(p, bad) {
			p.risky = true
		}
		errs = append(errs, o.checkCarries(path)...)
		for i := range o.Operands {
			errs = append(errs, o.Operands[i].build(path+" "+o.Names[0])...)
		}
	}
	sort.Strings(p.longs)
	return errs
}

// check checks one option of program p and compiles its match; it
// reports whether the option is dangerous.
func (o *OptSpec) check(p *Program, bad func(string, ...any)) (danger bool) {
	switch o.Value {
	case "", "required", "optional":
	default:
		bad("option %s: unknown value kind %q", o.Names[0], o.Value)
	}
	for e := range o.effectsAndElse {
		if !knownEffects[e] {
			bad("option %s: unknown effect %q", o.Names[0], e)
		}
		if dangerousEffects[e] {
			danger = true
		}
	}
	if danger && strings.TrimSpace(o.Doc) == "" {
		bad("dangerous option %s has no doc", o.Names[0])
	}
	for _, cat := range o.Categories {
		if !knownCategories[cat] {
			bad("option %s: unknown category %q", o.Names[0], cat)
		}
	}
	if (hasString(o.Effects, EffectCommand)) != (len(o.Terminator) > 0) && hasString(o.Effects, EffectCommand) && p.Syntax == "long" {
		bad("option %s: command option needs a terminator", o.Names[0])
	}
	if (o.Judged || o.InMatchDir) && (!hasString(o.Effects, EffectCommand) || p.Syntax != "long") {
		bad("option %s: judged and in_match_dir are for command options of a long-syntax program (find -exec)", o.Names[0])
	}
	if o.Judged && hasString(o.Effects, EffectInteract) {
		bad("option %s: an interactive command option (find -ok) reads the answer from stdin: it cannot be judged", o.Names[0])
	}
	switch o.ValueRole {
	case "", RoleSed, RoleAwk:
	default:
		bad("option %s: unknown value_role %q", o.Names[0], o.ValueRole)
	}
	if o.Match != "" {
		re, err := compileMatch(o.Match)
		if err != nil {
			bad("option %s: match: %v", o.Names[0], err)
		}
		o.match = re
	}
	return danger
}

// checkUnless checks the program's unless entries: known effects, a doc on
// a dangerous one, options of the program or its parents.
func (p *Program) checkUnless(bad func(string, ...any)) {
	for _, u := range p.Unless {
		if !knownEffects[u.Effect] {
			bad("unless: unknown effect %q", u.Effect)
		}
		if dangerousEffects[u.Effect] {
			p.risky = true
			if strings.TrimSpace(u.Doc) == "" {
				bad("unless: effect %s has no doc", u.Effect)
			}
		}
		if len(u.Options) == 0 {
			bad("unless: no options")
		}
		for _, n := range u.Options {
			if !p.canonical(n) {
				bad("unless: %q is not the first name of an option of the program or its parents", n)
			}
		}
	}
}

// canonical reports whether name is the first name of an option of the
// program or of one of its parents.
func (p *Program) canonical(name string) bool {
	for q := p; q != nil; q = q.parent {
		if o := q.optIndex[name]; o != nil && o.Names[0] == name {
			return true
		}
	}
	return false
}

// spelling reports whether name spells an option of the program or of one
// of its parents.
func (p *Program) spelling(name string) bool {
	for q := p; q != nil; q = q.parent {
		if q.optIndex[name] != nil {
			return true
		}
	}
	return false
}

// buildOperands checks the operand roles and notes whether the program
// takes a command (cmdRole) or is risky by its own effects.
func (p *Program) buildOperands(path string) []error {
	var errs []error
	p.cmdRole = false
	for i := range p.Operands {
		errs = append(errs, p.Operands[i].build(path)...)
		if p.Operands[i].Role == RoleCommand || p.Operands[i].Role == RoleScript {
			p.cmdRole = true
			p.risky = true
		}
	}
	for _, o := range p.Options {
		for _, r := range o.Operands {
			if r.Role == RoleCommand || r.Role == RoleScript {
				p.cmdRole = true
			}
		}
	}
	for _, e := range p.Effects {
		if dangerousEffects[e] {
			p.risky = true
		}
	}
	return errs
}

// buildSubcommands indexes and builds the subcommands.
func (p *Program) buildSubcommands(path string, bad func(string, ...any)) []error {
	var errs []error
	n := len(p.Subcommands)
	for _, s := range p.Subcommands {
		n += len(s.Aliases)
	}
	p.subIndex = nil
	p.subMatch = nil
	if n > 0 {
		p.subIndex = make(map[string]*Program, n)
	}
	for _, s := range p.Subcommands {
		s.matchRE = nil
		if s.Match != "" {
			re, err := regexp.Compile(s.Match)
			if err != nil {
				bad("subcommand %q: match: %v", s.Name, err)
			} else {
				s.matchRE = re
				p.subMatch = append(p.subMatch, s)
			}
		}
		for n := range s.names {
			if p.subIndex[n] != nil {
				bad("duplicate subcommand %q", n)
			}
			p.subIndex[n] = s
		}
		s.parent = p
		errs = append(errs, s.build(path+" "+s.Name)...)
	}
	if p.Default != "" && p.subIndex[p.Default] == nil {
		bad("default subcommand %q is not listed", p.Default)
	}
	errs = append(errs, p.buildFacts(path)...)
	return errs
}

// checkCarries checks that an option which runs something says what its
// argument carries.
func (o *OptSpec) checkCarries(path string) []error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: option %s: "+format, append([]any{path, o.Names[0]}, a...)...))
	}
	if o.Carries != "" && !knownCarries[o.Carries] {
		bad("unknown carries %q", o.Carries)
	}
	runs := false
	for e := range o.effectsAndElse {
		if runEffects[e] {
			runs = true
		}
	}
	switch {
	case o.Carries == "" && runs && o.Value != "":
		bad("runs something and takes a value: say what the value carries (carries: code, command, file, module, config or none)")
	case hasString(o.Effects, EffectCommand) && (o.Carries == "" || o.Carries == CarriesNone):
		bad("takes a command: it needs carries: command")
	case o.ValueRole != "" && o.Carries == CarriesNone:
		bad("a %s value is code: carries cannot be none", o.ValueRole)
	}
	return errs
}

func (r *OperandSpec) build(path string) []error {
	var errs []error
	if r.Carries != "" && !knownCarries[r.Carries] {
		errs = append(errs, fmt.Errorf("%s: operand %s: unknown carries %q", path, r.Role, r.Carries))
	}
	if r.Carries == "" && roleCarries[r.Role] == "" && (runEffects[r.Effect] || runEffects[r.Else]) {
		errs = append(errs, fmt.Errorf("%s: operand %s runs something: say what it carries (carries: code, command, file, module, config or none)", path, r.Role))
	}
	if r.h = roleOf(r.Role); r.h == nil {
		errs = append(errs, fmt.Errorf("%s: unknown operand role %q", path, r.Role))
	}
	for _, e := range []Effect{r.Effect, r.Else} {
		if e != "" && !knownEffects[e] {
			errs = append(errs, fmt.Errorf("%s: operand %s: unknown effect %q", path, r.Role, e))
		}
		if e != "" && dangerousEffects[e] && strings.TrimSpace(r.Doc) == "" {
			errs = append(errs, fmt.Errorf("%s: operand %s with effect %q has no doc", path, r.Role, e))
		}
	}
	if r.Match != "" {
		re, err := compileMatch(r.Match)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: operand %s: match: %v", path, r.Role, err))
		}
		r.match = re
	}
	return errs
}

// matchCache holds the catalog's compiled matches by source, shared by the
// specs (and catalogs) that have the same one: the embedded catalog has
// 53 matches and 28 sources. At most maxMatchCache are kept.
var matchCache struct {
	sync.Mutex
	m map[string]*regexp.Regexp
}

const maxMatchCache = 1024

// compileMatch compiles a catalog match, once per source.
func compileMatch(src string) (*regexp.Regexp, error) {
	matchCache.Lock()
	re := matchCache.m[src]
	matchCache.Unlock()
	if re != nil {
		return re, nil
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, err
	}
	matchCache.Lock()
	if matchCache.m == nil {
		matchCache.m = map[string]*regexp.Regexp{}
	}
	if len(matchCache.m) < maxMatchCache {
		matchCache.m[src] = re
	}
	matchCache.Unlock()
	return re, nil
}

func hasString[S ~string](list []S, s S) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// knownKeys checks that every key of the mapping n is one of known: a
// custom UnmarshalYAML decodes through a plain type, where the decoder's
// KnownFields check does not reach.
func knownKeys(n *yaml.Node, known map[string]bool, what string) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; !known[k] {
			return fmt.Errorf("line %d: field %s not found in %s", n.Content[i].Line, k, what)
		}
	}
	return nil
}

// HiddenInputChecks are the comparisons a hidden input's check may name;
// the read station implements each.
var HiddenInputChecks = map[string]string{
	"go-toolchain":        "the go and toolchain lines of go.work or go.mod against the local Go and GOTOOLCHAIN",
	"go-modules":          "the modules go.mod (or go.work's modules) require against the module cache",
	"go-work-modules":     "the go.mod files of the directories go.work uses and go.work or go.mod replace modules with, each judged as a read (go quotes a line that does not parse)",
	"cargo-manifests":     "the Cargo.toml of every crate a manifest names by a path (dependencies, patch, replace, workspace members and package.workspace), each judged as a read (cargo quotes a line that does not parse)",
	"rust-toolchain":      "the toolchain a rust-toolchain file names against the toolchains rustup has installed",
	"rust-toolchain-path": "the toolchain directory a rust-toolchain file names (its path key, read as TOML), whose programs rustup's proxies run",
	"env-set":             "the variables env names: one set to a value (or whose value is not known) applies (less runs the preprocessor LESSOPEN names)",
	"npm-config-files":    "the files a .npmrc (the project's, up from the directory npm runs in, or ~/.npmrc) names by userconfig, globalconfig or prefix (PREFIX/etc/npmrc), each judged as a read (npm quotes the keys it does not know)",
	"man-pages":           "the directories of pages man-db finds beside PATH's entries (or $MANPATH names) in the home directory or the workspace: a page there of a topic the command names, or an index database, applies",
}

// HiddenInputFormats are the formats a hidden input's format may name;
// the read station decodes each with its standard library.
var HiddenInputFormats = map[string]string{
	"toml": "TOML 1.1 (github.com/pelletier/go-toml/v2), as cargo and rustup read it",
	"json": "JSON (encoding/json)",
	"yaml": "YAML (go.yaml.in/yaml/v3; a JSON file too): the first document",
}

// validKeyPath reports whether a hidden input's key is a dotted path of
// non-empty names (or "*").
func validKeyPath(k string) bool {
	for _, part := range strings.Split(k, ".") {
		if part == "" || strings.ContainsRune(part, 0) || (strings.Contains(part, "*") && part != "*") {
			return false
		}
	}
	return true
}

// check validates one hidden input.
func (hi HiddenInput) check(bad func(string, ...any)) {
	name := hi.File
	if name == "" {
		name = hi.Check + hi.FileEnv
	}
	if hi.Check != "" {
		if _, ok := HiddenInputChecks[hi.Check]; !ok {
			bad("hidden_inputs: unknown check %q", hi.Check)
		}
		if hi.File != "" || hi.Match != "" || hi.In != "" || hi.FileEnv != "" {
			bad("hidden_inputs %s: a check reads its files itself (no file, in, file_env or match)", hi.Check)
		}
	} else if hi.File == "" && hi.FileEnv != "" {
		if hi.In != "" {
			bad("hidden_inputs %s: in without a file", hi.FileEnv)
		}
	} else {
		if hi.File == "" || strings.ContainsRune(hi.File, 0) || strings.HasPrefix(hi.File, "/") || hi.File == "." || hi.File == ".." ||
			strings.Contains("/"+hi.File+"/", "/../") {
			bad("hidden_inputs: file %q is not a relative path", hi.File)
		} else if _, err := path.Match(hi.File, ""); err != nil {
			bad("hidden_inputs %s: bad glob: %v", hi.File, err)
		}
	}
	switch hi.In {
	case "", "up", "cwd":
		if hi.In != "cwd" && strings.ContainsAny(hi.File, "*?[") {
			bad("hidden_inputs %s: a glob is looked for in one directory (in: cwd or a directory)", name)
		}
	case "path":
		if hi.Does == "" {
			bad("hidden_inputs %s: in: path needs does (what the program would do)", name)
		}
	default:
		for _, alt := range strings.Split(hi.In, "|") {
			if !validInDir(alt) {
				bad("hidden_inputs %s: in %q: %q is not ~, ~/PATH, $VAR or $VAR/PATH", name, hi.In, alt)
			}
		}
		if hi.Does == "" {
			bad("hidden_inputs %s: a file outside the project needs does (what the program would do)", name)
		}
	}
	if hi.Reads && (hi.Match != "" || hi.Format != "" || hi.Check != "" || hi.File == "") {
		bad("hidden_inputs %s: reads judges the file itself (a file, no match, format or check)", name)
	}
	if hi.LinksOnly && !hi.Reads {
		bad("hidden_inputs %s: links_only goes with reads", name)
	}
	if hi.FileEnv != "" && !envName.MatchString(hi.FileEnv) {
		bad("hidden_inputs %s: file_env %q is not an environment variable name", name, hi.FileEnv)
	}
	if hi.Match != "" {
		if _, err := compileMatch(hi.Match); err != nil {
			bad("hidden_inputs %s: match: %v", name, err)
		}
	}
	if hi.Format != "" {
		if _, ok := HiddenInputFormats[hi.Format]; !ok {
			bad("hidden_inputs %s: unknown format %q", name, hi.Format)
		}
		if hi.Match != "" || hi.Check != "" {
			bad("hidden_inputs %s: format reads the file's keys in place of match (and a check reads its files itself)", name)
		}
		if len(hi.Keys) == 0 {
			bad("hidden_inputs %s: format without keys", name)
		}
		for _, k := range hi.Keys {
			if !validKeyPath(k) {
				bad("hidden_inputs %s: key %q is not a dotted path of names (or *)", name, k)
			}
		}
	} else if len(hi.Keys) > 0 || hi.Value != "" || hi.FoldCase {
		bad("hidden_inputs %s: keys, value and fold_case need a format", name)
	}
	if hi.Value != "" {
		if _, err := regexp.Compile(hi.Value); err != nil {
			bad("hidden_inputs %s: value: %v", name, err)
		}
	}
	if hi.Format == "" && (hi.Match == "") != (hi.Key == "") {
		bad("hidden_inputs %s: match and key go together", name)
	}
	if hi.Via != "" && !strings.Contains(hi.Via, "*") && !strings.HasPrefix(hi.Via, "/") {
		bad("hidden_inputs %s: via %q is not a glob of a path", name, hi.Via)
	}
	for k, v := range hi.Unless {
		if !envName.MatchString(k) {
			bad("hidden_inputs %s: unless_env %q is not an environment variable name", name, k)
		}
		if _, err := regexp.Compile(v); err != nil {
			bad("hidden_inputs %s: unless_env %s: %v", name, k, err)
		}
	}
	for _, e := range hi.Env {
		if !envName.MatchString(e) {
			bad("hidden_inputs %s: env %q is not an environment variable name", name, e)
		}
	}
}

// validInDir reports whether s is one alternative of a hidden input's in:
// ~, ~/PATH, $VAR or $VAR/PATH, PATH relative and without "..".
func validInDir(s string) bool {
	var rest string
	switch {
	case s == "~":
		return true
	case strings.HasPrefix(s, "~/"):
		rest = s[2:]
	case strings.HasPrefix(s, "$"):
		v, r, _ := strings.Cut(s[1:], "/")
		if !envName.MatchString(v) {
			return false
		}
		rest = r
	default:
		return false
	}
	return !strings.ContainsAny(rest, "*?[\x00") && !strings.HasPrefix(rest, "/") && !strings.Contains("/"+rest+"/", "/../")
}

// InDirs splits a hidden input's in into its alternatives (nil for the
// project forms "", "up" and "cwd").
func (hi HiddenInput) InDirs() []string {
	switch hi.In {
	case "", "up", "cwd", "path":
		return nil
	}
	return strings.Split(hi.In, "|")
}

// EnvNames are the environment variables whose value changes what the
// input reads or whether it applies.
func (hi HiddenInput) EnvNames() []string {
	var out []string
	if hi.FileEnv != "" {
		out = append(out, hi.FileEnv)
	}
	if hi.In == "path" {
		out = append(out, "PATH")
	}
	for _, alt := range hi.InDirs() {
		if v, _, _ := strings.Cut(strings.TrimPrefix(alt, "$"), "/"); strings.HasPrefix(alt, "$") {
			out = append(out, v)
		}
	}
	for k := range hi.Unless {
		out = append(out, k)
	}
	if hi.Via != "" {
		out = append(out, "PATH")
	}
	return append(out, hi.Env...)
}
