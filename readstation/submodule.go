package readstation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// git status, git diff and git describe --dirty look into each submodule,
// running git there with the submodule's own config, hooks and object
// store: a core.fsmonitor in a submodule's config, or an executable
// post-index-change hook in its hooks directory, runs as surely as one in
// the superproject's. git steps into every gitlink the index records (an
// entry of mode 160000, at any depth, whether or not .gitmodules names it)
// whose work tree has a .git: a directory, or a file ("gitdir: PATH")
// naming a git directory anywhere; and, recursively, into the gitlinks of
// that submodule's own index (confirmed with the real git by
// gate.TestGitTrapsConfirm). The station finds the same repositories, and
// also the git directories under the superproject's <common>/modules
// (where git submodule puts them; a nested submodule's below its
// parent's) and at the paths .gitmodules names, and judges them all.

// maxSubmoduleDirs bounds the directories looked at under modules: past
// it the submodules' configs are not established.
const maxSubmoduleDirs = 256

// maxSubmoduleRepos bounds the submodule repositories found through
// gitlinks, and maxSubmoduleDepth how deep they nest: past either, what
// git would run in them is not established.
const (
	maxSubmoduleRepos = 64
	maxSubmoduleDepth = 8
)

// gitRepoRef is one repository git works in: the superproject, or a
// submodule git steps into.
type gitRepoRef struct {
	// top is the work tree's top level; the git directory for a bare
	// repository; "" for a git directory under modules whose work tree
	// is not known.
	top, gitdir, common string
	// via says what makes git enter it ("" for the superproject).
	via string
}

// submoduleRepos returns the submodule repositories of the repository at
// top (git directory gitdir, common directory common), each once:
// through the gitlinks of its index (recursively), the paths .gitmodules
// names, and the git directories under modules. What cannot be read is
// noted in j.unreadable.
func (j *judger) submoduleRepos(top, gitdir, common string) []gitRepoRef {
	var out []gitRepoRef
	seen := map[string]bool{gitdir: true}
	add := func(r gitRepoRef) bool {
		if seen[r.gitdir] {
			return false
		}
		seen[r.gitdir] = true
		out = append(out, r)
		return true
	}
	// enter adds the repository whose work tree is sub (a gitlink's path
	// or one .gitmodules names), when its .git is there.
	enter := func(sub, via string) (gitRepoRef, bool) {
		dotgit := sub + "/.git"
		res := j.fs.resolve(dotgit)
		j.adm.addPath(dotgit, res)
		var g string
		switch {
		case res.err != nil:
			j.unreadable = append(j.unreadable, unreadableFile{dotgit, res.err.Error()})
			return gitRepoRef{}, false
		case res.isDir():
			g = res.real
		case res.exists:
			var ok bool
			if g, ok = j.gitdirFile(res.real, sub); !ok {
				return gitRepoRef{}, false
			}
			if r := j.fs.resolve(g); r.err == nil && r.exists {
				g = r.real
			}
		default:
			return gitRepoRef{}, false // not checked out: git does not enter it
		}
		r := gitRepoRef{top: sub, gitdir: g, common: j.commonDir(g), via: via}
		return r, add(r)
	}
	if top != gitdir {
		// Gitlinks, breadth first from the superproject's index.
		type level struct {
			top, gitdir string
			depth       int
		}
		queue := []level{{top, gitdir, 0}}
		for len(queue) > 0 {
			l := queue[0]
			queue = queue[1:]
			links, why := j.gitlinks(l.gitdir)
			if why != "" {
				j.unreadable = append(j.unreadable, unreadableFile{joinAbs(l.gitdir, "index"), "which submodules git steps into is not known: " + why})
				continue
			}
			for _, rel := range links {
				if len(out) >= maxSubmoduleRepos || l.depth >= maxSubmoduleDepth {
					j.unreadable = append(j.unreadable, unreadableFile{joinAbs(l.gitdir, "index"),
						fmt.Sprintf("it records submodules beyond what the station follows (%d repositories, %d levels)", maxSubmoduleRepos, maxSubmoduleDepth)})
					queue = nil
					break
				}
				sub := joinAbs(l.top, rel)
				if r, ok := enter(sub, "the index "+show(joinAbs(l.gitdir, "index"))+" records "+quote(rel)+" as a submodule"); ok {
					queue = append(queue, level{r.top, r.gitdir, l.depth + 1})
				}
			}
		}
		// Submodules whose .git is in their work tree, at the paths
		// .gitmodules names.
		if data, ok := j.read(joinAbs(top, ".gitmodules")); ok {
			for _, e := range parseGitConfig(data, joinAbs(top, ".gitmodules")) {
				if e.section != "submodule" || e.key != "path" || e.value == "" {
					continue
				}
				rel := filepath.Clean(e.value)
				if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
					continue // git refuses such a path
				}
				enter(joinAbs(top, rel), show(joinAbs(top, ".gitmodules"))+" names "+quote(rel))
			}
		}
	}
	// The git directories under modules, however deep.
	dirs := 0
	var gitDir func(d string, depth int)
	// walkModules adds the git directories below dir: a directory with a
	// HEAD is one (and its own modules hold its submodules); another is a
	// part of a submodule's name ("a/b"), looked into. Symlinks are
	// followed, as git follows them.
	var walkModules func(dir string, depth int)
	walkModules = func(dir string, depth int) {
		res := j.fs.resolve(dir)
		switch {
		case res.err != nil:
			j.unreadable = append(j.unreadable, unreadableFile{dir, res.err.Error()})
			return
		case !res.isDir():
			return
		}
		if dirs++; dirs > maxSubmoduleDirs || depth > maxIncludeDepth*2 {
			j.unreadable = append(j.unreadable, unreadableFile{dir, fmt.Sprintf("it holds more than %d submodule directories", maxSubmoduleDirs)})
			return
		}
		es, _, err := listDir(res.real)
		if err != nil {
			j.unreadable = append(j.unreadable, unreadableFile{dir, err.Error()})
			return
		}
		for _, e := range es {
			d := joinAbs(res.real, e.Name())
			switch r := j.fs.resolve(d); {
			case r.err != nil:
				j.unreadable = append(j.unreadable, unreadableFile{d, r.err.Error()})
				continue
			case !r.isDir():
				continue
			}
			if h := j.fs.resolve(joinAbs(d, "HEAD")); h.exists {
				gitDir(d, depth)
				continue
			}
			walkModules(d, depth+1)
		}
	}
	gitDir = func(d string, depth int) {
		if r := j.fs.resolve(d); r.err == nil && r.exists {
			d = r.real
		}
		add(gitRepoRef{gitdir: d, common: j.commonDir(d), via: "it is a submodule's git directory"})
		walkModules(joinAbs(d, "modules"), depth+1)
	}
	walkModules(joinAbs(common, "modules"), 0)
	// The submodules entered from their work trees keep their own
	// modules too.
	for i := 0; i < len(out); i++ {
		if out[i].top != "" {
			walkModules(joinAbs(out[i].common, "modules"), 1)
		}
	}
	return out
}

