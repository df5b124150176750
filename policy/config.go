package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/trust"
	"go.yaml.in/yaml/v3"
)

// ConfigFileName is the name FindConfig looks for in the working directory
// and its parents.
const ConfigFileName = ".shellgate.yaml"

// Config is the user's configuration. The zero value (and DefaultConfig)
// is the embedded default: mode default, no grants, no extra roots, the
// read station's default deny rows. A Config must not change once it is
// given to a policy engine: engines cache what they derive from it by
// identity (copy it to change it).
type Config struct {
	// Mode is the default mode: "default" or "readonly".
	Mode string `yaml:"mode" json:"mode"`
	// ReadOnlyPrograms are programs the catalog does not know that are to
	// be treated as read-only (with no options known to the catalog).
	ReadOnlyPrograms []string `yaml:"read_only_programs" json:"read_only_programs"`
	// RemoteReads are programs whose remote reads (catalog category
	// remote-read: gh pr list, kubectl get) are allowed: reads of an
	// account over the network with the user's credentials. Their remote
	// writes still ask.
	RemoteReads []string `yaml:"remote_reads" json:"remote_reads,omitempty"`
	// Grants are per-segment permissions in the grant syntax (see
	// ParseGrant): "npm test **", "go test ./...", "make lint".
	Grants []string `yaml:"grants" json:"grants"`
	// Roots are directories, besides the workspace, that the command may
	// read and write in. Relative roots are relative to the config file.
	Roots []string `yaml:"roots" json:"roots"`
	// DenyReads are gitignore-style rows of paths no command may read,
	// added to the read station's defaults.
	DenyReads []string `yaml:"deny_reads" json:"deny_reads"`
	// ReplaceDefaultDenyReads drops the station's default deny rows, so
	// that DenyReads is the whole list.
	ReplaceDefaultDenyReads bool `yaml:"replace_default_deny_reads" json:"replace_default_deny_reads"`
	// PolicyDirs are directories of extra Rego modules. Relative ones are
	// relative to the config file.
	PolicyDirs []string `yaml:"policy_dirs" json:"policy_dirs"`
	// Shell is the shell that runs the commands ("bash", "zsh", "sh"),
	// used when a request does not say; "" judges every command as both
	// bash and zsh. Naming one shell narrows the judgment to it: a
	// command zsh would run differently can then be allowed for bash.
	Shell string `yaml:"shell" json:"shell,omitempty"`
	// Sandbox chooses the sandbox mode of every command the gate runs:
	// "" or "auto" (the mode follows the decision), "read-only",
	// "workspace-write", "full-access", or "off" (no confinement, also
	// where read-only confinement is impossible).
	Sandbox string `yaml:"sandbox" json:"sandbox,omitempty"`
	// SandboxLimits are the resource limits of a confined command; nil
	// or a zero field takes the default, a negative one is no limit. A
	// project file that is not trusted may only lower them.
	SandboxLimits *SandboxLimits `yaml:"sandbox_limits" json:"sandbox_limits,omitempty"`

	// Path is the file the config was loaded from, "" for the defaults.
	Path string `yaml:"-" json:"path,omitempty"`
	// Source says how the config was found: SourceProject for a
	// .shellgate.yaml that FindConfig found from the cwd (it may only
	// tighten until the user trusts it; see Resolve), SourceUser for the
	// user config, SourceExplicit (or "", a config built in Go) for one
	// the user named. A project config's grant, even trusted, never
	// applies where a wildcard of it covers an argument that carries code
	// (python3 -c *, env **): the decision asks with the reason
	// grant-wildcards-code. The user's own or a named config applies such
	// a grant, since the user chose it; check, explain, grant and run warn
	// when they load one.
	Source Source `yaml:"-" json:"-"`
	// Problem, when not "", says that a config file that applies exists
	// but cannot be used, which and why (see LoadFoundConfig): every
	// decision is then a deny with this message, under the reason code
	// ConfigUnreadable.
	Problem string `yaml:"-" json:"problem,omitempty"`

	grants []grantPattern
	// grantAt locates each grant in its file ("file:line:col").
	grantAt []string
	// sum is the SHA-256 of the bytes the config was parsed from, for
	// the trust store ("" when it was not read from a file).
	sum string
}

