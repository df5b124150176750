package rego

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// This file builds the policy input as an ast.Value directly, without a
// JSON round trip. Its shape is exactly the JSON encoding of policy.Input
// (plus "facts"); TestInputValueMatchesJSON holds it to that.

func str(s string) *ast.Term {
	if t := common[s]; t != nil {
		return t
	}
	return ast.StringTerm(s)
}
func num(n int) *ast.Term      { return ast.InternedTerm(n) }
func boolean(b bool) *ast.Term { return ast.InternedTerm(b) }

// common holds one term for each object key and each frequent value,
// shared by every input built (terms are never changed once built). It is
// filled at init and only read after.
var common = func() map[string]*ast.Term {
	m := map[string]*ast.Term{}
	for _, s := range strings.Fields(`command mode cwd report station config facts parse ok error span
		segments index program name path_prefixed dynamic_program known subcommand args assigns value
		options written effects operands role wrappers parent context pipeline pipeline_len substitution
		loop background negated subshell function condition stdin_fed depth path after categories
		read_only redirects op fd target harmless segment reads writes kind dynamic recursive source home
		producer cd from to scoped reversible findings code message pattern grant real established glob
		outside_roots critical device roots index granted resolved verdict row repo_helpers file matches key
		literal operand option redirect implicit cwd-flag xargs-input file dir tree any text read write
		dup heredoc herestring readwrite network destructive exec privilege interactive wrapper shell
		navigate . ok missing denied outside-roots not-established default readonly`) {
		m[s] = ast.StringTerm(s)
	}
	return m
}()

type obj struct{ items [][2]*ast.Term }

func (o *obj) add(k string, v *ast.Term) { o.items = append(o.items, [2]*ast.Term{str(k), v}) }
func (o *obj) term() *ast.Term           { return ast.NewTerm(ast.NewObject(o.items...)) }

func spanTerm(s classify.Span) *ast.Term {
	return ast.ArrayTerm(num(s.Start), num(s.End))
}

func stringsTerm(list []string) *ast.Term {
	ts := make([]*ast.Term, len(list))
	for i, s := range list {
		ts[i] = str(s)
	}
	return ast.ArrayTerm(ts...)
}

func argTerm(a classify.Arg, extra func(*obj)) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 5)}
	o.add("value", str(a.Value))
	if a.Dynamic != "" {
		o.add("dynamic", str(a.Dynamic))
	}
	if a.Pattern != "" {
		o.add("pattern", str(a.Pattern))
	}
	o.add("span", spanTerm(a.Span))
	if extra != nil {
		extra(&o)
	}
	return o.term()
}

func cwdTerm(c classify.Cwd) *ast.Term {
	o := obj{}
	o.add("path", str(c.Path))
	o.add("known", boolean(c.Known))
	if len(c.After) > 0 {
		ts := make([]*ast.Term, len(c.After))
		for i, n := range c.After {
			ts[i] = num(n)
		}
		o.add("after", ast.ArrayTerm(ts...))
	}
	return o.term()
}

func contextTerm(c classify.Context) *ast.Term {
	o := obj{}
	o.add("pipeline", num(c.Pipeline))
	o.add("pipeline_len", num(c.PipelineLen))
	flag := func(k string, b bool) {
		if b {
			o.add(k, boolean(true))
		}
	}
	flag("substitution", c.Substitution)
	flag("loop", c.Loop)
	flag("background", c.Background)
	flag("negated", c.Negated)
	flag("subshell", c.Subshell)
	flag("function", c.Function)
	flag("condition", c.Condition)
	flag("stdin_fed", c.StdinFed)
	if c.Depth != 0 {
		o.add("depth", num(c.Depth))
	}
	return o.term()
}

func segmentTerm(s *classify.Segment) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 20)}
	o.add("index", num(s.Index))
	o.add("program", str(s.Program))
	o.add("name", str(s.Name))
	if s.PathPrefixed {
		o.add("path_prefixed", boolean(true))
	}
	if s.DynamicProgram {
		o.add("dynamic_program", boolean(true))
	}
	o.add("known", boolean(s.Known))
	if s.Subcommand != "" {
		o.add("subcommand", str(s.Subcommand))
	}
	args := make([]*ast.Term, len(s.Args))
	for i, a := range s.Args {
		args[i] = argTerm(a, nil)
	}
	if s.Args == nil {
		o.add("args", ast.NullTerm())
	} else {
		o.add("args", ast.ArrayTerm(args...))
	}
	if len(s.Assigns) > 0 {
		ts := make([]*ast.Term, len(s.Assigns))
		for i, a := range s.Assigns {
			ao := obj{}
			ao.add("name", str(a.Name))
			ao.add("value", argTerm(a.Value, nil))
			ao.add("span", spanTerm(a.Span))
			ts[i] = ao.term()
		}
		o.add("assigns", ast.ArrayTerm(ts...))
	}
	if len(s.Options) > 0 {
		ts := make([]*ast.Term, len(s.Options))
		for i, op := range s.Options {
			oo := obj{}
			oo.add("name", str(op.Name))
			oo.add("written", str(op.Written))
			if op.Value != nil {
				oo.add("value", argTerm(*op.Value, nil))
			}
			oo.add("known", boolean(op.Known))
			if len(op.Effects) > 0 {
				oo.add("effects", stringsTerm(op.Effects))
			}
			oo.add("span", spanTerm(op.Span))
			ts[i] = oo.term()
		}
		o.add("options", ast.ArrayTerm(ts...))
	}
	if len(s.Operands) > 0 {
		ts := make([]*ast.Term, len(s.Operands))
		for i, op := range s.Operands {
			role := op.Role
			ts[i] = argTerm(op.Arg, func(o *obj) { o.add("role", str(role)) })
		}
		o.add("operands", ast.ArrayTerm(ts...))
	}
	if len(s.Wrappers) > 0 {
		o.add("wrappers", stringsTerm(s.Wrappers))
	}
	o.add("parent", num(s.Parent))
	o.add("context", contextTerm(s.Context))
	o.add("cwd", cwdTerm(s.Cwd))
	if len(s.Categories) > 0 {
		o.add("categories", stringsTerm(s.Categories))
	}
	o.add("read_only", boolean(s.ReadOnly))
	o.add("span", spanTerm(s.Span))
	return o.term()
}

