package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/readstation"
)

// Facts are what Go establishes for the rules, so that Rego maps facts to
// reasons instead of matching paths: the grant covering each segment and
// where each write lands. They are the "facts" part of the policy input.
type Facts struct {
	// Mode is the mode in effect (the input's, else the config's).
	Mode string `json:"mode"`
	// Home is the home directory "~" stands for.
	Home string `json:"home"`
	// Roots are the absolute roots: the workspace (the git top level of
	// the cwd, else the cwd) and the config's roots. Computed only when the
	// command writes.
	Roots []string `json:"roots"`
	// Segments is index-aligned with the report's segments.
	Segments []SegmentFacts `json:"segments"`
	// Writes is index-aligned with the report's writes.
	Writes []WriteFacts `json:"writes"`
	// Index maps names to positions so that rules look up instead of
	// scanning: segments by program name ("name:git"), by program and
	// subcommand ("subcommand:git:push"), and by category
	// ("category:network"), segments the catalog does not know
	// ("unknown"), findings by code ("code:fork-bomb"), granted segments
	// ("granted"), segments whose project grant was refused
	// ("grant_refused"), and station reads by verdict ("verdict:denied"). Each
	// value lists indexes in order.
	Index map[string][]int `json:"index"`
	// Has holds flags the default rules test first, so that OPA's rule
	// index skips a rule whose subject is absent.
	Has HasFlags `json:"has"`
}

// HasFlags are the flags of Facts.Has. Every flag is always present in the
// input ("false" when absent), so a rule may test either value.
type HasFlags struct {
	// ParseError: the command does not parse.
	ParseError bool `json:"parse_error"`
	// NotReversible: the report is not reversible.
	NotReversible bool `json:"not_reversible"`
	// Writes: the report has write candidates.
	Writes bool `json:"writes"`
	// Network: a segment is in the network category.
	Network bool `json:"network"`
	// Shell: a segment is in the shell category.
	Shell bool `json:"shell"`
	// Git: a segment runs git.
	Git bool `json:"git"`
	// DestructiveOrUnknown: a segment is destructive or not in the catalog.
	DestructiveOrUnknown bool `json:"destructive_or_unknown"`
	// ForkBomb: a fork-bomb finding.
	ForkBomb bool `json:"fork_bomb"`
	// Granted: a config grant covers a segment.
	Granted bool `json:"granted"`
	// GrantRefused: a project config's grant was refused for a segment
	// (a wildcard over code).
	GrantRefused bool `json:"grant_refused"`
	// ReadsUnjudged: the report reads and no station ran.
	ReadsUnjudged bool `json:"reads_unjudged"`
	// StationReads: the station judged reads.
	StationReads bool `json:"station_reads"`
	// StationDenied: a read the deny rows cover.
	StationDenied bool `json:"station_denied"`
	// StationUnsure: a read outside the roots or not established.
	StationUnsure bool `json:"station_unsure"`
	// StationUnestablished: the station did not establish every read.
	StationUnestablished bool `json:"station_unestablished"`
	// StationUnknownVerdict: a read has a verdict that is not one of
	// readstation.Verdicts.
	StationUnknownVerdict bool `json:"station_unknown_verdict"`
	// RepoHelpers: the repository configures a program git would run.
	RepoHelpers bool `json:"repo_helpers"`
}

// SegmentFacts are the facts about one segment.
type SegmentFacts struct {
	// Grant is the config grant that covers the segment, or "".
	Grant string `json:"grant"`
	// GrantRefused, when no grant covers a segment that is not read-only,
	// says why a project config's grant that matches it does not: a
	// wildcard of it covers an argument that carries code.
	GrantRefused string `json:"grant_refused,omitempty"`
}

