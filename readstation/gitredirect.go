package readstation

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gitrepo"
)

// Repositories elsewhere. What git prints comes from the git directory it
// finds, and a workspace can point that anywhere: a .git file ("gitdir:
// ~/private/.git") or a .git symlink makes another repository the one git
// works in, a commondir file shares another repository's refs, objects and
// config, and objects/info/alternates lends another repository's objects
// (git cat-file --batch-all-objects prints them all). git log -p then
// prints that repository's history, secrets included. The station judges
// each such directory as a read against the boundary: outside the roots
// it is asked about, under a deny row denied. Git's own layouts are told
// apart from a workspace's pointing: a linked worktree's git directory
// (<common>/worktrees/ID, whose gitdir file names this work tree's .git)
// and a submodule's under modules (whose core.worktree is this work tree)
// are the repository of this work tree, wherever they are.

// maxAlternates bounds the alternate object directories followed, and
// maxAlternateDepth their chains (git's own limit is 5).
const (
	maxAlternates     = 32
	maxAlternateDepth = 5
)

// redirects adds a read for every directory outside the work tree of
// repository r (own config cfg) that git would read r's history from,
// when the boundary does not clear it.
func (j *judger) redirects(s *classify.Segment, r gitRepoRef, cfg []cfgEntry) {
	if r.top != "" && r.top != r.gitdir {
		dotgit := joinAbs(r.top, ".git")
		if !j.ownGitDir(r, cfg) {
			j.judgeRepoDir(s, r.gitdir, fmt.Sprintf("%s makes %s the git directory", show(dotgit), show(r.gitdir)))
		}
	}
	if r.common != r.gitdir && !j.linkedWorktree(r) {
		j.judgeRepoDir(s, r.common, fmt.Sprintf("%s makes %s the common git directory (its refs, objects and config)", show(joinAbs(r.gitdir, "commondir")), show(r.common)))
	}
	j.alternates(s, joinAbs(r.common, "objects"), 0, new(int))
	j.printedLinks(s, r)
}

// printedLinks judges, as a read, each file of r's git directory whose
// lines git prints (gitrepo.PrintedFiles) that is a link to a file outside
// that directory, or not a regular file: .git/shallow linked to ~/.netrc
// makes git status print its line in an error (redrepo).
func (j *judger) printedLinks(s *classify.Segment, r gitRepoRef) {
	dirs := []string{r.gitdir}
	if r.common != r.gitdir {
		dirs = append(dirs, r.common)
	}
	for _, dir := range dirs {
		d := j.fs.resolve(dir)
		if d.err != nil || !d.exists {
			continue
		}
		var paths []string
		for _, name := range gitrepo.PrintedFiles {
			i := strings.IndexByte(name, '*')
			if i < 0 {
				paths = append(paths, joinAbs(dir, name))
				continue
			}
			// A glob (worktrees/*/locked): the directory it lists is
			// recorded too (a worktree added before the spawn changes it).
			parent := filepath.Clean(joinAbs(dir, name[:i]))
			j.adm.addPath(parent, j.fs.resolve(parent))
			fsCalls.Add(1)
			m, _ := filepath.Glob(joinAbs(dir, name))
			paths = append(paths, m...)
		}
		for _, p := range paths {
			res := j.fs.resolve(p)
			j.adm.addPath(p, res)
			if res.err == nil && (!res.exists || within(res.real, d.real) && res.mode.IsRegular()) {
				continue
			}
			v, row, msg := j.verdictFor(filepath.Clean(p), res)
			if v == VerdictOK || v == VerdictMissing {
				if res.err == nil && res.mode.IsRegular() {
					continue
				}
				v, msg = VerdictNotEstablished, fmt.Sprintf("%s is a %s", show(p), typeName(res.mode))
			}
			j.extra = append(j.extra, Read{Path: p, Kind: "literal", Source: "repository", Resolved: filepath.Clean(p), Real: res.real,
				Verdict: v, Row: row, Message: fmt.Sprintf("git prints the lines of %s (in its output or an error), and %s", show(p), msg),
				Span: s.Span, Segment: s.Index, Matches: []string{}})
		}
	}
}

