package classify

// Effect names what an option, an operand role or a program does beyond
// reading what it is given (catalog effects, Opt.Effects).
type Effect string

// The effects the catalog may use. Each has a handler (effectRegistry).
const (
	EffectWrite      Effect = "write"       // writes files (the option's value, when it has one, is the path)
	EffectExec       Effect = "exec"        // runs other code
	EffectFollow     Effect = "follow"      // never ends on its own (tail -f)
	EffectDevice     Effect = "device"      // reads a device or endless source
	EffectNetwork    Effect = "network"     // talks to the network
	EffectRecursive  Effect = "recursive"   // file operands are read as whole trees
	EffectReadsFile  Effect = "reads-file"  // the option's value is a path that is read
	EffectWritesFile Effect = "writes-file" // the option's value is a path that is written
	EffectScript     Effect = "script"      // the option's value is a shell script, parsed again
	EffectCommand    Effect = "command"     // the following words, up to a terminator, are a command
	EffectPattern    Effect = "pattern"     // supplies the pattern/script, so no pattern operand follows
	EffectCwd        Effect = "cwd"         // the option's value is a directory the program works in
	EffectInteract   Effect = "interactive" // waits for a person
	EffectPrivilege  Effect = "privilege"   // changes user or privilege
	EffectDestroy    Effect = "destructive" // irreversible loss of data or state
	EffectStdin      Effect = "stdin"       // makes the program read stdin
	EffectFilesFrom  Effect = "files-from"  // the option's value is a file that lists the paths to read
	EffectLists      Effect = "lists"       // the file operands (or stdin) list the paths read (sha256sum -c)
	EffectGitConfig  Effect = "git-config"  // prints git configuration: the repository's and the user's config files are read
	// EffectGitConfigValue: prints the values of the keys it names (git
	// config KEY): the files the configuration includes are read.
	EffectGitConfigValue Effect = "git-config-value"
	EffectEnvPrint       Effect = "env-print"       // prints environment variables, where tokens live (ps e)
	EffectNoStdin        Effect = "no-stdin"        // the program reads no stdin (jq -n)
	EffectGitTracked     Effect = "git-tracked"     // prints tracked content or history (git grep, git log -p, git diff): every tracked path no pathspec excludes is read
	EffectGitNames       Effect = "git-names"       // prints names or counts instead of the content a program prints by default (git diff --stat, git grep -l)
	EffectForce          Effect = "force"           // overwrites what others have: a remote branch's history (git push --force)
	EffectPartition      Effect = "partition-table" // rewrites a partition table, destroying the data of the partitions it changes (parted rm)
)

// Category names an effect class of a program, an option or a segment
// (catalog categories, Segment.Categories).
type Category string

// The categories.
const (
	CategoryRead        Category = "read"        // reads (a segment with no other category)
	CategoryWrite       Category = "write"       // writes files: a program of this category writes where it runs
	CategoryNetwork     Category = "network"     // talks to the network
	CategoryDestructive Category = "destructive" // irreversible loss of data or state
	CategoryExec        Category = "exec"        // runs other code
	CategoryPrivilege   Category = "privilege"   // changes user or privilege
	CategoryInteractive Category = "interactive" // waits for a person
	CategoryWrapper     Category = "wrapper"     // runs the command it is given (timeout, env, nice)
	CategoryShell       Category = "shell"       // a shell: runs a script in its dialect (bash -c)
	CategoryNavigate    Category = "navigate"    // changes the shell's directory (cd, pushd, popd)
	// CategoryRemoteRead: reads a remote account over the network with the
	// user's credentials (gh pr list, kubectl get) and changes nothing
	// there; the config's remote_reads allows it per program.
	CategoryRemoteRead Category = "remote-read"
)

var knownCategories = map[Category]bool{
	CategoryRead: true, CategoryWrite: true, CategoryNetwork: true, CategoryDestructive: true,
	CategoryExec: true, CategoryPrivilege: true, CategoryInteractive: true, CategoryWrapper: true,
	CategoryShell: true, CategoryNavigate: true, CategoryRemoteRead: true,
}

