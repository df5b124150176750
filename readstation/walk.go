package readstation

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/shellgate/shellgate/classify"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"
)

// walkOpts say how a tree is read.
type walkOpts struct {
	// skipHidden: the reader skips names starting with "." below the root
	// (rg without --hidden/-u).
	skipHidden bool
	// ignoreFiles, with skipHidden, are the files (relative to a
	// directory, NUL-separated) whose negated patterns show hidden names
	// all the same (rg's .ignore saying !.env): see hiddenLift.
	ignoreFiles string
	// splitNames: the tree's names reach the reader through xargs without
	// NUL separation, so a name with a blank, quote, backslash or newline
	// would be split into other paths.
	splitNames bool
	// splitBase is the reader's working directory, where the pieces of a
	// split name are read ("" when not known: every split name is then
	// not established).
	splitBase string
	// shellSplit: the names reach the reader through an unquoted $(...),
	// so a printed name holding IFS whitespace or a glob character
	// (shellSplitChars) is not established: the shell would make other
	// words of it.
	shellSplit bool
	// dashNames: with shellSplit, the reader still parses options where
	// the words land, so a printed name starting with "-" is not
	// established.
	dashNames bool
	// namesOnly: the reader lists names and metadata below the root and
	// never reads a file's contents (find, du, tree, ls -R), so deny rows,
	// which protect contents, do not apply below the root; the root itself
	// is still judged.
	namesOnly bool
	// nameGlob, when set, is the only name pattern the producer prints
	// (find -name PAT): other entries are walked through but never reach
	// the reader.
	nameGlob string
	// pathGlob, when set, is a git pathspec glob: only entries whose path
	// relative to the root matches it are read (the rest are walked
	// through); "*" and "?" match "/" as well.
	pathGlob string
	// hint says how the reader can exclude a subtree, for messages.
	hint string
	// excl encodes the reader's exclude options (see exclusions).
	excl string
	// maxDirs, when set, caps the walk below the boundary's MaxWalkDirs.
	maxDirs int
	// skipRoots: names inside the roots are not walked (a tree outside the
	// roots that holds a root: what is inside is judged as in-root work).
	skipRoots bool
}

type treeKey struct {
	written, real string
	opts          walkOpts
}

type treeResult struct {
	v        Verdict
	row, msg string
}

// walkOpts returns how segment seg reads trees: the walk facts the
// catalog gives its program (classify.Walk), read here, never the program's
// name. A segment without them is judged whole, contents and hidden names
// included.
func (j *judger) walkOpts(seg int) walkOpts {
	var o walkOpts
	if seg < 0 || seg >= len(j.r.Segments) {
		return o
	}
	s := &j.r.Segments[seg]
	o.hint = "narrow the path"
	if w := s.Walk; w != nil {
		if w.Hint != "" {
			o.hint = w.Hint
		}
		o.namesOnly = w.NamesOnly
		o.skipHidden = skipsHidden(w, j.b.Env)
		o.ignoreFiles = j.ignoreFilesOf(w, o.skipHidden)
	}
	o.excl = encodeExclusions(s)
	return o
}

// skipsHidden reports whether a walk skips hidden names: the catalog says
// the program does and no option shows them, and the environment variable
// that may show them (a config file's) is known not to be set in the
// environment the command runs in (env: the agent's, not this process's).
func skipsHidden(w *classify.Walk, env Env) bool {
	return w != nil && w.SkipHidden && (w.HiddenEnv == "" || !envMaySet(env, w.HiddenEnv))
}

// ignoreFilesOf encodes a walk's ignore files for walkOpts (none when it
// shows hidden names anyway): the catalog's, relative to a directory, and
// the user's git excludes files, absolute (gitExcludesFiles).
func (j *judger) ignoreFilesOf(w *classify.Walk, skipHidden bool) string {
	if w == nil || !skipHidden {
		return ""
	}
	names := w.HiddenIgnoreFiles
	if w.HiddenGitExcludes {
		names = append(append([]string{}, names...), j.gitExcludesFiles()...)
	}
	return strings.Join(names, "\x00")
}