// ownGitDir reports that r's git directory is its work tree's own: its
// .git directory (not a symlink to one), a linked worktree's git directory whose gitdir file
// names r's .git, or a submodule's git directory whose core.worktree is
// r's work tree.
func (j *judger) ownGitDir(r gitRepoRef, cfg []cfgEntry) bool {
	real := func(p string) string {
		if res := j.fs.resolve(p); res.err == nil && res.exists {
			return res.real
		}
		return filepath.Clean(p)
	}
	// A .git directory of the work tree's own (a .git symlink to
	// another repository resolves elsewhere, and is judged).
	if joinAbs(r.top, ".git") == r.gitdir {
		return true
	}
	if j.linkedWorktree(r) {
		return true
	}
	var wt string
	for _, e := range cfg {
		if e.section == "core" && e.sub == "" && e.key == "worktree" && e.file == joinAbs(r.common, "config") {
			wt = e.value
		}
	}
	if wt != "" {
		if !filepath.IsAbs(wt) {
			wt = filepath.Join(r.gitdir, wt)
		}
		if real(wt) == r.top {
			return true
		}
	}
	return false
}

// linkedWorktree reports that r's git directory is a linked worktree's
// (<common>/worktrees/ID) whose gitdir file names r's .git file.
func (j *judger) linkedWorktree(r gitRepoRef) bool {
	if r.top == "" || filepath.Base(filepath.Dir(r.gitdir)) != "worktrees" || filepath.Dir(filepath.Dir(r.gitdir)) != r.common {
		return false
	}
	data, ok := j.read(joinAbs(r.gitdir, "gitdir"))
	if !ok {
		return false
	}
	back := strings.TrimSpace(string(bytes.SplitN(data, []byte("\n"), 2)[0]))
	if !filepath.IsAbs(back) {
		back = filepath.Join(r.gitdir, back)
	}
	a, b := j.fs.resolve(back), j.fs.resolve(joinAbs(r.top, ".git"))
	return a.err == nil && b.err == nil && a.exists && b.exists && a.real == b.real
}

// judgeRepoDir judges the repository directory dir that git reads
// (because of why) like a read: a verdict other than ok adds a read.
func (j *judger) judgeRepoDir(s *classify.Segment, dir, why string) {
	res := j.fs.resolve(dir)
	j.adm.addPath(dir, res)
	v, row, msg := j.verdictFor(filepath.Clean(dir), res)
	if v == VerdictOK || v == VerdictMissing {
		return
	}
	j.extra = append(j.extra, Read{Path: dir, Kind: "literal", Source: "repository", Resolved: filepath.Clean(dir), Real: res.real,
		Verdict: v, Row: row, Message: fmt.Sprintf("%s: git prints that repository's history and content, and %s", why, msg),
		Span: s.Span, Segment: s.Index, Matches: []string{}})
}

// alternates judges the object directories objects/info/alternates names
// (each relative to objects), and theirs, as git follows them.
func (j *judger) alternates(s *classify.Segment, objects string, depth int, n *int) {
	p := joinAbs(objects, "info/alternates")
	data, ok := j.read(p)
	if !ok {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if *n++; *n > maxAlternates || depth >= maxAlternateDepth || line[0] == '"' {
			j.extra = append(j.extra, Read{Path: p, Kind: "literal", Source: "repository", Resolved: p,
				Verdict: VerdictNotEstablished, Message: fmt.Sprintf("%s lends git objects from directories the station does not follow (quoted, or more than %d, or chained deeper than %d)", show(p), maxAlternates, maxAlternateDepth),
				Span: s.Span, Segment: s.Index, Matches: []string{}})
			return
		}
		alt := line
		if !filepath.IsAbs(alt) {
			alt = filepath.Join(objects, alt)
		}
		j.judgeRepoDir(s, alt, fmt.Sprintf("%s lends git the objects in %s", show(p), show(alt)))
		j.alternates(s, alt, depth+1, n)
	}
}
