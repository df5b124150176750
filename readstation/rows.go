package readstation

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// ValidateRow checks one deny row. Rows are gitignore-style patterns:
//
//   - "~/x" is under the home directory, "/x" is absolute;
//   - "**/x" and a row without a slash ("*.pem") match at any depth;
//   - any other row with a slash ("secrets/*.txt") is anchored at each root;
//   - "**" as a whole component matches zero or more components, "*", "?"
//     and "[...]" match within one component ("*" matches a leading dot),
//     a backslash escapes the next character;
//   - a row that matches a directory matches everything under it, and
//     "x/**" matches x itself too; a trailing "/" is ignored (the row then
//     matches files as well, which is stricter than gitignore);
//   - negation ("!x") and "~user/" are not supported.
func ValidateRow(row string) error {
	_, err := parseRow(row)
	if err != nil {
		return fmt.Errorf("deny row %q: %w", row, err)
	}
	return nil
}

type segKind uint8

const (
	segLit    segKind = iota // exact component
	segAny                   // ** : zero or more components
	segSuffix                // *lit
	segPrefix                // lit*
	segPreSuf                // lit*lit
	segGlob                  // anything else, path.Match
)

type rowSeg struct {
	kind segKind
	s, t string
}

func (g rowSeg) match(c string) bool {
	switch g.kind {
	case segLit:
		return c == g.s
	case segSuffix:
		return strings.HasSuffix(c, g.s)
	case segPrefix:
		return strings.HasPrefix(c, g.s)
	case segPreSuf:
		return len(c) >= len(g.s)+len(g.t) && strings.HasPrefix(c, g.s) && strings.HasSuffix(c, g.t)
	case segGlob:
		ok, err := path.Match(g.s, c)
		return ok && err == nil
	}
	return false
}

// anchor says where a parsed row starts.
type anchor uint8

const (
	anchorAbs  anchor = iota // /x
	anchorHome               // ~/x
	anchorAny                // **/x or x (no slash)
	anchorRoot               // a/b: at each root
)

