package gate

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/gitrepo"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// sandboxFor returns the sandbox mode a call runs in and why: the
// request's explicit mode, or the mode of the policy's run plan for a call
// a person approved (approved) or not (policy.Decision.Plan).
func (g *Gate) sandboxFor(req Request, d *Decision, approved bool) (execution.SandboxMode, string) {
	if req.Sandbox != "" {
		return req.Sandbox, "requested"
	}
	p := d.Plan(approved)
	return execution.SandboxMode(p.Sandbox), p.Why
}

// confinement returns the account of the confinement a call gets and the
// Confinement for the runner (nil: run unconfined). It fails, for the
// result's SANDBOX_UNAVAILABLE, when the call is to run read-only and
// the runner cannot confine it and confinement was not turned off by
// name (config "sandbox: off").
func (g *Gate) confinement(req Request, mode execution.SandboxMode, why string, d *Decision, approved bool) (*execution.SandboxInfo, *execution.Confinement, error) {
	sb := &execution.SandboxInfo{Mode: mode, Reason: why, Network: "allowed"}
	if g.pl.Config().Sandbox == policy.SandboxOff {
		sb.Note = "confinement is turned off (sandbox: off)"
		return sb, nil, nil
	}
	if mode == execution.SandboxFullAccess {
		return sb, nil, nil
	}
	if sup := g.SandboxSupport(); sup.Err != nil {
		sb.Note = "not confined: " + sup.Err.Error()
		if mode == execution.SandboxReadOnly {
			return sb, nil, fmt.Errorf("the command was to run confined read-only, and confinement is not possible here (%v); nothing ran. Turn confinement off by name (config \"sandbox: off\", or run --sandbox off) to run without it", sup.Err)
		}
		return sb, nil, nil
	}
	roots, gdirs, home, b := g.sandboxRoots(d.Cwd)
	plan := d.Plan(approved)
	conf := &execution.Confinement{Mode: mode, Roots: roots, Network: plan.Network, Reads: userToolConfig(home, g.env, b),
		GitDirs: gdirs, Cache: execution.SandboxCacheDir(), Unprotect: unprotect(req.Unprotect, d.Cwd)}
	conf.Toolchains = execution.ToolchainDirs(g.env, home, func(p string) bool {
		if b == nil {
			return false
		}
		_, denied := b.DeniedBy(p)
		return denied
	})
	if l := g.pl.Config().SandboxLimits; l != nil {
		conf.Limits = execution.ResourceLimits{Processes: l.Processes, MemoryMB: l.MemoryMB, FileSizeMB: l.FileSizeMB}
	}
	if plan.StationReads && d.Station != nil {
		reads, lists := approvedReads(d)
		conf.Reads = append(conf.Reads, reads...)
		conf.Lists = append(conf.Lists, lists...)
	}
	return sb, conf, nil
}

// userToolConfig are the per-user config files of git and Go, readable
// (not writable) in the sandbox so that the tools behave as the user set
// them up: ~/.gitconfig, $XDG_CONFIG_HOME/git/config (~/.config/git/config)
// and Go's env file ($GOENV, else $XDG_CONFIG_HOME/go/env: what `go env -w`
// writes; Go ignores it without a word when it cannot read it, and a build
// in the sandbox would differ from the user's). env is the command's
// environment; a file the boundary b denies is left out.
func userToolConfig(home string, env []string, b *readstation.Boundary) []string {
	if home == "" {
		return nil
	}
	get := func(k string) string { return execution.EnvValue(env, k) }
	xdg := get("XDG_CONFIG_HOME")
	if xdg == "" || !filepath.IsAbs(xdg) {
		xdg = filepath.Join(home, ".config")
	}
	goenv := get("GOENV")
	switch {
	case goenv == "off":
		goenv = ""
	case !filepath.IsAbs(goenv):
		goenv = filepath.Join(xdg, "go", "env")
	}
	var out []string
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config"), goenv} {
		if p == "" {
			continue
		}
		if b != nil {
			if _, denied := b.DeniedBy(p); denied {
				continue
			}
		}
		out = append(out, p)
	}
	return out
}

