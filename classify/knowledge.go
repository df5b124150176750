package classify

import (
	"path"
	"regexp"
	"sort"
	"strings"
)

// This file holds the catalog's knowledge of how programs read trees and
// print paths (walk, produces_paths, input_args, config_aliases): the spec
// types, their validation, and the facts a segment carries from them, so
// that the read station reads facts and never program names.

// WalkSpec is how a program reads a directory tree (catalog walk).
type WalkSpec struct {
	// NamesOnly: the program lists names and metadata below a root and
	// never reads a file's contents (find, du, tree, ls -R): deny rows,
	// which protect contents, do not apply below the root.
	NamesOnly bool `yaml:"names_only,omitempty" json:"names_only,omitempty"`
	// Hidden, when set, says the program skips names that begin with "."
	// below a root unless told otherwise.
	Hidden *HiddenSpec `yaml:"hidden,omitempty" json:"hidden,omitempty"`
	// ExcludeHint says how a person excludes a subtree from the read, for
	// the station's messages ("exclude it with -g '!GLOB', or narrow the
	// path"); default "narrow the path".
	ExcludeHint string `yaml:"exclude_hint,omitempty" json:"exclude_hint,omitempty"`
	// Excludes are the options whose value excludes files or directories
	// from the walk.
	Excludes []ExcludeSpec `yaml:"excludes,omitempty" json:"excludes,omitempty"`
	// NamesOnlyWith makes the walk names_only when one of its any_of
	// options is given and no word of none_of is (rg --files lists names,
	// unless -L follows links): see NamesOnlyWhen.
	NamesOnlyWith *NamesOnlyWhen `yaml:"names_only_with,omitempty" json:"names_only_with,omitempty"`
	// Only are base-name globs of the only files (not directories) the
	// program reads below a root, whatever its options (gofmt: *.go).
	Only []string `yaml:"only,omitempty" json:"only,omitempty"`
}

// NamesOnlyWhen is when a walk lists names only (WalkSpec.NamesOnlyWith).
type NamesOnlyWhen struct {
	// AnyOf: one of these options (spellings) must be given.
	AnyOf []string `yaml:"any_of" json:"any_of,omitempty"`
	// NoneOf: none of these words may be given (-X in a cluster of short
	// options, --long whole; a word not known statically counts).
	NoneOf []string `yaml:"none_of,omitempty" json:"none_of,omitempty"`
}

// HiddenSpec is the hidden-name rule of a walk.
type HiddenSpec struct {
	// ShownBy are the words that make the program show hidden names: a
	// short option "-a" counts in any cluster of short options (-la), a
	// long one "--all" as the whole word, and one ending in "*"
	// ("--no-ignore*") as a prefix of it. A word that is not static
	// counts too, since it may expand to one of them.
	ShownBy []string `yaml:"shown_by" json:"shown_by,omitempty"`
	// ConfigEnv names an environment variable that, when set, may make the
	// program show hidden names all the same (a config file it names may
	// say so: RIPGREP_CONFIG_PATH).
	ConfigEnv string `yaml:"config_env,omitempty" json:"config_env,omitempty"`
	// IgnoreFiles are files, named relative to a directory, whose negated
	// patterns (!GLOB) show hidden names all the same (rg's .ignore,
	// .rgignore, .gitignore and .git/info/exclude: a whitelisted name is
	// searched though hidden): the walk reads each one in a directory it
	// lists and in every directory above the root.
	IgnoreFiles []string `yaml:"ignore_files,omitempty" json:"ignore_files,omitempty"`
	// GitExcludes: the program reads the user's git excludes file as an
	// ignore file too, found as rg finds it: the file core.excludesFile
	// names in ~/.gitconfig or $XDG_CONFIG_HOME/git/config (else
	// $XDG_CONFIG_HOME/git/ignore, ~/.config for an unset XDG_CONFIG_HOME).
	GitExcludes bool `yaml:"git_excludes,omitempty" json:"git_excludes,omitempty"`
}

// ExcludeSpec is one exclude option of a walk.
type ExcludeSpec struct {
	// Option is the option's first name in the catalog; it takes a value,
	// the glob.
	Option string `yaml:"option" json:"option"`
	// Kind is what the glob matches: "file" (the base name of a file that
	// is not a directory), "dir" (the base name of a directory) or "path"
	// (a gitignore-style glob of the path below the root).
	Kind string `yaml:"kind" json:"kind"`
	// Negated: only a value that begins with "!" excludes (rg -g '!GLOB');
	// any other value, or one not known statically, may re-include a path,
	// so the segment then excludes nothing at all.
	Negated bool `yaml:"negated,omitempty" json:"negated,omitempty"`
	// Unless are options (first names) that, given anywhere, make this
	// option exclude nothing (grep's --include: the last matching one of
	// --include and --exclude wins).
	Unless []string `yaml:"unless,omitempty" json:"unless,omitempty"`
}

