package gitrepo

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// Scope is where git found a setting, as `git config --show-scope` names
// it.
type Scope string

// The scopes git reads, in its order.
const (
	ScopeSystem   Scope = "system"
	ScopeGlobal   Scope = "global"
	ScopeLocal    Scope = "local"
	ScopeWorktree Scope = "worktree"
	ScopeCommand  Scope = "command"
)

// Entry is one setting as git reads it.
type Entry struct {
	// Scope is the scope of the file (or environment) that set it; an
	// included file has the scope of the file that includes it.
	Scope Scope
	// File is the file that sets it, as git names it (the path of an
	// include is the includer's directory joined to it, not cleaned); ""
	// for the environment (GIT_CONFIG_COUNT).
	File string
	// Name is the canonical name: section and key lower-cased, a
	// subsection as written ("diff.My Driver.textconv").
	Name string
	// Value is the value; NoValue marks a bare key ("[core] bare"), which
	// git reads as true.
	Value   string
	NoValue bool
	// EnvKey names the variable that set it when File is ""
	// (GIT_CONFIG_KEY_0).
	EnvKey string
}

// Section, Subsection and Key split Name the way git does: the section
// up to the first dot, the key after the last, the subsection between
// ("" when there is none).
func (e Entry) Section() string {
	s, _, _ := splitName(e.Name)
	return s
}

// Subsection returns the part of Name between its first and last dot.
func (e Entry) Subsection() string {
	_, sub, _ := splitName(e.Name)
	return sub
}

// Key returns the part of Name after its last dot.
func (e Entry) Key() string {
	_, _, k := splitName(e.Name)
	return k
}

// PrintsKey reports an entry whose key git prints, on every command that
// reads the configuration: a key outside any section, as a file of one
// word (a token) reads, makes git say "error: key does not contain a
// section: <key>" and go on (git 2.39: .git/config, an included file or
// ~/.gitconfig linked to ~/.vault-token made git status print the token,
// redrepo2). TestPrintsKeyMatchesGit holds it to git.
func (e Entry) PrintsKey() bool { return e.File != "" && !strings.Contains(e.Name, ".") }

func splitName(n string) (section, sub, key string) {
	first := strings.IndexByte(n, '.')
	last := strings.LastIndexByte(n, '.')
	if first < 0 {
		return "", "", n
	}
	if first == last {
		return n[:first], "", n[last+1:]
	}
	return n[:first], n[first+1 : last], n[last+1:]
}

// Files reads the files git would read. The caller provides it, so that
// it can record each file read (a change between the check and the spawn
// is another configuration) and bound what it reads.
type Files interface {
	// ReadFile returns the whole content of the file at path, following
	// symlinks. An error that wraps fs.ErrNotExist means there is no file
	// there (git skips a missing config file); any other error means
	// git may read what the caller could not.
	ReadFile(path string) ([]byte, error)
	// RealPath returns path with every symlink resolved (realpath(3)).
	RealPath(path string) (string, error)
}

// Options say which configuration to read: the environment git runs in and
// the repository it found.
type Options struct {
	// Files reads the files.
	Files Files
	// Env looks up a variable of the environment git runs in; known false
	// means its value is not known, which makes the configuration not
	// established when git would read it. HOME is read through Env.
	Env func(name string) (value string, known bool)
	// GitDir is the repository's git directory (a linked worktree's own,
	// under the main one's worktrees/), absolute; "" outside a
	// repository. CommonDir is the directory its config lives in (GitDir
	// when there is no commondir file).
	GitDir, CommonDir string
	// AllConditions takes every includeIf condition as true (and marks
	// the Config a superset): for a file read without the repository git
	// would evaluate its conditions in (LoadFile).
	AllConditions bool
	// SystemConfig is the system file when GIT_CONFIG_SYSTEM is not set
	// ("" means /etc/gitconfig, where Debian's git and most builds look).
	SystemConfig string
}

// DefaultSystemConfig is the system config file of git built with
// prefix=/usr (Debian, Fedora, Homebrew's is elsewhere).
const DefaultSystemConfig = "/etc/gitconfig"

// maxIncludeDepth is git's MAX_INCLUDE_DEPTH: a deeper include makes git
// die.
const maxIncludeDepth = 10

// maxEnvCount bounds the GIT_CONFIG_COUNT entries read.
const maxEnvCount = 1000

