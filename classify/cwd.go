package classify

import (
	"path"
	"strings"
)

// cwdState is everything a cd can change. Dead marks a path through the
// command that requires some cd to have failed: cwd tracking assumes every
// cd succeeds (Cwd.After lists the ones assumed), so a dead state gives way
// to a live one when two paths meet.
type cwdState struct {
	cwd, oldpwd Cwd
	stack       []Cwd
	dead        bool
	// devDir is set once a cd may have gone to a device directory
	// (/dev, /proc/PID/fd) or to a place not known statically.
	devDir bool
}

// outcome is the state a statement leaves when it exits 0 (succ) and when
// it does not (fail).
type outcome struct{ succ, fail cwdState }

func (w *walker) saveCwd() cwdState {
	s := w.st
	s.stack = append([]Cwd(nil), w.st.stack...)
	return s
}

func (w *walker) restoreCwd(s cwdState) {
	w.st = s
	w.st.stack = append([]Cwd(nil), s.stack...)
}

// same is the outcome of a statement that leaves the state as it is.
func same(s cwdState) outcome { return outcome{succ: s, fail: s} }

// joinState is the state where two paths through the command meet.
func joinState(a, b cwdState) cwdState {
	if a.dead != b.dead {
		if a.dead {
			return b
		}
		return a
	}
	out := cwdState{cwd: mergeCwd(a.cwd, b.cwd), oldpwd: mergeCwd(a.oldpwd, b.oldpwd), dead: a.dead, devDir: a.devDir || b.devDir}
	if len(a.stack) == len(b.stack) {
		out.stack = make([]Cwd, len(a.stack))
		for i := range a.stack {
			out.stack[i] = mergeCwd(a.stack[i], b.stack[i])
		}
	} else {
		// Which entries are on the stack is unknown: popd yields unknown.
		out.stack = make([]Cwd, max(len(a.stack), len(b.stack)))
	}
	return out
}

func sameCwd(a, b Cwd) bool { return a.Known && b.Known && a.Path == b.Path }

// mergeCwd is a cwd that two paths agree on, or unknown.
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
	c := w.st.cwd
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
		if n := len(w.st.stack); n > 0 {
			to = w.st.stack[n-1]
			w.st.stack = w.st.stack[:n-1]
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
		to = w.st.oldpwd
		if to.Path == "" {
			to = Cwd{}
		}
	default:
		to = joinPath(from, target.Value)
	}
	if (w.zsh || w.zshStandIn) && (seg.Name == "cd" || seg.Name == "chdir" || seg.Name == "pushd") &&
		(len(seg.Operands) > 1 || hasTarget && target.Static() && len(target.Value) > 1 && (target.Value[0] == '-' || target.Value[0] == '+') && isDigits(target.Value[1:])) &&
		w.zshReads() {
		// zsh: cd OLD NEW replaces OLD with NEW in $PWD; cd +N and cd -N
		// pick from the directory stack.
		to = Cwd{}
	}
	if seg.Name == "pushd" {
		w.st.stack = append(w.st.stack, from)
	}
	idx := len(w.r.Cd)
	to.After = append(append([]int(nil), from.After...), idx)
	w.r.Cd = append(w.r.Cd, CdStep{
		Index: idx, Program: seg.Name, Target: target, From: from, To: to,
		Segment: seg.Index, Span: seg.Span,
		Scoped: c.subshell || c.pipeLen > 1 || c.subst || c.background,
	})
	w.st.oldpwd = from
	w.st.cwd = to
	if cp := path.Clean(to.Path); !to.Known || cp == "/" || cp == "/proc" || strings.HasPrefix(cp, "/proc/") || mayBeDevice(Arg{Value: "x"}, to, false) {
		w.st.devDir = true
	}
}

// sameState reports whether two states have the same cwd.
func sameState(a, b cwdState) bool {
	return a.cwd.Known == b.cwd.Known && a.cwd.Path == b.cwd.Path && len(a.cwd.After) == len(b.cwd.After)
}
