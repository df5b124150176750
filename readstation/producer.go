package readstation

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/classify"
)

// A trusted producer is a segment whose output, fed to xargs or
// substituted for find's {}, names only paths under its own roots: the
// catalog's produces_paths says which programs are (find, grep -l, rg -l,
// git ls-files, git diff --name-only) and classify gives the segment its
// facts (classify.Produces). Reads fed by it are judged by walking those
// roots (each a recursive read). Any other producer, or one spelt so that
// it prints other text, leaves the fed reads not-established.

// judgeProduced judges a read whose paths come from a producer segment.
func (j *judger) judgeProduced(ref *classify.PathRef, rd *Read) {
	fail := func(format string, a ...any) {
		rd.set(VerdictNotEstablished, "", fmt.Sprintf(format, a...))
	}
	if ref.Producer >= len(j.r.Segments) {
		fail("the producer segment %d is missing from the report", ref.Producer)
		return
	}
	p := &j.r.Segments[ref.Producer]
	what := p.Name
	if p.Subcommand != "" {
		what += " " + p.Subcommand
	}
	pr := p.Produces
	if pr == nil || p.DynamicProgram || p.PathPrefixed {
		fail("the paths come from %s (segment %d), which is not a trusted producer", quote(what), p.Index)
		return
	}
	// The word must be the producer's path alone: "" (xargs appends it),
	// "{}" (find -exec) or xargs' replace string. "{}/../x" or "../{}"
	// leave the producer's roots.
	subst := ref.Dynamic == "command-substitution"
	if !subst && ref.Path != "" && ref.Path != j.placeholder(ref) {
		fail("%s builds a path around the paths %s (segment %d) prints, so they no longer bound it", quote(ref.Path), what, p.Index)
		return
	}
	xargs := ref.Dynamic == "xargs-input"
	if xargs || subst {
		if len(pr.Without) > 0 {
			fail("%s (segment %d) prints lines, not paths, without one of %s", what, p.Index, strings.Join(pr.Without, ", "))
			return
		}
		if pr.Other != "" {
			fail("%s %s (segment %d) prints text other than paths", what, pr.Other, p.Index)
			return
		}
	}
	opt, pc, msg := j.producedOpts(ref, p, what)
	if msg != "" {
		fail("%s", msg)
		return
	}
	texts, msg := j.producerRoots(p, pr, pc, what)
	if msg != "" {
		fail("%s", msg)
		return
	}
	if subst {
		if msg := j.substRootsSplit(p, pc, what, ref.OptionLike); msg != "" {
			fail("%s", msg)
			return
		}
	}
	best := Read{Verdict: VerdictOK}
	first := true
	for _, t := range texts {
		var sub Read
		j.judgeText(t, true, opt, &sub)
		rd.Matches = append(rd.Matches, sub.Resolved)
		if first || rank(sub.Verdict) > rank(best.Verdict) {
			best, first = sub, false
		}
	}
	rd.Real = ""
	v := best.Verdict
	if v == VerdictMissing {
		v = VerdictOK // a missing root produces no paths
	}
	rd.set(v, best.Row, fmt.Sprintf("the paths come from %s (segment %d), bounded by its roots %s: %s",
		what, p.Index, strings.Join(rd.Matches, ", "), best.Message))
	rd.InTree = best.InTree
}