// A reader that skips hidden names (rg) still reads one an ignore file
// whitelists: rg 13 searched .env when .ignore, .rgignore, .gitignore (in
// the directory or any above it) or .git/info/exclude said !.env, and the
// files of a subdirectory whose .gitignore said !.* (hostile traps
// rg-ignore-whitelist, rg-nested-gitignore-whitelist,
// rg-exclude-whitelist, redrepo3). The walk reads those files where it
// lists a directory and above the root, and walks a hidden name that a
// part of a negated pattern may match (a superset of what the program
// shows: "!.vscode/settings.json" shows .vscode, never .env). A file it
// cannot read shows every hidden name.

// maxLiftGlobs bounds the pattern parts a walk keeps; past it every
// hidden name is shown.
const maxLiftGlobs = 256

// hiddenLift is what the ignore files a walk read show of the hidden
// names it would skip.
type hiddenLift struct {
	names []string          // the ignore files, relative to a directory
	globs []string          // parts of negated patterns (path.Match, lower case)
	from  map[string]string // glob → the file and line that gave it
	// all, when set, says why every hidden name is shown.
	all string
}

func newHiddenLift(opt walkOpts) *hiddenLift {
	if !opt.skipHidden || opt.ignoreFiles == "" {
		return nil
	}
	return &hiddenLift{names: strings.Split(opt.ignoreFiles, "\x00"), from: map[string]string{}}
}

// readAbove reads the ignore files of every directory above root, and
// the user's (an absolute path: the git excludes file; "?" and why one
// cannot be known).
func (l *hiddenLift) readAbove(root string, ts *treeStamp) {
	for _, n := range l.names {
		if why, ok := strings.CutPrefix(n, "?"); ok {
			if l.all == "" {
				l.all = why
			}
		} else if filepath.IsAbs(n) {
			l.read(n, ts)
		}
	}
	for d := root; d != filepath.Dir(d); {
		d = filepath.Dir(d)
		for _, n := range l.names {
			if relativeIgnore(n) {
				l.read(joinAbs(d, n), ts)
			}
		}
	}
}

// relativeIgnore reports whether an ignore file of a walk is named
// relative to a directory (not the user's own).
func relativeIgnore(n string) bool {
	return n != "" && n[0] != '/' && n[0] != '?'
}

// readIn reads the ignore files of the directory dir, listed as es
// (sorted): only those whose first element es holds.
func (l *hiddenLift) readIn(dir string, es []os.DirEntry, ts *treeStamp) {
	for _, n := range l.names {
		if !relativeIgnore(n) {
			continue
		}
		first, _, _ := strings.Cut(n, "/")
		i := sort.Search(len(es), func(i int) bool { return es[i].Name() >= first })
		if i < len(es) && es[i].Name() == first {
			l.read(joinAbs(dir, n), ts)
		}
	}
}

// read reads one ignore file (stamped in ts, so that a tree remembered
// clean is walked again when it changes).
func (l *hiddenLift) read(p string, ts *treeStamp) {
	data, st, problem := readSmallStamp(p)
	ts.files = append(ts.files, fileCand{p, st})
	if problem != "" {
		if l.all == "" {
			l.all = fmt.Sprintf("%s, an ignore file that may show hidden names, cannot be read (%s)", show(p), problem)
		}
		return
	}
	l.add(p, data)
}

// add takes the negated patterns of the ignore file p, whose content is
// data.
func (l *hiddenLift) add(p string, data []byte) {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, " \t\r")
		pat, ok := strings.CutPrefix(line, "!")
		if !ok {
			continue
		}
		pat = strings.ReplaceAll(strings.ToLower(pat), "[!", "[^")
		for _, part := range strings.Split(pat, "/") {
			if part == "" {
				continue
			}
			if _, seen := l.from[part]; seen {
				continue
			}
			if len(l.globs) >= maxLiftGlobs {
				if l.all == "" {
					l.all = fmt.Sprintf("%s and the other ignore files hold more than %d negated patterns", show(p), maxLiftGlobs)
				}
				return
			}
			l.globs = append(l.globs, part)
			l.from[part] = fmt.Sprintf("%s says %s", show(p), line)
		}
	}
}

