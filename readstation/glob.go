package readstation

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"mvdan.cc/sh/v3/pattern"
)

// escapeMeta escapes glob metacharacters in a literal base (a cwd or home
// directory) that a pattern is joined to.
func escapeMeta(s string) string { return pattern.QuoteMeta(s, 0) }

// hasUnescapedMeta reports whether a pattern component has a live
// metacharacter.
func hasUnescapedMeta(c string) bool {
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// errGlobCap is returned when a glob expands past the cap.
type errGlobCap struct{ max int }

func (e errGlobCap) Error() string {
	return fmt.Sprintf("the pattern matches more than %d paths (MaxGlobMatches)", e.max)
}

// expandGlob expands an absolute pattern the way bash does with default
// options (no dotglob, no globstar: "**" is "*"): metacharacter components
// are matched against directory listings, symlinks to directories are
// followed, a leading dot must be matched explicitly, and then "." and ".."
// match too (as before bash 5.2's globskipdots). It returns the
// matches as absolute texts (not cleaned), sorted.
func (j *judger) expandGlob(pattern string, mode globMode, max int) ([]string, error) {
	return expandGlob(j.fs, pattern, mode, max)
}

// globMode is how a shell other than bash expands a pattern: zsh's D
// qualifier lets metacharacters match a leading dot (never "." or ".."),
// and its "**" component matches any number of directories. zsh is set
// when zsh may run the command: each component is then matched in
// synZsh (see matchPattern).
type globMode struct {
	dots, globstar, zsh bool
}

// syntax is the pattern syntax of the mode's components.
func (m globMode) syntax() patternSyntax {
	if m.zsh {
		return synZsh
	}
	return synBash
}

func expandGlob(fsc *fsCache, pattern string, mode globMode, max int) ([]string, error) {
	cands := []string{""} // "" stands for "/"
	fromDir := false
	comps := strings.Split(strings.TrimLeft(pattern, "/"), "/")
	for _, c := range comps {
		if c == "" {
			continue
		}
		if mode.globstar && (c == "**" || c == "***") {
			// zsh: **/ is zero or more directories (***/ follows links).
			var err error
			cands, err = globstarDirs(fsc, cands, mode.dots, c == "***", max)
			if err != nil {
				return nil, err
			}
			fromDir = true
			if len(cands) == 0 {
				return nil, nil
			}
			continue
		}
		if !hasUnescapedMeta(c) {
			lit := unescape(c)
			for i := range cands {
				cands[i] += "/" + lit
			}
			fromDir = false
			continue
		}
		var next []string
		for _, base := range cands {
			dir := base
			if dir == "" {
				dir = "/"
			}
			res := fsc.resolve(dir)
			if res.err != nil {
				return nil, fmt.Errorf("%s cannot be established: %v", dir, res.err)
			}
			if !res.isDir() {
				continue
			}
			es, err := fsc.readDir(res.real)
			if err != nil {
				if notFound(err) {
					continue
				}
				return nil, fmt.Errorf("cannot list %s: %v", dir, err)
			}
			pat := compilePattern(c, mode.syntax())
			names := make([]string, 0, len(es)+2)
			if pat.dotLit && !mode.dots && !mode.globstar {
				// Bash before 5.2 (and with globskipdots off) lets ".*"
				// match "." and "..": "grep -r x .*" reads the parent.
				names = append(names, ".", "..")
			}
			for _, e := range es {
				names = append(names, e.Name())
			}
			for _, name := range names {
				if ok, err := pat.match(name, mode.dots); err != nil {
					return nil, fmt.Errorf("bad pattern: %w", err)
				} else if ok {
					next = append(next, base+"/"+name)
					if len(next) > max {
						return nil, errGlobCap{max}
					}
				}
			}
		}
		cands = next
		fromDir = true
		if len(cands) == 0 {
			return nil, nil
		}
	}
	out := cands[:0]
	for _, c := range cands {
		if c == "" {
			c = "/"
		}
		if !fromDir {
			// A literal tail must exist (bash checks it).
			if _, err := filepathLstat(fsc, c); err != nil {
				continue
			}
		}
		out = append(out, c)
	}
	sort.Strings(out)
	return out, nil
}

// filepathLstat checks that c exists without following its last component.
func filepathLstat(fsc *fsCache, c string) (*node, error) {
	dir, name := filepath.Split(c)
	res := fsc.resolve(filepath.Clean(dir))
	if res.err != nil {
		return nil, res.err
	}
	if !res.exists {
		return nil, fmt.Errorf("missing")
	}
	n := fsc.lstat(joinAbs(res.real, name))
	return n, n.err
}

// judgeGlob expands the absolute pattern text and judges every match; the
// worst verdict wins. No match: bash passes the pattern on as a literal
// word, which is judged as such.
//
// The checks g asks for make a match that is not the path read
// not established.
func (j *judger) judgeGlob(text string, recursive bool, g globChecks, opt walkOpts, rd *Read) {
	rd.Resolved = filepath.Clean(text)
	max := j.b.maxGlob()
	matches, err := j.expandGlob(text, g.mode, max)
	j.adm.addGlob(text, g.mode, matches, err)
	if err != nil {
		rd.set(VerdictNotEstablished, "", fmt.Sprintf("%s: %v", show(text), err))
		return
	}
	if len(matches) == 0 {
		lit := unescape(text)
		sub := Read{Segment: rd.Segment}
		j.judgeText(lit, recursive, opt, &sub)
		if g.tracked && sub.Verdict == VerdictOK {
			j.judgeTrackedUnder(&sub)
		}
		rd.Real = sub.Real
		rd.set(sub.Verdict, sub.Row, "the pattern matches nothing, so the program gets it as written: "+sub.Message)
		rd.InTree = sub.InTree
		return
	}
	best := Read{Verdict: VerdictOK}
	first := true
	for _, m := range matches {
		if g.split > 0 && splitHazard(m, g.split) {
			rd.Matches = append(rd.Matches, m)
			rd.set(VerdictNotEstablished, "", fmt.Sprintf("%s holds whitespace or a glob character, and the unquoted variable that carries it is split and globbed again: quote it (\"$f\")", show(m)))
			return
		}
		if g.dashBase != "" && strings.HasPrefix(strings.TrimPrefix(m, g.dashBase), "-") {
			rd.Matches = append(rd.Matches, m)
			rd.set(VerdictNotEstablished, "", fmt.Sprintf("the match %s begins with \"-\", so the program would take it as an option, not a path (start the pattern with ./, or put -- before it)", quote(strings.TrimPrefix(m, g.dashBase))))
			return
		}
		sub := Read{Segment: rd.Segment}
		j.judgeText(m, recursive, opt, &sub)
		if g.tracked && sub.Verdict == VerdictOK {
			j.judgeTrackedUnder(&sub)
		}
		rd.Matches = append(rd.Matches, sub.Resolved)
		if first || rank(sub.Verdict) > rank(best.Verdict) {
			best = sub
			first = false
		}
	}
	msg := fmt.Sprintf("the pattern matches %d path(s)", len(matches))
	if best.Verdict != VerdictOK {
		msg += "; " + best.Message
	}
	rd.set(best.Verdict, best.Row, msg)
	rd.InTree = best.InTree
}

// globChecks are the checks a glob's matches need beyond the boundary.
type globChecks struct {
	// tracked: git prints what the repository tracks below a matched
	// directory (classify.PathRef.Tracked).
	tracked bool
	// split, when not 0, is the number of trailing components of each
	// match that the shell splits on whitespace and globs again (an
	// unquoted loop variable, classify.PathRef.Split): a match with
	// whitespace or a glob character there is not the path read.
	split int
	// dashBase, when set, is the cwd (with a trailing "/") the pattern is
	// relative to, for an operand where the program still parses options
	// (classify.PathRef.OptionLike): a match that begins with "-" there
	// is an option.
	dashBase string
	// mode is how the shell expands the pattern (zsh: dots, globstar).
	mode globMode
}

// splitHazard reports whitespace or a glob character in the last n
// components of p.
func splitHazard(p string, n int) bool {
	for i := len(p) - 1; i >= 0 && n > 0; i-- {
		switch p[i] {
		case '/':
			n--
		case ' ', '\t', '\n', '*', '?', '[':
			return true
		}
	}
	return false
}

// globstarDirs is zsh's "**" component: every candidate directory and
// every directory below it (not those whose name begins with a dot unless
// dots is set; symlinks to directories only when follow is set, as
// "***" does). It fails past max directories.
func globstarDirs(fsc *fsCache, cands []string, dots, follow bool, max int) ([]string, error) {
	var out []string
	var walk func(base string) error
	walk = func(base string) error {
		out = append(out, base)
		if len(out) > max {
			return errGlobCap{max}
		}
		dir := base
		if dir == "" {
			dir = "/"
		}
		res := fsc.resolve(dir)
		if res.err != nil {
			return fmt.Errorf("%s cannot be established: %v", dir, res.err)
		}
		if !res.isDir() {
			return nil
		}
		es, err := fsc.readDir(res.real)
		if err != nil {
			if notFound(err) {
				return nil
			}
			return fmt.Errorf("cannot list %s: %v", dir, err)
		}
		for _, e := range es {
			name := e.Name()
			if name[0] == '.' && !dots {
				continue
			}
			isDir := e.IsDir()
			if !isDir && follow && e.Type()&fs.ModeSymlink != 0 {
				if r := fsc.resolve(base + "/" + name); r.err == nil && r.isDir() {
					isDir = true
				}
			}
			if !isDir {
				continue
			}
			if err := walk(base + "/" + name); err != nil {
				return err
			}
		}
		return nil
	}
	for _, c := range cands {
		if err := walk(c); err != nil {
			return nil, err
		}
	}
	return out, nil
}
