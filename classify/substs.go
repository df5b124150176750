package classify

import (
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// substRec is a substitution the walk met: its kind, its span, and
// whether that span is exact (not the whole of a script string whose
// positions cannot be mapped back).
type substRec struct {
	kind  string
	span  Span
	exact bool
	split bool
}

// shiftRec is an operand that may expand to several words and the roles
// its later words reach ("" for none the program takes).
type shiftRec struct {
	span  Span
	roles []string
}

// optWord is a dynamic word in a place where its program still parses
// options, which could begin with "-" at run time, and the effects of the
// options the program has there.
type optWord struct {
	span    Span
	effects []string
}

func procKind(op syntax.ProcOperator) string {
	switch op {
	case syntax.CmdIn:
		return SubstProcessIn
	case syntax.CmdOut:
		return SubstProcessOut
	}
	return SubstOther
}

// optionWord records that the dynamic word a, read by the program spec,
// could become one of its options.
func (w *walker) optionWord(a Arg, spec *Program) {
	if len(w.substs) == 0 {
		return // no substitution to say it of (the common case)
	}
	var effs []string
	for _, o := range spec.Options {
		for e := range o.effectsAndElse {
			if !slices.Contains(effs, string(e)) {
				effs = append(effs, string(e))
			}
		}
	}
	slices.Sort(effs)
	w.optWords = append(w.optWords, optWord{span: a.Span, effects: effs})
}

func within(in, out Span) bool { return out.Start <= in.Start && in.End <= out.End }

// substShifts records, for each operand of the segment that may expand to
// several words and holds a substitution, the roles its later words reach.
func (f *finisher) substShifts() {
	w, p, seg := f.w, f.p, f.seg
	if len(w.substs) == 0 {
		return
	}
	for k, op := range seg.Operands {
		if k >= len(p.opInfo) || !p.opInfo[k].multi || !w.holdsSubst(op.Span) {
			continue
		}
		var roles []string
		for _, a := range p.shiftedRoles(k, f.roles) {
			name := ""
			if a.role != nil {
				name = string(a.role.Role)
			}
			if !slices.Contains(roles, name) {
				roles = append(roles, name)
			}
			if a.role == nil {
				break
			}
		}
		slices.Sort(roles)
		w.shifts = append(w.shifts, shiftRec{span: op.Span, roles: roles})
	}
}

func (w *walker) holdsSubst(sp Span) bool {
	for _, s := range w.substs {
		if within(s.span, sp) {
			return true
		}
	}
	return false
}

// substFacts turns the substitutions the walk met into
// Report.Substitutions: for each, the segment whose argument it is part
// of (the one with the smallest such argument), the role there, and
// whether its output could become an option.
func (w *walker) substFacts() {
	if len(w.substs) == 0 {
		return
	}
	r := w.r
	r.Substitutions = make([]Substitution, 0, len(w.substs))
	for _, rec := range w.substs {
		s := Substitution{Kind: rec.kind, Span: rec.span, Host: -1, Split: rec.split}
		if rec.exact {
			best := -1
			for i := range r.Segments {
				seg := &r.Segments[i]
				if !within(rec.span, seg.Span) {
					continue
				}
				for _, op := range seg.Operands {
					if within(rec.span, op.Span) && (best < 0 || op.Span.End-op.Span.Start < best) {
						best = op.Span.End - op.Span.Start
						role, _ := op.Role.Base()
						s.Host, s.Role = i, string(role)
					}
				}
				for _, o := range seg.Options {
					if o.Value != nil && within(rec.span, o.Value.Span) && (best < 0 || o.Value.Span.End-o.Value.Span.Start < best) {
						best = o.Value.Span.End - o.Value.Span.Start
						s.Host, s.Role = i, "option-value"
					}
				}
			}
		}
		for _, ow := range w.optWords {
			if !within(rec.span, ow.span) {
				continue
			}
			s.OptionLike = true
			for _, e := range ow.effects {
				if !slices.Contains(s.OptionEffects, e) {
					s.OptionEffects = append(s.OptionEffects, e)
				}
			}
		}
		slices.Sort(s.OptionEffects)
		for _, sh := range w.shifts {
			if !within(rec.span, sh.span) {
				continue
			}
			for _, role := range sh.roles {
				if !slices.Contains(s.ShiftRoles, role) {
					s.ShiftRoles = append(s.ShiftRoles, role)
				}
			}
		}
		slices.Sort(s.ShiftRoles)
		r.Substitutions = append(r.Substitutions, s)
	}
}

// pipeWord reports whether the word a is one process substitution <(...)
// alone: the program opens a pipe (/dev/fd/N) that carries the output of
// the substitution's commands, whose own reads are judged, not a path.
func (w *walker) pipeWord(a Arg) bool {
	if a.Dynamic != "process-substitution" {
		return false
	}
	for _, s := range w.substs {
		if s.exact && s.kind == SubstProcessIn && s.span == a.Span {
			return true
		}
	}
	return false
}
