package readstation

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/classify"
)

// Writes is where each write of a report lands, judged on the real file
// system against a boundary's roots: the write part of the file-system
// model, as Station is the read part. The policy maps it to reasons; it
// decides nothing here.
type Writes struct {
	// Home is the home directory "~" stands for ("" when unknown).
	Home string
	// Roots are the boundary's roots made absolute ("~" folded to Home,
	// relative ones taken from the cwd): the workspace first.
	Roots []string
	// Writes is index-aligned with the report's writes.
	Writes []Write

	r *classify.Report
	b Boundary
}

// Write is where one write candidate lands.
type Write struct {
	// Path is the absolute, cleaned path written ("" when not
	// established); for a glob, the directory its matches are in.
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
	// Critical is set when losing the path loses a whole tree that
	// matters: "/", a top-level directory, the home directory or an
	// ancestor of it, a root or an ancestor of one — or, for a glob, every
	// entry of one.
	Critical bool `json:"critical"`
	// Device is set for a device under /dev other than the harmless ones
	// (null, zero, stdout, stderr, tty, fd/*).
	Device bool `json:"device"`
}

// JudgeWrites judges every write of r against b's roots. It never fails:
// a write whose target cannot be known is not established. b need not
// validate (a boundary NewBoundary returned with an error still names its
// cwd, home and roots as far as they are known).
func JudgeWrites(r *classify.Report, b Boundary) *Writes {
	w := &Writes{Home: b.Home, Roots: []string{}, Writes: []Write{}, r: r, b: b}
	if r == nil || len(r.Writes) == 0 {
		return w
	}
	w.Roots = b.AbsRoots()
	rs := newResolver()
	all := append([]string{}, w.Roots...)
	for _, root := range w.Roots {
		all = append(all, rs.real(root))
	}
	w.Writes = make([]Write, len(r.Writes))
	for i, ref := range r.Writes {
		if ref.Dynamic == "find-match" {
			w.Writes[i] = judgeFindWrite(r, ref, b.Cwd, b.Home, all, rs)
			continue
		}
		w.Writes[i] = judgeWrite(ref, b.Cwd, b.Home, all, rs)
		if ref.Source == "cwd-flag" {
			// git -C DIR clean, tar -x -C DIR, cd DIR && tar -x: the
			// program writes into DIR, what exactly its own rules decide,
			// so it is judged as entries of DIR, never as the whole tree.
			w.Writes[i].Glob, w.Writes[i].Critical = true, false
		}
	}
	return w
}

// Again judges the same writes again on the same boundary, right before
// the spawn: a directory replaced by a symlink since the check lands the
// write elsewhere.
func (w *Writes) Again() *Writes {
	if w == nil {
		return nil
	}
	return JudgeWrites(w.r, w.b)
}

// AbsRoots returns b's roots made absolute, as the station makes them
// ("~" folded to Home, relative ones taken from Cwd, cleaned), skipping
// "~" ones when the home directory is unknown and relative ones when the
// cwd is. It does no I/O.
func (b Boundary) AbsRoots() []string {
	out := []string{}
	for _, r := range b.Roots {
		switch {
		case r == "~" || strings.HasPrefix(r, "~/"):
			if b.Home != "" {
				out = append(out, filepath.Join(b.Home, r[1:]))
			}
		case filepath.IsAbs(r):
			out = append(out, filepath.Clean(r))
		case b.Cwd != "" && filepath.IsAbs(b.Cwd):
			out = append(out, filepath.Join(b.Cwd, r))
		}
	}
	return out
}

// judgeFindWrite judges a write of find -exec's {} (find / -exec rm {} +):
// the paths written are entries of find's roots, so the write is judged as
// every entry of each root (Glob). It is established only when every root
// is; a root outside the roots puts the write outside them. It is never
// Critical: find's filters decide what goes, as for find -delete.
func judgeFindWrite(r *classify.Report, w classify.PathRef, cwd, home string, roots []string, rs *resolver) Write {
	var out Write
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
			return Write{}
		}
		if out.Path == "" || wf.OutsideRoots && !out.OutsideRoots {
			out.Path, out.Real = wf.Path, wf.Real
		}
		out.OutsideRoots = out.OutsideRoots || wf.OutsideRoots
		out.Device = out.Device || wf.Device
	}
	if n == 0 {
		return Write{}
	}
	out.Established, out.Glob = true, true
	return out
}

func judgeWrite(w classify.PathRef, cwd, home string, roots []string, rs *resolver) Write {
	var out Write
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
	base, ok := writeDir(w.Cwd, cwd, home)
	abs, ok2 := writePath(p, w.Home, base, ok, home)
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
	out.OutsideRoots = !withinAny(out.Path, roots) || !withinAny(out.Real, roots)
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

// harmlessDevices may be written without harm.
var harmlessDevices = map[string]bool{
	"/dev/null": true, "/dev/zero": true, "/dev/stdout": true, "/dev/stderr": true,
	"/dev/tty": true, "/dev/full": true,
}

// writeDir returns the absolute directory a write's cwd stands for.
func writeDir(c classify.Cwd, cwd, home string) (string, bool) {
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

func writePath(p string, isHome bool, base string, baseOK bool, home string) (string, bool) {
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
	if home != "" && within(home, p) {
		return true
	}
	for _, r := range roots {
		if within(r, p) {
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

// withinAny reports whether p is one of roots or under one.
func withinAny(p string, roots []string) bool {
	for _, r := range roots {
		if within(p, r) {
			return true
		}
	}
	return false
}

// maxDangling bounds the symlinks followed for one path (as the kernel
// bounds symlinks in a path).
const maxDangling = 40

// resolver follows symlinks component by component for a write,
// remembering what each path it went through resolved to, so that the
// roots and the writes of one command, which share their leading
// directories, cost one lstat per directory rather than one per directory
// per path. Unlike the reads' resolution it follows a dangling symlink to
// its target: a write through one creates the target.
type resolver struct {
	known map[string]string // a path as given → its real path
	links int
}

func newResolver() *resolver { return &resolver{known: map[string]string{}} }

// real returns p (absolute) with every symlink followed as far as the path
// exists, dangling ones included; the rest is appended as written. On an
// error other than a missing component, or too many symlinks, it returns p
// unchanged.
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
		fsCalls.Add(1)
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
			fsCalls.Add(1)
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
