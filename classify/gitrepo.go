package classify

import "strings"

// This file holds the catalog's knowledge of how a command points git at a
// repository (git_repo): which environment variables and options choose
// the repository, its config or its work tree instead of the one git finds
// from the directory it runs in. The read station reads the facts a
// segment carries (Segment.GitRepo) and never git's own names.

// GitRepoSpec says how a program that runs git (runs_git) is pointed at a
// repository, config or work tree other than the one git finds from the
// directory it runs in (catalog git_repo).
type GitRepoSpec struct {
	// Env are the environment variables that point git elsewhere
	// (GIT_DIR, GIT_CONFIG_GLOBAL); a name ending in "*" stands for every
	// variable that begins with the rest (GIT_CONFIG*). An assignment of
	// one, on the segment or on a segment that runs it (env, timeout,
	// bash -c), is in Segment.GitRepo.Env.
	Env []string `yaml:"env" json:"env,omitempty"`
	// GitDir is the option (its first name) whose value is the git
	// directory to use (git --git-dir=DIR).
	GitDir string `yaml:"git_dir,omitempty" json:"git_dir,omitempty"`
	// Bare is the option (its first name, no value) that makes git take
	// the directory it runs in as its git directory (git --bare).
	Bare string `yaml:"bare,omitempty" json:"bare,omitempty"`
	// WorkTree is the option (its first name) whose value is the work tree
	// to use (git --work-tree=DIR): git still finds its repository from the
	// directory it runs in, but reads files and attributes in that tree.
	WorkTree string `yaml:"work_tree,omitempty" json:"work_tree,omitempty"`
}

// GitRepo is what a segment that runs git says about the repository git
// uses, beyond the directory it runs in (catalog git_repo). The read
// station finds the repository from the directory, and reads these facts
// for what points git elsewhere.
type GitRepo struct {
	// Env are the assignments of variables that point git at another
	// repository, config or work tree (catalog git_repo.env: GIT_DIR=x,
	// GIT_CONFIG_GLOBAL=x), on the segment or on a segment that runs it
	// and so passes on its environment (env, timeout, bash -c, xargs).
	Env []Assign `json:"env,omitempty"`
	// GitDir are the options that name the git directory (git
	// --git-dir=DIR), in order: git uses the last.
	GitDir []Opt `json:"git_dir,omitempty"`
	// Bare is the option that makes git take the directory it runs in as
	// its git directory (git --bare), nil when not given.
	Bare *Opt `json:"bare,omitempty"`
	// WorkTree are the options that name the work tree (git
	// --work-tree=DIR), in order. Their value is not where git looks for
	// its repository: a cwd read of Source "cwd-flag" inside one of their
	// spans does not move the directory the repository is found from.
	WorkTree []Opt `json:"work_tree,omitempty"`
}

// checkGitRepo checks git_repo: only on a program that runs git (runs_git
// on it or its parent), and a program with runs_git has one with env (what
// git reads from its environment must be said); env names are variable
// names, "*" only at the end; the options are first names of options of
// the same entry, git_dir and work_tree taking a value and bare none.
func (p *Program) checkGitRepo(bad func(string, ...any)) {
	g := p.GitRepo
	runsGit := p.RunsGit || p.parent != nil && p.parent.RunsGit
	switch {
	case g == nil && p.RunsGit:
		bad("runs_git needs git_repo with env: the environment variables that point git at another repository or config")
		return
	case g == nil:
		return
	case !runsGit:
		bad("git_repo on a program that does not run git (no runs_git on it or its program)")
	}
	if p.RunsGit && len(g.Env) == 0 {
		bad("git_repo: env is empty (list the environment variables that point git at another repository or config)")
	}
	seen := map[string]bool{}
	for _, e := range g.Env {
		if !envName.MatchString(strings.TrimSuffix(e, "*")) {
			bad("git_repo: env %q is not an environment variable name (or a prefix of one ending in *)", e)
		}
		if seen[e] {
			bad("git_repo: env %q is listed twice", e)
		}
		seen[e] = true
	}
	option := func(field, n string, valued bool) {
		if n == "" {
			return
		}
		o := p.optIndex[n]
		switch {
		case o == nil || o.Names[0] != n:
			bad("git_repo: %s: %q is not the first name of an option of the program", field, n)
		case valued && o.Value == "":
			bad("git_repo: %s: option %s takes no value", field, n)
		case !valued && o.Value != "":
			bad("git_repo: %s: option %s takes a value", field, n)
		}
	}
	option("git_dir", g.GitDir, true)
	option("bare", g.Bare, false)
	option("work_tree", g.WorkTree, true)
}

// gitRepoEnv reports whether the variable name is one of a git_repo env
// list: a name, or a prefix ending in "*".
func gitRepoEnv(list []string, name string) bool {
	for _, e := range list {
		if e == name || strings.HasSuffix(e, "*") && strings.HasPrefix(name, e[:len(e)-1]) {
			return true
		}
	}
	return false
}

// gitRepoOption records option o, just parsed by the entry p.spec, in the
// segment's GitRepo when the entry's git_repo names it.
func (p *argParser) gitRepoOption(o *Opt) {
	g := p.spec.GitRepo
	if g == nil || !o.Known || o.Name != g.GitDir && o.Name != g.WorkTree && o.Name != g.Bare {
		return
	}
	if p.seg.GitRepo == nil {
		p.seg.GitRepo = &GitRepo{}
	}
	gr := p.seg.GitRepo
	switch o.Name {
	case g.GitDir:
		gr.GitDir = append(gr.GitDir, *o)
	case g.WorkTree:
		gr.WorkTree = append(gr.WorkTree, *o)
	default:
		bare := *o
		gr.Bare = &bare
	}
}

// gitRepoFacts adds to segment s, which runs git, the assignments that
// point git elsewhere: its own and those of the segments that run it,
// whose environment it inherits. root and spec are its catalog entries
// (segmentSpecs), both nil when its subcommand is not catalogued (git
// frob): its program's entry then says.
func (w *walker) gitRepoFacts(s *Segment, root, spec *Program) {
	if root == nil && w.cfg.cat != nil && s.Name != "" {
		root = w.cfg.cat.Lookup(s.Name)
	}
	var env []string
	if root != nil && root.GitRepo != nil {
		env = root.GitRepo.Env
	}
	if spec != nil && spec != root && spec.GitRepo != nil {
		env = append(append([]string(nil), env...), spec.GitRepo.Env...)
	}
	var found []Assign
	for q, seen := s, 0; q != nil && seen <= len(w.r.Segments); seen++ {
		for _, a := range q.Assigns {
			if gitRepoEnv(env, a.Name) {
				found = append(found, a)
			}
		}
		if q.Parent < 0 || q.Parent >= len(w.r.Segments) || q.Parent == q.Index {
			break
		}
		q = &w.r.Segments[q.Parent]
	}
	if len(found) == 0 {
		return
	}
	if s.GitRepo == nil {
		s.GitRepo = &GitRepo{}
	}
	s.GitRepo.Env = found
}

// InWorkTree reports whether span sp lies inside one of the work-tree
// options (the read of its value, Source "cwd-flag", does): that value is
// not where git looks for its repository. A nil GitRepo has none.
func (g *GitRepo) InWorkTree(sp Span) bool {
	if g == nil {
		return false
	}
	for _, o := range g.WorkTree {
		if sp.Start >= o.Span.Start && sp.End <= o.Span.End {
			return true
		}
	}
	return false
}