func pathRefTerm(p *classify.PathRef) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 11)}
	o.add("path", str(p.Path))
	o.add("kind", str(p.Kind))
	if p.Dynamic != "" {
		o.add("dynamic", str(p.Dynamic))
	}
	if p.Recursive {
		o.add("recursive", boolean(true))
	}
	o.add("source", str(p.Source))
	o.add("segment", num(p.Segment))
	o.add("cwd", cwdTerm(p.Cwd))
	if p.Home {
		o.add("home", boolean(true))
	}
	o.add("producer", num(p.Producer))
	o.add("span", spanTerm(p.Span))
	return o.term()
}

func pathRefsTerm(ps []classify.PathRef) *ast.Term {
	if ps == nil {
		return ast.NullTerm()
	}
	ts := make([]*ast.Term, len(ps))
	for i := range ps {
		ts[i] = pathRefTerm(&ps[i])
	}
	return ast.ArrayTerm(ts...)
}

// reportTerm is the report as the JSON encoding of classify.Report.
func reportTerm(r *classify.Report) *ast.Term {
	if r == nil {
		return ast.NullTerm()
	}
	o := obj{items: make([][2]*ast.Term, 0, 10)}
	o.add("command", str(r.Command))
	po := obj{}
	po.add("ok", boolean(r.Parse.OK))
	if r.Parse.Error != "" {
		po.add("error", str(r.Parse.Error))
	}
	if r.Parse.Span != nil {
		po.add("span", spanTerm(*r.Parse.Span))
	}
	o.add("parse", po.term())
	if r.Segments == nil {
		o.add("segments", ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(r.Segments))
		for i := range r.Segments {
			ts[i] = segmentTerm(&r.Segments[i])
		}
		o.add("segments", ast.ArrayTerm(ts...))
	}
	if r.Redirects == nil {
		o.add("redirects", ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(r.Redirects))
		for i, rd := range r.Redirects {
			ro := obj{}
			ro.add("op", str(rd.Op))
			if rd.Fd != "" {
				ro.add("fd", str(rd.Fd))
			}
			ro.add("target", argTerm(rd.Target, nil))
			ro.add("mode", str(rd.Mode))
			ro.add("harmless", boolean(rd.Harmless))
			ro.add("segment", num(rd.Segment))
			ro.add("span", spanTerm(rd.Span))
			ts[i] = ro.term()
		}
		o.add("redirects", ast.ArrayTerm(ts...))
	}
	o.add("reads", pathRefsTerm(r.Reads))
	o.add("writes", pathRefsTerm(r.Writes))
	if r.Cd == nil {
		o.add("cd", ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(r.Cd))
		for i, c := range r.Cd {
			co := obj{}
			co.add("index", num(c.Index))
			co.add("program", str(c.Program))
			co.add("target", argTerm(c.Target, nil))
			co.add("from", cwdTerm(c.From))
			co.add("to", cwdTerm(c.To))
			co.add("segment", num(c.Segment))
			co.add("span", spanTerm(c.Span))
			if c.Scoped {
				co.add("scoped", boolean(true))
			}
			ts[i] = co.term()
		}
		o.add("cd", ast.ArrayTerm(ts...))
	}
	o.add("reversible", boolean(r.Reversible))
	if r.Findings == nil {
		o.add("findings", ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(r.Findings))
		for i, f := range r.Findings {
			fo := obj{}
			fo.add("code", str(f.Code))
			fo.add("message", str(f.Message))
			fo.add("span", spanTerm(f.Span))
			fo.add("segment", num(f.Segment))
			ts[i] = fo.term()
		}
		o.add("findings", ast.ArrayTerm(ts...))
	}
	return o.term()
}

