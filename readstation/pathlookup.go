package readstation

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/gitrepo"
)

// A program written as a bare name (git, go, ls) is the first executable
// file of that name in the directories of PATH. When PATH names a
// directory in the workspace (a project's bin, node_modules/.bin, an
// activated .venv/bin, a direnv PATH_add) or a relative one ("." or an
// empty entry, which the shell takes from the directory it is in), the
// repository chooses what "git status" runs: a file it ships named git.
// The station looks the names up as the shell would and reports such a
// file as a RepoHelper (File the program file, Value the PATH entry), so
// the policy asks about it with the file named. The programs a program
// starts on its own (catalog helpers: go env runs gcc) are looked up the
// same way: they find theirs through PATH too.
//
// PATH comes from what is known of the command's environment
// (Boundary.Env): the hook client sends the agent's. When it is not known
// the lookup is not done: the engine cannot guess the agent's PATH, and a
// PATH it does not know names no directory of the workspace it can see.

// maxPathEntries bounds the PATH entries looked at.
const maxPathEntries = 256

// pathPrograms reports the program files, found through PATH, that the
// repository controls.
func (j *judger) pathPrograms() []RepoHelper {
	entries, roots, risky := j.pathEntries()
	if !risky {
		return nil
	}
	var out []RepoHelper
	for i := range j.r.Segments {
		s := &j.r.Segments[i]
		names := make([]string, 0, 1+len(s.Wrappers))
		if s.Name != "" && !s.PathPrefixed && !s.DynamicProgram {
			names = append(names, s.Name)
		}
		for _, w := range s.Wrappers {
			if w != "" && !strings.Contains(w, "/") {
				names = append(names, w)
			}
		}
		if s.RunsGit {
			// The programs git starts through PATH for the user's own
			// filters (git-lfs), which the station lets run.
			names = append(names, gitrepo.KnownPrograms...)
		}
		// The programs it starts on its own (catalog helpers), which it
		// finds through PATH too: go env runs gcc, an npm installed as a
		// script runs "env node" (redrepo).
		names = append(names, s.Helpers...)
		if len(names) == 0 {
			continue
		}
		c := j.cwdOf(s.Cwd)
		seen := map[string]bool{}
		for i := 0; i < len(names); i++ {
			name := names[i]
			if strings.Contains(name, "/") || seen[name] {
				continue
			}
			seen[name] = true
			h, ok, file := j.lookPath(name, entries, c.abs, c.err == "", roots)
			if ok {
				h.Segment, h.Span = s.Index, s.Span
				out = append(out, h)
				continue
			}
			// A script that names its interpreter through env
			// (#!/usr/bin/env bash: a version manager's shim, an npm
			// package's bin) has env find it through PATH too.
			if interp := envInterpreter(file); interp != "" && len(names) < 64 {
				names = append(names, interp)
			}
		}
	}
	return out
}

// pathEntries returns the known PATH's entries (bounded), the workspace's
// roots (the roots, but not one that holds the home directory: a root of
// ~ or / would make ~/.local/bin and /usr/bin the workspace's), and
// whether an entry is in one of them or relative: most PATHs name no
// directory in a root and no relative one, and then no lookup can land in
// the workspace (nothing need be stat'ed). A PATH not known names none.
func (j *judger) pathEntries() (entries, roots []string, risky bool) {
	if j.b.Env == nil {
		return nil, nil, false
	}
	path, known := j.b.Env.Lookup("PATH")
	if !known {
		return nil, nil, false
	}
	entries = filepath.SplitList(path)
	if len(entries) > maxPathEntries {
		entries = entries[:maxPathEntries]
	}
	for _, r := range j.b.AbsRoots() {
		if j.b.Home == "" || !within(filepath.Clean(j.b.Home), r) {
			roots = append(roots, r)
		}
	}
	for _, e := range entries {
		if !filepath.IsAbs(e) || withinAny(filepath.Clean(e), roots) {
			risky = true
			break
		}
	}
	return entries, roots, risky
}

// workspacePathDirs returns the PATH directories that are the
// workspace's (in a root, or relative: taken from cwd), absolute.
func (j *judger) workspacePathDirs(cwd string) []string {
	entries, roots, risky := j.pathEntries()
	if !risky {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !filepath.IsAbs(e) {
			out = append(out, filepath.Join(cwd, e))
		} else if withinAny(filepath.Clean(e), roots) {
			out = append(out, filepath.Clean(e))
		}
	}
	return out
}

// lookPath finds name in the PATH entries as the shell does (the first
// regular file with an execute bit; an empty or relative entry is taken
// from cwd) and reports it when that file is the workspace's: in a root,
// or found through a relative entry. A relative entry when the cwd is not
// known counts as the workspace's.
func (j *judger) lookPath(name string, entries []string, cwd string, cwdKnown bool, roots []string) (RepoHelper, bool, string) {
	for _, e := range entries {
		dir := e
		relative := !filepath.IsAbs(e)
		if relative {
			if !cwdKnown {
				return RepoHelper{Key: "PATH", File: filepath.Join(e, name), Value: fmt.Sprintf("PATH entry %q", e)}, true, ""
			}
			dir = filepath.Join(cwd, e)
		}
		p := joinAbs(filepath.Clean(dir), name)
		fsCalls.Add(1)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			continue
		}
		// A symlink from elsewhere into the workspace (npm link's) is the
		// user's own doing, and is not followed here.
		if relative || withinAny(p, roots) {
			return RepoHelper{Key: "PATH", File: p, Value: fmt.Sprintf("PATH entry %q", e)}, true, p
		}
		return RepoHelper{}, false, p
	}
	return RepoHelper{}, false, ""
}

// envInterpreter returns the program a script file names through env on
// its first line (#!/usr/bin/env bash, #!/usr/bin/env -S node --flag),
// which env finds through PATH; "" for any other file (a binary, an
// interpreter named by its path) or one that cannot be read. The file is
// opened without blocking and only its first 256 bytes are read.
func envInterpreter(p string) string {
	if p == "" {
		return ""
	}
	f, err := openNoBlock(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	fsCalls.Add(1)
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return ""
	}
	words := strings.Fields(rest)
	if len(words) < 2 || filepath.Base(words[0]) != "env" {
		return ""
	}
	for _, w := range words[1:] {
		switch {
		case strings.HasPrefix(w, "-"), strings.Contains(w, "="):
			continue // env's options (-S splits the rest), NAME=value
		case strings.Contains(w, "/"):
			return ""
		}
		return w
	}
	return ""
}
