package policy

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/shellgate/shellgate/trust"
)

// ProjectConfigUntrusted is the reason code a decision carries when a part
// of an untrusted project file (a .shellgate.yaml found from the cwd, or a
// policy directory it names) was ignored and would have made the decision
// more permissive.
const ProjectConfigUntrusted = "project-config-untrusted"

// Untrusted is a project file or policy directory that the user has not
// trusted (or has changed since), with what of it was ignored.
type Untrusted struct {
	// Path is the config file or the policy directory.
	Path string `json:"path"`
	// Kind is trust.KindFile (a config) or trust.KindDir (a policy
	// directory).
	Kind string `json:"kind"`
	// Ignored lists the parts left out, e.g. `grants "python3 **"`.
	Ignored []string `json:"ignored"`
	// TrustDir is the directory to give `shellgate trust`.
	TrustDir string `json:"trust_dir"`
}

// TrustCommand is the command that trusts the file: shellgate trust DIR.
func (u Untrusted) TrustCommand() string { return "shellgate trust " + shellQuote(u.TrustDir) }

// Resolved is a config with its project parts judged against the user's
// trust store. A config the user named, the user's own config and the
// defaults are used whole. A project config (Source SourceProject) and
// each policy directory it names is used whole only when the store holds
// its path with its current digest; otherwise only its tightening part
// applies (its deny_reads rows, its mode when that is readonly, the deny
// and ask rules of its modules) and the rest is ignored and listed in
// Untrusted.
type Resolved struct {
	// Config is the config in effect.
	Config *Config
	// Full is the whole config when a widening part of it was ignored
	// (nil otherwise): deciding with it says whether the ignored part
	// would have made a difference.
	Full *Config
	// PolicyDirs are the policy directories to read as they are: those a
	// config named that is not a project's.
	PolicyDirs []string
	// Modules are the Rego modules of trusted project policy directories
	// (file path to source), read together with their digest.
	Modules map[string]string
	// UntrustedModules are those of untrusted project policy directories:
	// only their deny and ask reasons may apply.
	UntrustedModules map[string]string
	// Untrusted lists what was ignored, file by file.
	Untrusted []Untrusted
	// StoreError says why the trust store could not be used (nothing is
	// then trusted); nil when it was read or not needed.
	StoreError error
	// StorePath is the trust store consulted ("" when none was needed).
	StorePath string
}

// Resolve judges cfg against the trust store at trust.Path(). A store that
// cannot be read (corrupt, writable by others, owned by another user) trusts
// nothing; its error is in StoreError. A project's policy directory that
// cannot be read (one of its modules a FIFO, a link to a device or to
// nothing) is not skipped: it is the config's Problem, and every decision
// is then denied.
func Resolve(cfg *Config) (*Resolved, error) {
	if cfg == nil || cfg.Source != SourceProject {
		return ResolveWith(cfg, nil, "", nil)
	}
	path, err := trust.Path()
	var store *trust.Store
	if err == nil {
		store, err = trust.Load(path)
	}
	return ResolveWith(cfg, store, path, err)
}

// ResolveWith is Resolve with the store given: store (read from
// storePath) or the error that reading it gave.
func ResolveWith(cfg *Config, store *trust.Store, storePath string, storeErr error) (*Resolved, error) {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	r := &Resolved{Config: cfg}
	if cfg.Source != SourceProject {
		r.PolicyDirs = append([]string(nil), cfg.PolicyDirs...)
		return r, nil
	}
	r.StorePath, r.StoreError = storePath, storeErr
	if storeErr != nil {
		store = nil
	}
	trustDir := filepath.Dir(cfg.Path)
	var problems []string
	for _, d := range cfg.PolicyDirs {
		dir := filepath.Clean(expandHome(d))
		t, err := trust.ReadTree(dir)
		if err != nil {
			// A module that cannot be read (a FIFO, a link to a
			// device, a dangling link) is never skipped: the whole
			// project's rules are then not known.
			problems = append(problems, fmt.Sprintf("the policy directory %s (named in %s) cannot be used (%v), so the rules it holds are not known and every command is denied until it is fixed or removed", dir, cfg.Path, err))
			continue
		}
		mods := map[string]string{}
		for p, b := range t.Files {
			if strings.HasSuffix(p, ".rego") && !strings.HasSuffix(p, "_test.rego") {
				mods[p] = string(b)
			}
		}
		if store.Trusted(dir, trust.KindDir, t.SHA256) {
			r.Modules = merge(r.Modules, mods)
			continue
		}
		r.UntrustedModules = merge(r.UntrustedModules, mods)
		r.Untrusted = append(r.Untrusted, Untrusted{
			Path: dir, Kind: trust.KindDir, TrustDir: trustDir,
			Ignored: []string{"any allow (grant) its Rego modules produce, and every rule they add besides deny and ask"},
		})
	}
	if store.Trusted(cfg.Path, trust.KindFile, cfg.sum) && cfg.Problem == "" {
		r.Config = withProblems(r.Config, problems)
		return r, nil
	}
	tight, ignored := cfg.tightening()
	r.Config = withProblems(tight, problems)
	if len(ignored) > 0 {
		r.Full = withProblems(cfg, problems)
		r.Untrusted = append([]Untrusted{{Path: cfg.Path, Kind: trust.KindFile, TrustDir: trustDir, Ignored: ignored}}, r.Untrusted...)
	}
	return r, nil
}