// NotEstablishedError says why the configuration git reads cannot be
// known: a file or variable git reads that cannot be read, or that git
// refuses (then git dies before it runs anything), or a spelling this
// package does not read exactly as git does.
type NotEstablishedError struct {
	// File is the file concerned ("" for the environment).
	File string
	// Scope is the scope being read.
	Scope Scope
	// Why says what happened.
	Why string
	// unsure: git may well read this configuration, but this package
	// does not read it exactly (a spelling it does not model, a value
	// not known); otherwise git refuses it or cannot read it either.
	unsure bool
}

func (e *NotEstablishedError) Error() string {
	if e.File == "" {
		return e.Why
	}
	return e.File + ": " + e.Why
}

// Config is the configuration git reads, in its order.
type Config struct {
	// Entries are every setting of every scope, includes expanded where
	// git expands them.
	Entries []Entry
	// Superset is set when a conditional include was followed whose
	// condition this package does not evaluate exactly (hasconfig:, a
	// gitdir pattern with a bracket or an escape, onbranch on a HEAD it
	// cannot read): Entries may hold more than git reads, never less.
	Superset bool
	// WorktreeConfig says whether git reads config.worktree
	// (extensions.worktreeConfig in the repository's config).
	WorktreeConfig bool
}

// Last returns the last entry named name (canonical), which is the value git
// uses for a single-valued key.
func (c *Config) Last(name string) (Entry, bool) {
	for i := len(c.Entries) - 1; i >= 0; i-- {
		if c.Entries[i].Name == name {
			return c.Entries[i], true
		}
	}
	return Entry{}, false
}

type loader struct {
	o       Options
	cfg     *Config
	depth   int
	scope   Scope
	gitReal string // the real path of GitDir, for gitdir: conditions
	home    string
	homeSet bool
	envKey  string // the variable of the entry being read, for Entry.EnvKey
	last    struct {
		path string
		data []byte
	}
}

// Load reads the configuration git 2.39 reads for a command run with
// Options' environment in Options' repository: system, global, local,
// worktree and the environment's (GIT_CONFIG_COUNT), each with its
// includes. Anything it cannot read exactly as git does is a
// *NotEstablishedError, and then no entries: a partial list would hide
// what git reads past the point where the reading stopped.
func Load(o Options) (*Config, error) {
	l := &loader{o: o, cfg: &Config{}}
	if err := l.load(); err != nil {
		return nil, err
	}
	return l.cfg, nil
}

// LoadFile reads one config file and what it includes, as git reads it
// in scope (a missing file is no entries). Options' GitDir, when set, is
// the repository whose gitdir: and onbranch: conditions apply; Env gives
// HOME (for "~/" includes).
func LoadFile(o Options, path string, scope Scope) (*Config, error) {
	l := &loader{o: o, cfg: &Config{}, scope: scope}
	var err error
	if l.home, l.homeSet, err = l.env("HOME"); err != nil {
		return nil, err
	}
	l.gitReal = o.GitDir
	if o.GitDir != "" {
		if r, err := o.Files.RealPath(o.GitDir); err == nil {
			l.gitReal = r
		}
	}
	if err := l.topFile(path); err != nil {
		return nil, err
	}
	return l.cfg, nil
}

func (l *loader) env(name string) (string, bool, error) {
	v, known := "", false
	if l.o.Env != nil {
		v, known = l.o.Env(name)
	}
	if !known {
		return "", false, &NotEstablishedError{Scope: l.scope, Why: fmt.Sprintf("git reads the environment variable %s, whose value is not known", name), unsure: true}
	}
	// Env gives "" for a variable not set, so an empty one reads as not
	// set: for GIT_CONFIG_GLOBAL= and GIT_CONFIG_SYSTEM= (git reads no
	// file) that reads more files than git does, never fewer.
	return v, v != "", nil
}

