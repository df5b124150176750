package readstation

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shellgate/shellgate/classify"
)

// Hooks. git runs a hook when a file of the hook's name in the hooks
// directory is executable (git checks access(X_OK), so a symlink to an
// executable counts and a non-executable file is ignored with a hint).
// The hooks directory is <common>/hooks, or core.hooksPath when it is set
// (relative to the work tree's top level, "~/" the home directory). Most
// hooks belong to commands that write (commit, merge, push), which are
// asked anyway; a few run under commands the catalog allows as read-only.
// readHooks lists them, with the subcommands the real git was seen to run
// them under (TestGitHooksConfirm runs every read-only subcommand with every
// hook installed, and fails on a hook this table does not name). git runs
// the same hooks in every submodule it steps into.

// readHook is a hook a read-only git command runs.
type readHook struct {
	// name is the hook's file name.
	name string
	// subcommands are the git subcommands seen to run it; any other
	// program that runs git (catalog runs_git: go list) runs every hook.
	subcommands []string
}

// readHooks are the hooks that read-only git commands run.
var readHooks = []readHook{
	// git status, git diff and git describe --dirty refresh the index's
	// stat data and write the index when it changed, and git runs
	// post-index-change after writing it (confirmed: touch a tracked
	// file, then git status runs it).
	{name: "post-index-change", subcommands: []string{"status", "diff", "describe"}},
}

// hooksOf returns the hooks segment s may run.
func hooksOf(s *classify.Segment) []string {
	var out []string
	for _, h := range readHooks {
		if s.Name != "git" || slices.Contains(h.subcommands, firstWord(s.Subcommand)) {
			out = append(out, h.name)
		}
	}
	return out
}

// firstWord is the first word of a subcommand path ("stash list").
func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

// hookDirs returns the directories git looks for hooks in for repository
// r, whose own config is cfg: <common>/hooks, and every core.hooksPath
// the config sets (git uses the last; the station's config reader does
// not evaluate includeIf conditions, so it checks them all). A
// core.hooksPath whose directory cannot be known is noted as unreadable.
func (j *judger) hookDirs(r gitRepoRef, cfg []cfgEntry) []string {
	dirs := []string{joinAbs(r.common, "hooks")}
	for _, e := range cfg {
		if e.section != "core" || e.sub != "" || e.key != "hookspath" || e.value == "" {
			continue
		}
		p := e.value
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			if j.b.Home == "" {
				j.unreadable = append(j.unreadable, unreadableFile{e.file, fmt.Sprintf("core.hooksPath %s is in the home directory, which is not known", quote(p))})
				continue
			}
			p = filepath.Join(j.b.Home, p[1:])
		case strings.HasPrefix(p, "~") || strings.HasPrefix(p, "%(prefix)"):
			j.unreadable = append(j.unreadable, unreadableFile{e.file, fmt.Sprintf("core.hooksPath %s names a directory the station does not resolve", quote(p))})
			continue
		case filepath.IsAbs(p):
		case r.top == "" || r.top == r.gitdir:
			// git resolves it from the directory it runs in: a bare
			// repository's, or a submodule's whose work tree is not known.
			j.unreadable = append(j.unreadable, unreadableFile{e.file, fmt.Sprintf("core.hooksPath %s is relative, and the directory git resolves it from is not known", quote(p))})
			continue
		default:
			p = filepath.Join(r.top, p)
		}
		if !slices.Contains(dirs, p) {
			dirs = append(dirs, p)
		}
	}
	return dirs
}

// repoHooks reports the hooks segment s would run in repository r (its
// own config cfg): each executable file of a name hooksOf gives, in a
// directory hookDirs gives. A hook that cannot be looked up is noted as
// unreadable.
func (j *judger) repoHooks(s *classify.Segment, r gitRepoRef, cfg []cfgEntry) []RepoHelper {
	names := hooksOf(s)
	if len(names) == 0 {
		return nil
	}
	var out []RepoHelper
	for _, d := range j.hookDirs(r, cfg) {
		for _, n := range names {
			p := joinAbs(d, n)
			res := j.fs.resolve(p)
			j.adm.addPath(p, res)
			switch {
			case res.err != nil:
				if notDir(res.err) {
					continue // the hooks "directory" is a file: git finds nothing
				}
				j.unreadable = append(j.unreadable, unreadableFile{p, res.err.Error()})
			case !res.exists:
			case res.mode.IsRegular() && res.mode.Perm()&0o111 == 0:
				// not executable: git ignores it (and says so)
			default:
				// executable, or not a regular file (git tries to run a
				// directory or a device as well)
				out = append(out, RepoHelper{File: p, Segment: s.Index, Span: s.Span, Kind: HelperHook})
			}
		}
	}
	return out
}

// notDir reports an error from a path through a file that is not a
// directory.
func notDir(err error) bool {
	return err != nil && strings.Contains(err.Error(), "not a directory")
}

// ownConfig reads the configuration git reads in repository r (every
// scope, gitrepo; not its submodules').
func (j *judger) ownConfig(r gitRepoRef) []cfgEntry {
	mark := len(j.unreadable)
	cfg := j.gitConfig(r.gitdir, r.common)
	// repo read the same files: what it could not read it has reported.
	j.unreadable = j.unreadable[:mark]
	return cfg
}

// gitTraps reports, for git segment s working in the repository of ri,
// what the repository and every submodule git steps into make git do
// beyond what the command says: hooks it runs (githooks.go), promisor
// remotes it fetches from (gitpromisor.go); and adds a read for every
// other repository whose content git would print (gitredirect.go).
func (j *judger) gitTraps(s *classify.Segment, ri *repoInfo) []RepoHelper {
	var out []RepoHelper
	repos := append([]gitRepoRef{{top: ri.top, gitdir: ri.gitdir, common: ri.common}}, ri.subs...)
	for _, r := range repos {
		cfg := j.ownConfig(r)
		out = append(out, j.repoHooks(s, r, cfg)...)
		out = append(out, j.promisors(s, r, cfg)...)
		j.redirects(s, r, cfg)
	}
	return out
}