// An effectHandler says what an effect does to a segment, in the style of
// go/analysis's Analyzer: a value with a name, a doc and the functions the
// argument parser dispatches to.
type effectHandler struct {
	// Name is the effect.
	Name Effect
	// Doc says what a program, option or operand with the effect does.
	Doc string

	// code is the finding the effect makes unless the catalog names one
	// ("" for none); silent: the effect makes no finding of its own.
	code   string
	silent bool
	// category is the category the effect adds to its segment.
	category Category
	// dangerous: an option with the effect makes the option set risky (a
	// dynamic word in option position could become it), and it needs a doc.
	dangerous bool
	// runs: the effect runs something, so the option or operand says what
	// its argument carries.
	runs bool

	// mark records the effect in the segment's effect flags.
	mark func(fl effectFlags) effectFlags
	// option applies the effect of a known option (an option of effect
	// pattern supplies the pattern operand).
	option func(p *argParser)
	// value applies the effect to an option's value v (sort -o FILE
	// writes FILE); sp covers the option, cwd is the directory the program
	// works in before it.
	value func(p *argParser, v *Arg, sp Span, spec *OptSpec, cwd Cwd)
}

// effectFlags are what a segment's effects say about how it reads.
type effectFlags struct {
	recursive bool // file operands are whole trees
	lists     bool // file operands (or stdin) list the paths read
	trackedBy int  // how many effects print tracked content
	gitNames  bool // prints names or counts instead of content
	stdin     bool // reads stdin whatever its operands
	exec      bool // runs code: whether it reads stdin depends on the code
	noStdin   bool // reads no stdin
	gitConfig bool // prints git configuration
	// gitConfigValue: prints values of git configuration it names
	gitConfigValue bool
}

// effectRegistry is every effect, with its handler. The handlers of an
// option's value apply in this order. Validate rejects a catalog effect not
// listed here; TestEffectRegistry checks that every effect the embedded
// catalog uses is.
var effectRegistry = []*effectHandler{
	{Name: EffectWrite, Doc: "writes files (the option's value, when it has one, is the path)", code: "write-option", category: CategoryWrite, dangerous: true},
	{Name: EffectExec, Doc: "runs other code", code: "exec-option", category: CategoryExec, dangerous: true, runs: true,
		mark: func(fl effectFlags) effectFlags { fl.exec = true; return fl }},
	{Name: EffectFollow, Doc: "never ends on its own (tail -f)", code: "follow-option", dangerous: true},
	{Name: EffectDevice, Doc: "reads a device or endless source", code: "device-read", dangerous: true},
	{Name: EffectNetwork, Doc: "talks to the network", code: "network", category: CategoryNetwork, dangerous: true},
	{Name: EffectRecursive, Doc: "file operands are read as whole trees",
		mark: func(fl effectFlags) effectFlags { fl.recursive = true; return fl }},
	{Name: EffectReadsFile, Doc: "the option's value is a path that is read", value: readsFileValue},
	{Name: EffectFilesFrom, Doc: "the option's value is a file that lists the paths to read", value: filesFromValue},
	{Name: EffectWritesFile, Doc: "the option's value is a path that is written", code: "write-option", category: CategoryWrite, dangerous: true, value: writesFileValue},
	{Name: EffectCwd, Doc: "the option's value is a directory the program works in", value: cwdValue},
	{Name: EffectScript, Doc: "the option's value is a shell script, parsed again", category: CategoryExec, dangerous: true, runs: true, value: scriptValue},
	{Name: EffectCommand, Doc: "the following words, up to a terminator, are a command", category: CategoryExec, dangerous: true, runs: true},
	{Name: EffectPattern, Doc: "supplies the pattern or script, so no pattern operand follows",
		option: func(p *argParser) { p.patternSet = true }},
	{Name: EffectInteract, Doc: "waits for a person", code: "interactive", category: CategoryInteractive, dangerous: true},
	{Name: EffectPrivilege, Doc: "changes user or privilege", code: "privilege", category: CategoryPrivilege, dangerous: true},
	{Name: EffectDestroy, Doc: "irreversible loss of data or state", code: "destructive", category: CategoryDestructive, dangerous: true},
	{Name: EffectStdin, Doc: "makes the program read stdin (the stdin-read finding says so when nothing feeds it)", code: "stdin-read", silent: true,
		mark: func(fl effectFlags) effectFlags { fl.stdin = true; return fl }},
	{Name: EffectLists, Doc: "the file operands (or stdin) list the paths read (sha256sum -c)",
		mark: func(fl effectFlags) effectFlags { fl.lists = true; return fl }},
	{Name: EffectGitConfig, Doc: "prints git configuration: the repository's and the user's config files are read",
		mark: func(fl effectFlags) effectFlags { fl.gitConfig = true; return fl }},
	{Name: EffectGitConfigValue, Doc: "prints the values of git configuration keys it names (git config KEY): the files the configuration includes are read",
		mark: func(fl effectFlags) effectFlags { fl.gitConfigValue = true; return fl }},
	{Name: EffectEnvPrint, Doc: "prints environment variables, where tokens live (ps e)", code: "env-print", dangerous: true},
	{Name: EffectNoStdin, Doc: "the program reads no stdin (jq -n)",
		mark: func(fl effectFlags) effectFlags { fl.noStdin = true; return fl }},
	{Name: EffectGitTracked, Doc: "prints tracked content or history (git grep, git log -p, git diff): every tracked path no pathspec excludes is read",
		mark: func(fl effectFlags) effectFlags { fl.trackedBy++; return fl }},
	{Name: EffectGitNames, Doc: "prints names or counts instead of the content a program prints by default (git diff --stat, git grep -l)",
		mark: func(fl effectFlags) effectFlags { fl.gitNames = true; return fl }},
	{Name: EffectForce, Doc: "overwrites what others have: a remote branch's history (git push --force); every ref the segment pushes (Segment.Pushes) is forced"},
	{Name: EffectPartition, Doc: "rewrites a partition table, destroying the data of the partitions it changes or moves (parted rm, sfdisk --delete); the policy denies its finding", code: "partition-table", category: CategoryDestructive, dangerous: true},
}