func (l *loader) load() error {
	var err error
	if l.home, l.homeSet, err = l.env("HOME"); err != nil {
		return err
	}
	// System.
	l.scope = ScopeSystem
	nosys, _, err := l.env("GIT_CONFIG_NOSYSTEM")
	if err != nil {
		return err
	}
	skip, ok := parseBool(nosys, false)
	if !ok {
		return &NotEstablishedError{Scope: l.scope, Why: fmt.Sprintf("GIT_CONFIG_NOSYSTEM=%q is not a boolean: git dies", nosys)}
	}
	if !skip {
		sys, set, err := l.env("GIT_CONFIG_SYSTEM")
		if err != nil {
			return err
		}
		if !set {
			sys = l.o.SystemConfig
			if sys == "" {
				sys = DefaultSystemConfig
			}
		}
		if err := l.topFile(sys); err != nil {
			return err
		}
	}
	// Global: GIT_CONFIG_GLOBAL, else $XDG_CONFIG_HOME/git/config (or
	// ~/.config/git/config), then ~/.gitconfig.
	l.scope = ScopeGlobal
	glob, set, err := l.env("GIT_CONFIG_GLOBAL")
	if err != nil {
		return err
	}
	if set {
		if err := l.topFile(glob); err != nil {
			return err
		}
	} else {
		xdg, xset, err := l.env("XDG_CONFIG_HOME")
		if err != nil {
			return err
		}
		switch {
		case xset:
			err = l.topFile(xdg + "/git/config")
		case l.homeSet:
			err = l.topFile(l.home + "/.config/git/config")
		}
		if err != nil {
			return err
		}
		if l.homeSet {
			if err := l.topFile(l.home + "/.gitconfig"); err != nil {
				return err
			}
		}
	}
	// Local and worktree.
	if l.o.GitDir != "" {
		common := l.o.CommonDir
		if common == "" {
			common = l.o.GitDir
		}
		if real, err := l.o.Files.RealPath(l.o.GitDir); err == nil {
			l.gitReal = real
		} else {
			l.gitReal = l.o.GitDir
		}
		l.scope = ScopeLocal
		local := common + "/config"
		wt, err := l.worktreeConfig(local)
		if err != nil {
			return err
		}
		if err := l.topFile(local); err != nil {
			return err
		}
		if wt {
			l.cfg.WorktreeConfig = true
			l.scope = ScopeWorktree
			if err := l.topFile(l.o.GitDir + "/config.worktree"); err != nil {
				return err
			}
		}
	}
	// The environment's: GIT_CONFIG_COUNT, then GIT_CONFIG_PARAMETERS.
	l.scope = ScopeCommand
	return l.envConfig()
}

// worktreeConfig reads extensions.worktreeConfig the way git's repository
// format check does: from the repository's config file alone, without its
// includes, and only in a repository of format version 1 (a version git
// does not know makes it ignore the repository: not established).
func (l *loader) worktreeConfig(local string) (bool, error) {
	data, err := l.read(local)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, &NotEstablishedError{File: local, Scope: l.scope, Why: fmt.Sprintf("it cannot be read (%v)", err)}
	}
	es, err := ParseFile(data)
	if err != nil {
		return false, &NotEstablishedError{File: local, Scope: l.scope, Why: fmt.Sprintf("git refuses it (%v) and dies", err)}
	}
	on, version := false, int64(0)
	for _, e := range es {
		if e.Name == "core.repositoryformatversion" {
			v, ok := parseInt(e.Value)
			if e.NoValue || !ok || v < 0 || v > 1 {
				return false, &NotEstablishedError{File: local, Scope: l.scope, Why: fmt.Sprintf("core.repositoryformatversion=%q is not 0 or 1: git ignores the repository, or dies", e.Value), unsure: true}
			}
			version = v
		}
		if e.Name == "extensions.worktreeconfig" {
			b, ok := parseBool(e.Value, e.NoValue)
			if !ok {
				return false, &NotEstablishedError{File: local, Scope: l.scope, Why: fmt.Sprintf("extensions.worktreeConfig=%q is not a boolean: git dies", e.Value)}
			}
			on = b
		}
	}
	// git honors extensions only in a repository of format version 1.
	return on && version >= 1, nil
}

// read reads p through Files once per Load (the repository's config is
// read for its format, then for its settings).
func (l *loader) read(p string) ([]byte, error) {
	if l.last.path == p && l.last.data != nil {
		return l.last.data, nil
	}
	data, err := l.o.Files.ReadFile(p)
	if err == nil {
		l.last.path, l.last.data = p, data
	}
	return data, err
}

// topFile reads a scope's file: a missing one is skipped, as git skips it.
func (l *loader) topFile(p string) error {
	l.depth = 0
	return l.file(p)
}

func (l *loader) file(p string) error {
	if p == "/dev/null" {
		return nil // git reads it as an empty file
	}
	data, err := l.read(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return &NotEstablishedError{File: p, Scope: l.scope, Why: fmt.Sprintf("it cannot be read (%v)", err)}
	}
	err = parseConfig(data, func(e rawEntry) error { return l.entry(e, p) })
	var se *SyntaxError
	if errors.As(err, &se) {
		return &NotEstablishedError{File: p, Scope: l.scope, Why: fmt.Sprintf("git refuses it (%v) and dies", err)}
	}
	return err
}

