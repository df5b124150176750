package readstation

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/shellgate/shellgate/classify"
)

// Programs read files the command does not name, and some of those files
// make them run code, reach the network or print a secret: pnpm loads the
// project's .pnpmfile.cjs for every command, yarn runs the release a
// .yarnrc.yml's yarnPath names, go version downloads and runs the Go
// toolchain a go.mod's toolchain line names, kubectl get runs the exec
// plugin a kubeconfig names. The catalog lists them (hidden_inputs): a
// file looked for from the directory the program runs in up to the root,
// or in the home directory (or a directory an environment variable
// names), found by its existence, by a line a regular expression matches,
// or by a comparison a regular expression cannot make exactly (a check:
// hiddenChecks). The station reports each one that applies as a
// RepoHelper, as it does git's configured helpers; a file it cannot read,
// or a variable whose value it does not know, makes a not-established
// read. The policy decides.

// hiddenInputs reports the files through which the segments' programs
// would run code, reach the network or print a secret the files chose.
func (j *judger) hiddenInputs() []RepoHelper {
	var out []RepoHelper
	for i := range j.r.Segments {
		s := &j.r.Segments[i]
		if len(s.HiddenInputs) == 0 {
			continue
		}
		who := s.Name
		if s.Subcommand != "" {
			who += " " + s.Subcommand
		}
		cwd, ok := j.effectiveCwd(s)
		if !ok {
			j.notEstablished(s, s.Cwd.Path, fmt.Sprintf("the directory %s runs in, and so the files through which it runs code, cannot be established", who))
			continue
		}
		res := j.fs.resolve(cwd)
		if res.err != nil {
			j.notEstablished(s, cwd, fmt.Sprintf("%s cannot be established (%v), and so the files through which %s runs code", show(cwd), res.err, who))
			continue
		}
		if !res.isDir() {
			continue // it does not run: the cd or -C before it fails
		}
		h := hiddenRun{j: j, s: s, who: who, cwd: res.real}
		for _, hi := range s.HiddenInputs {
			if !h.applies(hi) {
				continue
			}
			if hi.Check != "" {
				h.hi = hi
				if f := hiddenChecks[hi.Check]; f != nil {
					out = append(out, f(&h)...)
				} else {
					j.notEstablished(s, cwd, fmt.Sprintf("the catalog names a check %q of %s's hidden inputs that this station does not know", hi.Check, who))
				}
				continue
			}
			for _, p := range h.locate(hi) {
				if hi.Reads {
					if hi.LinksOnly {
						if n := j.fs.lstat(p); n.err != nil || n.mode&fs.ModeSymlink == 0 {
							continue // the program's own file (a credential it keeps), or none
						}
					}
					h.judgeRead(p, hi.Does)
					continue
				}
				if hi.Match == "" && hi.Format == "" && hi.InDirs() != nil || hi.In == "path" && hi.Match == "" && hi.Format == "" {
					// Its existence does, a directory's too (man's pages
					// beside PATH, Python's user site-packages); a project
					// file that is a directory is not established.
					if res := j.fs.resolve(p); res.err == nil && res.exists && res.mode.IsDir() {
						j.adm.addPath(p, res)
						rh, _ := matchHidden(hi, p, nil)
						rh.Segment, rh.Span = s.Index, s.Span
						out = append(out, rh)
						continue
					}
				}
				data, ok := h.read(p)
				if !ok {
					continue
				}
				if hi.Format != "" {
					rh, ok, err := matchDoc(hi, p, data)
					if err != nil {
						j.notEstablished(s, p, fmt.Sprintf("%s reads %s, which does not decode as %s (%s), so whether it sets %s cannot be established", who, show(p), strings.ToUpper(hi.Format), clip(err.Error()), strings.Join(hi.Keys, ", ")))
					} else if ok {
						rh.Segment, rh.Span = s.Index, s.Span
						out = append(out, rh)
					}
					continue
				}
				if rh, ok := matchHidden(hi, p, data); ok {
					rh.Segment, rh.Span = s.Index, s.Span
					out = append(out, rh)
				}
			}
		}
	}
	return out
}

