package classify

import (
	"fmt"
	"path"
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
		w.deviceCheck(target, cwd, rd.Span, seg)
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

func (w *walker) deviceCheck(a Arg, cwd Cwd, sp Span, seg int) {
	if mayBeDevice(a, cwd, w.st.devDir) || a.Dynamic == "param" && w.loopVarDevice(a, cwd) {
		w.find("device-read", "reads "+quote(a.Value)+", which is or may be a device that never ends or reaches the network", sp, seg)
	}
}

// loopVarDevice reports a word built from variables that carry no finding
// of their own (a for loop's variable, a harmless one like $OLDPWD) that
// may be a device: for one of the words the loop gives it, or because the
// variable may hold any directory.
func (w *walker) loopVarDevice(a Arg, cwd Cwd) bool {
	src := stripQuotes(a.Value)
	for _, name := range paramNames(src) {
		if _, ok := w.loopVals[name]; ok {
			continue
		}
		if !w.cfg.cat.harmVars[name] {
			return false // not analysed here: it has a finding of its own
		}
		val := "/*" // any directory
		switch name {
		case "HOME":
			val = "/h"
		case "PWD":
			val = "."
		}
		src, _ = replaceParam(src, name, val)
	}
	if strings.HasPrefix(src, "/*") {
		return true
	}
	subs := []string{src}
	for name, vals := range w.loopVals {
		var next []string
		for _, s := range subs {
			for _, v := range vals {
				text := v.Value
				if v.Pattern != "" {
					text = v.Pattern
				}
				sub, ok := replaceParam(s, name, text)
				if !ok {
					next = append(next, s)
					break
				}
				next = append(next, sub)
			}
		}
		if len(next) > 64 {
			return true // too many combinations to check: assume the worst
		}
		subs = next
	}
	for _, s := range subs {
		if mayBeDevice(Arg{Value: s, Dynamic: "brace"}, cwd, w.st.devDir) {
			return true
		}
	}
	return false
}

// paramNames lists the names of the $name and ${name} in s.
func paramNames(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		j := i + 1
		if s[j] == '{' {
			j++
		}
		k := j
		for k < len(s) && isNameByte(s[k]) {
			k++
		}
		if k > j {
			out = append(out, s[j:k])
		}
	}
	return out
}

