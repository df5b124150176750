package classify

import "strings"

// A shell given a script and words after it (sh -c SCRIPT NAME ARG...)
// sets $0 to NAME and $1, $2, ... to the ARGs: find . -name '*.go' -exec
// sh -c 'head -1 "$1"' _ {} \; reads each match find prints.
// bindPositional binds a read of "$N" in such a script to its ARG, when
// that is exactly what the shell does, and leaves it dynamic otherwise.

// posScope is one script run with arguments: how many scripts deep it is,
// the reads its statements added (Reads[first:end]), its positional
// words ($1 is args[0]) and the find whose {} may be among them.
type posScope struct {
	depth      int
	first, end int
	args       []Arg
	producer   int
	shellIndex int
}

// positionalScope records the positional words of the script a that the
// shell segment seg runs, once its statements were walked (their reads
// begin at first).
func (w *walker) positionalScope(a Arg, seg *Segment, c ctx, first int) {
	k := -1
	for i, op := range seg.Operands {
		if op.Span == a.Span {
			k = i
			break
		}
	}
	if k < 0 || k+2 > len(seg.Operands) {
		return // the script came from an option, or no $1 follows
	}
	// Each word up to the last is one positional parameter only when none
	// before it may expand to several (a glob, an unquoted $x): the
	// words after such a one are not the parameters their places say.
	var args []Arg
	for i, op := range seg.Operands[k+1:] {
		if !singleWord(op.Arg) {
			break
		}
		if i > 0 { // after $0
			args = append(args, op.Arg)
		}
	}
	producer := -1
	if c.findExec || seg.Parent >= 0 && seg.Parent < len(w.r.Segments) && w.r.Segments[seg.Parent].Name == "find" {
		producer = seg.Parent
	}
	w.positional = append(w.positional, posScope{depth: c.nested + 1, first: first, end: len(w.r.Reads),
		args: args, producer: producer, shellIndex: seg.Index})
}

// bindPositional binds reads of "$1" ... "$9" inside a script run with
// arguments to those arguments. A read is bound only when the word is the
// parameter alone and quoted ("$1", "${1}": unquoted, the shell splits
// and globs it), it is the read's own text in the command, it sits in a
// command as many scripts deep as the script itself, no command of the
// script changes the positional parameters (set, shift) or runs code that
// may, and the argument is static or find's {} (judged as find -exec's {}
// is: by walking find's roots). xargs' input word is left dynamic.
func (w *walker) bindPositional() {
	if len(w.positional) == 0 {
		return
	}
	cmd := w.r.Command
	for _, sc := range w.positional {
		changes := false
		for i := sc.shellIndex + 1; i < len(w.r.Segments); i++ {
			s := &w.r.Segments[i]
			if s.Context.Depth < sc.depth {
				break
			}
			if s.Name == "set" || s.Name == "shift" || varSetters[s.Name] || s.DynamicProgram || s.Context.Function {
				changes = true
				break
			}
		}
		if changes {
			continue
		}
		for i := sc.first; i < sc.end && i < len(w.r.Reads); i++ {
			p := w.r.Reads[i]
			if p.Kind != "dynamic" || p.Dynamic != "param" || p.Span.Start < 0 || p.Span.End > len(cmd) || p.Span.Start > p.Span.End || cmd[p.Span.Start:p.Span.End] != p.Path {
				continue
			}
			if p.Segment < 0 || p.Segment >= len(w.r.Segments) || w.r.Segments[p.Segment].Context.Depth != sc.depth {
				continue
			}
			n, ok := lonePositional(p.Path)
			if !ok || n > len(sc.args) {
				continue
			}
			arg := sc.args[n-1]
			switch {
			case arg.Dynamic == "find-match":
				if sc.producer < 0 {
					continue
				}
				w.r.Reads[i] = PathRef{Path: "{}", Kind: "dynamic", Dynamic: arg.Dynamic, Source: p.Source, Segment: p.Segment,
					Cwd: p.Cwd, Producer: sc.producer, Span: p.Span, Recursive: p.Recursive, OptionLike: p.OptionLike}
			case (arg.Static() || arg.Dynamic == "tilde" && arg.Pattern != "") && !(p.OptionLike && strings.HasPrefix(arg.Value, "-")):
				ref := pathRef(arg, p.Source, p.Segment, p.Cwd, -1)
				ref.Recursive = p.Recursive
				w.r.Reads[i] = ref
			}
		}
	}
}

// lonePositional reports a quoted word that is one positional parameter
// alone, "$1" or "${1}" (1 to 9), and its number.
func lonePositional(word string) (int, bool) {
	if len(word) < 4 || word[0] != '"' || word[len(word)-1] != '"' {
		return 0, false
	}
	s := word[1 : len(word)-1]
	if !strings.HasPrefix(s, "$") {
		return 0, false
	}
	s = s[1:]
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
		s = s[1 : len(s)-1]
	}
	if len(s) != 1 || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	return int(s[0] - '0'), true
}

// singleWord reports a word the shell passes as exactly one argument: a
// static word, a ~ path, or find's {}.
func singleWord(a Arg) bool {
	return a.Static() || a.Dynamic == "find-match" || a.Dynamic == "tilde" && a.Pattern != ""
}