// shows returns why the hidden name is walked all the same ("" when it is
// skipped).
func (l *hiddenLift) shows(name string) string {
	if l == nil {
		return ""
	}
	if l.all != "" {
		return l.all
	}
	lower := strings.ToLower(name)
	for _, g := range l.globs {
		if ok, err := path.Match(g, lower); ok || err != nil || strings.Contains(g, "**") {
			return l.from[g]
		}
	}
	return ""
}

// checkTree looks for deny rows and escaping symlinks under a directory
// that is read whole. The walk is bounded by MaxWalkDirs; hitting the cap
// is not-established.
func (j *judger) checkTree(written, real string, opt walkOpts) (Verdict, string, string) {
	k := treeKey{written, real, opt}
	if j.trees == nil {
		j.trees = map[treeKey]treeResult{}
	}
	if r, ok := j.trees[k]; ok {
		return r.v, r.row, r.msg
	}
	v, row, msg := j.checkTreeUncached(written, real, opt)
	j.trees[k] = treeResult{v, row, msg}
	return v, row, msg
}

// A tree that was found clean is remembered across calls with a stamp of
// every directory listed (device, inode, mtime, ctime) and of every
// symlink resolved under it. The next check of the same tree stats those
// directories and re-resolves those links instead of listing everything;
// any difference walks again. A directory changed within racyWindow of the
// walk is not trusted to show a later change in its times, so such a tree
// is not remembered (git's "racy" index entries, the same way).
var racyWindow = 2 * time.Second

type dirStamp struct {
	path         string
	dev, ino     uint64
	mtime, ctime int64
}

type linkStamp struct {
	path, fp string
}

type treeStamp struct {
	dirs  []dirStamp
	links []linkStamp
	// files are the git config files judged for a credential.
	files []fileCand
	msg   string
	// volatile: the result depends on paths outside the stamps (the pieces
	// of a name xargs splits, read in the reader's directory), so it is
	// not remembered.
	volatile bool
}

type globalTreeKey struct {
	m             *matcher
	written, real string
	opts          walkOpts
}

var treeCache struct {
	sync.Mutex
	m     map[globalTreeKey]*treeStamp
	stamp int // directory and link stamps held, bounded by maxTreeStamps
}

// maxTreeStamps bounds the memory the tree cache holds.
const maxTreeStamps = 1 << 16

func stampOf(p string, fi fs.FileInfo) dirStamp {
	dev, ino := devIno(fi)
	mt, ct := changeTimes(fi)
	return dirStamp{p, dev, ino, mt, ct}
}

// cleanTree reports whether a remembered clean walk of the tree still
// holds.
func (j *judger) cleanTree(k globalTreeKey) (string, bool) {
	treeCache.Lock()
	ts := treeCache.m[k]
	treeCache.Unlock()
	if ts == nil {
		return "", false
	}
	for _, d := range ts.dirs {
		fsCalls.Add(1)
		fi, err := os.Lstat(d.path)
		if err != nil || !fi.IsDir() || stampOf(d.path, fi) != d {
			return "", false
		}
	}
	for _, l := range ts.links {
		if fingerprint(j.fs.resolve(l.path)) != l.fp {
			return "", false
		}
	}
	for _, f := range ts.files {
		if now, err := statStamp(f.path); err != nil || !now.same(f.stamp) {
			return "", false
		}
	}
	return ts.msg, true
}