// WriteFacts are the facts about one write candidate.
type WriteFacts struct {
	// Path is the absolute, cleaned path written ("" when not established);
	// for a glob, the directory its matches are in.
	Path string `json:"path"`
	// Real is Path with symlinks followed as far as the path exists.
	Real string `json:"real"`
	// Established is set when where the write lands is known.
	Established bool `json:"established"`
	// Glob is set when the path is a glob: every entry of Path may be hit.
	Glob bool `json:"glob"`
	// OutsideRoots is set when the path, as written or real, is outside
	// every root.
	OutsideRoots bool `json:"outside_roots"`
	// Critical is set when losing the path loses a whole tree that matters:
	// "/", a top-level directory, the home directory or an ancestor of it, a
	// root or an ancestor of one — or, for a glob, every entry of one.
	Critical bool `json:"critical"`
	// Device is set for a device under /dev other than the harmless ones
	// (null, zero, stdout, stderr, tty, fd/*).
	Device bool `json:"device"`
	// ShellgateConfig is set when the path, as written or real, is
	// shellgate's own configuration: any .shellgate.yaml, the config file
	// in effect, or a policy directory it names or a file below one.
	ShellgateConfig bool `json:"shellgate_config"`
}

// harmlessDevices may be written without harm.
var harmlessDevices = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/stdout": true, "/dev/stderr": true,
	"/dev/tty": true, "/dev/full": true,
}

// ComputeFacts establishes the facts for in. It reads the file system only
// for commands that write (to find the workspace and follow symlinks).
func ComputeFacts(in *Input) *Facts {
	cfg := in.Config
	if cfg == nil {
		cfg = DefaultConfig()
	}
	f := &Facts{Mode: in.Mode, Roots: []string{}, Segments: []SegmentFacts{}, Writes: []WriteFacts{}, Index: map[string][]int{}}
	if f.Mode == "" {
		f.Mode = cfg.Mode
	}
	if f.Mode == "" {
		f.Mode = ModeDefault
	}
	f.Home = homeDir()
	if in.Report == nil {
		return f
	}
	f.Segments = make([]SegmentFacts, len(in.Report.Segments))
	f.Index = map[string][]int{}
	add := func(k string, i int) { f.Index[k] = append(f.Index[k], i) }
	for i := range in.Report.Segments {
		seg := &in.Report.Segments[i]
		if len(cfg.Grants) > 0 {
			var refused string
			if f.Segments[i].Grant, refused = cfg.grantFor(seg); f.Segments[i].Grant != "" {
				add("granted", i)
			} else if refused != "" && !seg.ReadOnly {
				f.Segments[i].GrantRefused = refused
				add("grant_refused", i)
			}
		}
		if seg.Name != "" {
			add("name:"+seg.Name, i)
			if seg.Subcommand != "" {
				add("subcommand:"+seg.Name+":"+seg.Subcommand, i)
			}
		}
		if !seg.Known {
			add("unknown", i)
		}
		for _, c := range seg.Categories {
			add("category:"+string(c), i)
		}
	}
	for i, fd := range in.Report.Findings {
		add("code:"+fd.Code, i)
	}
	st, _ := in.Station.(*readstation.Station)
	if st != nil {
		for i, r := range st.Reads {
			add("verdict:"+string(r.Verdict), i)
		}
	}
	f.setHas(in, st)
	if len(in.Report.Writes) == 0 {
		return f
	}
	f.Roots = Roots(in.Cwd, cfg, f.Home)
	rs := newResolver()
	realRoots := make([]string, 0, len(f.Roots))
	for _, r := range f.Roots {
		realRoots = append(realRoots, rs.real(r))
	}
	allRoots := append(append([]string{}, f.Roots...), realRoots...)
	f.Writes = make([]WriteFacts, len(in.Report.Writes))
	for i, w := range in.Report.Writes {
		if w.Dynamic == "find-match" {
			f.Writes[i] = judgeFindWrite(in.Report, w, in.Cwd, f.Home, allRoots, rs)
			continue
		}
		f.Writes[i] = judgeWrite(w, in.Cwd, f.Home, allRoots, rs)
		if w.Source == "cwd-flag" {
			// git -C DIR clean, tar -x -C DIR, cd DIR && tar -x: the
			// program writes into DIR, what exactly its own rules decide,
			// so it is judged as entries of DIR, never as the whole tree.
			f.Writes[i].Glob, f.Writes[i].Critical = true, false
		}
	}
	for i := range f.Writes {
		w := &f.Writes[i]
		if !w.Established {
			continue
		}
		w.ShellgateConfig = shellgateConfig(w.Path, cfg, f.Home) || shellgateConfig(w.Real, cfg, f.Home)
		// The index lets the rules visit only the writes that matter.
		if w.Critical {
			add("write:critical", i)
		}
		if w.OutsideRoots {
			add("write:outside-roots", i)
		}
		if w.Device {
			add("write:device", i)
		}
		if w.ShellgateConfig {
			add("write:shellgate-config", i)
		}
	}
	return f
}