// Source is where a config came from.
type Source string

// The sources of a config.
const (
	// SourceExplicit is a config the user named (--config, the hook
	// command, a corpus): trusted.
	SourceExplicit Source = "explicit"
	// SourceUser is the user's own config (shellgate/config.yaml in the
	// user config directory): trusted.
	SourceUser Source = "user"
	// SourceProject is a .shellgate.yaml found in the cwd or a parent:
	// it only tightens until the user trusts its content.
	SourceProject Source = "project"
)

// SHA256 returns the hex SHA-256 of the bytes the config was read from, or
// "" for a config that was not read from a file.
func (c *Config) SHA256() string { return c.sum }

// configKeys are the keys a config file may have, for strict decoding.
var configKeys = []string{"mode", "read_only_programs", "remote_reads", "grants", "roots", "deny_reads", "replace_default_deny_reads", "policy_dirs", "sandbox", "shell"}

// SandboxLimits are the resource limits of a confined command (the
// sandbox_limits key).
type SandboxLimits struct {
	// Processes is how many processes a command may run beyond those the
	// user already runs.
	Processes int `yaml:"processes" json:"processes,omitempty"`
	// MemoryMB bounds each process's data (RLIMIT_DATA), in MiB.
	MemoryMB int64 `yaml:"memory_mb" json:"memory_mb,omitempty"`
	// FileSizeMB bounds the size of a file a process writes, in MiB.
	FileSizeMB int64 `yaml:"file_size_mb" json:"file_size_mb,omitempty"`
}

// DefaultSandboxLimits are the limits a confined command gets when no
// config sets them: 256 more processes, 2 GiB of data per process and
// 4 GiB per file.
var DefaultSandboxLimits = SandboxLimits{Processes: 256, MemoryMB: 2048, FileSizeMB: 4096}

// The values of Config.Sandbox besides the sandbox modes.
const (
	SandboxAuto = "auto"
	SandboxOff  = "off"
)

// SandboxValues are the values the sandbox key may take.
var SandboxValues = []string{SandboxAuto, "read-only", "workspace-write", "full-access", SandboxOff}

// DefaultConfig returns the embedded default configuration.
func DefaultConfig() *Config { return &Config{Mode: ModeDefault} }

// ParseConfig decodes a config from YAML, strictly: an unknown key, a value
// of the wrong type, an unknown mode or a malformed grant is an error that
// names the file, line and column. name is used in messages and to resolve
// relative paths.
func ParseConfig(data []byte, name string) (*Config, error) {
	c := DefaultConfig()
	c.Path = name
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return c.validated(nil)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	// A second document would be ignored silently: refuse it.
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fmt.Errorf("%s:%d:%d: a second YAML document (a config is one mapping of keys)", name, extra.Line, extra.Column)
	} else if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return c.validated(nil)
	}
	doc := root.Content[0]
	if doc.Kind == yaml.ScalarNode && doc.Tag == "!!null" {
		return c.validated(nil)
	}
	if doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d:%d: the config must be a mapping of keys (%s)", name, doc.Line, doc.Column, strings.Join(configKeys, ", "))
	}
	lines := map[string]*yaml.Node{}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		k := doc.Content[i]
		if !contains(configKeys, k.Value) {
			return nil, fmt.Errorf("%s:%d:%d: unknown key %q (known keys: %s)", name, k.Line, k.Column, k.Value, strings.Join(configKeys, ", "))
		}
		if lines[k.Value] != nil {
			return nil, fmt.Errorf("%s:%d:%d: key %q given twice", name, k.Line, k.Column, k.Value)
		}
		lines[k.Value] = doc.Content[i+1]
	}
	if err := doc.Decode(c); err != nil {
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(strings.ReplaceAll(err.Error(), "\n ", ""), "yaml: unmarshal errors:"))
	}
	if c.Mode == "" {
		c.Mode = ModeDefault
	}
	dir := filepath.Dir(name)
	for i, r := range c.Roots {
		c.Roots[i] = resolveConfigPath(dir, r)
	}
	for i, d := range c.PolicyDirs {
		c.PolicyDirs[i] = resolveConfigPath(dir, d)
	}
	return c.validated(lines)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// resolveConfigPath makes a relative path relative to dir; "~" and "~/x"