func rememberTree(k globalTreeKey, ts *treeStamp) {
	n := len(ts.dirs) + len(ts.links) + len(ts.files)
	if n > maxTreeStamps {
		return
	}
	treeCache.Lock()
	if treeCache.m == nil || len(treeCache.m) >= 256 || treeCache.stamp+n > maxTreeStamps {
		treeCache.m = map[globalTreeKey]*treeStamp{}
		treeCache.stamp = 0
	}
	if old := treeCache.m[k]; old != nil {
		treeCache.stamp -= len(old.dirs) + len(old.links)
	}
	treeCache.m[k] = ts
	treeCache.stamp += n
	treeCache.Unlock()
}

// listDir lists a directory and stamps it (fstat of the open directory, so
// the stamp is of the directory listed).
func listDir(p string) ([]os.DirEntry, dirStamp, error) {
	fsCalls.Add(4) // open, fstat, getdents, close
	f, err := openNoBlock(p)
	if err != nil {
		return nil, dirStamp{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, dirStamp{}, err
	}
	es, err := f.ReadDir(-1)
	if err != nil {
		return nil, dirStamp{}, err
	}
	sort.Slice(es, func(a, b int) bool { return es[a].Name() < es[b].Name() })
	return es, stampOf(p, fi), nil
}

func hiddenBelow(p, root string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(p, root), "/")
	for _, c := range strings.Split(rel, "/") {
		if strings.HasPrefix(c, ".") {
			return true
		}
	}
	return false
}

func (j *judger) checkTreeUncached(written, real string, opt walkOpts) (Verdict, string, string) {
	if v, row, msg := j.anchoredUnder(written, real, opt); v != VerdictOK {
		return v, row, msg
	}
	return j.walk(written, real, opt)
}

// anchoredUnder looks for rows anchored under the tree that match a fixed
// path (~/.ssh/**, ~/.netrc): their existence is enough, no walk needed.
func (j *judger) anchoredUnder(written, real string, opt walkOpts) (Verdict, string, string) {
	x := decodeExclusions(opt.excl)
	for i := range j.m.rows {
		r := &j.m.rows[i]
		if r.prefix == "" || !r.self {
			continue
		}
		for _, root := range []string{written, real} {
			if r.prefix == root || !within(r.prefix, root) {
				continue
			}
			if opt.skipHidden && hiddenBelow(r.prefix, root) {
				continue
			}
			phys := real + strings.TrimPrefix(r.prefix, root)
			if n := j.fs.lstat(phys); n.err == nil {
				isDir := n.mode.IsDir()
				if n.mode&fs.ModeSymlink != 0 {
					isDir = j.fs.resolve(phys).isDir()
				}
				if x.skipsPath(r.prefix, root, isDir) {
					continue
				}
				return VerdictDenied, r.src, fmt.Sprintf("the tree %s contains %s (deny row %s); %s", show(written), show(r.prefix), quote(r.src), opt.hint)
			}
		}
	}
	return VerdictOK, "", ""
}

// walk lists the tree breadth-first, judging every name against the deny
// rows and every symlink's target against the rows and the roots.
func (j *judger) walk(written, real string, opt walkOpts) (Verdict, string, string) {
	k := globalTreeKey{j.m, written, real, opt}
	if msg, ok := j.cleanTree(k); ok {
		return VerdictOK, "", msg
	}
	start := time.Now()
	ts := &treeStamp{}
	v, row, msg := j.walkList(written, real, opt, ts)
	if v == VerdictOK {
		racy := false
		limit := start.Add(-racyWindow).UnixNano()
		for _, d := range ts.dirs {
			if d.mtime >= limit || d.ctime >= limit {
				racy = true
				break
			}
		}
		if !racy && !ts.volatile {
			ts.msg = msg
			rememberTree(k, ts)
		}
	}
	return v, row, msg
}