// ProducesSpec makes a program a trusted producer of paths (catalog
// produces_paths).
type ProducesSpec struct {
	// AnyOf: one of these options must be given for it to print paths
	// (grep prints lines without -l). Empty: none is needed.
	AnyOf []string `yaml:"any_of,omitempty" json:"any_of,omitempty"`
	// NoneOf: none of these options may be given: they print other text
	// (find -printf). A command fed through xargs checks both lists; one
	// that find runs on its {} needs neither. Unlike the other lists it may
	// name an option the catalog does not list (an unknown option is
	// recorded as written).
	NoneOf []string `yaml:"none_of,omitempty" json:"none_of,omitempty"`
	// Nul are the options that make it print NUL-separated paths.
	Nul []string `yaml:"nul,omitempty" json:"nul,omitempty"`
	// DefaultRoot is what it reads when it names no path: "cwd", "repo"
	// (the git top level of the directory it runs in), or "" (it must
	// name one).
	DefaultRoot string `yaml:"default_root,omitempty" json:"default_root,omitempty"`
	// NameFilter, when set, is the option whose value is a name pattern
	// every printed path matches (find -name).
	NameFilter *NameFilterSpec `yaml:"name_filter,omitempty" json:"name_filter,omitempty"`
	// Substitution makes its output, as an unquoted $(...) file operand
	// (cat $(git ls-files)), judged as the paths it prints when every
	// option given is one of these ("*": any the other lists allow). Not
	// set: such an output is not judged (git diff --name-only prints
	// paths of commits, which no walk bounds).
	Substitution []string `yaml:"substitution,omitempty" json:"substitution,omitempty"`
}

// NameFilterSpec is a producer's name filter: one static Option value is
// the pattern, unless another filter or one of Unless is given.
type NameFilterSpec struct {
	// Option is the option's first name; it takes a value.
	Option string `yaml:"option" json:"option"`
	// Unless are the words (options or operators) that may print other
	// names (find -o, !, -prune, -path): with any of them, as an option
	// or a static word, there is no filter.
	Unless []string `yaml:"unless,omitempty" json:"unless,omitempty"`
}