// shellgateConfig reports whether p is shellgate's own configuration: a
// .shellgate.yaml anywhere, the config file cfg was read from, or one of
// its policy directories or a path below one.
func shellgateConfig(p string, cfg *Config, home string) bool {
	if p == "" {
		return false
	}
	if filepath.Base(p) == ConfigFileName || cfg.Path != "" && p == cfg.Path {
		return true
	}
	for _, d := range cfg.PolicyDirs {
		if d == "~" || strings.HasPrefix(d, "~/") {
			if home == "" {
				continue
			}
			d = filepath.Join(home, d[1:])
		}
		if filepath.IsAbs(d) && isAncestorOrSelf(filepath.Clean(d), p) {
			return true
		}
	}
	return false
}

// judgeFindWrite judges a write of find -exec's {} (find / -exec rm {} +):
// the paths written are entries of find's roots, so the write is judged as
// every entry of each root (Glob). It is established only when every root
// is; a root outside the roots puts the write outside them. It is never
// Critical: find's filters decide what goes, as for find -delete.
func judgeFindWrite(r *classify.Report, w classify.PathRef, cwd, home string, roots []string, rs *resolver) WriteFacts {
	var out WriteFacts
	if w.Producer < 0 || w.Producer >= len(r.Segments) {
		return out
	}
	n := 0
	for _, rd := range r.Reads {
		if rd.Segment != w.Producer || !rd.Recursive || (rd.Source != "operand" && rd.Source != "implicit") {
			continue
		}
		n++
		wf := judgeWrite(rd, cwd, home, roots, rs)
		if !wf.Established {
			return WriteFacts{}
		}
		if out.Path == "" || wf.OutsideRoots && !out.OutsideRoots {
			out.Path, out.Real = wf.Path, wf.Real
		}
		out.OutsideRoots = out.OutsideRoots || wf.OutsideRoots
		out.Device = out.Device || wf.Device
	}
	if n == 0 {
		return WriteFacts{}
	}
	out.Established, out.Glob = true, true
	return out
}

func judgeWrite(w classify.PathRef, cwd, home string, roots []string, rs *resolver) WriteFacts {
	var out WriteFacts
	if w.Kind != "literal" && w.Kind != "glob" {
		return out
	}
	p := w.Path
	everyEntry := false
	if w.Kind == "glob" {
		out.Glob = true
		var rest string
		p, rest = globDir(p)
		everyEntry = matchesEverything(rest)
	}
	base, ok := resolveDir(w.Cwd, cwd, home)
	abs, ok2 := absPath(p, w.Home, base, ok, home)
	if !ok2 {
		return out
	}
	out.Established = true
	out.Path = abs
	out.Real = rs.real(abs)
	if sinks[out.Path] {
		// Writing /dev/null keeps nothing: not outside the roots, not a device.
		return out
	}
	out.OutsideRoots = !within(out.Path, roots) || !within(out.Real, roots)
	crit := func(p string) bool { return critical(p, home, roots) }
	// A glob that hits every entry of a directory ("dir/*") is as bad as
	// the directory; a narrower one ("dir/*.o") is not.
	if !out.Glob || everyEntry {
		out.Critical = crit(out.Path) || crit(out.Real)
	}
	out.Device = isDevice(out.Path) || isDevice(out.Real)
	return out
}

// sinks are write targets that keep nothing.
var sinks = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/fd/1": true, "/dev/fd/2": true}