// judgeRead judges the file p, which the program parses and quotes in its
// errors (catalog reads), as a read: a file the deny rows cover, or a link
// to one, is denied; a link out of the roots is outside them; a file that
// is not regular is not established. A regular file of the workspace's
// parents is the attacker's own writing, and passes. does, when the
// catalog gives it, says what the program prints of the file.
func (h *hiddenRun) judgeRead(p, does string) {
	j := h.j
	res := j.fs.resolve(p)
	j.adm.addPath(p, res)
	if res.err == nil && !res.exists {
		return
	}
	v, row, msg := j.verdictFor(filepath.Clean(p), res)
	switch {
	case v == VerdictDenied, v == VerdictNotEstablished:
	case v == VerdictOutsideRoots && res.real != filepath.Clean(p):
	case res.err == nil && !res.mode.IsRegular():
		v, msg = VerdictNotEstablished, fmt.Sprintf("%s is a %s", show(p), typeName(res.mode))
	default:
		return
	}
	if does == "" {
		does = "print its lines when they do not parse"
	}
	j.extra = append(j.extra, Read{Path: p, Kind: "literal", Source: "repository", Resolved: filepath.Clean(p), Real: res.real,
		Verdict: v, Row: row, Message: fmt.Sprintf("%s reads %s and would %s, and %s", h.who, show(p), does, msg),
		Span: h.s.Span, Segment: h.s.Index, Matches: []string{}})
}

// notEstablished adds a not-established read about a segment's hidden
// inputs.
func (j *judger) notEstablished(s *classify.Segment, p, msg string) {
	for _, r := range j.extra {
		if r.Verdict == VerdictNotEstablished && r.Segment == s.Index && r.Path == p && r.Message == msg {
			return // two checks that read the same (go's env) say it once
		}
	}
	j.extra = append(j.extra, Read{Path: p, Kind: "literal", Source: "repository", Resolved: p,
		Verdict: VerdictNotEstablished, Message: msg, Span: s.Span, Segment: s.Index, Matches: []string{}})
}

// matchHidden judges one file of a hidden input: its existence, or its
// first line Match finds.
func matchHidden(hi classify.HiddenInput, p string, data []byte) (RepoHelper, bool) {
	if hi.Match == "" {
		rh := RepoHelper{File: p}
		if hi.Does != "" {
			rh.Why, rh.Does = "exists", hi.Does
		}
		return rh, true
	}
	re := hiddenRegexp(hi.Match) // validated with the catalog
	for _, line := range strings.Split(string(data), "\n") {
		if re == nil || re.MatchString(line) { // a pattern that does not compile finds every file
			v := clip(strings.TrimSpace(line))
			rh := RepoHelper{Key: hi.Key, File: p, Value: v}
			if hi.Does != "" {
				rh.Why, rh.Does = fmt.Sprintf("sets %s (%q)", hi.Key, v), hi.Does
			}
			return rh, true
		}
	}
	return RepoHelper{}, false
}

// clip shortens a value for a message.
func clip(v string) string {
	if len(v) > 200 {
		return v[:200] + "…"
	}
	return v
}

// hiddenRun is one segment's judging of its hidden inputs.
type hiddenRun struct {
	j   *judger
	s   *classify.Segment
	who string
	cwd string // real
	// hi is the hidden input being judged (its check reads env, does).
	hi classify.HiddenInput
	// rust is the toolchain file rustup reads, once found (the rust
	// checks share it).
	rust *rustFound
	// bad counts the files read that could not be (each has added a
	// not-established read).
	bad int
}

// env returns a variable of the agent's environment and whether its value
// is known.
func (h *hiddenRun) env(name string) (string, bool) {
	if h.j.b.Env == nil {
		return "", false
	}
	return h.j.b.Env.Lookup(name)
}