// stay as written (the home directory is folded where paths are judged).
func resolveConfigPath(dir, p string) string {
	if p == "" || filepath.IsAbs(p) || p == "~" || strings.HasPrefix(p, "~/") {
		return p
	}
	return filepath.Join(dir, p)
}

// validate checks the decoded values. lines, when not nil, locates each key.
func (c *Config) validate(lines map[string]*yaml.Node) error {
	at := func(key string) string {
		if n := lines[key]; n != nil {
			return fmt.Sprintf("%s:%d:%d", c.Path, n.Line, n.Column)
		}
		if c.Path == "" {
			return "config"
		}
		return c.Path
	}
	itemAt := func(key string, i int) string {
		if n := lines[key]; n != nil && n.Kind == yaml.SequenceNode && i < len(n.Content) {
			return fmt.Sprintf("%s:%d:%d", c.Path, n.Content[i].Line, n.Content[i].Column)
		}
		return at(key)
	}
	if c.Mode == "" {
		c.Mode = ModeDefault
	}
	if !ValidMode(c.Mode) {
		return fmt.Errorf("%s: mode %q is not a mode (want default or readonly)", at("mode"), c.Mode)
	}
	if c.Shell != "" {
		d, err := classify.ParseDialect(c.Shell)
		if err != nil || d == classify.DialectUnknown {
			return fmt.Errorf("%s: shell %q is not a shell (want bash, zsh or sh)", at("shell"), c.Shell)
		}
		c.Shell = string(d)
	}
	c.grants, c.grantAt = c.grants[:0], c.grantAt[:0]
	for i, g := range c.Grants {
		p, err := ParseGrant(g)
		if err != nil {
			return fmt.Errorf("%s: grant %q: %v", itemAt("grants", i), g, err)
		}
		c.grants = append(c.grants, p)
		c.grantAt = append(c.grantAt, itemAt("grants", i))
	}
	for i, p := range c.ReadOnlyPrograms {
		if p == "" || strings.ContainsAny(p, "/ \t\n") {
			return fmt.Errorf("%s: read_only_programs: %q is not a program name", itemAt("read_only_programs", i), p)
		}
	}
	for i, p := range c.RemoteReads {
		if p == "" || strings.ContainsAny(p, "/ \t\n") {
			return fmt.Errorf("%s: remote_reads: %q is not a program name", itemAt("remote_reads", i), p)
		}
	}
	for i, r := range c.Roots {
		if r == "" {
			return fmt.Errorf("%s: roots: an empty root", itemAt("roots", i))
		}
	}
	for i, r := range c.DenyReads {
		if strings.TrimSpace(r) == "" {
			return fmt.Errorf("%s: deny_reads: an empty row", itemAt("deny_reads", i))
		}
	}
	for i, d := range c.PolicyDirs {
		if d == "" {
			return fmt.Errorf("%s: policy_dirs: an empty directory", itemAt("policy_dirs", i))
		}
	}
	if c.Sandbox != "" && !contains(SandboxValues, c.Sandbox) {
		return fmt.Errorf("%s: sandbox %q is not a sandbox setting (want %s)", at("sandbox"), c.Sandbox, strings.Join(SandboxValues, ", "))
	}
	return nil
}

// validated returns c when it is valid, else only the error: a config that
// failed to parse is never half-used.
func (c *Config) validated(lines map[string]*yaml.Node) (*Config, error) {
	if err := c.validate(lines); err != nil {
		return nil, err
	}
	return c, nil
}

// Validate checks a config built in Go (ParseConfig validates already).
func (c *Config) Validate() error { return c.validate(nil) }

// MaxConfigBytes bounds a config file.
const MaxConfigBytes = 1 << 20