// resolveDir returns the absolute directory a cwd stands for.
func resolveDir(c classify.Cwd, cwd, home string) (string, bool) {
	if !c.Known {
		return "", false
	}
	p := c.Path
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return "", false
		}
		return filepath.Join(home, p[1:]), true
	case filepath.IsAbs(p):
		return filepath.Clean(p), true
	case cwd == "" || !filepath.IsAbs(cwd):
		return "", false
	default:
		return filepath.Join(cwd, p), true
	}
}

func absPath(p string, isHome bool, base string, baseOK bool, home string) (string, bool) {
	switch {
	case p == "":
		return "", false
	case isHome && (p == "~" || strings.HasPrefix(p, "~/")):
		if home == "" {
			return "", false
		}
		return filepath.Join(home, p[1:]), true
	case filepath.IsAbs(p):
		return filepath.Clean(p), true
	case !baseOK:
		return "", false
	default:
		return filepath.Join(base, p), true
	}
}

// matchesEverything reports whether the glob part after a directory
// matches every (or every hidden) entry: "*", ".*", "*/", "**", "*/**".
func matchesEverything(rest string) bool {
	rest = strings.TrimSuffix(rest, "/")
	switch rest {
	case "*", ".*", "**", "*/**", "*/*", ".[!.]*", "..?*":
		return true
	}
	return false
}