// The indexes of effectRegistry: by name, the sets the catalog check uses,
// and the handlers of options and their values in registry order.
var (
	effectHandlers   = map[Effect]*effectHandler{}
	knownEffects     = map[Effect]bool{}
	dangerousEffects = map[Effect]bool{}
	runEffects       = map[Effect]bool{}
	optionEffects    []*effectHandler
	valueEffects     []*effectHandler
)

func init() {
	for _, h := range effectRegistry {
		effectHandlers[h.Name] = h
		knownEffects[h.Name] = true
		dangerousEffects[h.Name] = h.dangerous
		runEffects[h.Name] = h.runs
		if h.option != nil {
			optionEffects = append(optionEffects, h)
		}
		if h.value != nil {
			valueEffects = append(valueEffects, h)
		}
	}
}

// scan collects the flags of effects.
func scan(effects []effectAt) effectFlags {
	var fl effectFlags
	for _, e := range effects {
		if h := effectHandlers[e.effect]; h != nil && h.mark != nil {
			fl = h.mark(fl)
		}
	}
	return fl
}

// readsFileValue reads the file an option's value names (grep -f FILE).
func readsFileValue(p *argParser, v *Arg, _ Span, spec *OptSpec, cwd Cwd) {
	if spec.match != nil && spec.match.NumSubexp() > 0 {
		// curl -d @FILE, -F name=@FILE: the match's group is the file.
		if f, ok := valueFile(spec.match, *v); ok {
			p.w.r.Reads = append(p.w.r.Reads, pathRef(f, "option", p.seg.Index, cwd, -1))
			p.w.deviceCheck(f, cwd, f.Span, p.seg.Index)
		}
		return
	}
	p.w.r.Reads = append(p.w.r.Reads, pathRef(*v, "option", p.seg.Index, cwd, -1))
	p.w.deviceCheck(*v, cwd, v.Span, p.seg.Index)
}

// filesFromValue reads the file an option's value names, and every path
// it lists (tar -T FILE).
func filesFromValue(p *argParser, v *Arg, sp Span, _ *OptSpec, cwd Cwd) {
	p.w.r.Reads = append(p.w.r.Reads, pathRef(*v, "option", p.seg.Index, cwd, -1))
	p.w.r.Reads = append(p.w.r.Reads, PathRef{Path: v.Value, Kind: "dynamic", Dynamic: "files-from",
		Source: "option", Segment: p.seg.Index, Cwd: cwd, Producer: -1, Span: sp})
}

// writesFileValue writes the file an option's value names (sort -o FILE).
func writesFileValue(p *argParser, v *Arg, _ Span, _ *OptSpec, cwd Cwd) {
	p.w.r.Writes = append(p.w.r.Writes, pathRef(*v, "option", p.seg.Index, cwd, -1))
}

// cwdValue moves the program to the directory an option's value names.
// Each -C is relative to the one before (git -C a -C b runs in a/b; so do
// make and tar).
func cwdValue(p *argParser, v *Arg, _ Span, _ *OptSpec, cwd Cwd) {
	dir := *v
	p.cwdBase = cwd
	p.cwdOpt = &dir
	p.w.r.Reads = append(p.w.r.Reads, pathRef(dir, "cwd-flag", p.seg.Index, cwd, -1))
}

// scriptValue keeps an option's shell script to parse once the segment is
// recorded.
func scriptValue(p *argParser, v *Arg, _ Span, _ *OptSpec, _ Cwd) {
	p.scripts = append(p.scripts, *v)
}