type parsedRow struct {
	anchor anchor
	segs   []rowSeg
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[\\") }

func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func compileSeg(c string) (rowSeg, error) {
	if c == "**" {
		return rowSeg{kind: segAny}, nil
	}
	if _, err := path.Match(c, ""); err != nil {
		return rowSeg{}, fmt.Errorf("bad pattern component %q", c)
	}
	if !hasMeta(c) {
		return rowSeg{kind: segLit, s: c}, nil
	}
	if c[0] == '*' && !hasMeta(c[1:]) {
		return rowSeg{kind: segSuffix, s: c[1:]}, nil
	}
	if c[len(c)-1] == '*' && !hasMeta(c[:len(c)-1]) {
		return rowSeg{kind: segPrefix, s: c[:len(c)-1]}, nil
	}
	if i := strings.IndexByte(c, '*'); i > 0 && i < len(c)-1 && !hasMeta(c[:i]) && !hasMeta(c[i+1:]) {
		return rowSeg{kind: segPreSuf, s: c[:i], t: c[i+1:]}, nil
	}
	if strings.HasSuffix(c, "\\") {
		return rowSeg{}, fmt.Errorf("trailing backslash in %q", c)
	}
	return rowSeg{kind: segGlob, s: c}, nil
}

func parseRow(row string) (parsedRow, error) {
	var p parsedRow
	r := strings.TrimSpace(row)
	if r == "" {
		return p, errors.New("empty row")
	}
	if r[0] == '!' {
		return p, errors.New("negation is not supported")
	}
	if r[0] == '#' {
		return p, errors.New("a row cannot start with #")
	}
	for len(r) > 1 && strings.HasSuffix(r, "/") {
		r = strings.TrimSuffix(r, "/")
	}
	switch {
	case r == "~" || strings.HasPrefix(r, "~/"):
		p.anchor = anchorHome
		r = strings.TrimPrefix(strings.TrimPrefix(r, "~"), "/")
	case strings.HasPrefix(r, "~"):
		return p, errors.New("~user is not supported")
	case strings.HasPrefix(r, "/"):
		p.anchor = anchorAbs
		r = strings.TrimLeft(r, "/")
	case strings.HasPrefix(r, "**/") || !strings.Contains(r, "/"):
		p.anchor = anchorAny
		r = strings.TrimPrefix(r, "**/")
	default:
		p.anchor = anchorRoot
	}
	if r == "" {
		return p, nil // "~" or "/": the whole tree
	}
	for _, c := range strings.Split(r, "/") {
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			return p, errors.New(`".." is not allowed in a row`)
		}
		s, err := compileSeg(c)
		if err != nil {
			return p, err
		}
		p.segs = append(p.segs, s)
	}
	if p.anchor == anchorAny {
		p.segs = append([]rowSeg{{kind: segAny}}, p.segs...)
	}
	return p, nil
}

// crow is a row compiled against one absolute base.
type crow struct {
	src string
	// prefix is the absolute path of the row's leading literal components
	// ("" for rows that match at any depth).
	prefix string
	// rest are the components after prefix.
	rest []rowSeg
	// self is set when the row matches prefix itself (rest is empty or
	// only "**").
	self bool
}

// matchComps matches segs against a prefix of comps: a row that matches a
// directory matches everything under it.
func matchComps(segs []rowSeg, comps []string) bool {
	for len(segs) > 0 {
		s := segs[0]
		if s.kind == segAny {
			rest := segs[1:]
			if len(rest) == 0 {
				return true
			}
			for i := 0; i < len(comps); i++ {
				if matchComps(rest, comps[i:]) {
					return true
				}
			}
			return false
		}
		if len(comps) == 0 || !s.match(comps[0]) {
			return false
		}
		segs, comps = segs[1:], comps[1:]
	}
	return true
}

// matcher is a compiled set of deny rows plus the roots.
type matcher struct {
	// rows are all rows; anchored rows (prefix != "") are matched first,
	// in order, then single-name rows that match at any depth ("*.pem",
	// "**/.env": name and names), then the other any-depth rows (deep).
	rows  []crow
	name  map[string]string // literal name → row
	names []crow            // any-depth single non-literal name
	deep  []crow            // other any-depth rows
	fold  bool              // compare lower-cased
	anch  map[string][]int  // anchored rows by prefix, indexes in order
	// anchLen[n] is set when an anchored prefix is n bytes long.
	anchLen []bool
	ext     map[string][]int // names rows "*.x" (suffix with a dot) by extension x
	// otherBy are the other names rows whose name starts with a literal
	// (prefix*, pre*suf), by that byte; otherAny the rest of them.
	otherBy  map[byte][]int
	otherAny []int
	// deepLit indexes the deep rows "**/lit/..." by lit (indexes into
	// deep, in order); deepOther are the other deep rows.
	deepLit   map[string][]int
	deepOther []int
	// roots are the roots as written (cleaned, absolute) and their real
	// paths.
	roots []string
	// err is set when the boundary does not validate.
	err error
}

// splitAbs splits a clean absolute path into its components.
func splitAbs(p string, buf []string) []string {
	buf = buf[:0]
	p = strings.TrimPrefix(p, "/")
	for p != "" {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			buf = append(buf, p)
			break
		}
		buf = append(buf, p[:i])
		p = p[i+1:]
	}
	return buf
}

// within reports whether p is base or under it (both clean and absolute).
func within(p, base string) bool {
	if base == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == base || strings.HasPrefix(p, base) && len(p) > len(base) && p[len(base)] == '/'
}

// denied returns the row that matches the clean absolute path p: the
// first anchored row, else a single-name row, else the first other row.
func (m *matcher) denied(p string) (string, bool) {
	if m.fold {
		p = strings.ToLower(p)
	}
	var arr [16]string
	comps := splitAbs(p, arr[:0])
	// The offsets of p's slashes, from the first: each ancestor of p is p
	// cut at one of them.
	var slashArr [16]int
	slashes := slashArr[:0]
	for i := 0; ; i++ {
		k := strings.IndexByte(p[i:], '/')
		if k < 0 {
			break
		}
		i += k
		slashes = append(slashes, i)
	}
	// Anchored rows: only those whose prefix is p or one of its ancestors
	// can match; the first in row order wins. No prefix has the length
	// of most ancestors: those are not looked up.
	best := -1
	for q, depth, k := p, len(comps), len(slashes); ; {
		if len(q) < len(m.anchLen) && m.anchLen[len(q)] {
			for _, i := range m.anch[q] {
				if best >= 0 && i >= best {
					break
				}
				if matchComps(m.rows[i].rest, comps[depth:]) {
					best = i
					break
				}
			}
		}
		if q == "/" || depth == 0 {
			break
		}
		// q's parent: q cut at its last slash (the last of p's slashes
		// inside q), or "/".
		for k > 0 && slashes[k-1] >= len(q) {
			k--
		}
		if k == 0 || slashes[k-1] <= 0 {
			q = "/"
		} else {
			q = q[:slashes[k-1]]
		}
		depth--
	}
	if best >= 0 {
		return m.rows[best].src, true
	}
	for _, c := range comps {
		if src, ok := m.name[c]; ok {
			return src, true
		}
		if k := strings.LastIndexByte(c, '.'); k >= 0 {
			for _, i := range m.ext[c[k+1:]] {
				if m.names[i].rest[1].match(c) {
					return m.names[i].src, true
				}
			}
		}
		// The first of the other rows that matches c, in order: those
		// that start with c's first byte, and those that start with a
		// pattern.
		first := -1
		if c != "" {
			for _, i := range m.otherBy[c[0]] {
				if m.names[i].rest[1].match(c) {
					first = i
					break
				}
			}
		}
		for _, i := range m.otherAny {
			if first >= 0 && i >= first {
				break
			}
			if m.names[i].rest[1].match(c) {
				first = i
				break
			}
		}
		if first >= 0 {
			return m.names[first].src, true
		}
	}
	// The first deep row that matches: "**/lit/tail" matches where a
	// component is lit and tail matches what follows it.
	best = -1
	for k, c := range comps {
		for _, i := range m.deepLit[c] {
			if best >= 0 && i >= best {
				break
			}
			if matchComps(m.deep[i].rest[2:], comps[k+1:]) {
				best = i
				break
			}
		}
	}
	for _, i := range m.deepOther {
		if best >= 0 && i >= best {
			break
		}
		if matchComps(m.deep[i].rest, comps) {
			best = i
			break
		}
	}
	if best >= 0 {
		return m.deep[best].src, true
	}
	return "", false
}