func (j *judger) walkList(written, real string, opt walkOpts, ts *treeStamp) (Verdict, string, string) {
	x := decodeExclusions(opt.excl)
	type dir struct {
		w, r string
		rel  []string
		// split: a name on the way down from the root holds a blank.
		split bool
		// sub is the directory's path relative to the root ("" for the
		// root), for pathGlob.
		sub string
		// shown says why a hidden name on the way down is walked (an
		// ignore file whitelists it), "" when none is.
		shown string
	}
	queue := []dir{{written, real, nil, false, "", ""}}
	lift := newHiddenLift(opt)
	if lift != nil {
		lift.readAbove(real, ts)
	}
	var spec *regexp.Regexp
	if opt.pathGlob != "" {
		spec = pathspecRegexp(opt.pathGlob)
	}
	// Readers that follow symlinks (grep -R, find -L, rg -L, anything fed
	// by xargs) read a linked directory's tree too: a link to a directory
	// inside the roots is walked as well, once per real directory.
	visited := map[string]bool{real: true}
	max := opt.dirLimit(j.b.maxWalk())
	walked := 0
	worst := treeResult{v: VerdictOK, msg: fmt.Sprintf("the tree %s holds no deny row", show(written))}
	note := func(v Verdict, row, msg string) {
		if rank(v) > rank(worst.v) {
			worst = treeResult{v, row, msg}
		}
	}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		walked++
		if walked > max {
			return VerdictNotEstablished, "", fmt.Sprintf("the tree %s has more than %d directories (MaxWalkDirs); the check stopped", show(written), max)
		}
		es, stamp, err := listDir(d.r)
		ts.dirs = append(ts.dirs, stamp)
		if err != nil {
			note(VerdictNotEstablished, "", fmt.Sprintf("cannot list %s under the tree %s: %v", show(d.w), show(written), err))
			continue
		}
		if lift != nil {
			lift.readIn(d.r, es, ts)
		}
		for _, e := range es {
			name := e.Name()
			shown := d.shown
			if opt.skipHidden && name[0] == '.' {
				if shown = lift.shows(name); shown == "" {
					continue
				}
			}
			wp, rp := joinAbs(d.w, name), joinAbs(d.r, name)
			if opt.skipRoots && (j.m.inRoots(wp) || j.m.inRoots(rp)) {
				continue
			}
			var rel []string
			t := e.Type()
			var res resolved
			stamped := false // the link's resolution is in ts.links
			if !x.empty() {
				rel = append(append(make([]string, 0, len(d.rel)+1), d.rel...), name)
				isDir := t.IsDir()
				if t&fs.ModeSymlink != 0 {
					res = j.fs.resolve(rp)
					isDir = res.isDir()
					// Whether it is skipped depends on where it leads.
					ts.links = append(ts.links, linkStamp{rp, fingerprint(res)})
					stamped = true
				}
				if x.skips(rel, isDir) {
					continue
				}
			}
			sub := name
			if d.sub != "" {
				sub = d.sub + "/" + name
			}
			printed := printedName(opt.nameGlob, spec, name, sub)
			split := d.split || strings.ContainsAny(name, blanks)
			if printed && opt.splitNames && (split || splits(name)) {
				ts.volatile = true
				if msg := j.splitPieces(written, wp, opt.splitBase); msg != "" {
					note(VerdictNotEstablished, "", msg)
				}
			}
			if printed && opt.shellSplit {
				if strings.ContainsAny(name, shellSplitChars) {
					ts.volatile = true
					note(VerdictNotEstablished, "", fmt.Sprintf("%s has a name that the shell would split or glob-expand into other words where $(...) is unquoted", show(wp)))
				} else if opt.dashNames && name[0] == '-' {
					ts.volatile = true
					note(VerdictNotEstablished, "", fmt.Sprintf("%s has a name starting with \"-\", which the reader would take as an option (no \"--\" before the substitution)", show(wp)))
				}
			}
			if row, ok := j.m.denied(wp); ok && printed && !j.cleanTemplateIn(wp, rp, t, ts) {
				if shown != "" {
					return VerdictDenied, row, fmt.Sprintf("the tree %s contains %s (deny row %s), a hidden name the reader searches all the same: %s; %s", show(written), show(wp), quote(row), shown, opt.hint)
				}
				return VerdictDenied, row, fmt.Sprintf("the tree %s contains %s (deny row %s); %s", show(written), show(wp), quote(row), opt.hint)
			}
			if !printed {
				// Not printed: walk through a directory, judge nothing else.
				isDir := t.IsDir()
				if t&fs.ModeSymlink != 0 {
					if res.real == "" {
						res = j.fs.resolve(rp)
					}
					if !stamped {
						ts.links = append(ts.links, linkStamp{rp, fingerprint(res)})
					}
					isDir = res.isDir() && j.m.inRoots(res.real) && !within(res.real, real)
					rp = res.real
				}
				if isDir && !visited[rp] {
					visited[rp] = true
					queue = append(queue, dir{wp, rp, rel, split, sub, shown})
				}
				continue
			}
			if t.IsRegular() && !opt.namesOnly && j.gitConfigFile(rp) {
				// Its content decides: the tree is clean only while the
				// config (and what it includes) is unchanged.
				what, ok, files := j.gitCredentialStamped(rp)
				ts.files = append(ts.files, files...)
				if ok {
					return VerdictDenied, CredentialRow, fmt.Sprintf("the tree %s contains %s, which holds a credential or cannot be checked for one (%s); %s", show(written), show(wp), what, opt.hint)
				}
			}
			if wp != rp {
				if row, ok := j.m.denied(rp); ok && !j.cleanTemplateIn(rp, rp, t, ts) {
					return VerdictDenied, row, fmt.Sprintf("the tree %s contains %s (real path %s, deny row %s); %s", show(written), show(wp), show(rp), quote(row), opt.hint)
				}
			}
			switch {
			case t&fs.ModeSymlink != 0:
				if res.real == "" {
					res = j.fs.resolve(rp)
				}
				if !stamped {
					ts.links = append(ts.links, linkStamp{rp, fingerprint(res)})
				}
				if row, ok := j.m.denied(res.real); ok {
					return VerdictDenied, row, fmt.Sprintf("the tree %s holds a symlink %s to %s (deny row %s); %s", show(written), show(wp), show(res.real), quote(row), opt.hint)
				}
				if res.err != nil {
					note(VerdictNotEstablished, "", fmt.Sprintf("the symlink %s under the tree %s cannot be resolved: %v", show(wp), show(written), res.err))
				} else if !j.m.inRoots(res.real) {
					note(VerdictOutsideRoots, "", fmt.Sprintf("the tree %s holds a symlink %s to %s, outside the roots", show(written), show(wp), show(res.real)))
				} else if res.isDir() && !visited[res.real] && !within(res.real, real) {
					visited[res.real] = true
					queue = append(queue, dir{wp, res.real, rel, split, sub, shown})
				}
			case t.IsDir():
				if !visited[rp] {
					visited[rp] = true
					queue = append(queue, dir{wp, rp, rel, split, sub, shown})
				}
			}
		}
	}
	return worst.v, worst.row, worst.msg
}