// read reads a file of a hidden input: its data, or false when it does not
// exist or cannot be read (then a not-established read says so).
func (h *hiddenRun) read(p string) ([]byte, bool) {
	j := h.j
	mark := len(j.unreadable)
	data, ok := j.read(p)
	if len(j.unreadable) > mark {
		u := j.unreadable[mark]
		j.unreadable = j.unreadable[:mark]
		j.notEstablished(h.s, p, fmt.Sprintf("%s reads %s, which cannot be read (%s), so whether it runs code or reaches the network a file chose cannot be established", h.who, show(p), u.why))
		h.bad++
		return nil, false
	}
	return data, ok
}

// applies reports whether a hidden input applies: its via and unless_env.
func (h *hiddenRun) applies(hi classify.HiddenInput) bool {
	for name, pat := range hi.Unless {
		if v, known := h.env(name); known {
			if re := hiddenRegexp(pat); re != nil && re.MatchString(v) {
				return false
			}
		}
	}
	if hi.Via != "" {
		exe, known := h.lookPath(h.s.Name)
		if known && exe == "" {
			return false // not found: the command fails
		}
		if known {
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				exe = real
			}
			if !globPath(hi.Via, exe) {
				return false
			}
		}
	}
	return true
}

// lookPath finds the program the agent's PATH would run: its path ("" when
// none), and whether that is known (PATH is).
func (h *hiddenRun) lookPath(name string) (string, bool) {
	if name == "" || strings.Contains(name, "/") {
		return "", false
	}
	path, known := h.env("PATH")
	if !known {
		return "", false
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(h.cwd, dir)
		}
		p := filepath.Join(dir, name)
		fsCalls.Add(1)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, true
		}
	}
	return "", true
}

// locate returns the paths of a hidden input's file that apply: every one
// from the directory the program runs in up (in: up), the one in that
// directory (cwd), or the one in the directory in names (globs expanded).
// A place that cannot be established adds a not-established read and
// names no path.
func (h *hiddenRun) locate(hi classify.HiddenInput) []string {
	if hi.FileEnv != "" {
		v, known := h.env(hi.FileEnv)
		if !known {
			h.j.notEstablished(h.s, "$"+hi.FileEnv, fmt.Sprintf("%s reads the file $%s names, whose value is not known, so whether it runs code or reaches the network a file chose cannot be established", h.who, hi.FileEnv))
			return nil
		}
		if v == "off" {
			return nil
		}
		if v != "" {
			var out []string
			for _, p := range filepath.SplitList(v) {
				if p == "" {
					continue
				}
				if !filepath.IsAbs(p) {
					p = filepath.Join(h.cwd, p)
				}
				out = append(out, p)
			}
			return out
		}
	}
	if hi.File == "" {
		return nil // only the file the variable names
	}
	switch hi.In {
	case "", "up":
		var out []string
		for d := h.cwd; ; {
			out = append(out, joinAbs(d, hi.File))
			parent := filepath.Dir(d)
			if parent == d {
				return out
			}
			d = parent
		}
	case "cwd":
		return h.glob(joinAbs(h.cwd, hi.File))
	case "path":
		var out []string
		for _, d := range h.j.workspacePathDirs(h.cwd) {
			out = append(out, h.glob(joinAbs(d, hi.File))...)
			out = append(out, h.glob(joinAbs(filepath.Dir(d), hi.File))...)
		}
		return out
	}
	dir, ok := h.inDir(hi)
	if !ok || dir == "" {
		return nil
	}
	return h.glob(joinAbs(dir, hi.File))
}

