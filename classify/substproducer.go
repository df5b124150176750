package classify

// A file operand that is one unquoted command substitution alone
// (wc -l $(git ls-files '*.go'), cat $(find . -name '*.md')) reads the
// paths its command prints. bindSubstProducers binds such a read to that
// command when the command is one trusted producer (catalog
// produces_paths): the station then judges the read by walking the
// producer's roots, as it does for xargs' input and find -exec's {},
// and checks the names the shell would split or glob-expand. Anything
// else leaves the read dynamic (not established).

// bindSubstProducers sets the Producer of each read that is an unquoted
// $(...) alone whose body is exactly one segment with produces_paths,
// with no assignment prefix, when nothing in the command changes IFS
// (which decides where the shell splits the output). A producer printing
// NUL-separated paths (find -print0) is not bound: the shell drops the NULs
// and joins the names.
func (w *walker) bindSubstProducers() {
	if len(w.substs) == 0 || w.varsUnknown || w.assigned["IFS"] {
		return
	}
	r := w.r
	for i := range r.Reads {
		p := &r.Reads[i]
		if p.Kind != "dynamic" || p.Dynamic != "command-substitution" || p.Source != "operand" || p.Producer >= 0 {
			continue
		}
		if !w.loneSplitSubst(p.Span) {
			continue
		}
		prod := -1
		n := 0
		for k := range r.Segments {
			if k != p.Segment && within(r.Segments[k].Span, p.Span) {
				n++
				prod = k
			}
		}
		if n != 1 {
			continue
		}
		s := &r.Segments[prod]
		if s.Produces == nil || s.Produces.Nul || len(s.Assigns) > 0 || s.DynamicProgram || s.PathPrefixed || !s.Context.Substitution {
			continue
		}
		if !w.substOptionsModelled(s) {
			continue
		}
		p.Producer = prod
	}
}

// loneSplitSubst reports whether sp is exactly one unquoted command
// substitution whose position in the command is exact.
func (w *walker) loneSplitSubst(sp Span) bool {
	for _, s := range w.substs {
		if s.span == sp && s.exact && s.split && s.kind == SubstCommand {
			return true
		}
	}
	return false
}

// substOptionsModelled reports whether every option of the producer s is
// one its catalog entry lets an unquoted $(...) hand over (produces_paths
// substitution; "*" for any; none when the entry has no such list).
func (w *walker) substOptionsModelled(s *Segment) bool {
	_, spec, _ := w.cfg.cat.segmentSpecs(s)
	if spec == nil || spec.ProducesPaths == nil {
		return false
	}
	allowed := spec.ProducesPaths.Substitution
	if hasString(allowed, "*") {
		return true
	}
	if len(allowed) == 0 {
		return false
	}
	for _, o := range s.Options {
		if !o.Known || !hasString(allowed, o.Name) {
			return false
		}
	}
	return true
}