// dirLimit is how many directories a walk lists: the boundary's max, or
// the walk's own cap when lower.
func (o walkOpts) dirLimit(max int) int {
	if o.maxDirs > 0 && o.maxDirs < max {
		return o.maxDirs
	}
	return max
}

// printedName reports whether the producer prints the entry name (at sub,
// its path below the root): it matches the name glob and the pathspec,
// when there are.
func printedName(nameGlob string, spec *regexp.Regexp, name, sub string) bool {
	if nameGlob != "" {
		// find -name matches as fnmatch does; a name the pattern cannot
		// decide with certainty counts as printed.
		if ok, err := matchPattern(nameGlob, name, synFnmatch, true); !ok && err == nil {
			return false
		}
	}
	return spec == nil || spec.MatchString(sub)
}

// splits reports whether xargs (without -0) would not pass name through
// as one word.
func splits(name string) bool {
	return strings.ContainsAny(name, blanks+"'\"\\")
}

// blanks are the characters xargs splits its input at.
const blanks = " \t\n\v\f\r"

// splitPieces judges the words xargs makes of the path wp, printed under
// the tree root written: the first word is a path below the root, the
// others are read relative to base, the reader's working directory. It
// returns why the pieces are not established, or "" when every piece is a
// path inside the roots that no deny row covers (src/name with spaces.txt
// becomes src/name, with and spaces.txt, all read in base). A quote or
// backslash (xargs' own quoting), a blank in the root itself, a piece that
// starts with "-" (an option of the reader), a piece that is a directory (a
// recursive reader would walk a tree this check never saw) or an unknown
// base is never established.
func (j *judger) splitPieces(written, wp, base string) string {
	what := fmt.Sprintf("%s has a name that xargs would split into other paths", show(wp))
	rel, ok := strings.CutPrefix(wp, written+"/")
	if !ok || base == "" || strings.ContainsAny(written, blanks) || strings.ContainsAny(wp, "'\"\\") {
		return what
	}
	for k, pc := range strings.FieldsFunc(rel, func(r rune) bool { return strings.ContainsRune(blanks, r) }) {
		var q string
		switch {
		case k == 0:
			q = joinAbs(written, pc)
		case strings.HasPrefix(pc, "-"):
			return fmt.Sprintf("%s, one of them %s, which the reader would take as an option", what, strconv.Quote(pc))
		case path.IsAbs(pc):
			q = path.Clean(pc)
		default:
			q = path.Join(base, pc)
		}
		if row, ok := j.m.denied(q); ok {
			return fmt.Sprintf("%s, one of them %s (deny row %s)", what, show(q), quote(row))
		}
		if !j.m.inRoots(q) {
			return fmt.Sprintf("%s, one of them %s, outside the roots", what, show(q))
		}
		res := j.fs.resolve(q)
		j.adm.addPath(q, res)
		if res.err != nil {
			return fmt.Sprintf("%s, one of them %s, which cannot be resolved: %v", what, show(q), res.err)
		}
		if res.real != q {
			if row, ok := j.m.denied(res.real); ok {
				return fmt.Sprintf("%s, one of them %s (real path %s, deny row %s)", what, show(q), show(res.real), quote(row))
			}
			if !j.m.inRoots(res.real) {
				return fmt.Sprintf("%s, one of them %s, whose real path %s is outside the roots", what, show(q), show(res.real))
			}
		}
		if res.exists && res.isDir() {
			// xargs grep -r would walk it: a tree this check never saw.
			return fmt.Sprintf("%s, one of them the directory %s", what, show(q))
		}
	}
	return ""
}

