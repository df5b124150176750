package classify

import "strings"

// A for loop's variable holds one of the loop's words in its body (for f
// in *.py; do wc -l "$f"; done reads each match of *.py). bindLoopReads
// replaces a read of such a variable by reads of the words, when that is
// exactly what the shell does, and leaves it dynamic otherwise.

// loopBody is one for loop: its variable, its words, how many scripts
// deep it is (bash -c), and the reads its body added (Reads[first:end]).
type loopBody struct {
	name       string
	items      []Arg
	depth      int
	first, end int
}

// markAssigned records a variable that something other than a for loop
// sets (an assignment, an environment prefix, declare, ${x:=y}).
func (w *walker) markAssigned(name string) {
	if w.assigned == nil {
		w.assigned = map[string]bool{}
	}
	w.assigned[name] = true
}

// varSetters are the builtins that set variables named by their operands
// or by data (read f, mapfile, getopts, printf -v, unset, let, eval,
// source, wait -p), or run code that may (trap): with one of them in the
// command, no loop variable is bound.
//
// declare, local, export, readonly and typeset are declaration clauses,
// whose names markAssigned records.
var varSetters = map[string]bool{
	"read": true, "mapfile": true, "readarray": true, "getopts": true, "unset": true,
	"let": true, "eval": true, "source": true, ".": true, "trap": true, "wait": true,
}

// bindLoopReads binds reads of a loop variable inside its loop's body to
// the loop's words. A read is bound only when all of this holds:
//   - the word is the variable alone: $f, ${f}, "$f" or "${f}" (a word
//     built around it, "src/$f", would read other paths than the words);
//   - the word is the read's own text in the command, in a command as
//     many scripts deep as the loop (bash -c 'cat "$f"' in the body reads
//     another shell's $f, which the loop did not set);
//   - nothing else in the command sets the variable, nor sets variables
//     whose names are not known (read, printf -v, eval, arithmetic);
//   - every word of every loop with that name is static or a glob;
//   - an unquoted $f is word-split and globbed again: its literal words
//     must hold no space or glob character, and a glob's matches are
//     checked by the read station (PathRef.Split);
//   - where the program still parses options, a word that begins with "-"
//     is an option: a literal one is not bound, a glob's matches are
//     checked by the read station (PathRef.OptionLike).
func (w *walker) bindLoopReads() {
	if len(w.loops) == 0 || w.varsUnknown || w.assigned["IFS"] {
		return // IFS changes how an unquoted $f splits
	}
	for _, seg := range w.r.Segments {
		if varSetters[seg.Name] {
			return
		}
		if seg.Name == "printf" {
			for _, o := range seg.Options {
				if o.Name == "-v" {
					return
				}
			}
		}
	}
	var out []PathRef
	changed := false
	for i, p := range w.r.Reads {
		bound, ok := w.bindRead(i, p)
		if !ok {
			out = append(out, p)
			continue
		}
		changed = true
		out = append(out, bound...)
	}
	if changed {
		w.r.Reads = out
	}
}

// bindRead returns the reads that read i of the loop variable stands for.
func (w *walker) bindRead(i int, p PathRef) ([]PathRef, bool) {
	cmd := w.r.Command
	if p.Kind != "dynamic" || p.Dynamic != "param" || p.Span.Start < 0 || p.Span.Start > p.Span.End || p.Span.End > len(cmd) || cmd[p.Span.Start:p.Span.End] != p.Path {
		return nil, false
	}
	if p.Segment < 0 || p.Segment >= len(w.r.Segments) {
		return nil, false
	}
	depth := w.r.Segments[p.Segment].Context.Depth
	name, quoted, ok := loneParam(p.Path)
	if !ok || w.assigned[name] {
		return nil, false
	}
	// The words of every loop of the name: after an inner loop of the same
	// name ends, the variable holds that loop's last word (for f in a; do
	// for f in b; do :; done; cat "$f"; done reads b).
	var items []Arg
	inside := false
	for _, l := range w.loops {
		if l.name != name {
			continue
		}
		for _, it := range l.items {
			if !bindable(it) {
				return nil, false
			}
		}
		items = append(items, l.items...)
		if i >= l.first && i < l.end && l.depth == depth {
			inside = true
		}
	}
	if !inside || len(items) == 0 {
		return nil, false
	}
	out := make([]PathRef, 0, len(items))
	for _, it := range items {
		if !quoted && strings.ContainsAny(it.Value+it.Pattern, " \t\n") || !quoted && it.Static() && strings.ContainsAny(it.Value, "*?[") {
			return nil, false
		}
		if p.OptionLike && it.Static() && strings.HasPrefix(it.Value, "-") {
			return nil, false // for f in -r; do grep x "$f"; done: an option
		}
		// The read keeps the loop word's own span: a reason about it
		// (a denied path, a read outside the roots) underlines the word
		// that names the path, not the variable that carries it.
		ref := pathRef(it, p.Source, p.Segment, p.Cwd, p.Producer)
		ref.Recursive = p.Recursive
		ref.OptionLike = p.OptionLike && ref.Kind == "glob"
		ref.Split = !quoted && ref.Kind == "glob"
		out = append(out, ref)
	}
	return out, true
}

// bindable reports a loop word whose paths the station can judge: static,
// a glob, or a path from the home directory.
func bindable(a Arg) bool {
	switch a.Dynamic {
	case "", "glob":
		return true
	case "tilde", "home":
		return a.Pattern != ""
	}
	return false
}

// loneParam reports a word that is one variable alone: $f, ${f}, "$f" or
// "${f}", its name, and whether it is quoted.
func loneParam(word string) (name string, quoted, ok bool) {
	s := word
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s, quoted = s[1:len(s)-1], true
	}
	if !strings.HasPrefix(s, "$") {
		return "", false, false
	}
	s = s[1:]
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = s[1 : len(s)-1]
	}
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return "", false, false
	}
	for i := 0; i < len(s); i++ {
		if !isNameByte(s[i]) {
			return "", false, false
		}
	}
	return s, quoted, true
}