// entry is git_config_include: the entry, then what it includes.
func (l *loader) entry(e rawEntry, file string) error {
	ek := ""
	if file == "" {
		ek = l.envKey
	}
	l.cfg.Entries = append(l.cfg.Entries, Entry{Scope: l.scope, File: file, Name: e.name, Value: e.value, NoValue: e.noValue, EnvKey: ek})
	if e.name == "include.path" {
		return l.include(e, file)
	}
	section, cond, key := splitName(e.name)
	if section == "includeif" && key == "path" && strings.Contains(e.name[len("includeif."):], ".") {
		ok, err := l.condition(cond, file)
		if err != nil {
			return err
		}
		if ok {
			return l.include(e, file)
		}
	}
	return nil
}

// include is handle_path_include.
func (l *loader) include(e rawEntry, from string) error {
	if e.noValue {
		return &NotEstablishedError{File: from, Scope: l.scope, Why: fmt.Sprintf("%s has no value: git dies", e.name)}
	}
	p, ok, err := l.interpolate(e.value)
	if err != nil {
		return err
	}
	if !ok {
		return &NotEstablishedError{File: from, Scope: l.scope, Why: fmt.Sprintf("git cannot expand the include path %q and dies", e.value)}
	}
	if !strings.HasPrefix(p, "/") {
		if from == "" {
			return &NotEstablishedError{Scope: l.scope, Why: fmt.Sprintf("the relative include path %q does not come from a file: git dies", e.value)}
		}
		p = from[:strings.LastIndexByte(from, '/')+1] + p
	}
	if l.depth++; l.depth > maxIncludeDepth {
		return &NotEstablishedError{File: p, Scope: l.scope, Why: fmt.Sprintf("includes nest deeper than %d: git dies", maxIncludeDepth)}
	}
	err = l.file(p)
	l.depth--
	return err
}

// interpolate is interpolate_path(path, 0) for an include path: "~/"
// is $HOME. ok false where git cannot expand it (no HOME). "~user/" and
// "%(prefix)/" are not established.
func (l *loader) interpolate(p string) (string, bool, error) {
	if strings.HasPrefix(p, "%(prefix)/") {
		return "", false, &NotEstablishedError{Scope: l.scope, Why: fmt.Sprintf("the path %q is under git's install prefix, which is not known", p), unsure: true}
	}
	if !strings.HasPrefix(p, "~") {
		return p, true, nil
	}
	rest := p[1:]
	slash := strings.IndexByte(rest, '/')
	if slash != 0 && rest != "" {
		return "", false, &NotEstablishedError{Scope: l.scope, Why: fmt.Sprintf("the path %q names another user's home directory", p), unsure: true}
	}
	if !l.homeSet {
		return "", false, nil
	}
	return l.home + rest, true, nil
}

// parseBool is git_parse_maybe_bool then git_parse_int: ok false where git
// dies ("bad boolean config value").
func parseBool(v string, noValue bool) (bool, bool) {
	if noValue {
		return true, true
	}
	switch strings.ToLower(v) {
	case "":
		return false, true
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	n, ok := parseInt(v)
	return n != 0, ok
}

// parseInt is git_parse_int: strtoimax base 0 with a k, m or g unit.
func parseInt(v string) (int64, bool) {
	if v == "" {
		return 0, false
	}
	num := v
	mult := int64(1)
	switch strings.ToLower(v[len(v)-1:]) {
	case "k":
		num, mult = v[:len(v)-1], 1<<10
	case "m":
		num, mult = v[:len(v)-1], 1<<20
	case "g":
		num, mult = v[:len(v)-1], 1<<30
	}
	// strtoimax skips leading whitespace and takes a sign; base 0 reads
	// 0x as hex and a leading 0 as octal.
	num = strings.TrimLeft(num, " \t\n\v\f\r")
	n, err := strconv.ParseInt(num, 0, 32)
	digits := strings.ToLower(strings.TrimLeft(num, "+-"))
	if err != nil || strings.Contains(num, "_") || strings.HasPrefix(digits, "0o") || strings.HasPrefix(digits, "0b") {
		return 0, false // Go's base 0 reads what strtoimax does not
	}
	if n*mult > 1<<31-1 || n*mult < -1<<31 {
		return 0, false // git: out of range, and it dies
	}
	return n * mult, true
}