// withProblems is c with problems added to its Problem (a copy, when
// there are any).
func withProblems(c *Config, problems []string) *Config {
	if len(problems) == 0 {
		return c
	}
	cc := *c
	all := problems
	if cc.Problem != "" {
		all = append([]string{cc.Problem}, problems...)
	}
	cc.Problem = strings.Join(all, "; ")
	return &cc
}

// tightening returns the part of c that can only make the gate stricter
// (its mode, deny rows and policy directories: the directories' modules are
// judged on their own) and lists what it leaves out (its shell too: naming
// one shell judges a command as that shell alone, not as bash and zsh).
func (c *Config) tightening() (*Config, []string) {
	t := &Config{
		Problem:    c.Problem,
		Mode:       c.Mode,
		DenyReads:  append([]string(nil), c.DenyReads...),
		PolicyDirs: append([]string(nil), c.PolicyDirs...),
		Path:       c.Path,
		Source:     c.Source,
		sum:        c.sum,
	}
	if t.Mode == "" {
		t.Mode = ModeDefault
	}
	var ignored []string
	list := func(key string, vals []string) {
		if len(vals) == 0 {
			return
		}
		q := make([]string, len(vals))
		for i, v := range vals {
			q[i] = fmt.Sprintf("%q", v)
		}
		ignored = append(ignored, key+" "+strings.Join(q, ", "))
	}
	list("grants", c.Grants)
	list("roots", c.Roots)
	list("read_only_programs", c.ReadOnlyPrograms)
	list("remote_reads", c.RemoteReads)
	// Only the narrowest sandbox setting tightens; the others would widen
	// what a command may touch.
	switch c.Sandbox {
	case "", SandboxAuto:
	case "read-only":
		t.Sandbox = c.Sandbox
	default:
		ignored = append(ignored, "sandbox: "+c.Sandbox)
	}
	// Resource limits tighten when they are below the defaults.
	if l := c.SandboxLimits; l != nil {
		d := DefaultSandboxLimits
		kept := &SandboxLimits{}
		if l.Processes > 0 && l.Processes <= d.Processes {
			kept.Processes = l.Processes
		}
		if l.MemoryMB > 0 && l.MemoryMB <= d.MemoryMB {
			kept.MemoryMB = l.MemoryMB
		}
		if l.FileSizeMB > 0 && l.FileSizeMB <= d.FileSizeMB {
			kept.FileSizeMB = l.FileSizeMB
		}
		if *kept != (SandboxLimits{}) {
			t.SandboxLimits = kept
		}
		if *kept != *l {
			ignored = append(ignored, fmt.Sprintf("sandbox_limits: %+v", *l))
		}
	}
	if c.ReplaceDefaultDenyReads {
		ignored = append(ignored, "replace_default_deny_reads: true")
	}
	if c.Shell != "" {
		// One shell instead of both bash and zsh narrows the judgment.
		ignored = append(ignored, "shell: "+c.Shell)
	}
	return t, ignored
}

// Message is the text of a project-config-untrusted reason: what was
// ignored, file by file, and the command that trusts it.
func (r *Resolved) Message() string {
	var b strings.Builder
	b.WriteString("the project's shellgate configuration is not trusted, so what it would allow was ignored (it would have been more permissive here):")
	cmds := map[string]bool{}
	var order []string
	for _, u := range r.Untrusted {
		fmt.Fprintf(&b, " %s: %s;", u.Path, strings.Join(u.Ignored, "; "))
		if c := u.TrustCommand(); !cmds[c] {
			cmds[c] = true
			order = append(order, c)
		}
	}
	if r.StoreError != nil {
		fmt.Fprintf(&b, " the trust store was not used: %v;", r.StoreError)
	}
	fmt.Fprintf(&b, " review it, then trust it with: %s", strings.Join(order, " && "))
	return b.String()
}

