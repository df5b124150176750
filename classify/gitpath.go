package classify

import "strings"

// gitPathRead adds the read a git operand stands for (catalog role
// "gitpath": git log, show, diff, blame, cat-file, grep). git prints the
// content of the paths its operands name, from the work tree or from any
// revision, so a denied path named there is a read of it:
//   - REV:PATH and :PATH (git show HEAD:.env) read PATH, from the
//     repository's top level unless it starts with ./ or ../;
//   - a pathspec after "--" reads its path; one with glob characters reads
//     every path below the cwd it matches (PathRef.PathGlob); one with
//     magic (":(glob)…") is not established; exclusions (":!x", ":^x")
//     read nothing;
//   - a word before "--" is a path only if it exists (git log main is a
//     revision; git blame .env a path): IfExists.
//
// Directories are not read as trees: a commit's content is only judged
// where a path names it (git log -p alone is not judged).
func (w *walker) gitPathRead(op Operand, info wordInfo, seg int, cwd Cwd) {
	add := func(ref PathRef) { w.r.Reads = append(w.r.Reads, ref) }
	if !op.Static() {
		// A glob's matches exist, so git takes them as paths; anything
		// else dynamic is not established.
		add(pathRef(op.Arg, "operand", seg, cwd, -1))
		return
	}
	v := op.Value
	dynamic := func(why string) {
		add(PathRef{Path: v, Kind: "dynamic", Dynamic: why, Source: "operand", Segment: seg, Cwd: cwd, Producer: -1, Span: op.Span})
	}
	literal := func(path string, repo, ifExists bool) {
		ref := PathRef{Path: path, Kind: "literal", Source: "operand", Segment: seg, Cwd: cwd, Producer: -1, Span: op.Span, Repo: repo, IfExists: ifExists}
		add(ref)
	}
	if info.afterDashes {
		switch {
		case strings.HasPrefix(v, ":!") || strings.HasPrefix(v, ":^"):
			return // an exclusion
		case strings.HasPrefix(v, ":/"):
			if rest := strings.TrimPrefix(v, ":/"); rest != "" && !strings.ContainsAny(rest, "*?[") {
				literal(rest, true, false)
				return
			}
			dynamic("pathspec")
		case strings.HasPrefix(v, ":"):
			dynamic("pathspec")
		case strings.ContainsAny(v, "*?["):
			// git matches the glob against every path below the cwd.
			add(PathRef{Path: ".", Kind: "literal", Recursive: true, PathGlob: v, Source: "operand", Segment: seg, Cwd: cwd, Producer: -1, Span: op.Span})
		default:
			literal(v, false, false)
		}
		return
	}
	if strings.HasPrefix(v, ":/") {
		return // :/TEXT names the newest commit whose message matches
	}
	if rev, path, ok := strings.Cut(v, ":"); ok {
		if rev == "" {
			// :PATH or :STAGE:PATH, from the index.
			if n, p, ok := strings.Cut(path, ":"); ok && n != "" && strings.Trim(n, "0123") == "" {
				path = p
			}
		}
		switch {
		case path == "":
			return // REV: is the top tree: names only
		case strings.HasPrefix(path, "./") || strings.HasPrefix(path, "../"):
			literal(path, false, false)
		default:
			literal(path, true, false)
		}
		return
	}
	literal(v, false, true)
}

// gitConfigReads adds the config files a command that prints git
// configuration reads (catalog effect git-config: git config --list, git
// remote -v): the repository's and the user's. They are judged for a
// credential only (Source "git-config"): git reads them for every command.
// A command that prints the values of keys it names (effect
// git-config-value: git config user.name) has them judged (Source
// "git-config-value") for the files they include only: such a file under
// a deny row is printed by the key's name.
func (w *walker) gitConfigReads(seg *Segment, cwd Cwd, source string) {
	for _, c := range []PathRef{
		{Path: ".git/config", Repo: true},
		{Path: "~/.gitconfig", Home: true},
		{Path: "~/.config/git/config", Home: true},
	} {
		c.Kind, c.Source, c.Segment, c.Cwd, c.Producer, c.Span = "literal", source, seg.Index, cwd, -1, seg.Span
		w.r.Reads = append(w.r.Reads, c)
	}
}

// hasGitpath reports whether roles take a git revision or path: an
// option that replaces them with plain files (git diff --no-index) takes
// git out of the repository.
func hasGitpath(roles []OperandSpec) bool {
	for _, r := range roles {
		if r.Role == RoleGitpath {
			return true
		}
	}
	return false
}
