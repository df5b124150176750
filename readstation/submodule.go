package readstation

import (
	"fmt"
	"path/filepath"
	"strings"
)

// git status and git diff look into each submodule, running git there
// with the submodule's own config: a core.fsmonitor in a submodule's
// config runs as surely as one in the superproject's. A submodule's git
// directory is under the superproject's <common>/modules (where git
// submodule puts it; a nested submodule's below its parent's), or a .git
// directory in the submodule's work tree (a submodule cloned before git
// moved them). The station reads their configs with the superproject's.

// maxSubmoduleDirs bounds the directories looked at under modules: past
// it the submodules' configs are not established.
const maxSubmoduleDirs = 256

// submoduleConfigs returns the config files of the submodules of the
// repository at top (git directory gitdir, common directory common).
func (j *judger) submoduleConfigs(top, gitdir, common string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	var gitDir func(d string, depth int)
	dirs := 0
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
		add(joinAbs(d, "config"))
		add(joinAbs(d, "config.worktree"))
		walkModules(joinAbs(d, "modules"), depth+1)
	}
	walkModules(joinAbs(common, "modules"), 0)
	if top == gitdir {
		return out // bare: no work tree
	}
	// Submodules whose .git is in their work tree (a directory, or a file
	// naming a git directory anywhere), at the paths .gitmodules names.
	data, ok := j.read(joinAbs(top, ".gitmodules"))
	if !ok {
		return out
	}
	for _, e := range parseGitConfig(data, joinAbs(top, ".gitmodules")) {
		if e.section != "submodule" || e.key != "path" || e.value == "" {
			continue
		}
		rel := filepath.Clean(e.value)
		if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") {
			continue // git refuses such a path
		}
		sub := joinAbs(top, rel)
		dotgit := sub + "/.git"
		res := j.fs.resolve(dotgit)
		switch {
		case res.err != nil:
			j.unreadable = append(j.unreadable, unreadableFile{dotgit, res.err.Error()})
		case res.isDir():
			gitDir(res.real, 1)
		case res.exists:
			if g, ok := j.gitdirFile(res.real, sub); ok {
				gitDir(g, 1)
			}
		}
	}
	return out
}