// replaceParam replaces $name and ${name} in s with val, and reports
// whether there was any.
func replaceParam(s, name, val string) (string, bool) {
	var b strings.Builder
	found := false
	for i := 0; i < len(s); i++ {
		if s[i] == '$' {
			rest := s[i+1:]
			if strings.HasPrefix(rest, "{"+name+"}") {
				b.WriteString(val)
				i += len(name) + 2
				found = true
				continue
			}
			if strings.HasPrefix(rest, name) && (len(rest) == len(name) || !isNameByte(rest[len(name)])) {
				b.WriteString(val)
				i += len(name)
				found = true
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), found
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isDevice reports paths whose reading may not end or that reach outside.
func isDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdin", "/dev/fd/0", "-", "/proc/self/fd/0":
		return false
	}
	return devicePath(p, false)
}

// mayBeDevice reports a read operand that is, or may expand to, a device
// once resolved against cwd: a static path in any spelling (//dev/zero,
// ../../dev/zero after cd /, /proc/self/root/dev/zero), or a word whose
// expansion is unknown but carries no finding of its own (glob, brace,
// tilde, ~user, pure arithmetic). Other dynamic words are already not
// reversible and are left alone. devDir is set when a cd may have moved
// the shell into a device directory or somewhere unknown.
func mayBeDevice(a Arg, cwd Cwd, devDir bool) bool {
	p, wild := a.Value, false
	switch a.Dynamic {
	case "":
	case "glob", "tilde", "home":
		p, wild = a.Pattern, true
		if p == "" || strings.ContainsAny(a.Value, "{") || hasExtGlob(a.Value) {
			p = stripQuotes(a.Value)
		}
	case "brace", "arithmetic":
		p, wild = stripQuotes(a.Value), true
	case "tilde-user":
		// ~user is any home, and some (sys) live in /dev.
		return true
	default:
		return false
	}
	if p == "" || p == "-" {
		return false
	}
	// Home and the starting directory sit one level under / at least,
	// so that any ".." that could climb to / does so here.
	if p == "~" || strings.HasPrefix(p, "~/") {
		p = "/h" + p[1:]
	} else if strings.HasPrefix(p, "$HOME") && a.Dynamic == "home" {
		p = "/h" + strings.TrimPrefix(p, "$HOME")
	}
	if !strings.HasPrefix(p, "/") {
		base := "/p"
		if !cwd.Known {
			// Where the shell is is unknown (a cd that may have failed,
			// cd -, popd): a relative path may be under /dev if any cd
			// on the way could have gone near there, or if it climbs.
			return devDir || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..")
		}
		{
			switch {
			case strings.HasPrefix(cwd.Path, "/"):
				base = cwd.Path
			case cwd.Path == "~" || strings.HasPrefix(cwd.Path, "~/"):
				base = "/h" + cwd.Path[1:]
			case cwd.Path != "" && cwd.Path != ".":
				base = "/p/" + cwd.Path
			}
		}
		if wild && (strings.ContainsAny(base, "*?[{$") || hasExtGlob(base)) {
			return true
		}
		if !wild && !strings.Contains(p, "..") && !strings.Contains(base, "..") {
			// Nothing climbs out of base, so the path is under base's
			// first directory: only dev and proc hold devices.
			if c := path.Clean(base); c != "/" {
				if first, _, _ := strings.Cut(c[1:], "/"); first != "dev" && first != "proc" {
					return false
				}
			}
		}
		p = base + "/" + p
	}
	p = path.Clean(p)
	if !wild {
		return isDevice(p)
	}
	return devicePath(p, true)
}

// devicePath reports an absolute clean path (or glob pattern, when wild)
// under /dev, /proc/kmsg, or a /proc/PID/{root,cwd,fd,map_files} link.
func devicePath(p string, wild bool) bool {
	if !wild {
		// Only a path whose first component is dev or proc can be one.
		first, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		if first != "dev" && first != "proc" {
			return false
		}
	}
	comps := strings.Split(strings.TrimPrefix(p, "/"), "/")
	match := func(pat, name string) bool {
		if !wild {
			return pat == name
		}
		if strings.ContainsAny(pat, "{($`") || hasExtGlob(pat) {
			return true
		}
		m, err := path.Match(pat, name)
		return m || err != nil
	}
	if len(comps) == 0 || comps[0] == "" {
		return false
	}
	if match(comps[0], "dev") {
		return true
	}
	if !match(comps[0], "proc") || len(comps) < 2 {
		return false
	}
	if match(comps[1], "kmsg") {
		return true
	}
	if len(comps) >= 3 {
		for _, l := range []string{"root", "cwd", "fd", "map_files"} {
			if match(comps[2], l) {
				return true
			}
		}
	}
	return false
}

func hasExtGlob(s string) bool {
	for _, op := range []string{"@(", "*(", "+(", "?(", "!("} {
		if strings.Contains(s, op) {
			return true
		}
	}
	return false
}

// stripQuotes drops the quote characters of a word's source text.
func stripQuotes(s string) string { return quoteChars.Replace(s) }

var quoteChars = strings.NewReplacer("\"", "", "'", "")

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
		p.Dots, p.Globstar = a.Dots, a.Globstar
	case (a.Dynamic == "tilde" || a.Dynamic == "home") && a.Pattern != "":
		p.Kind, p.Path, p.Home = "literal", a.Pattern, true
	default:
		p.Kind, p.Path, p.Dynamic = "dynamic", a.Value, a.Dynamic
	}
	return p
}
