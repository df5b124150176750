package classify

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// preRedirs reports whether the statement's redirects feed stdin, and
// whether they belong to a compound command.
func (w *walker) preRedirs(s *syntax.Stmt) (stdinFed, compound bool) {
	_, isCall := s.Cmd.(*syntax.CallExpr)
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			if r.N == nil || r.N.Value == "0" {
				stdinFed = true
			}
		case syntax.DplIn:
			stdinFed = true
		}
	}
	return stdinFed, !isCall && s.Cmd != nil
}

// harmlessTargets are write targets that write nothing anyone keeps.
var harmlessTargets = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": false}

// redirs records the statement's redirects.
func (w *walker) redirs(s *syntax.Stmt, c ctx, seg int, compound bool) {
	for _, r := range s.Redirs {
		w.redirect(r, c, seg)
	}
}

func (w *walker) redirect(r *syntax.Redirect, c ctx, seg int) {
	if max := w.cfg.limits.MaxRedirects; len(w.r.Redirects) >= max {
		if !w.redirLimit {
			w.redirLimit, w.segLimit = true, true
			w.find("limit-redirects", fmt.Sprintf("more than %d redirections; the rest were not analysed", max), w.span(r), -1)
		}
		return
	}
	rd := Redirect{Op: r.Op.String(), Segment: seg, Span: w.span(r)}
	if r.N != nil {
		rd.Fd = r.N.Value
		if strings.HasPrefix(r.N.Value, "{") {
			w.find("redirect-write", "a {var} redirect assigns a shell variable", rd.Span, seg)
		}
	}
	var target Arg
	if r.Word != nil {
		target, _ = w.word(r.Word, c)
	}
	rd.Target = target
	cwd := w.currentCwd()
	ref := func(kind string) PathRef {
		return pathRef(target, "redirect", seg, cwd, -1)
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll:
		rd.Mode = "write"
		if target.Static() && harmlessTargets[target.Value] {
			rd.Harmless = true
		} else {
			w.r.Writes = append(w.r.Writes, ref("write"))
			w.find("redirect-write", "writes to "+quote(target.Value), rd.Span, seg)
		}
	case syntax.RdrInOut:
		rd.Mode = "readwrite"
		w.r.Reads = append(w.r.Reads, ref("read"))
		if target.Static() && harmlessTargets[target.Value] {
			rd.Harmless = true
		} else {
			w.r.Writes = append(w.r.Writes, ref("write"))
			w.find("redirect-write", "opens "+quote(target.Value)+" for writing", rd.Span, seg)
		}
	case syntax.RdrIn:
		rd.Mode = "read"
		w.r.Reads = append(w.r.Reads, ref("read"))
		w.deviceCheck(target, rd.Span, seg)
	case syntax.DplOut, syntax.DplIn:
		rd.Mode = "dup"
		v := target.Value
		if !target.Static() {
			w.find("redirect-write", "duplicates a file descriptor chosen at run time", rd.Span, seg)
		} else if v == "-" || isDigits(strings.TrimSuffix(v, "-")) {
			rd.Harmless = true
		} else if r.Op == syntax.DplOut {
			// >&file is &>file
			rd.Mode = "write"
			if harmlessTargets[v] {
				rd.Harmless = true
			} else {
				w.r.Writes = append(w.r.Writes, ref("write"))
				w.find("redirect-write", "writes to "+quote(v), rd.Span, seg)
			}
		} else {
			w.find("redirect-write", "duplicates an unusual file descriptor "+quote(v), rd.Span, seg)
		}
	case syntax.Hdoc, syntax.DashHdoc:
		rd.Mode = "heredoc"
		rd.Harmless = true
		if r.Hdoc != nil {
			// A heredoc body is expanded for parameters and
			// substitutions only: no braces, globs or tildes.
			w.hdoc = true
			w.word(r.Hdoc, c)
			w.hdoc = false
		}
	case syntax.WordHdoc:
		rd.Mode = "herestring"
		rd.Harmless = true
	default:
		rd.Mode = "unknown"
		w.find("redirect-write", "an unusual redirect "+r.Op.String(), rd.Span, seg)
	}
	w.r.Redirects = append(w.r.Redirects, rd)
}

func (w *walker) deviceCheck(a Arg, sp Span, seg int) {
	if !a.Static() {
		return
	}
	if isDevice(a.Value) {
		w.find("device-read", "reads "+a.Value+", which may never end or reaches the network", sp, seg)
	}
}

// isDevice reports paths whose reading may not end or that reach outside.
func isDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdin", "/dev/fd/0", "-":
		return false
	}
	return strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/kmsg") || p == "/dev"
}

// isStdin reports operands that mean the process's stdin.
func isStdin(p string) bool {
	switch p {
	case "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0":
		return true
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func quote(s string) string {
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return "\"" + s + "\""
}

func pathRef(a Arg, source string, seg int, cwd Cwd, producer int) PathRef {
	p := PathRef{Source: source, Segment: seg, Cwd: cwd, Producer: producer, Span: a.Span}
	switch {
	case a.Static():
		p.Kind, p.Path = "literal", a.Value
	case a.Dynamic == "glob":
		p.Kind, p.Path = "glob", a.Pattern
		p.Home = strings.HasPrefix(a.Pattern, "~")
	case (a.Dynamic == "tilde" || a.Dynamic == "home") && a.Pattern != "":
		p.Kind, p.Path, p.Home = "literal", a.Pattern, true
	default:
		p.Kind, p.Path, p.Dynamic = "dynamic", a.Value, a.Dynamic
	}
	return p
}