// inDir resolves a hidden input's directory (in: "$VAR|~/.x"): "" when
// none applies, false when it cannot be established (a not-established
// read says why).
func (h *hiddenRun) inDir(hi classify.HiddenInput) (string, bool) {
	for _, alt := range hi.InDirs() {
		if alt == "~" || strings.HasPrefix(alt, "~/") {
			if h.j.b.Home == "" {
				h.j.notEstablished(h.s, alt, fmt.Sprintf("%s reads %s in the home directory, which is not known", h.who, filepath.Join(alt, hi.File)))
				return "", false
			}
			return filepath.Join(h.j.b.Home, strings.TrimPrefix(alt[1:], "/")), true
		}
		name, rest, _ := strings.Cut(alt[1:], "/")
		v, known := h.env(name)
		if !known {
			h.j.notEstablished(h.s, "$"+name, fmt.Sprintf("%s reads %s below $%s, whose value is not known, so whether it runs code or reaches the network a file chose cannot be established", h.who, hi.File, name))
			return "", false
		}
		if v == "" || !filepath.IsAbs(v) {
			continue // not set (a relative XDG value is ignored, as os.UserConfigDir does)
		}
		return filepath.Join(v, rest), true
	}
	return "", true
}

// glob expands a glob in p (at most 64 matches); a path without one is
// itself.
func (h *hiddenRun) glob(p string) []string {
	if !strings.ContainsAny(p, "*?[") {
		return []string{p}
	}
	fsCalls.Add(1)
	m, err := filepath.Glob(p)
	if err != nil {
		h.j.notEstablished(h.s, p, fmt.Sprintf("%s reads %s, which cannot be listed (%v)", h.who, show(p), err))
		return nil
	}
	if len(m) > 64 {
		h.j.notEstablished(h.s, p, fmt.Sprintf("%s reads %s, which matches more than 64 files", h.who, show(p)))
		return nil
	}
	return m
}

// globPath matches a path against a via glob: "**" any run of
// characters, "*" and "?" within one element.
func globPath(glob, p string) bool {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; {
		case c == '*' && i+1 < len(glob) && glob[i+1] == '*':
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re := hiddenRegexp(b.String())
	return re != nil && re.MatchString(p)
}

var hiddenRegexps sync.Map // pattern → *regexp.Regexp

// hiddenRegexp compiles a catalog pattern once.
func hiddenRegexp(pat string) *regexp.Regexp {
	if re, ok := hiddenRegexps.Load(pat); ok {
		return re.(*regexp.Regexp)
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil
	}
	hiddenRegexps.Store(pat, re)
	return re
}

// hiddenChecks are the comparisons a hidden input's check names
// (classify.HiddenInputChecks documents them).
var hiddenChecks = map[string]func(h *hiddenRun) []RepoHelper{
	"go-toolchain":        checkGoToolchain,
	"go-modules":          checkGoModules,
	"go-work-modules":     checkGoWorkModules,
	"cargo-manifests":     checkCargoManifests,
	"rust-toolchain":      checkRustToolchain,
	"rust-toolchain-path": checkRustToolchainPath,
	"env-set":             checkEnvSet,
	"man-pages":           checkManPages,
	"npm-config-files":    checkNpmConfigFiles,
}

// checkEnvSet: a variable the hidden input's env names is set in the
// environment the program runs in (less runs the input preprocessor
// LESSOPEN names on every file). One whose value is not known is not
// established.
func checkEnvSet(h *hiddenRun) []RepoHelper {
	var out []RepoHelper
	for _, name := range h.hi.Env {
		v, known := h.env(name)
		switch {
		case !known:
			h.j.notEstablished(h.s, "$"+name, fmt.Sprintf("%s obeys $%s, whose value is not known, so whether it runs a program the variable names cannot be established", h.who, name))
		case v != "":
			does := h.hi.Does
			if does == "" {
				does = "run the program it names"
			}
			out = append(out, RepoHelper{Key: name, File: "$" + name, Value: name + "=" + v,
				Why: fmt.Sprintf("is set to %q", v), Does: does, Segment: h.s.Index, Span: h.s.Span})
		}
	}
	return out
}