func factsTerm(f *policy.Facts) *ast.Term {
	o := obj{}
	o.add("mode", str(f.Mode))
	o.add("home", str(f.Home))
	o.add("roots", stringsTerm(f.Roots))
	segs := make([]*ast.Term, len(f.Segments))
	for i, s := range f.Segments {
		so := obj{}
		so.add("grant", str(s.Grant))
		segs[i] = so.term()
	}
	o.add("segments", ast.ArrayTerm(segs...))
	ws := make([]*ast.Term, len(f.Writes))
	for i, w := range f.Writes {
		wo := obj{}
		wo.add("path", str(w.Path))
		wo.add("real", str(w.Real))
		wo.add("established", boolean(w.Established))
		wo.add("glob", boolean(w.Glob))
		wo.add("outside_roots", boolean(w.OutsideRoots))
		wo.add("critical", boolean(w.Critical))
		wo.add("device", boolean(w.Device))
		ws[i] = wo.term()
	}
	o.add("writes", ast.ArrayTerm(ws...))
	idx := obj{items: make([][2]*ast.Term, 0, len(f.Index))}
	for k, list := range f.Index {
		ts := make([]*ast.Term, len(list))
		for i, n := range list {
			ts[i] = num(n)
		}
		idx.items = append(idx.items, [2]*ast.Term{ast.StringTerm(k), ast.ArrayTerm(ts...)})
	}
	o.add("index", idx.term())
	return o.term()
}

// configValues caches the value of the configs in use (configs are not
// changed once loaded); it is emptied when it grows past maxConfigValues,
// so a process that reloads its config does not accumulate them.
var configValues struct {
	sync.Mutex
	m map[*policy.Config]*ast.Term
}

const maxConfigValues = 64

func configTerm(c *policy.Config) (*ast.Term, error) {
	if c == nil {
		return ast.NullTerm(), nil
	}
	configValues.Lock()
	t, ok := configValues.m[c]
	configValues.Unlock()
	if ok {
		return t, nil
	}
	v, err := jsonValue(c)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	t = ast.NewTerm(v)
	configValues.Lock()
	if configValues.m == nil || len(configValues.m) >= maxConfigValues {
		configValues.m = map[*policy.Config]*ast.Term{}
	}
	configValues.m[c] = t
	configValues.Unlock()
	return t, nil
}

// jsonValue converts a value through its JSON encoding (for the station
// and the config, whose types this package does not own).
func jsonValue(x any) (ast.Value, error) {
	b, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	return ast.ValueFromReader(bytesReader(b))
}

// inputValue builds the whole input document.
func inputValue(in *policy.Input, f *policy.Facts) (ast.Value, error) {
	o := obj{items: make([][2]*ast.Term, 0, 8)}
	o.add("command", str(in.Command))
	o.add("mode", str(f.Mode))
	o.add("cwd", str(in.Cwd))
	o.add("report", reportTerm(in.Report))
	if st, ok := in.Station.(*readstation.Station); ok && st != nil {
		o.add("station", stationTerm(st))
	} else if in.Station != nil && !isNilStation(in.Station) {
		v, err := jsonValue(in.Station)
		if err != nil {
			return nil, fmt.Errorf("station: %w", err)
		}
		if _, isNull := v.(ast.Null); !isNull {
			o.add("station", ast.NewTerm(v))
		}
	}
	ct, err := configTerm(in.Config)
	if err != nil {
		return nil, err
	}
	o.add("config", ct)
	o.add("facts", factsTerm(f))
	return ast.NewObject(o.items...), nil
}

func isNilStation(x any) bool {
	st, ok := x.(*readstation.Station)
	return ok && st == nil
}

// stationTerm is the station as the JSON encoding of readstation.Station.
func stationTerm(st *readstation.Station) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 3)}
	if st.Reads == nil {
		o.add("reads", ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(st.Reads))
		for i := range st.Reads {
			r := &st.Reads[i]
			ro := obj{items: make([][2]*ast.Term, 0, 13)}
			ro.add("path", str(r.Path))
			ro.add("kind", str(r.Kind))
			ro.add("source", str(r.Source))
			ro.add("resolved", str(r.Resolved))
			ro.add("real", str(r.Real))
			ro.add("verdict", str(r.Verdict))
			ro.add("row", str(r.Row))
			ro.add("message", str(r.Message))
			ro.add("span", spanTerm(r.Span))
			ro.add("segment", num(r.Segment))
			ro.add("recursive", boolean(r.Recursive))
			if r.Matches == nil {
				ro.add("matches", ast.NullTerm())
			} else {
				ro.add("matches", stringsTerm(r.Matches))
			}
			ts[i] = ro.term()
		}
		o.add("reads", ast.ArrayTerm(ts...))
	}
	if st.RepoHelpers == nil {
		o.add("repo_helpers", ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(st.RepoHelpers))
		for i, h := range st.RepoHelpers {
			ho := obj{items: make([][2]*ast.Term, 0, 5)}
			ho.add("key", str(h.Key))
			ho.add("file", str(h.File))
			ho.add("value", str(h.Value))
			ho.add("segment", num(h.Segment))
			ho.add("span", spanTerm(h.Span))
			ts[i] = ho.term()
		}
		o.add("repo_helpers", ast.ArrayTerm(ts...))
	}
	o.add("established", boolean(st.Established))
	return o.term()
}