// InputArgsSpec says how a program that runs a command with the words it
// reads from stdin splits that input (catalog input_args: xargs).
type InputArgsSpec struct {
	// Nul are the options that make it split at NUL bytes only.
	Nul []string `yaml:"nul,omitempty" json:"nul,omitempty"`
	// Replace are the options whose value is the word replaced by each
	// input line (xargs -I R).
	Replace []string `yaml:"replace,omitempty" json:"replace,omitempty"`
	// ReplaceDefault is the replace word of a Replace option given without
	// a (static, non-empty) value (xargs -i: "{}").
	ReplaceDefault string `yaml:"replace_default,omitempty" json:"replace_default,omitempty"`
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkKnowledge checks walk, produces_paths and input_args: every option
// they name is an option of the program (or its parents), every kind and
// root is known, nothing is blank.
func (p *Program) checkKnowledge(bad func(string, ...any)) {
	canonical := func(field, n string) {
		if !p.canonical(n) {
			bad("%s: %q is not the first name of an option of the program or its parents", field, n)
		}
	}
	spellings := func(field string, names []string) {
		for _, n := range names {
			if !p.spelling(n) {
				bad("%s: %q is not an option of the program or its parents", field, n)
			}
		}
	}
	valued := func(field, n string) {
		canonical(field, n)
		for q := p; q != nil; q = q.parent {
			if o := q.optIndex[n]; o != nil && o.Names[0] == n && o.Value == "" {
				bad("%s: option %s takes no value", field, n)
			}
		}
	}
	if w := p.Walk; w != nil {
		if w.ExcludeHint != "" && strings.TrimSpace(w.ExcludeHint) == "" {
			bad("walk: exclude_hint is blank")
		}
		if h := w.Hidden; h != nil {
			if len(h.ShownBy) == 0 {
				bad("walk: hidden: shown_by is empty (list the options that show hidden names)")
			}
			for _, s := range h.ShownBy {
				if !shownByWord(s) {
					bad("walk: hidden: shown_by %q is not -X, --long or --prefix*", s)
				}
			}
			if h.ConfigEnv != "" && !envName.MatchString(h.ConfigEnv) {
				bad("walk: hidden: config_env %q is not an environment variable name", h.ConfigEnv)
			}
			for _, f := range h.IgnoreFiles {
				if f == "" || strings.HasPrefix(f, "/") || strings.ContainsAny(f, "*?[\x00") || strings.Contains("/"+f+"/", "/../") || strings.Contains("/"+f+"/", "/./") {
					bad("walk: hidden: ignore_files %q is not a relative path", f)
				}
			}
		}
		if n := w.NamesOnlyWith; n != nil {
			if len(n.AnyOf) == 0 {
				bad("walk: names_only_with: any_of is empty")
			}
			spellings("walk: names_only_with: any_of", n.AnyOf)
			for _, s := range n.NoneOf {
				if !shownByWord(s) {
					bad("walk: names_only_with: none_of %q is not -X, --long or --prefix*", s)
				}
			}
		}
		for _, e := range w.Excludes {
			switch e.Kind {
			case ExcludeFile, ExcludeDir, ExcludePath, ExcludeInclude:
			default:
				bad("walk: excludes %s: unknown kind %q (want file, dir, path or include)", e.Option, e.Kind)
			}
			valued("walk: excludes", e.Option)
			for _, u := range e.Unless {
				canonical("walk: excludes "+e.Option+" unless", u)
			}
		}
	}
	if pp := p.ProducesPaths; pp != nil {
		spellings("produces_paths: any_of", pp.AnyOf)
		for _, n := range pp.NoneOf {
			if len(n) < 2 || n[0] != '-' || strings.ContainsAny(n, " =") {
				bad("produces_paths: none_of: %q is not an option", n)
			}
		}
		spellings("produces_paths: nul", pp.Nul)
		for _, n := range pp.Substitution {
			if n != "*" {
				canonical("produces_paths: substitution", n)
			}
		}
		switch pp.DefaultRoot {
		case "", "cwd", "repo":
		default:
			bad("produces_paths: unknown default_root %q (want cwd or repo)", pp.DefaultRoot)
		}
		if nf := pp.NameFilter; nf != nil {
			valued("produces_paths: name_filter", nf.Option)
			for _, u := range nf.Unless {
				if strings.TrimSpace(u) == "" {
					bad("produces_paths: name_filter: unless has a blank word")
				}
			}
		}
	}
	if ia := p.InputArgs; ia != nil {
		spellings("input_args: nul", ia.Nul)
		spellings("input_args: replace", ia.Replace)
		if len(ia.Replace) > 0 && ia.ReplaceDefault == "" {
			bad("input_args: replace needs a replace_default")
		}
	}
}

// shownByWord reports whether s is a word shown_by accepts.
func shownByWord(s string) bool {
	switch {
	case strings.HasPrefix(s, "--"):
		return len(strings.TrimSuffix(s[2:], "*")) > 0 && !strings.ContainsAny(strings.TrimSuffix(s, "*"), "*= ")
	case strings.HasPrefix(s, "-"):
		return len(s) == 2 && s[1] != ' '
	}
	return false
}

// knowledgeFacts gives every catalogued segment of the report the facts
// its catalog entry holds about walks, produced paths, input arguments,
// config aliases and what points the git it runs elsewhere.
func (w *walker) knowledgeFacts() {
	for i := range w.r.Segments {
		s := &w.r.Segments[i]
		root, spec, walk := w.cfg.cat.segmentSpecs(s)
		if s.RunsGit {
			// before the subcommand is known: git frob runs git too
			w.gitRepoFacts(s, root, spec)
		}
		if spec == nil {
			continue
		}
		if walk != nil {
			s.Walk = walkFacts(s, walk)
		}
		if spec.ProducesPaths != nil {
			s.Produces = producesFacts(s, spec.ProducesPaths)
		}
		if spec.InputArgs != nil {
			s.InputArgs = inputArgsFacts(s, spec.InputArgs)
		}
		if root.ConfigAliases {
			s.ConfigAlias = aliasWord(s)
		}
	}
}

// segmentSpecs returns the catalog entries of a segment: its program's,
// the one of its subcommand (Segment.Subcommand; the program's when it has
// none), and the walk of the deepest of them that has one. spec is nil
// when the program is not catalogued or a subcommand is not found.
func (c *Catalog) segmentSpecs(s *Segment) (root, spec *Program, walk *WalkSpec) {
	if c == nil || !s.Known || s.Name == "" || s.DynamicProgram {
		return nil, nil, nil
	}
	root = c.Lookup(s.Name)
	if root == nil {
		return nil, nil, nil
	}
	spec, walk = root, root.Walk
	for sub := s.Subcommand; sub != ""; {
		name, rest, _ := strings.Cut(sub, " ")
		sub = rest
		if name == "" {
			continue
		}
		if spec = spec.Sub(name); spec == nil {
			return nil, nil, nil
		}
		if spec.Walk != nil {
			walk = spec.Walk
		}
	}
	return root, spec, walk
}

// walkFacts is the walk of segment s under spec w.
func walkFacts(s *Segment, w *WalkSpec) *Walk {
	f := &Walk{NamesOnly: w.NamesOnly, Hint: w.ExcludeHint}
	if n := w.NamesOnlyWith; n != nil && anyWord(s, n.AnyOf) != "" && !shownBy(s.Args, n.NoneOf) {
		f.NamesOnly = true
	}
	if h := w.Hidden; h != nil && !shownBy(s.Args, h.ShownBy) {
		f.SkipHidden = true
		f.HiddenEnv = h.ConfigEnv
		f.HiddenIgnoreFiles = h.IgnoreFiles
		f.HiddenGitExcludes = h.GitExcludes
	}
	f.Excludes = excludes(s.Options, w.Excludes)
	for _, g := range w.Only {
		f.Excludes = append(f.Excludes, Exclude{Kind: ExcludeInclude, Glob: g})
	}
	return f
}

// shownBy reports whether args hold one of the words of a shown_by list
// (see HiddenSpec), or a word that is not static (it may expand to one).
// "--" ends the options.
func shownBy(args []Arg, words []string) bool {
	for _, a := range args {
		if !a.Static() && a.Dynamic != "tilde" {
			return true
		}
		v := a.Value
		switch {
		case v == "--":
			return false
		case strings.HasPrefix(v, "--"):
			for _, s := range words {
				if v == s || strings.HasSuffix(s, "*") && strings.HasPrefix(s, "--") && strings.HasPrefix(v, strings.TrimSuffix(s, "*")) {
					return true
				}
			}
		case strings.HasPrefix(v, "-"):
			for _, s := range words {
				if len(s) == 2 && s[0] == '-' && strings.IndexByte(v[1:], s[1]) >= 0 {
					return true
				}
			}
		}
	}
	return false
}

// excludes returns the globs the options exclude, in the order given.
// An include glob not known statically may let any file in: then no
// include glob is returned.
func excludes(opts []Opt, specs []ExcludeSpec) []Exclude {
	var out []Exclude
	defer func() {
		if dynamicInclude(opts, specs) {
			kept := out[:0]
			for _, e := range out {
				if e.Kind != ExcludeInclude {
					kept = append(kept, e)
				}
			}
			out = kept
		}
	}()
	for _, o := range opts {
		for _, e := range specs {
			if o.Name != e.Option {
				continue
			}
			if given(opts, e.Unless) {
				continue
			}
			if e.Negated {
				if o.Value == nil || !o.Value.Static() || !strings.HasPrefix(o.Value.Value, "!") {
					return nil // it may re-include a path: honour none
				}
				out = append(out, Exclude{Kind: e.Kind, Glob: o.Value.Value[1:]})
				continue
			}
			if o.Value == nil || !o.Value.Static() {
				continue
			}
			out = append(out, Exclude{Kind: e.Kind, Glob: o.Value.Value})
		}
	}
	return out
}

// given reports whether one of the options (by first name) is given.
func given(opts []Opt, names []string) bool {
	for _, o := range opts {
		if hasString(names, o.Name) {
			return true
		}
	}
	return false
}

// producesFacts is what bounds the paths segment s prints under rule pp.
func producesFacts(s *Segment, pp *ProducesSpec) *Produces {
	f := &Produces{DefaultRoot: pp.DefaultRoot, Nul: anyWord(s, pp.Nul) != ""}
	if len(pp.AnyOf) > 0 && anyWord(s, pp.AnyOf) == "" {
		f.Without = append([]string(nil), pp.AnyOf...)
	}
	f.Other = anyWord(s, pp.NoneOf)
	if pp.NameFilter != nil {
		f.NameGlob = nameFilter(s, pp.NameFilter)
	}
	return f
}

// inputArgsFacts is how segment s splits its input under rule ia.
func inputArgsFacts(s *Segment, ia *InputArgsSpec) *InputArgs {
	f := &InputArgs{Nul: anyWord(s, ia.Nul) != ""}
	for _, o := range s.Options {
		if hasString(ia.Replace, o.Name) {
			f.Replace = ia.ReplaceDefault
			if o.Value != nil && o.Value.Static() && o.Value.Value != "" {
				f.Replace = o.Value.Value
			}
			break
		}
	}
	return f
}

// optionWord reports whether n is an option name of segment s: the
// catalog's canonical or written name of an option it parsed, or, when it
// parsed no option, a word before "--" that looks like one (or a letter
// of a cluster, as "-x"). It scans instead of building a set: a segment
// has few words, and this runs for every producer.
func optionWord(s *Segment, n string) bool {
	for _, o := range s.Options {
		if o.Name == n || o.Written == n {
			return true
		}
	}
	if len(s.Options) > 0 {
		return false
	}
	for _, a := range s.Args {
		v := a.Value
		if v == "--" {
			break
		}
		if i := strings.IndexByte(v, '='); i > 0 && strings.HasPrefix(v, "--") {
			v = v[:i]
		}
		if strings.HasPrefix(v, "--") {
			if v == n {
				return true
			}
		} else if strings.HasPrefix(v, "-") && len(v) > 1 {
			if v == n {
				return true
			}
			if len(n) > 1 && n[0] == '-' {
				for _, c := range v[1:] {
					if n[1:] == string(c) {
						return true
					}
				}
			}
		}
	}
	return false
}

// anyWord returns the first of names that is an option word of s
// (optionWord), or "".
func anyWord(s *Segment, names []string) string {
	for _, n := range names {
		if optionWord(s, n) {
			return n
		}
	}
	return ""
}

// nameFilter returns the one pattern that every name the segment prints
// matches, or "" when its expression is not that simple: a single static
// nf.Option and no word of nf.Unless, as an option or a static argument.
func nameFilter(s *Segment, nf *NameFilterSpec) string {
	pat := ""
	for _, o := range s.Options {
		switch {
		case hasString(nf.Unless, o.Name):
			return ""
		case o.Name == nf.Option:
			if pat != "" || o.Value == nil || !o.Value.Static() {
				return ""
			}
			pat = o.Value.Value
		}
	}
	for _, a := range s.Args {
		if a.Static() && hasString(nf.Unless, a.Value) {
			return ""
		}
	}
	if _, err := path.Match(pat, ""); err != nil {
		return ""
	}
	return pat
}

// aliasWord is the first word after the program's options: its
// subcommand, or the word it may look up as an alias.
func aliasWord(s *Segment) string {
	if f := strings.Fields(s.Subcommand); len(f) > 0 {
		return f[0]
	}
	for _, a := range s.Args {
		if !a.Static() {
			return ""
		}
		inOpt := false
		for _, o := range s.Options {
			if a.Span.Start >= o.Span.Start && a.Span.End <= o.Span.End {
				inOpt = true
			}
		}
		if !inOpt && !strings.HasPrefix(a.Value, "-") {
			return a.Value
		}
	}
	return ""
}

// EnvNames returns the environment variables whose value changes what a
// program of the catalog reads (a walk's hidden.config_env, the variables
// a hidden input names), sorted and
// each once: what a request should say of the agent's environment.
func (c *Catalog) EnvNames() []string {
	seen := map[string]bool{}
	var walk func(p *Program)
	walk = func(p *Program) {
		if p.Walk != nil && p.Walk.Hidden != nil && p.Walk.Hidden.ConfigEnv != "" {
			seen[p.Walk.Hidden.ConfigEnv] = true
		}
		if p.Walk != nil && p.Walk.Hidden != nil && p.Walk.Hidden.GitExcludes {
			seen["XDG_CONFIG_HOME"], seen["GIT_CONFIG_GLOBAL"] = true, true
		}
		for _, hi := range p.HiddenInputs {
			for _, n := range hi.EnvNames() {
				seen[n] = true
			}
		}
		for _, s := range p.Subcommands {
			walk(s)
		}
	}
	for _, p := range c.Programs {
		walk(p)
	}
	// PATH: the read station looks bare program names up in it, to find
	// a program file the workspace ships (readstation's pathPrograms).
	seen["PATH"] = true
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// dynamicInclude reports whether an include option (kind include) is
// given with a value that is not static, or that an unless option turns
// off.
func dynamicInclude(opts []Opt, specs []ExcludeSpec) bool {
	for _, o := range opts {
		for _, e := range specs {
			if e.Kind == ExcludeInclude && o.Name == e.Option && (o.Value == nil || !o.Value.Static()) {
				return true
			}
		}
	}
	return false
}
