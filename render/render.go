package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// Underline returns the line of command that holds the span [start, end),
// indented by indent, and under it a line with ^ under the span. A span
// over several lines underlines its part on the first; an empty span
// gets one ^. A start outside command returns "".
func Underline(command string, start, end int, indent string) string {
	if start < 0 || start > len(command) {
		return ""
	}
	if end < start {
		end = start
	}
	if end > len(command) {
		end = len(command)
	}
	ls := strings.LastIndexByte(command[:start], '\n') + 1
	le := strings.IndexByte(command[start:], '\n')
	if le < 0 {
		le = len(command)
	} else {
		le += start
	}
	if end > le {
		end = le
	}
	line := command[ls:le]
	pad := strings.Repeat(" ", width(command[ls:start]))
	n := width(command[start:end])
	if n == 0 {
		n = 1
	}
	return indent + line + "\n" + indent + pad + strings.Repeat("^", n) + "\n"
}

// width is the columns s takes: one per rune (a tab and an invalid byte
// included).
func width(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}

// OneLine shows a multi-line command on one line, for a heading: its
// first line and " …".
func OneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// Decision writes a decision on command for a person: the action and the
// command, then each reason (code, message, the command with the reason's
// span underlined, the rule that fired), the reads the station judged
// (st may be nil), the suggested grants and why a segment has none.
func Decision(w io.Writer, command string, d policy.Decision, st *readstation.Station) {
	fmt.Fprintf(w, "%s: %s\n", d.Action, OneLine(command))
	for _, rs := range d.Reasons {
		fmt.Fprintf(w, "  %s: %s\n", rs.Code, rs.Message)
		if rs.Span != nil && command != "" {
			fmt.Fprint(w, Underline(command, rs.Span.Start, rs.Span.End, "    "))
		}
		if rs.Rule != "" {
			fmt.Fprintf(w, "    rule: %s\n", rs.Rule)
		}
	}
	if st != nil && len(st.Reads) > 0 {
		fmt.Fprintln(w, "reads:")
		for _, rd := range st.Reads {
			where := rd.Resolved
			if where == "" {
				where = rd.Path
			}
			note := ""
			if rd.Row != "" {
				note = " (row " + rd.Row + ")"
			}
			fmt.Fprintf(w, "  %-15s %s%s\n", rd.Verdict, where, note)
		}
	}
	for _, g := range d.SuggestedGrants {
		fmt.Fprintf(w, "suggested grant: %s\n", g.Pattern)
	}
	for _, n := range d.NoGrants {
		fmt.Fprintf(w, "no grant for %s: %s\n", SegmentText(command, n), n.Why)
	}
}

// SegmentText is the segment a NoGrant is about, as written on one line,
// or "segment N" when its span does not fit the command.
func SegmentText(command string, n policy.NoGrant) string {
	if sp := n.Span; sp != nil && 0 <= sp.Start && sp.Start <= sp.End && sp.End <= len(command) {
		return OneLine(command[sp.Start:sp.End])
	}
	return fmt.Sprintf("segment %d", n.Segment)
}

// Report writes a classifier's report for a person: whether it is
// reversible, the parse error, each segment with its notes and the code
// it carries, the reads and writes, and the findings with their spans
// underlined.
func Report(w io.Writer, r *classify.Report) {
	if r.Reversible {
		fmt.Fprintln(w, "reversible: yes (read-only)")
	} else {
		fmt.Fprintln(w, "reversible: no")
	}
	if !r.Parse.OK && r.Parse.Error != "" {
		fmt.Fprintln(w, "parse error:", r.Parse.Error)
	}
	if len(r.Segments) > 0 {
		fmt.Fprintln(w, "segments:")
	}
	for _, s := range r.Segments {
		segment(w, r.Command, s)
	}
	for _, p := range r.Reads {
		fmt.Fprintf(w, "read:  %s\n", describePath(p))
	}
	for _, p := range r.Writes {
		fmt.Fprintf(w, "write: %s\n", describePath(p))
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w, "findings:")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %s: %s\n", f.Code, f.Message)
		fmt.Fprint(w, Underline(r.Command, f.Span.Start, f.Span.End, "    "))
	}
}

// segment writes one segment of a report: its name and notes, then the
// code it carries.
func segment(w io.Writer, command string, s classify.Segment) {
	name := s.Name
	if name == "" {
		name = s.Program
	}
	if s.Subcommand != "" {
		name += " " + s.Subcommand
	}
	var notes []string
	if s.ReadOnly {
		notes = append(notes, "read-only")
	}
	if len(s.Categories) > 0 {
		cats := make([]string, len(s.Categories))
		for i, c := range s.Categories {
			cats[i] = string(c)
		}
		notes = append(notes, strings.Join(cats, ","))
	}
	if len(s.Wrappers) > 0 {
		notes = append(notes, "in "+strings.Join(s.Wrappers, " > "))
	}
	if !s.Cwd.Known {
		notes = append(notes, "cwd unknown")
	} else if s.Cwd.Path != "." {
		notes = append(notes, "cwd "+s.Cwd.Path)
	}
	fmt.Fprintf(w, "  [%d] %s (%s)\n", s.Index, name, strings.Join(notes, "; "))
	for _, c := range s.Code {
		text := c.Span.String()
		if 0 <= c.Span.Start && c.Span.Start <= c.Span.End && c.Span.End <= len(command) {
			text = OneLine(command[c.Span.Start:c.Span.End])
		}
		fmt.Fprintf(w, "      carries %s (%s): %s\n", c.Carries, c.Via, text)
	}
}

func describePath(p classify.PathRef) string {
	s := p.Path
	switch p.Kind {
	case "glob":
		s += " (glob)"
	case "dynamic":
		s = p.Path + " (unknown until run: " + p.Dynamic + ")"
	}
	if p.Recursive {
		s += " (recursive)"
	}
	if p.Cwd.Known && p.Cwd.Path != "." && !strings.HasPrefix(p.Path, "/") {
		s += " in " + p.Cwd.Path
	} else if !p.Cwd.Known {
		s += " in an unknown directory"
	}
	return s
}