// show prints a path for a message: as is when it is plain, quoted when it
// has control characters, blanks at the ends or invalid UTF-8.
func show(p string) string {
	if !utf8.ValidString(p) || strings.IndexFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0 {
		return strconv.Quote(p)
	}
	return p
}

// pathspecs caches compiled git pathspec globs.
var pathspecs sync.Map // string → *regexp.Regexp

// pathspecRegexp compiles a git pathspec glob (no magic): "*" matches any
// run of characters and "?" any one, "/" included, "[...]" a class, "\"
// escapes; the match is of the whole relative path, or of a directory
// that leads to it (git matches a pathspec naming a directory and
// everything below it).
func pathspecRegexp(glob string) *regexp.Regexp {
	if re, ok := pathspecs.Load(glob); ok {
		return re.(*regexp.Regexp)
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '\\':
			if i+1 < len(glob) {
				i++
				b.WriteString(regexp.QuoteMeta(string(glob[i])))
			} else {
				b.WriteString(`\\`)
			}
		case '[':
			j := strings.IndexByte(glob[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := glob[i+1 : i+1+j]
			if j == 0 {
				// "[]...]": a leading "]" is part of the class.
				k := strings.IndexByte(glob[i+2:], ']')
				if k < 0 {
					b.WriteString(`\[`)
					continue
				}
				class = glob[i+1 : i+2+k]
				j = k + 1
			}
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("(/.*)?$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		re = regexp.MustCompile("") // matches everything: judge the whole tree
	}
	pathspecs.Store(glob, re)
	return re
}