// producedOpts checks that the producer p and the reader of ref run in the
// same directory (the paths it prints are relative to its cwd) and returns
// how the producer's roots are walked and its cwd, or why the read is not
// established.
func (j *judger) producedOpts(ref *classify.PathRef, p *classify.Segment, what string) (walkOpts, cwdResult, string) {
	xargs := ref.Dynamic == "xargs-input"
	// An unquoted $(...) hands the output to the reader as xargs does:
	// relative to the directory both run in.
	sameDir := xargs || ref.Dynamic == "command-substitution"
	pc := j.cwdOf(p.Cwd)
	if pc.err != "" {
		return walkOpts{}, pc, fmt.Sprintf("producer %s: %s", what, pc.err)
	}
	if sameDir {
		if eff, ok := j.effectiveCwd(p); !ok || eff != pc.abs {
			return walkOpts{}, pc, fmt.Sprintf("%s (segment %d) runs in another directory than the reader", what, p.Index)
		}
	}
	// find's {} is the match itself wherever the command runs (-execdir
	// runs it in the match's directory as ./NAME); xargs' input is
	// opened relative to the reader's directory.
	var rc cwdResult
	if sameDir {
		rc = j.cwdOf(ref.Cwd)
		if rc.err != "" {
			return walkOpts{}, pc, rc.err
		}
		if rc.abs != pc.abs {
			return walkOpts{}, pc, fmt.Sprintf("%s (segment %d) runs in %s, the reader in %s", what, p.Index, show(pc.abs), show(rc.abs))
		}
	}
	// What the producer prints decides which names the reader gets: one
	// that skips hidden names (rg) prints none of them; find, grep and git
	// ls-files print them all.
	opt := walkOpts{hint: "narrow the producer's path", skipHidden: skipsHidden(p.Walk, j.b.Env)}
	opt.ignoreFiles = j.ignoreFilesOf(p.Walk, opt.skipHidden)
	if !ref.Recursive {
		// A recursive reader (grep -r {}) reads the whole tree of a
		// directory find prints (lib.go/.env under -name '*.go'), so then
		// every name is judged.
		opt.nameGlob = p.Produces.NameGlob
	}
	if !xargs && sameDir {
		opt.shellSplit = true
		opt.dashNames = ref.OptionLike
	}
	if xargs {
		xnul := false
		if ia := j.inputArgs(ref); ia != nil {
			xnul = ia.Nul
		}
		opt.splitNames = !(p.Produces.Nul && xnul)
		opt.splitBase = rc.abs
	}
	return opt, pc, ""
}

// inputArgs returns the input facts of the segment that feeds ref's
// segment its input as arguments (xargs), or nil.
func (j *judger) inputArgs(ref *classify.PathRef) *classify.InputArgs {
	if ref.Segment < 0 || ref.Segment >= len(j.r.Segments) {
		return nil
	}
	x := j.r.Segments[ref.Segment].Parent
	if x < 0 || x >= len(j.r.Segments) {
		return nil
	}
	return j.r.Segments[x].InputArgs
}

// producerRoots returns the paths the producer p reads (its operands, or
// its default root when it names none), or why they are not known.
func (j *judger) producerRoots(p *classify.Segment, pr *classify.Produces, pc cwdResult, what string) ([]string, string) {
	var texts []string
	for i := range j.r.Reads {
		r := &j.r.Reads[i]
		if r.Segment != p.Index || (r.Source != "operand" && r.Source != "implicit") {
			continue
		}
		if r.Kind == "dynamic" {
			return nil, fmt.Sprintf("the producer %s reads %s, which is not known statically", what, quote(r.Path))
		}
		t, err := j.absText(r.Path, r.Home, r.Kind == "glob", r.Cwd)
		if r.Repo {
			t, err = j.repoText(r)
		}
		if err != "" {
			return nil, fmt.Sprintf("producer %s: %s", what, err)
		}
		if r.IfExists {
			if res := j.fs.resolve(filepath.Clean(t)); !res.exists && res.err == nil {
				j.adm.addPath(filepath.Clean(t), res)
				continue // git diff HEAD~1: a revision, not a root
			}
		}
		if r.Kind == "glob" {
			mode := j.globMode(r.Dots, r.Globstar)
			ms, gerr := j.expandGlob(t, mode, j.b.maxGlob())
			j.adm.addGlob(t, mode, ms, gerr)
			if gerr != nil {
				return nil, fmt.Sprintf("producer %s: %v", what, gerr)
			}
			texts = append(texts, ms...)
			continue
		}
		texts = append(texts, t)
	}
	if len(texts) > 0 {
		return texts, ""
	}
	switch pr.DefaultRoot {
	case "cwd":
		if !producerNamesNoPath(p) {
			return nil, fmt.Sprintf("cannot tell which paths %s (segment %d) reads", what, p.Index)
		}
		return []string{pc.abs}, ""
	case "repo":
		top, ok := j.repoTop(pc.abs)
		if !ok {
			return nil, fmt.Sprintf("%s (segment %d) does not run in a git repository", what, p.Index)
		}
		return []string{top}, ""
	}
	return nil, fmt.Sprintf("%s (segment %d) names no path to bound its output", what, p.Index)
}

