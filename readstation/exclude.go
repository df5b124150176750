package readstation

import (
	"strings"

	"github.com/shellgate/shellgate/classify"
)

// Exclusions the station honours in a tree check, so that following the
// hint in a denied read's message ("exclude it with --exclude-dir=DIR")
// works:
//
//   - grep --exclude-dir=GLOB skips directories, --exclude=GLOB skips other
//     files, by base name (fnmatch, matched by matchPattern), unless an
//     --include is given too (the last matching one of them wins);
//   - rg -g/--glob '!GLOB' skips paths matching the gitignore-style GLOB
//     relative to the searched root, when every -g glob given is a negation
//     (a later positive glob could re-include a path).
//
// Anything the station cannot read statically (a dynamic value, a pattern
// matchPattern cannot match with certainty, --iglob, find -prune, du --exclude, tree -I) excludes
// nothing: the tree is judged whole.
type exclusions struct {
	files, dirs []*compiledPattern // grep: base-name globs (fnmatch)
	// includes, when not empty, are the base-name globs (fnmatch) of the
	// only files read (grep --include, gofmt's *.go): a file that matches
	// none of them with certainty is skipped.
	includes []*compiledPattern
	rel      [][]rowSeg // rg: gitignore-style segments from the root
}

func (x *exclusions) empty() bool {
	return x == nil || len(x.files) == 0 && len(x.dirs) == 0 && len(x.rel) == 0 && len(x.includes) == 0
}

// encodeExclusions turns a segment's exclude facts (classify.Walk's
// Excludes, from the catalog's walk excludes) into a comparable key
// (walkOpts is a map key); decodeExclusions parses it back.
func encodeExclusions(s *classify.Segment) string {
	if s.Walk == nil {
		return ""
	}
	var b strings.Builder
	for _, e := range s.Walk.Excludes {
		switch e.Kind {
		case classify.ExcludeFile:
			b.WriteString("f" + e.Glob + "\x00")
		case classify.ExcludeDir:
			b.WriteString("d" + e.Glob + "\x00")
		case classify.ExcludePath:
			b.WriteString("r" + e.Glob + "\x00")
		case classify.ExcludeInclude:
			b.WriteString("i" + e.Glob + "\x00")
		}
	}
	return b.String()
}

func decodeExclusions(enc string) *exclusions {
	if enc == "" {
		return nil
	}
	x := &exclusions{}
	includeAll := false // an include glob that cannot be matched lets any file in
	defer func() {
		if includeAll {
			x.includes = nil
		}
	}()
	for _, e := range strings.Split(strings.TrimSuffix(enc, "\x00"), "\x00") {
		if e == "" {
			continue
		}
		kind, g := e[0], e[1:]
		switch kind {
		case 'i':
			c := compilePattern(g, synFnmatch)
			if g == "" || c.err != nil {
				includeAll = true
				continue
			}
			x.includes = append(x.includes, c)
		case 'f', 'd':
			if g == "" {
				continue
			}
			c := compilePattern(g, synFnmatch)
			if c.err != nil {
				continue // excludes nothing: the tree is judged whole
			}
			if kind == 'f' {
				x.files = append(x.files, c)
			} else {
				x.dirs = append(x.dirs, c)
			}
		case 'r':
			p, err := parseRow(g)
			if err != nil || p.anchor == anchorHome {
				continue
			}
			x.rel = append(x.rel, p.segs)
		}
	}
	return x
}

// matchAny reports whether name matches one of globs with certainty: a
// name the locale decides for a pattern is not excluded.
func matchAny(globs []*compiledPattern, name string) bool {
	for _, g := range globs {
		if ok, err := g.match(name, true); ok && err == nil {
			return true
		}
	}
	return false
}

// skips reports whether the reader skips the entry rel (components below
// the root; the last one is the entry, a directory when dir is set).
func (x *exclusions) skips(rel []string, dir bool) bool {
	if x.empty() || len(rel) == 0 {
		return false
	}
	name := rel[len(rel)-1]
	if dir && matchAny(x.dirs, name) || !dir && matchAny(x.files, name) {
		return true
	}
	if !dir && len(x.includes) > 0 && !mayMatch(x.includes, name) {
		return true
	}
	for _, segs := range x.rel {
		if matchComps(segs, rel) {
			return true
		}
	}
	return false
}

// skipsPath reports whether the reader skips p (under root) or one of the
// directories on the way to it; isDir says whether p itself is one.
func (x *exclusions) skipsPath(p, root string, isDir bool) bool {
	if x.empty() {
		return false
	}
	rel := strings.Split(strings.TrimPrefix(strings.TrimPrefix(p, root), "/"), "/")
	for i := 1; i <= len(rel); i++ {
		if x.skips(rel[:i], i < len(rel) || isDir) {
			return true
		}
	}
	return false
}

// mayMatch reports whether name matches one of globs, or a glob cannot
// decide it with certainty (the locale decides): an include glob skips
// only a name it surely misses.
func mayMatch(globs []*compiledPattern, name string) bool {
	for _, g := range globs {
		if ok, err := g.match(name, true); ok || err != nil {
			return true
		}
	}
	return false
}