// index sorts the any-depth rows into the name map and lists.
func (m *matcher) index() {
	m.name = map[string]string{}
	m.anch = map[string][]int{}
	m.ext = map[string][]int{}
	for i, r := range m.rows {
		if r.prefix != "" {
			m.anch[r.prefix] = append(m.anch[r.prefix], i)
			for len(m.anchLen) <= len(r.prefix) {
				m.anchLen = append(m.anchLen, false)
			}
			m.anchLen[len(r.prefix)] = true
			continue
		}
		switch {
		case len(r.rest) == 2 && r.rest[0].kind == segAny && r.rest[1].kind == segLit:
			if _, dup := m.name[r.rest[1].s]; !dup {
				m.name[r.rest[1].s] = r.src
			}
		case len(r.rest) == 2 && r.rest[0].kind == segAny && r.rest[1].kind != segAny:
			i := len(m.names)
			m.names = append(m.names, r)
			seg := r.rest[1]
			if k := strings.LastIndexByte(seg.s, '.'); seg.kind == segSuffix && k >= 0 {
				// "*.tfstate.backup": a name ending so has extension "backup".
				m.ext[seg.s[k+1:]] = append(m.ext[seg.s[k+1:]], i)
			} else {
				if (seg.kind == segPrefix || seg.kind == segPreSuf) && seg.s != "" {
					if m.otherBy == nil {
						m.otherBy = map[byte][]int{}
					}
					m.otherBy[seg.s[0]] = append(m.otherBy[seg.s[0]], i)
				} else {
					m.otherAny = append(m.otherAny, i)
				}
			}
		default:
			if len(r.rest) >= 2 && r.rest[0].kind == segAny && r.rest[1].kind == segLit {
				if m.deepLit == nil {
					m.deepLit = map[string][]int{}
				}
				m.deepLit[r.rest[1].s] = append(m.deepLit[r.rest[1].s], len(m.deep))
			} else {
				m.deepOther = append(m.deepOther, len(m.deep))
			}
			m.deep = append(m.deep, r)
		}
	}
}

// inRoots reports whether p is under one of the roots.
func (m *matcher) inRoots(p string) bool {
	for _, r := range m.roots {
		if within(p, r) {
			return true
		}
	}
	return false
}

// foldCase is set where the usual file systems ignore case (macOS,
// Windows): ~/.SSH/ID_RSA is ~/.ssh/id_rsa there, so rows and paths are
// compared lower-cased.
var foldCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows" || runtime.GOOS == "ios"