// gitlinkResult is what an index says about submodules: the paths it
// records as gitlinks, or why it cannot be read.
type gitlinkResult struct {
	links []string
	err   string
}

type gitlinkKey struct {
	index string
	stamp fileStamp
}

// gitlinkCache remembers each index's gitlinks while the index is
// unchanged. Unlike the tracked paths (gitindex.go) they do not depend on
// the deny rows, so reading them costs the parse alone.
var gitlinkCache struct {
	sync.Mutex
	m map[gitlinkKey]gitlinkResult
}

// gitlinks returns the paths (relative to the work tree's top level) the
// index of git directory gitdir records as submodules. A missing index
// records none; why says why the index cannot be read.
func (j *judger) gitlinks(gitdir string) ([]string, string) {
	p := joinAbs(gitdir, "index")
	fsCalls.Add(1)
	fi, err := os.Stat(p)
	switch {
	case err != nil && notFound(err):
		j.adm.addFile(p, fileStamp{})
		return nil, ""
	case err != nil:
		return nil, fmt.Sprintf("the index %s cannot be read: %v", show(p), err)
	}
	_, ino := devIno(fi)
	st := fileStamp{fi.Size(), fi.ModTime(), ino}
	j.adm.addFile(p, st)
	switch {
	case !fi.Mode().IsRegular():
		return nil, fmt.Sprintf("the index %s is a %s", show(p), typeName(fi.Mode()))
	case fi.Size() > maxIndexBytes:
		return nil, fmt.Sprintf("the index %s is larger than %d bytes", show(p), maxIndexBytes)
	}
	k := gitlinkKey{p, st}
	gitlinkCache.Lock()
	res, ok := gitlinkCache.m[k]
	gitlinkCache.Unlock()
	if !ok {
		res = readGitlinks(p, st)
		gitlinkCache.Lock()
		if gitlinkCache.m == nil || len(gitlinkCache.m) >= maxTrackedCache {
			gitlinkCache.m = map[gitlinkKey]gitlinkResult{}
		}
		gitlinkCache.m[k] = res
		gitlinkCache.Unlock()
	}
	return res.links, res.err
}

// readGitlinks reads the index p (stamp st) for its gitlinks.
func readGitlinks(p string, st fileStamp) gitlinkResult {
	data, why := readIndexFile(p, st)
	if why != "" {
		return gitlinkResult{err: why}
	}
	entries, err := parseIndexEntries(data, func(mode uint32) bool { return mode&0o170000 == gitlinkMode })
	if err != nil {
		return gitlinkResult{err: fmt.Sprintf("the index %s: %v", show(p), err)}
	}
	var res gitlinkResult
	for _, e := range entries {
		if e.mode&0o170000 != gitlinkMode {
			continue
		}
		if strings.HasPrefix(e.path, "/") || strings.Contains("/"+e.path+"/", "/../") {
			return gitlinkResult{err: fmt.Sprintf("the index %s records the submodule %s, which leaves the work tree", show(p), quote(e.path))}
		}
		res.links = append(res.links, e.path)
	}
	return res
}
