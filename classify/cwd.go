package classify

import (
	"path"
	"strings"
)

// cwdState is everything a cd can change.
type cwdState struct {
	cwd, oldpwd Cwd
	stack       []Cwd
}

func (w *walker) saveCwd() cwdState {
	if w.cwd.Path == "" && !w.cwd.Known && w.cwd.After == nil && len(w.r.Cd) == 0 {
		w.cwd = Cwd{Path: ".", Known: true}
	}
	return cwdState{cwd: w.cwd, oldpwd: w.oldpwd, stack: append([]Cwd(nil), w.dirstack...)}
}

func (w *walker) restoreCwd(s cwdState) {
	w.cwd, w.oldpwd, w.dirstack = s.cwd, s.oldpwd, s.stack
}

// mergeCwd sets the cwd to what it is whether or not the construct since s
// ran: unknown unless both agree.
func (w *walker) mergeCwd(s cwdState) {
	w.cwd = mergeCwd(s.cwd, w.cwd)
	if !sameCwd(s.oldpwd, w.oldpwd) {
		w.oldpwd = Cwd{}
	}
}

func sameCwd(a, b Cwd) bool { return a.Known && b.Known && a.Path == b.Path }

func mergeCwd(a, b Cwd) Cwd {
	if sameCwd(a, b) {
		if len(b.After) > len(a.After) {
			return b
		}
		return a
	}
	return Cwd{}
}

// currentCwd is the cwd a segment runs in now.
func (w *walker) currentCwd() Cwd {
	if !w.cwd.Known && w.cwd.Path == "" && len(w.r.Cd) == 0 {
		w.cwd = Cwd{Path: ".", Known: true}
	}
	c := w.cwd
	c.After = append([]int(nil), c.After...)
	return c
}

// joinPath resolves target against a cwd the way bash's logical cd does.
func joinPath(base Cwd, target string) Cwd {
	switch {
	case strings.HasPrefix(target, "/"):
		return Cwd{Path: path.Clean(target), Known: true}
	case target == "~" || strings.HasPrefix(target, "~/"):
		return Cwd{Path: cleanHome(target), Known: true}
	case !base.Known:
		return Cwd{}
	case base.Path == "." || base.Path == "":
		return Cwd{Path: path.Clean(target), Known: true}
	case strings.HasPrefix(base.Path, "~"):
		return Cwd{Path: cleanHome(base.Path + "/" + target), Known: true}
	}
	return Cwd{Path: path.Clean(base.Path + "/" + target), Known: true}
}

// cleanHome cleans a ~-relative path without losing the ~ prefix; a path
// that climbs out of the home directory keeps its "..".
func cleanHome(p string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/")
	if rest == "" {
		return "~"
	}
	c := path.Clean(rest)
	if c == "." {
		return "~"
	}
	if c == ".." || strings.HasPrefix(c, "../") {
		return "~/" + rest
	}
	return "~/" + c
}

// cd applies a cd, pushd or popd segment.
func (w *walker) cd(seg *Segment, c ctx) {
	from := w.currentCwd()
	var target Arg
	hasTarget := false
	for _, op := range seg.Operands {
		target, hasTarget = op.Arg, true
		break
	}
	var to Cwd
	switch {
	case seg.Name == "popd":
		if n := len(w.dirstack); n > 0 {
			to = w.dirstack[n-1]
			w.dirstack = w.dirstack[:n-1]
		} else {
			to = Cwd{}
		}
	case !hasTarget:
		if seg.Name == "pushd" {
			to = Cwd{} // swaps the top two directories
		} else {
			to = Cwd{Path: "~", Known: true}
		}
	case !target.Static():
		if (target.Dynamic == "tilde" || target.Dynamic == "home") && target.Pattern != "" {
			to = joinPath(from, target.Pattern)
		} else {
			to = Cwd{}
		}
	case target.Value == "-":
		to = w.oldpwd
		if to.Path == "" {
			to = Cwd{}
		}
	default:
		to = joinPath(from, target.Value)
	}
	if seg.Name == "pushd" {
		w.dirstack = append(w.dirstack, from)
	}
	idx := len(w.r.Cd)
	to.After = append(append([]int(nil), from.After...), idx)
	w.r.Cd = append(w.r.Cd, CdStep{
		Index: idx, Program: seg.Name, Target: target, From: from, To: to,
		Segment: seg.Index, Span: seg.Span,
		Scoped: c.subshell || c.pipeLen > 1 || c.subst || c.background,
	})
	w.oldpwd = from
	w.cwd = to
}