func merge(dst, src map[string]string) map[string]string {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = map[string]string{}
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}

// expandHome folds a leading ~ into the home directory.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home := homeDir()
	if home == "" {
		return p
	}
	return filepath.Join(home, p[1:])
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ProjectEntries returns what `shellgate trust DIR` records: the project
// config that applies in dir (a .shellgate.yaml in dir or a parent) and
// each policy directory it names, each with its current digest, stamped
// now. cfg is that config, nil when there is no project config (the user's
// own config needs no trust). A config that does not parse, or a policy
// directory that cannot be read, is an error: nothing is recorded.
func ProjectEntries(dir string, now time.Time) (cfg *Config, entries []trust.Entry, err error) {
	path, src, err := FindConfigSource(dir)
	if err != nil {
		return nil, nil, err
	}
	if path == "" || src != SourceProject {
		return nil, nil, nil
	}
	if cfg, err = LoadConfigFrom(path, SourceProject); err != nil {
		return nil, nil, err
	}
	entries = append(entries, trust.Entry{Path: cfg.Path, Kind: trust.KindFile, SHA256: cfg.sum, TrustedAt: now})
	for _, d := range cfg.PolicyDirs {
		p := filepath.Clean(expandHome(d))
		t, err := trust.ReadTree(p)
		if err != nil {
			return nil, nil, fmt.Errorf("policy directory (named in %s): %w", cfg.Path, err)
		}
		entries = append(entries, trust.Entry{Path: p, Kind: trust.KindDir, SHA256: t.SHA256, TrustedAt: now})
	}
	return cfg, entries, nil
}

// EntryStatus says whether a trusted entry still matches: "trusted", or
// "changed" (its content is not what was trusted: it is untrusted again),
// or "missing".
func EntryStatus(e trust.Entry) string {
	var sum string
	switch e.Kind {
	case trust.KindDir:
		t, err := trust.ReadTree(e.Path)
		if err != nil {
			return "missing"
		}
		sum = t.SHA256
	default:
		b, err := trust.ReadRegular(e.Path, MaxConfigBytes)
		if err != nil {
			return "missing"
		}
		sum = trust.Sum(b)
	}
	if sum != e.SHA256 {
		return "changed"
	}
	return "trusted"
}

// ResolveUnder is the config of a policy bundle, base, tightened by the
// project config proj found from a command's cwd as an untrusted project
// config tightens (see Resolved): a bundle is the only source of what
// widens, so nothing of proj is trusted, whatever the user's store says.
// Its tightening part (deny rows, a readonly mode, a read-only sandbox,
// lower limits, a problem) is added to base, and its policy directories'
// modules apply as untrusted ones (their deny and ask rules only).
func ResolveUnder(base, proj *Config) (*Resolved, error) {
	pr, err := ResolveWith(proj, nil, "", nil) // no store: nothing widens
	if err != nil {
		return nil, err
	}
	t := pr.Config // the tightening part (ResolveWith: nothing trusted)
	merged := *base
	merged.DenyReads = append(append([]string(nil), base.DenyReads...), t.DenyReads...)
	if t.Mode == ModeReadonly {
		merged.Mode = ModeReadonly
	}
	if t.Sandbox == "read-only" {
		merged.Sandbox = t.Sandbox
	}
	if l := t.SandboxLimits; l != nil {
		merged.SandboxLimits = lowerLimits(base.SandboxLimits, l)
	}
	if t.Problem != "" {
		merged.Problem = strings.TrimPrefix(base.Problem+"; "+t.Problem, "; ")
	}
	r := &Resolved{Config: &merged, UntrustedModules: merge(merge(nil, pr.Modules), pr.UntrustedModules)}
	return r, nil
}

// lowerLimits is base with each limit of t that is set and lower.
func lowerLimits(base, t *SandboxLimits) *SandboxLimits {
	out := &SandboxLimits{}
	if base != nil {
		*out = *base
	}
	lower(&out.Processes, t.Processes)
	lower(&out.MemoryMB, t.MemoryMB)
	lower(&out.FileSizeMB, t.FileSizeMB)
	return out
}

// lower sets *dst to v when v is set and *dst is not, or is higher.
func lower[T int | int64](dst *T, v T) {
	if v > 0 && (*dst <= 0 || v < *dst) {
		*dst = v
	}
}
