package rego

import (
	"encoding/binary"
	"hash/maphash"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// memoKey identifies a policy input without building it: the command, the
// mode, the cwd and the config exactly, and a 64-bit hash of every field
// of the report, the station and the facts. Configs are compared by
// identity: a Config must not change once it is passed to Decide.
type memoKey struct {
	command, mode, cwd string
	cfg                *policy.Config
	sum                uint64
}

var memoSeed = maphash.MakeSeed()

// hasher writes fields with their lengths, so that no two different
// sequences of fields write the same bytes.
type hasher struct {
	h   maphash.Hash
	buf [8]byte
}

func (h *hasher) int(n int) {
	binary.LittleEndian.PutUint64(h.buf[:], uint64(n))
	h.h.Write(h.buf[:])
}

func (h *hasher) str(s string) {
	h.int(len(s))
	h.h.WriteString(s)
}

func (h *hasher) boolean(b bool) {
	if b {
		h.h.WriteByte(1)
	} else {
		h.h.WriteByte(0)
	}
}

func (h *hasher) strs(list []string) {
	h.int(len(list))
	for _, s := range list {
		h.str(s)
	}
}

func (h *hasher) span(s classify.Span) { h.int(s.Start); h.int(s.End) }

func (h *hasher) arg(a classify.Arg) {
	h.str(a.Value)
	h.str(a.Dynamic)
	h.str(a.Pattern)
	h.boolean(a.Dots)
	h.boolean(a.Globstar)
	h.span(a.Span)
}

func (h *hasher) cwd(c classify.Cwd) {
	h.str(c.Path)
	h.boolean(c.Known)
	h.int(len(c.After))
	for _, n := range c.After {
		h.int(n)
	}
}

func (h *hasher) pathRefs(ps []classify.PathRef) {
	h.int(len(ps))
	for _, p := range ps {
		h.str(p.Path)
		h.str(p.Kind)
		h.str(p.Dynamic)
		h.boolean(p.Recursive)
		h.str(p.Source)
		h.int(p.Segment)
		h.cwd(p.Cwd)
		h.boolean(p.Home)
		h.int(p.Producer)
		h.span(p.Span)
		h.boolean(p.Split)
		h.boolean(p.OptionLike)
		h.boolean(p.Repo)
		h.boolean(p.IfExists)
		h.str(p.PathGlob)
		h.boolean(p.Tracked)
		h.boolean(p.Dots)
		h.boolean(p.Globstar)
	}
}

func (h *hasher) report(r *classify.Report) {
	h.str(r.Command)
	h.boolean(r.Parse.OK)
	h.str(r.Parse.Error)
	h.boolean(r.Parse.Span != nil)
	if r.Parse.Span != nil {
		h.span(*r.Parse.Span)
	}
	h.int(len(r.Segments))
	for i := range r.Segments {
		s := &r.Segments[i]
		h.int(s.Index)
		h.str(s.Program)
		h.str(s.Name)
		h.boolean(s.PathPrefixed)
		h.boolean(s.DynamicProgram)
		h.boolean(s.Known)
		h.str(s.Subcommand)
		h.int(len(s.Args))
		for _, a := range s.Args {
			h.arg(a)
		}
		h.int(len(s.Assigns))
		for _, a := range s.Assigns {
			h.str(a.Name)
			h.arg(a.Value)
			h.span(a.Span)
		}
		h.int(len(s.Options))
		for _, o := range s.Options {
			h.str(o.Name)
			h.str(o.Written)
			h.boolean(o.Value != nil)
			if o.Value != nil {
				h.arg(*o.Value)
			}
			h.boolean(o.Known)
			h.strs(o.Effects)
			h.span(o.Span)
		}
		h.int(len(s.Operands))
		for _, o := range s.Operands {
			h.arg(o.Arg)
			h.str(o.Role)
		}
		h.strs(s.Wrappers)
		h.int(s.Parent)
		c := s.Context
		h.int(c.Pipeline)
		h.int(c.PipelineLen)
		for _, b := range []bool{c.Substitution, c.Loop, c.Background, c.Negated, c.Subshell, c.Function, c.Condition, c.StdinFed} {
			h.boolean(b)
		}
		h.int(c.Depth)
		h.cwd(s.Cwd)
		h.strs(s.Categories)
		h.boolean(s.ReadOnly)
		h.boolean(s.RunsGit)
		h.int(len(s.RepoCode))
		for _, rc := range s.RepoCode {
			h.str(rc.File)
			h.str(rc.Match)
			h.str(rc.Key)
		}
		h.int(len(s.Code))
		for _, c := range s.Code {
			h.str(c.Carries)
			h.str(c.Via)
			h.span(c.Span)
		}
		h.span(s.Span)
	}
	h.int(len(r.Redirects))
	for _, rd := range r.Redirects {
		h.str(rd.Op)
		h.str(rd.Fd)
		h.arg(rd.Target)
		h.str(rd.Mode)
		h.boolean(rd.Harmless)
		h.int(rd.Segment)
		h.span(rd.Span)
	}
	h.pathRefs(r.Reads)
	h.pathRefs(r.Writes)
	h.int(len(r.Cd))
	for _, c := range r.Cd {
		h.int(c.Index)
		h.str(c.Program)
		h.arg(c.Target)
		h.cwd(c.From)
		h.cwd(c.To)
		h.int(c.Segment)
		h.span(c.Span)
		h.boolean(c.Scoped)
	}
	h.boolean(r.Reversible)
	h.int(len(r.Findings))
	for _, f := range r.Findings {
		h.str(f.Code)
		h.str(f.Message)
		h.span(f.Span)
		h.int(f.Segment)
		h.str(f.Dialect)
	}
	h.str(r.Dialect)
}

func (h *hasher) station(st *readstation.Station) {
	h.boolean(st != nil)
	if st == nil {
		return
	}
	h.int(len(st.Reads))
	for _, r := range st.Reads {
		h.str(r.Path)
		h.str(r.Kind)
		h.str(r.Source)
		h.str(r.Resolved)
		h.str(r.Real)
		h.str(r.Verdict)
		h.str(r.Row)
		h.str(r.Message)
		h.span(r.Span)
		h.int(r.Segment)
		h.boolean(r.Recursive)
		h.boolean(r.InTree)
		h.strs(r.Matches)
	}
	h.int(len(st.RepoHelpers))
	for _, rh := range st.RepoHelpers {
		h.str(rh.Key)
		h.str(rh.File)
		h.str(rh.Value)
		h.int(rh.Segment)
		h.span(rh.Span)
	}
	h.boolean(st.Established)
}

// facts hashes what the facts add to the report, station and config: the
// home, the roots, the grants and the writes (the index derives from the
// rest).
func (h *hasher) facts(f *policy.Facts) {
	h.str(f.Home)
	h.strs(f.Roots)
	h.int(len(f.Segments))
	for _, s := range f.Segments {
		h.str(s.Grant)
		h.str(s.GrantRefused)
	}
	h.int(len(f.Writes))
	for _, w := range f.Writes {
		h.str(w.Path)
		h.str(w.Real)
		for _, b := range []bool{w.Established, w.Glob, w.OutsideRoots, w.Critical, w.Device, w.ShellgateConfig} {
			h.boolean(b)
		}
	}
}

// keyFor returns the memo key of an input, and false when the input has a
// station of a type this package cannot hash.
func keyFor(in *policy.Input, f *policy.Facts) (memoKey, bool) {
	var st *readstation.Station
	if in.Station != nil {
		var ok bool
		if st, ok = in.Station.(*readstation.Station); !ok {
			return memoKey{}, false
		}
	}
	var h hasher
	h.h.SetSeed(memoSeed)
	h.str(in.Shell)
	h.report(in.Report)
	h.station(st)
	h.facts(f)
	return memoKey{command: in.Command, mode: f.Mode, cwd: in.Cwd, cfg: in.Config, sum: h.h.Sum64()}, true
}