// producerNamesNoPath reports whether a producer segment without path reads
// really names no path: its operands are all non-path roles. A segment the
// catalog does not describe may name one.
func producerNamesNoPath(p *classify.Segment) bool {
	if !p.Known {
		return false
	}
	for _, o := range p.Operands {
		switch role, _ := o.Role.Base(); role {
		case classify.RolePattern, classify.RoleText, "subcommand":
		default:
			return false
		}
	}
	return true
}

// effectiveCwd is the cwd a segment really runs in: its cwd with git -C
// (cwd-flag reads) applied.
func (j *judger) effectiveCwd(s *classify.Segment) (string, bool) {
	return j.cwdAfter(s, nil)
}

// cwdAfter is effectiveCwd without the cwd options whose read skip
// reports (git --work-tree: git finds its repository from where it runs,
// not from the work tree).
func (j *judger) cwdAfter(s *classify.Segment, skip func(classify.Span) bool) (string, bool) {
	c := j.cwdOf(s.Cwd)
	if c.err != "" {
		return "", false
	}
	cur := c.abs
	for i := range j.r.Reads {
		r := &j.r.Reads[i]
		if r.Segment != s.Index || r.Source != "cwd-flag" || skip != nil && skip(r.Span) {
			continue
		}
		if r.Kind != "literal" {
			return "", false
		}
		p := r.Path
		if r.Home {
			if j.b.Home == "" {
				return "", false
			}
			p = filepath.Join(j.b.Home, strings.TrimPrefix(p, "~"))
		}
		if filepath.IsAbs(p) {
			cur = filepath.Clean(p)
		} else {
			cur = filepath.Join(cur, p)
		}
	}
	return cur, true
}

// placeholder is the word that stands for one producer path: "{}" for find
// -exec, the replace string of the segment that feeds ref's its input
// (xargs -I R; -i alone means "{}").
func (j *judger) placeholder(ref *classify.PathRef) string {
	if ref.Dynamic == "find-match" {
		return "{}"
	}
	if ia := j.inputArgs(ref); ia != nil {
		return ia.Replace
	}
	return ""
}

// shellSplitChars are the characters of a name that an unquoted $(...)
// does not hand over as they are: IFS whitespace splits it (bash and zsh),
// and bash expands a glob character (* ? [, an extglob's "(", and a
// backslash, which bash 5 treats as a pattern character) against the file
// system. A name holding one is not the path read.
const shellSplitChars = " \t\n*?[(\\"

// substRootsSplit returns why the words an unquoted $(...) makes of what
// the producer p prints are not the paths it prints, or "": a root as
// written (the prefix of every name it prints) that the shell would split
// or glob-expand, or, for git ls-files, a tracked path that would be (git
// prints the index, which may name paths the work tree no longer has), or
// one starting with "-" when the reader parses options there (dash).
func (j *judger) substRootsSplit(p *classify.Segment, pc cwdResult, what string, dash bool) string {
	for i := range j.r.Reads {
		r := &j.r.Reads[i]
		if r.Segment != p.Index || (r.Source != "operand" && r.Source != "implicit") {
			continue
		}
		if strings.ContainsAny(r.Path, shellSplitChars) || dash && strings.HasPrefix(r.Path, "-") {
			return fmt.Sprintf("%s (segment %d) prints names under %s, which the shell would split or glob-expand where $(...) is unquoted", what, p.Index, quote(r.Path))
		}
	}
	if p.Name != "git" {
		return ""
	}
	top, gitdir, ok := j.findGitDir(pc.abs)
	if !ok || top == gitdir {
		return fmt.Sprintf("%s (segment %d) does not run in a work tree whose index the station reads", what, p.Index)
	}
	res, why := j.index(top, gitdir)
	switch {
	case why != "":
		return why
	case res.split != "":
		return fmt.Sprintf("the repository %s tracks %s, which the shell would split or glob-expand where $(...) is unquoted", show(top), quote(res.split))
	case dash && res.dash != "":
		return fmt.Sprintf("the repository %s tracks %s, whose name starts with \"-\": the reader would take it as an option (no \"--\" before the substitution)", show(top), quote(res.dash))
	}
	return ""
}
