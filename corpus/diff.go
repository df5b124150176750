package corpus

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Change is a command whose decision differs between two policy sets.
type Change struct {
	// Name, Command and Mode are the case's.
	Name    string `json:"name"`
	Command string `json:"command"`
	Mode    string `json:"mode"`
	// Base and New are the decisions of the two policy sets.
	Base Outcome `json:"base"`
	New  Outcome `json:"new"`
}

// Transition names the change of action ("allow→ask"), or "ask (reasons)"
// when only the reason codes changed.
func (c Change) Transition() string {
	if c.Base.Action == c.New.Action {
		return c.Base.Action + " (reasons)"
	}
	return c.Base.Action + "→" + c.New.Action
}

// DiffResult is the outcome of a diff run.
type DiffResult struct {
	// Total is the number of commands judged.
	Total int `json:"total"`
	// Changes are the commands whose decision changed, in corpus order.
	Changes []Change `json:"changes"`
	// Errors lists commands one side could not judge.
	Errors []string `json:"errors,omitempty"`
}

// Diff judges every case with the checkers of both factories (each case
// under its own config, when it has one) and returns the commands whose
// action or set of reason codes differs. The cases' expectations are not
// consulted: a diff shows what a policy change does, right or wrong.
func Diff(ctx context.Context, cases []Case, base, next Factory, opt Options) (DiffResult, error) {
	type pair struct {
		a, b     Outcome
		aErr, bE error
	}
	pairs := make([]pair, len(cases))
	baseFor, nextFor := checkers(cases, base), checkers(cases, next)
	err := each(ctx, cases, opt, func(i int, in Input) {
		var p pair
		if chk, err := baseFor(cases[i]); err != nil {
			p.aErr = err
		} else {
			p.a, p.aErr = chk.Check(ctx, in)
		}
		if chk, err := nextFor(cases[i]); err != nil {
			p.bE = err
		} else {
			p.b, p.bE = chk.Check(ctx, in)
		}
		pairs[i] = p
	})
	res := DiffResult{Total: len(cases), Changes: []Change{}}
	if err != nil {
		return res, err
	}
	for i, p := range pairs {
		c := cases[i]
		if p.aErr != nil || p.bE != nil {
			res.Errors = append(res.Errors, fmt.Sprintf("%s: base: %v; new: %v", c.Name, p.aErr, p.bE))
			continue
		}
		if p.a.Action == p.b.Action && sameCodes(p.a.Codes(), p.b.Codes()) {
			continue
		}
		res.Changes = append(res.Changes, Change{Name: c.Name, Command: c.Command, Mode: c.Mode, Base: p.a, New: p.b})
	}
	return res, nil
}

func sameCodes(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// actionRank orders transitions: what a change newly lets through first.
var actionRank = map[string]int{Deny: 0, Ask: 1, Allow: 2}

// Groups returns the changes grouped by transition: loosened transitions
// (toward allow) first, then tightened ones, then reason-only changes.
func (d DiffResult) Groups() []Group {
	m := map[string][]Change{}
	for _, c := range d.Changes {
		m[c.Transition()] = append(m[c.Transition()], c)
	}
	var gs []Group
	for t, cs := range m {
		gs = append(gs, Group{Transition: t, Changes: cs})
	}
	key := func(g Group) (int, int) {
		c := g.Changes[0]
		delta := actionRank[c.New.Action] - actionRank[c.Base.Action]
		switch {
		case delta > 0:
			return 0, -delta
		case delta < 0:
			return 1, delta
		}
		return 2, 0
	}
	sort.Slice(gs, func(i, j int) bool {
		a1, a2 := key(gs[i])
		b1, b2 := key(gs[j])
		if a1 != b1 {
			return a1 < b1
		}
		if a2 != b2 {
			return a2 < b2
		}
		return gs[i].Transition < gs[j].Transition
	})
	return gs
}

// Group is the changes sharing one transition.
type Group struct {
	// Transition is "allow→ask", …, or "ask (reasons)".
	Transition string `json:"transition"`
	// Changes are in corpus order.
	Changes []Change `json:"changes"`
}

// WriteDiffText prints the groups with each command's reasons on both
// sides, then a summary line "N commands, N changed".
func WriteDiffText(w io.Writer, d DiffResult) error {
	for _, g := range d.Groups() {
		fmt.Fprintf(w, "%s (%d)\n", g.Transition, len(g.Changes))
		for _, c := range g.Changes {
			fmt.Fprintf(w, "  %s\n", oneLine(c.Command))
			if c.Mode != "" && c.Mode != ModeDefault {
				fmt.Fprintf(w, "    mode: %s\n", c.Mode)
			}
			fmt.Fprintf(w, "    base: %s\n", describeReasons(c.Base))
			fmt.Fprintf(w, "    new:  %s\n", describeReasons(c.New))
		}
		fmt.Fprintln(w)
	}
	for _, e := range d.Errors {
		fmt.Fprintf(w, "error: %s\n", e)
	}
	_, err := fmt.Fprintf(w, "%d commands, %d changed\n", d.Total, len(d.Changes))
	return err
}

func describeReasons(o Outcome) string {
	if len(o.Reasons) == 0 {
		return o.Action
	}
	var parts []string
	for _, r := range o.Reasons {
		parts = append(parts, r.Code+": "+oneLine(r.Message))
	}
	return o.Action + " — " + strings.Join(parts, "; ")
}