func compileMatcher(b Boundary) *matcher {
	m := &matcher{fold: foldCase}
	if err := b.Validate(); err != nil {
		m.err = err
		return m
	}
	homes := []string{}
	if b.Home != "" {
		h := filepath.Clean(b.Home)
		homes = append(homes, h)
		if real, err := filepath.EvalSymlinks(h); err == nil && real != h {
			homes = append(homes, real)
		}
	}
	seen := map[string]bool{}
	addRoot := func(r string) {
		if !seen[r] {
			seen[r] = true
			m.roots = append(m.roots, r)
		}
	}
	for _, r := range b.Roots {
		var abs string
		switch {
		case r == "~" || strings.HasPrefix(r, "~/"):
			if b.Home == "" {
				continue
			}
			abs = filepath.Join(b.Home, r[1:])
		case filepath.IsAbs(r):
			abs = filepath.Clean(r)
		default:
			abs = filepath.Join(b.Cwd, r)
		}
		addRoot(abs)
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			addRoot(real)
		}
	}
	for _, src := range b.DenyRows {
		row := src
		if m.fold {
			row = strings.ToLower(row)
			for i := range homes {
				homes[i] = strings.ToLower(homes[i])
			}
		}
		p, _ := parseRow(row) // validated above
		var bases []string
		switch p.anchor {
		case anchorAbs:
			bases = []string{"/"}
		case anchorHome:
			bases = homes
		case anchorRoot:
			bases = m.roots
			if m.fold {
				bases = nil
				for _, r := range m.roots {
					bases = append(bases, strings.ToLower(r))
				}
			}
		case anchorAny:
			bases = []string{""}
		}
		for _, base := range bases {
			m.rows = append(m.rows, compileAt(src, base, p.segs)...)
		}
	}
	m.index()
	return m
}

// compileAt anchors segs at base, splitting off the literal prefix. An
// absolute prefix whose real path differs (a symlinked /etc) yields a
// second row at the real path.
func compileAt(src, base string, segs []rowSeg) []crow {
	if base == "" {
		return []crow{{src: src, rest: segs}}
	}
	prefix := base
	i := 0
	for ; i < len(segs) && segs[i].kind == segLit; i++ {
		prefix = filepath.Join(prefix, segs[i].s)
	}
	rest := segs[i:]
	self := true
	for _, s := range rest {
		if s.kind != segAny {
			self = false
		}
	}
	out := []crow{{src: src, prefix: prefix, rest: rest, self: self}}
	if real, err := filepath.EvalSymlinks(prefix); err == nil && real != prefix {
		out = append(out, crow{src: src, prefix: real, rest: rest, self: self})
	}
	return out
}

var matcherCache struct {
	sync.Mutex
	m map[string]*matcher
}

var lastMatcher struct {
	sync.Mutex
	b Boundary
	m *matcher
}

func sameBoundary(a, b Boundary) bool {
	return a.Home == b.Home && a.Cwd == b.Cwd && a.MaxGlobMatches == b.MaxGlobMatches && a.MaxWalkDirs == b.MaxWalkDirs &&
		slices.Equal(a.Roots, b.Roots) && slices.Equal(a.DenyRows, b.DenyRows)
}

// getMatcher returns the compiled matcher for b, compiling it once per
// distinct boundary (every field counts, since Validate checks them all).
func getMatcher(b Boundary) *matcher {
	lastMatcher.Lock()
	if lastMatcher.m != nil && sameBoundary(lastMatcher.b, b) {
		m := lastMatcher.m
		lastMatcher.Unlock()
		return m
	}
	lastMatcher.Unlock()
	m := getMatcherKeyed(b)
	lastMatcher.Lock()
	lastMatcher.b = Boundary{Home: b.Home, Cwd: b.Cwd, Roots: slices.Clone(b.Roots), DenyRows: slices.Clone(b.DenyRows),
		MaxGlobMatches: b.MaxGlobMatches, MaxWalkDirs: b.MaxWalkDirs}
	lastMatcher.m = m
	lastMatcher.Unlock()
	return m
}

func getMatcherKeyed(b Boundary) *matcher {
	var k strings.Builder
	// The caps are part of the key: Validate rejects a negative one.
	fmt.Fprintf(&k, "%d,%d\x00", b.MaxGlobMatches, b.MaxWalkDirs)
	k.WriteString(b.Home)
	k.WriteByte(0)
	k.WriteString(b.Cwd)
	k.WriteByte(0)
	for _, r := range b.Roots {
		k.WriteString(r)
		k.WriteByte(1)
	}
	k.WriteByte(0)
	for _, r := range b.DenyRows {
		k.WriteString(r)
		k.WriteByte(1)
	}
	key := k.String()
	matcherCache.Lock()
	m, ok := matcherCache.m[key]
	matcherCache.Unlock()
	if ok {
		return m
	}
	m = compileMatcher(b)
	matcherCache.Lock()
	if matcherCache.m == nil || len(matcherCache.m) >= 64 {
		matcherCache.m = map[string]*matcher{}
	}
	matcherCache.m[key] = m
	matcherCache.Unlock()
	return m
}

// DeniedBy returns the deny row of b that matches the absolute path p
// (cleaned first; no symlink is followed), as the station matches a read.
// A tracer that sees the files a program really opened asks it which of
// them the boundary forbids.
func (b Boundary) DeniedBy(p string) (row string, ok bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	return getMatcher(b).denied(filepath.Clean(p))
}