// gitDirs returns the git directories a root's .git file points to (a
// worktree's or a submodule's "gitdir: X", and X's commondir): they are
// part of the workspace, so the sandbox treats them as roots.
//
// The .git file is written by whoever wrote the workspace, so it is taken
// only when the directory it names points back at this root as git itself
// records it: a worktree's git directory holds a file "gitdir" naming
// root/.git (and its commondir holds worktrees/<name>, that directory), a
// submodule's git directory has core.worktree naming root. A .git file
// that names any other directory (~/.ssh, another project) widens nothing;
// neither does one whose target a deny row of the boundary covers.
func gitDirs(root string, b readstation.Boundary) []string {
	dotgit := filepath.Join(root, ".git")
	dir, ok := execution.ReadGitPointer(dotgit, "gitdir:")
	if !ok {
		return nil
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	dir, err := filepath.EvalSymlinks(filepath.Clean(dir))
	if err != nil || !isRegular(filepath.Join(dir, "HEAD")) {
		return nil
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	allowed := func(p string) bool {
		_, denied := b.DeniedBy(p)
		return !denied
	}
	if !allowed(dir) {
		return nil
	}
	// A worktree: <common>/worktrees/<name>, whose gitdir file names
	// root/.git.
	if back, ok := execution.ReadGitPointer(filepath.Join(dir, "gitdir"), ""); ok {
		if !filepath.IsAbs(back) || filepath.Clean(back) != filepath.Join(realRoot, ".git") && filepath.Clean(back) != dotgit {
			return nil
		}
		out := []string{dir}
		if c, ok := execution.ReadGitPointer(filepath.Join(dir, "commondir"), ""); ok {
			if !filepath.IsAbs(c) {
				c = filepath.Join(dir, c)
			}
			common, err := filepath.EvalSymlinks(filepath.Clean(c))
			if err == nil && allowed(common) && filepath.Join(common, "worktrees", filepath.Base(dir)) == dir {
				out = append(out, common)
			}
		}
		return out
	}
	// A submodule: its config's core.worktree names root.
	if wt, ok := submoduleWorktree(filepath.Join(dir, "config")); ok {
		if !filepath.IsAbs(wt) {
			wt = filepath.Join(dir, wt)
		}
		if real, err := filepath.EvalSymlinks(filepath.Clean(wt)); err == nil && real == realRoot {
			return []string{dir}
		}
	}
	return nil
}

// isRegular reports whether p is a regular file (not through a symlink).
func isRegular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// submoduleWorktree returns the value of core.worktree in the small git
// config file p (a submodule's, where git submodule writes it), read by
// git's own syntax (gitrepo.ParseFile); the last value wins, as in git.
func submoduleWorktree(p string) (string, bool) {
	if !isRegular(p) {
		return "", false
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 64<<10+1))
	if err != nil || len(data) > 64<<10 {
		return "", false
	}
	entries, err := gitrepo.ParseFile(data)
	if err != nil {
		return "", false
	}
	wt, ok := "", false
	for _, e := range entries {
		if e.Name == "core.worktree" {
			wt, ok = e.Value, true
		}
	}
	return wt, ok && wt != ""
}

// approvedReads are the reads outside the roots that the decision
// approved, as the station resolved them (the real path and the path as
// written, for a symlink; a glob's matches): reads, the files and the
// trees read whole; lists, the directories the command reads as a
// listing (ls ~), which grant the listing and not the files beneath.
func approvedReads(d *Decision) (reads, lists []string) {
	add := func(p string, recursive bool) {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() && !recursive {
			lists = append(lists, p)
			return
		}
		reads = append(reads, p)
	}
	for _, r := range d.Station.Reads {
		if r.Verdict != readstation.VerdictOutsideRoots {
			continue
		}
		if r.Kind == "glob" {
			for _, m := range r.Matches {
				add(m, r.Recursive)
			}
			continue
		}
		for _, p := range []string{r.Real, r.Resolved} {
			if p != "" {
				add(p, r.Recursive)
			}
		}
	}
	return reads, lists
}

// sandboxRoots are the directories a confined command may read (and, in
// workspace-write, write): the read boundary's roots with "~" folded,
// relative roots taken from cwd, plus cwd itself, and the git directories
// a root's .git file points to. home is the boundary's home directory.
func (g *Gate) sandboxRoots(cwd string) (roots, gdirs []string, home string, bp *readstation.Boundary) {
	out := []string{cwd}
	b, err := g.boundary(cwd)
	if err != nil {
		return out, nil, "", nil
	}
	roots = append(out, b.AbsRoots()...)
	for _, r := range roots {
		gdirs = append(gdirs, gitDirs(r, b)...)
	}
	return append(roots, gdirs...), gdirs, b.Home, &b
}

// unprotect resolves the protected paths a person made writable for one
// call (relative ones from cwd).
func unprotect(paths []string, cwd string) []string {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// maxRefused bounds the refused escalations a gate remembers.
const maxRefused = 4096

// refuse remembers that an escalation of the command under key was
// refused ("" is no escalation).
func (g *Gate) refuse(key string) {
	if key == "" {
		return
	}
	g.refusedMu.Lock()
	defer g.refusedMu.Unlock()
	if g.refused == nil || len(g.refused) >= maxRefused {
		g.refused = map[string]bool{}
	}
	g.refused[key] = true
}

func (g *Gate) refusedBefore(key string) bool {
	g.refusedMu.Lock()
	defer g.refusedMu.Unlock()
	return g.refused[key]
}

// SandboxSupport reports whether this gate confines the commands it runs:
// its runner's support (Confiner), or an error when the runner cannot
// confine or the config turned confinement off.
func (g *Gate) SandboxSupport() execution.SandboxSupport {
	if g.pl.Config().Sandbox == policy.SandboxOff {
		return execution.SandboxSupport{Err: fmt.Errorf("confinement is turned off (sandbox: off)")}
	}
	if c, ok := g.runner.(execution.Confiner); ok {
		return c.SandboxSupport()
	}
	return execution.SandboxSupport{Err: fmt.Errorf("the runner %T cannot confine commands", g.runner)}
}

// confinementFacts are what this gate's sandbox can enforce here, for
// the policy input of a command that is to run (policy.Input.Confinement).
func (g *Gate) confinementFacts() *policy.Confinement {
	s := g.SandboxSupport()
	c := &policy.Confinement{Mechanism: s.Mechanism, ABI: s.ABI, NetworkGuard: s.NetworkGuard,
		Isolation: slices.Clone(s.Isolation), Missing: slices.Clone(s.Missing)}
	if c.Isolation == nil {
		c.Isolation = []string{}
	}
	if c.Missing == nil {
		c.Missing = []string{}
	}
	if s.Err != nil {
		c.Unavailable = s.Err.Error()
	}
	return c
}