// LoadConfig reads and parses the config file at path, a file the user
// named (SourceExplicit).
func LoadConfig(path string) (*Config, error) { return LoadConfigFrom(path, SourceExplicit) }

// LoadConfigFrom reads and parses the config file at path, found as src
// says. The bytes are read once: the digest the trust store is checked
// against is that of the bytes parsed.
func LoadConfigFrom(path string, src Source) (*Config, error) {
	// Only a regular file is a config: a FIFO or a device named
	// .shellgate.yaml would block the read or never end, and is never
	// opened in a way that can block (trust.ReadRegular).
	data, err := trust.ReadRegular(path, MaxConfigBytes)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s: not valid UTF-8", path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	c, err := ParseConfig(data, abs)
	if err != nil {
		return nil, err
	}
	c.Source = src
	c.sum = trust.Sum(data)
	return c, nil
}

// FindConfig returns the config file that applies in cwd: .shellgate.yaml
// in cwd or the nearest parent that has one, else shellgate/config.yaml in
// the user config directory, else "" (the defaults apply).
func FindConfig(cwd string) (string, error) {
	p, _, err := FindConfigSource(cwd)
	return p, err
}

// FindConfigSource is FindConfig that also says where the file was found:
// SourceProject for a .shellgate.yaml, SourceUser for the user config.
func FindConfigSource(cwd string) (string, Source, error) {
	dir, err := filepath.Abs(cwd)
	if err != nil {
		return "", "", err
	}
	// Whatever is at the name, in any form (a directory, a dangling or
	// looping symlink, a FIFO, a file that cannot be read), is the
	// project's config: LoadConfigFrom then says why it cannot be used.
	// Taking it for "no config" would drop the project's rules.
	for {
		p := filepath.Join(dir, ConfigFileName)
		if present, err := exists(p); present {
			return p, SourceProject, nil
		} else if err != nil {
			return p, SourceProject, err
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if p := UserConfigPath(); p != "" {
		if present, err := exists(p); present {
			return p, SourceUser, nil
		} else if err != nil {
			return p, SourceUser, err
		}
	}
	return "", "", nil
}

// exists reports whether anything is at p (a symlink counts, whatever it
// names); the error is for a p whose presence cannot be told.
func exists(p string) (bool, error) {
	_, err := os.Lstat(p)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return false, nil
	}
	return false, fmt.Errorf("%s cannot be looked at: %w", p, err)
}

// UserConfigPath returns shellgate/config.yaml in the user config
// directory, or "" when there is none.
func UserConfigPath() string {
	ucd, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(ucd, "shellgate", "config.yaml")
}

// LoadConfigFor returns the config that applies: the file given (when
// explicit is not empty), else the one FindConfig finds for cwd (with its
// Source), else the defaults.
func LoadConfigFor(explicit, cwd string) (*Config, error) {
	if explicit != "" {
		return LoadConfig(explicit)
	}
	path, src, err := FindConfigSource(cwd)
	if err != nil && path == "" {
		return nil, err
	}
	if path == "" {
		return DefaultConfig(), nil
	}
	return LoadFoundConfig(path, src, err), nil
}

// LoadFoundConfig loads the config file FindConfigSource found at path
// (findErr is the error it gave with it, if any). A file that cannot be
// used, in whatever form it is there (see LoadConfigFrom and
// FindConfigSource), is not "no config": the result is then a config with
// no rules of its own whose Problem says which file and why, under which
// every decision is a deny with the reason code ConfigUnreadable, as a
// config that does not parse always was (the hooks deny on the error).
func LoadFoundConfig(path string, src Source, findErr error) *Config {
	err := findErr
	if err == nil {
		var c *Config
		if c, err = LoadConfigFrom(path, src); err == nil {
			return c
		}
	}
	return ProblemConfig(path, src, err)
}

// ConfigUnreadable is the reason code of every decision made where a
// shellgate config file that applies (a project's .shellgate.yaml, a
// policy directory or module it names, the user's config) exists but
// cannot be used: the rules it holds are not known.
const ConfigUnreadable = "config-unreadable"

// ProblemConfig is the config in effect where the config file at path
// (found as src says) exists but cannot be used, for the reason err: the
// defaults, with Problem saying so.
func ProblemConfig(path string, src Source, err error) *Config {
	c := DefaultConfig()
	abs, aerr := filepath.Abs(path)
	if aerr != nil {
		abs = path
	}
	c.Path, c.Source = abs, src
	why := "it cannot be read"
	if err != nil {
		why = err.Error()
	}
	c.Problem = fmt.Sprintf("the shellgate config %s exists but cannot be used (%s), so the rules it holds are not known and every command is denied until it is fixed or removed", abs, why)
	return c
}

// ConfigGrantProblem is a config grant that puts a wildcard over code.
type ConfigGrantProblem struct {
	// Where locates the grant: "file:line:col", or the file.
	Where string `json:"where"`
	GrantProblem
}

// String is "file:line:col: grant ... puts a wildcard over code: ...".
func (p ConfigGrantProblem) String() string { return p.Where + ": " + p.GrantProblem.String() }

// GrantProblems lints the config's grants against the catalog (nil: the
// embedded one): each grant that can put a wildcard over an argument that
// carries code (see LintGrant), in config order.
func (c *Config) GrantProblems(cat *classify.Catalog) []ConfigGrantProblem {
	if c == nil {
		return nil
	}
	var out []ConfigGrantProblem
	for i, g := range c.Grants {
		if p, ok := LintGrant(g, cat); ok {
			where := c.where()
			if i < len(c.grantAt) && len(c.grantAt) == len(c.Grants) {
				where = c.grantAt[i]
			}
			out = append(out, ConfigGrantProblem{Where: where, GrantProblem: p})
		}
	}
	return out
}

// GrantPatterns returns the parsed grants, in config order.
func (c *Config) grantPatterns() []grantPattern {
	if c == nil {
		return nil
	}
	if len(c.grants) != len(c.Grants) {
		// Built in Go without Validate: parse what parses.
		var out []grantPattern
		for _, g := range c.Grants {
			if p, err := ParseGrant(g); err == nil {
				out = append(out, p)
			}
		}
		return out
	}
	return c.grants
}

// readOnlySet returns the extra read-only programs as a sorted set.
func (c *Config) readOnlySet() []string {
	if c == nil {
		return nil
	}
	out := append([]string(nil), c.ReadOnlyPrograms...)
	sort.Strings(out)
	return out
}

// ClassifyOptions returns the classify options the config implies: its
// read-only programs added to the catalog (base, or the embedded catalog
// when base is nil). A listed program the catalog already knows as not
// read-only is an error: grant it instead.
func (c *Config) ClassifyOptions(base *classify.Catalog) ([]classify.Option, error) {
	if c == nil || len(c.ReadOnlyPrograms) == 0 {
		if base != nil {
			return []classify.Option{classify.WithCatalog(base)}, nil
		}
		return nil, nil
	}
	if base == nil {
		base = classify.DefaultCatalog()
	}
	ext := &classify.Catalog{}
	for _, name := range c.readOnlySet() {
		if p := base.Lookup(name); p != nil {
			if p.ReadOnly {
				continue
			}
			return nil, fmt.Errorf("%s: read_only_programs: %s is in the catalog and is not read-only; write a grant for the uses you allow", c.where(), name)
		}
		ext.Programs = append(ext.Programs, &classify.Program{
			Name: name, ReadOnly: true, Categories: []classify.Category{classify.CategoryRead},
			Doc:      "listed in read_only_programs",
			Operands: []classify.OperandSpec{{Role: classify.RoleFile, Repeat: true}},
		})
	}
	if len(ext.Programs) == 0 {
		return []classify.Option{classify.WithCatalog(base)}, nil
	}
	cat, err := base.Extend(ext)
	if err != nil {
		return nil, fmt.Errorf("%s: read_only_programs: %v", c.where(), err)
	}
	return []classify.Option{classify.WithCatalog(cat)}, nil
}

func (c *Config) where() string {
	if c.Path == "" {
		return "config"
	}
	return c.Path
}