// globDir returns the directory a glob's matches are in (the static part
// before the first metacharacter, up to its last slash) and the rest of
// the pattern after that slash.
func globDir(pattern string) (string, string) {
	i := 0
	for ; i < len(pattern); i++ {
		c := pattern[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '*' || c == '?' || c == '[' {
			break
		}
	}
	prefix := pattern[:min(i, len(pattern))]
	j := strings.LastIndexByte(prefix, '/')
	var dir string
	switch {
	case j < 0:
		dir = "."
	case j == 0:
		dir = "/"
	default:
		dir = prefix[:j]
	}
	return strings.ReplaceAll(dir, `\`, ""), pattern[j+1:]
}

// critical reports whether p is "/", a top-level directory, the home
// directory or one of its ancestors, or a root or one of its ancestors.
func critical(p, home string, roots []string) bool {
	if p == "/" || strings.Count(p, "/") == 1 {
		return true
	}
	if home != "" && isAncestorOrSelf(p, home) {
		return true
	}
	for _, r := range roots {
		if isAncestorOrSelf(p, r) {
			return true
		}
	}
	return false
}

func isDevice(p string) bool {
	if !strings.HasPrefix(p, "/dev/") || harmlessDevices[p] || strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/dev/shm/") {
		return false
	}
	return true
}

// isAncestorOrSelf reports whether dir is p or an ancestor of p.
func isAncestorOrSelf(dir, p string) bool {
	if dir == p {
		return true
	}
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir+"/")
}

// within reports whether p is one of roots or under one.
func within(p string, roots []string) bool {
	for _, r := range roots {
		if isAncestorOrSelf(r, p) {
			return true
		}
	}
	return false
}

// maxDangling bounds the symlinks followed for one path (as the kernel
// bounds symlinks in a path).
const maxDangling = 40

// resolver follows symlinks component by component, remembering what each
// path it went through resolved to, so that the roots and the writes of one
// command, which share their leading directories, cost one lstat per
// directory rather than one per directory per path.
type resolver struct {
	known map[string]string // a path as given → its real path
	links int
}

func newResolver() *resolver { return &resolver{known: map[string]string{}} }

// real returns p (absolute) with every symlink followed as far as the path
// exists, dangling ones included (a write through a symlink whose target
// does not exist yet creates the target); the rest is appended as written. On an error other than a
// missing component, or too many symlinks, it returns p unchanged.
func (r *resolver) real(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	r.links = 0
	out, ok := r.walk(p)
	if !ok {
		return p
	}
	return out
}

// walk resolves p; ok is false when it cannot be established.
func (r *resolver) walk(p string) (string, bool) {
	if v, hit := r.known[p]; hit {
		return v, true
	}
	resolved := "/"
	rest := p
	prefix := ""
	for rest != "" {
		var comp string
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			comp, rest = rest[:i], rest[i+1:]
		} else {
			comp, rest = rest, ""
		}
		if comp == "" || comp == "." {
			continue
		}
		prefix += "/" + comp
		if v, hit := r.known[prefix]; hit {
			resolved = v
			continue
		}
		if comp == ".." {
			resolved = filepath.Dir(resolved)
			r.known[prefix] = resolved
			continue
		}
		next := filepath.Join(resolved, comp)
		fi, err := os.Lstat(next)
		switch {
		case err != nil && (errors.Is(err, fs.ErrNotExist) || isNotDir(err)):
			// The rest does not exist yet: it is created as written.
			return filepath.Join(next, rest), true
		case err != nil:
			return "", false
		case fi.Mode()&fs.ModeSymlink != 0:
			r.links++
			if r.links > maxDangling {
				return "", false
			}
			t, err := os.Readlink(next)
			if err != nil {
				return "", false
			}
			if !filepath.IsAbs(t) {
				t = resolved + "/" + t
			}
			v, ok := r.walk(t)
			if !ok {
				return "", false
			}
			resolved = v
		default:
			resolved = next
		}
		r.known[prefix] = resolved
	}
	return resolved, true
}

func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

func homeDir() string {
	h, err := os.UserHomeDir()
	if err != nil || !filepath.IsAbs(h) {
		return ""
	}
	return filepath.Clean(h)
}

// Workspace returns the workspace of cwd: the nearest directory from cwd up
// that holds a .git entry, else cwd itself.
func Workspace(cwd string) string {
	if cwd == "" {
		return ""
	}
	dir := filepath.Clean(cwd)
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Clean(cwd)
		}
		dir = parent
	}
}

// Roots returns the absolute roots for a command run in cwd: the workspace
// and the config's roots ("~" folded to home). Relative config roots were
// made absolute when the config was parsed; any left relative are taken
// from cwd.
func Roots(cwd string, cfg *Config, home string) []string {
	var out []string
	if ws := Workspace(cwd); ws != "" && filepath.IsAbs(ws) {
		out = append(out, ws)
	}
	if cfg == nil {
		return out
	}
	for _, r := range cfg.Roots {
		switch {
		case r == "~" || strings.HasPrefix(r, "~/"):
			if home != "" {
				out = append(out, filepath.Join(home, r[1:]))
			}
		case filepath.IsAbs(r):
			out = append(out, filepath.Clean(r))
		case cwd != "" && filepath.IsAbs(cwd):
			out = append(out, filepath.Join(cwd, r))
		}
	}
	return out
}

// setHas fills the flags from the report, the index and the station. A
// station that is not a *readstation.Station (or nil with a non-nil
// interface) counts as present with every station flag set, so that no
// rule is skipped for it.
func (f *Facts) setHas(in *Input, st *readstation.Station) {
	r := in.Report
	has := func(k string) bool { return len(f.Index[k]) > 0 }
	h := HasFlags{
		ParseError:           !r.Parse.OK,
		NotReversible:        !r.Reversible,
		Writes:               len(r.Writes) > 0,
		Network:              has("category:network"),
		Shell:                has("category:shell"),
		Git:                  has("name:git"),
		DestructiveOrUnknown: has("category:destructive") || has("unknown"),
		ForkBomb:             has("code:fork-bomb"),
		Granted:              has("granted"),
		GrantRefused:         has("grant_refused"),
	}
	switch {
	case in.Station == nil:
		h.ReadsUnjudged = len(r.Reads) > 0
	case st == nil:
		// A station of another type: every station rule is tried.
		h.StationReads, h.StationDenied, h.StationUnsure, h.StationUnestablished, h.RepoHelpers = true, true, true, true, true
		h.StationUnknownVerdict = true
	default:
		h.StationReads = len(st.Reads) > 0
		h.StationDenied = has("verdict:denied")
		h.StationUnsure = has("verdict:outside-roots") || has("verdict:not-established")
		h.StationUnestablished = !st.Established
		h.RepoHelpers = len(st.RepoHelpers) > 0
		for _, r := range st.Reads {
			if !slices.Contains(readstation.Verdicts, r.Verdict) {
				h.StationUnknownVerdict = true
			}
		}
	}
	f.Has = h
}
