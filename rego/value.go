package rego

import (
	"bytes"
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
// (plus "facts"); TestInputValueCoversEveryField holds it to that for every
// field of the input types, and the memo key is a hash of this value
// (memokey.go), so the three cannot drift apart.

func str(s string) *ast.Term {
	if s == "" {
		return emptyString
	}
	return ast.StringTerm(s)
}

var emptyString = ast.StringTerm("")

// nameTerm returns a term for a frequent word (a program, a subcommand, an
// option), shared across inputs.
func nameTerm(s string) *ast.Term {
	if s == "" {
		return emptyString
	}
	return nameTerms.get(s, func() *ast.Term { return ast.StringTerm(s) })
}
func num(n int) *ast.Term      { return ast.InternedTerm(n) }
func boolean(b bool) *ast.Term { return ast.InternedTerm(b) }

// Object keys, built once and shared by every input (terms are never
// changed once built).
var (
	kHas             = ast.StringTerm("has")
	kInTree          = ast.StringTerm("in_tree")
	kLoop            = ast.StringTerm("loop")
	kBackground      = ast.StringTerm("background")
	kNegated         = ast.StringTerm("negated")
	kSubshell        = ast.StringTerm("subshell")
	kFunction        = ast.StringTerm("function")
	kCondition       = ast.StringTerm("condition")
	kStdinFed        = ast.StringTerm("stdin_fed")
	kSubstitution    = ast.StringTerm("substitution")
	kAfter           = ast.StringTerm("after")
	kArgs            = ast.StringTerm("args")
	kAssigns         = ast.StringTerm("assigns")
	kCategories      = ast.StringTerm("categories")
	kCd              = ast.StringTerm("cd")
	kCode            = ast.StringTerm("code")
	kCommand         = ast.StringTerm("command")
	kConfig          = ast.StringTerm("config")
	kContext         = ast.StringTerm("context")
	kCritical        = ast.StringTerm("critical")
	kCwd             = ast.StringTerm("cwd")
	kDepth           = ast.StringTerm("depth")
	kDevice          = ast.StringTerm("device")
	kDynamic         = ast.StringTerm("dynamic")
	kDynamicProgram  = ast.StringTerm("dynamic_program")
	kEffects         = ast.StringTerm("effects")
	kError           = ast.StringTerm("error")
	kEstablished     = ast.StringTerm("established")
	kFacts           = ast.StringTerm("facts")
	kFd              = ast.StringTerm("fd")
	kFile            = ast.StringTerm("file")
	kFindings        = ast.StringTerm("findings")
	kFrom            = ast.StringTerm("from")
	kGlob            = ast.StringTerm("glob")
	kGrant           = ast.StringTerm("grant")
	kHarmless        = ast.StringTerm("harmless")
	kHome            = ast.StringTerm("home")
	kIndex           = ast.StringTerm("index")
	kKey             = ast.StringTerm("key")
	kKind            = ast.StringTerm("kind")
	kKnown           = ast.StringTerm("known")
	kMatches         = ast.StringTerm("matches")
	kMessage         = ast.StringTerm("message")
	kMode            = ast.StringTerm("mode")
	kName            = ast.StringTerm("name")
	kOk              = ast.StringTerm("ok")
	kOp              = ast.StringTerm("op")
	kOperands        = ast.StringTerm("operands")
	kOptions         = ast.StringTerm("options")
	kOutsideRoots    = ast.StringTerm("outside_roots")
	kParent          = ast.StringTerm("parent")
	kParse           = ast.StringTerm("parse")
	kPath            = ast.StringTerm("path")
	kPathPrefixed    = ast.StringTerm("path_prefixed")
	kPattern         = ast.StringTerm("pattern")
	kPipeline        = ast.StringTerm("pipeline")
	kPipelineLen     = ast.StringTerm("pipeline_len")
	kProducer        = ast.StringTerm("producer")
	kProgram         = ast.StringTerm("program")
	kReadOnly        = ast.StringTerm("read_only")
	kReads           = ast.StringTerm("reads")
	kReal            = ast.StringTerm("real")
	kRecursive       = ast.StringTerm("recursive")
	kRedirects       = ast.StringTerm("redirects")
	kRepoHelpers     = ast.StringTerm("repo_helpers")
	kReport          = ast.StringTerm("report")
	kResolved        = ast.StringTerm("resolved")
	kReversible      = ast.StringTerm("reversible")
	kRole            = ast.StringTerm("role")
	kRoots           = ast.StringTerm("roots")
	kRow             = ast.StringTerm("row")
	kScoped          = ast.StringTerm("scoped")
	kSegment         = ast.StringTerm("segment")
	kSegments        = ast.StringTerm("segments")
	kSource          = ast.StringTerm("source")
	kSpan            = ast.StringTerm("span")
	kSplit           = ast.StringTerm("split")
	kShellgateConfig = ast.StringTerm("shellgate_config")
	kOptionLike      = ast.StringTerm("option_like")
	kRepo            = ast.StringTerm("repo")
	kIfExists        = ast.StringTerm("if_exists")
	kPathGlob        = ast.StringTerm("path_glob")
	kTracked         = ast.StringTerm("tracked")
	kTraits          = ast.StringTerm("traits")
	kPushes          = ast.StringTerm("pushes")
	kBranch          = ast.StringTerm("branch")
	kForce           = ast.StringTerm("force")
	kDots            = ast.StringTerm("dots")
	kGlobstar        = ast.StringTerm("globstar")
	kDialect         = ast.StringTerm("dialect")
	kShell           = ast.StringTerm("shell")
	kMatch           = ast.StringTerm("match")
	kRepoCode        = ast.StringTerm("repo_code")
	kCarries         = ast.StringTerm("carries")
	kVia             = ast.StringTerm("via")
	kGrantRefused    = ast.StringTerm("grant_refused")
	kRunsGit         = ast.StringTerm("runs_git")
	kWalk            = ast.StringTerm("walk")
	kNamesOnly       = ast.StringTerm("names_only")
	kSkipHidden      = ast.StringTerm("skip_hidden")
	kHiddenEnv       = ast.StringTerm("hidden_env")
	kHint            = ast.StringTerm("hint")
	kExcludes        = ast.StringTerm("excludes")
	kProduces        = ast.StringTerm("produces")
	kWithout         = ast.StringTerm("without")
	kOther           = ast.StringTerm("other")
	kNul             = ast.StringTerm("nul")
	kDefaultRoot     = ast.StringTerm("default_root")
	kNameGlob        = ast.StringTerm("name_glob")
	kInputArgs       = ast.StringTerm("input_args")
	kReplace         = ast.StringTerm("replace")
	kConfigAlias     = ast.StringTerm("config_alias")
	kStation         = ast.StringTerm("station")
	kSubcommand      = ast.StringTerm("subcommand")
	kTarget          = ast.StringTerm("target")
	kTo              = ast.StringTerm("to")
	kValue           = ast.StringTerm("value")
	kVerdict         = ast.StringTerm("verdict")
	kWrappers        = ast.StringTerm("wrappers")
	kWrites          = ast.StringTerm("writes")
	kWritten         = ast.StringTerm("written")
)

// enums holds one term for each frequent enum-like value (kinds, sources,
// roles, categories, verdicts); it is filled at init and only read after.
var enums = func() map[string]*ast.Term {
	m := map[string]*ast.Term{}
	for _, s := range strings.Fields(`literal glob dynamic operand option redirect implicit cwd-flag
		xargs-input source find-match file dir tree write delete pattern script command text number
		any name assign url exec awk sed jq read network destructive privilege interactive wrapper
		shell navigate ok missing denied outside-roots not-established default readonly param
		command-substitution process-substitution arithmetic brace tilde extglob dup heredoc
		herestring readwrite reads-file writes-file recursive follow device cwd stdin
		runs-script formatter stops-system deletes-matches signals force`) {
		m[s] = ast.StringTerm(s)
	}
	return m
}()

// enum returns the shared term for a frequent value, or a new one.
func enum(s string) *ast.Term {
	if t := enums[s]; t != nil {
		return t
	}
	return ast.StringTerm(s)
}

func enumsTerm[S ~string](list []S) *ast.Term {
	ts := make([]*ast.Term, len(list))
	for i, s := range list {
		ts[i] = enum(string(s))
	}
	return ast.ArrayTerm(ts...)
}

// obj collects an object's members. It is used by value (o = o.add(k, v)),
// never through a pointer, so that the members' slice stays on the stack:
// ast.NewObject copies them.
type obj struct{ items [][2]*ast.Term }

func (o obj) add(k, v *ast.Term) obj { o.items = append(o.items, [2]*ast.Term{k, v}); return o }
func (o obj) term() *ast.Term        { return ast.NewTerm(ast.NewObject(o.items...)) }

// shared caches terms that recur across inputs (spans, contexts, cwds).
// Terms are never changed once built, so inputs evaluated at the same time
// may share them. Each cache is emptied when it grows past maxShared.
type shared[K comparable] struct {
	mu sync.RWMutex
	m  map[K]*ast.Term
}

const maxShared = 4096

func (c *shared[K]) get(k K, build func() *ast.Term) *ast.Term {
	c.mu.RLock()
	t, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return t
	}
	t = build()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxShared {
		c.m = make(map[K]*ast.Term, 64)
	}
	c.m[k] = t
	c.mu.Unlock()
	return t
}

var (
	spanTerms    shared[classify.Span]
	contextTerms shared[classify.Context]
	cwdTerms     shared[cwdKey]
	argTerms     shared[classify.Arg]
	operandTerms shared[classify.Operand]
	findingTerms shared[classify.Finding]
)

func spanTerm(s classify.Span) *ast.Term {
	return spanTerms.get(s, func() *ast.Term { return ast.ArrayTerm(num(s.Start), num(s.End)) })
}

func stringsTerm(list []string) *ast.Term {
	ts := make([]*ast.Term, len(list))
	for i, s := range list {
		ts[i] = str(s)
	}
	return ast.ArrayTerm(ts...)
}

func argTerm(a classify.Arg) *ast.Term {
	return argTerms.get(a, func() *ast.Term { return buildArgTerm(a, nil) })
}

func operandTerm(op classify.Operand) *ast.Term {
	return operandTerms.get(op, func() *ast.Term {
		return buildArgTerm(op.Arg, enum(string(op.Role)))
	})
}

func findingTerm(f classify.Finding) *ast.Term {
	return findingTerms.get(f, func() *ast.Term {
		fo := obj{items: make([][2]*ast.Term, 0, 4)}
		fo = fo.add(kCode, enum(f.Code))
		fo = fo.add(kMessage, str(f.Message))
		fo = fo.add(kSpan, spanTerm(f.Span))
		fo = fo.add(kSegment, num(f.Segment))
		if f.Dialect != "" {
			fo = fo.add(kDialect, enum(f.Dialect))
		}
		return fo.term()
	})
}

// buildArgTerm is an argument's object, with its role when role is not
// nil (an operand).
func buildArgTerm(a classify.Arg, role *ast.Term) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 5)}
	o = o.add(kValue, str(a.Value))
	if a.Dynamic != "" {
		o = o.add(kDynamic, enum(a.Dynamic))
	}
	if a.Pattern != "" {
		o = o.add(kPattern, str(a.Pattern))
	}
	if a.Dots {
		o = o.add(kDots, boolean(true))
	}
	if a.Globstar {
		o = o.add(kGlobstar, boolean(true))
	}
	o = o.add(kSpan, spanTerm(a.Span))
	if role != nil {
		o = o.add(kRole, role)
	}
	return o.term()
}

// cwdKey is a Cwd without its After list, for the cache.
type cwdKey struct {
	path  string
	known bool
}

func cwdTerm(c classify.Cwd) *ast.Term {
	if len(c.After) == 0 {
		return cwdTerms.get(cwdKey{c.Path, c.Known}, func() *ast.Term { return buildCwdTerm(c) })
	}
	return buildCwdTerm(c)
}

func buildCwdTerm(c classify.Cwd) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 3)}
	o = o.add(kPath, str(c.Path))
	o = o.add(kKnown, boolean(c.Known))
	if len(c.After) > 0 {
		ts := make([]*ast.Term, len(c.After))
		for i, n := range c.After {
			ts[i] = num(n)
		}
		o = o.add(kAfter, ast.ArrayTerm(ts...))
	}
	return o.term()
}

func contextTerm(c classify.Context) *ast.Term {
	return contextTerms.get(c, func() *ast.Term { return buildContextTerm(c) })
}

func buildContextTerm(c classify.Context) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 11)}
	o = o.add(kPipeline, num(c.Pipeline))
	o = o.add(kPipelineLen, num(c.PipelineLen))
	if c.Substitution {
		o = o.add(kSubstitution, boolean(true))
	}
	if c.Loop {
		o = o.add(kLoop, boolean(true))
	}
	if c.Background {
		o = o.add(kBackground, boolean(true))
	}
	if c.Negated {
		o = o.add(kNegated, boolean(true))
	}
	if c.Subshell {
		o = o.add(kSubshell, boolean(true))
	}
	if c.Function {
		o = o.add(kFunction, boolean(true))
	}
	if c.Condition {
		o = o.add(kCondition, boolean(true))
	}
	if c.StdinFed {
		o = o.add(kStdinFed, boolean(true))
	}
	if c.Depth != 0 {
		o = o.add(kDepth, num(c.Depth))
	}
	return o.term()
}

func segmentTerm(s *classify.Segment) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 20)}
	o = o.add(kIndex, num(s.Index))
	o = o.add(kProgram, nameTerm(s.Program))
	o = o.add(kName, nameTerm(s.Name))
	if s.PathPrefixed {
		o = o.add(kPathPrefixed, boolean(true))
	}
	if s.DynamicProgram {
		o = o.add(kDynamicProgram, boolean(true))
	}
	o = o.add(kKnown, boolean(s.Known))
	if s.Subcommand != "" {
		o = o.add(kSubcommand, nameTerm(s.Subcommand))
	}
	args := make([]*ast.Term, len(s.Args))
	for i, a := range s.Args {
		args[i] = argTerm(a)
	}
	if s.Args == nil {
		o = o.add(kArgs, ast.NullTerm())
	} else {
		o = o.add(kArgs, ast.ArrayTerm(args...))
	}
	if len(s.Assigns) > 0 {
		ts := make([]*ast.Term, len(s.Assigns))
		for i, a := range s.Assigns {
			ao := obj{items: make([][2]*ast.Term, 0, 3)}
			ao = ao.add(kName, str(a.Name))
			ao = ao.add(kValue, argTerm(a.Value))
			ao = ao.add(kSpan, spanTerm(a.Span))
			ts[i] = ao.term()
		}
		o = o.add(kAssigns, ast.ArrayTerm(ts...))
	}
	if len(s.Options) > 0 {
		ts := make([]*ast.Term, len(s.Options))
		for i, op := range s.Options {
			oo := obj{items: make([][2]*ast.Term, 0, 6)}
			oo = oo.add(kName, nameTerm(op.Name))
			oo = oo.add(kWritten, nameTerm(op.Written))
			if op.Value != nil {
				oo = oo.add(kValue, argTerm(*op.Value))
			}
			oo = oo.add(kKnown, boolean(op.Known))
			if len(op.Effects) > 0 {
				oo = oo.add(kEffects, enumsTerm(op.Effects))
			}
			oo = oo.add(kSpan, spanTerm(op.Span))
			ts[i] = oo.term()
		}
		o = o.add(kOptions, ast.ArrayTerm(ts...))
	}
	if len(s.Operands) > 0 {
		ts := make([]*ast.Term, len(s.Operands))
		for i, op := range s.Operands {
			ts[i] = operandTerm(op)
		}
		o = o.add(kOperands, ast.ArrayTerm(ts...))
	}
	if len(s.Wrappers) > 0 {
		o = o.add(kWrappers, enumsTerm(s.Wrappers))
	}
	o = o.add(kParent, num(s.Parent))
	o = o.add(kContext, contextTerm(s.Context))
	o = o.add(kCwd, cwdTerm(s.Cwd))
	if len(s.Categories) > 0 {
		o = o.add(kCategories, enumsTerm(s.Categories))
	}
	o = o.add(kReadOnly, boolean(s.ReadOnly))
	if s.RunsGit {
		o = o.add(kRunsGit, boolean(true))
	}
	if len(s.RepoCode) > 0 {
		ts := make([]*ast.Term, len(s.RepoCode))
		for i, rc := range s.RepoCode {
			ro := obj{items: make([][2]*ast.Term, 0, 3)}
			ro = ro.add(kFile, str(rc.File))
			if rc.Match != "" {
				ro = ro.add(kMatch, str(rc.Match))
			}
			if rc.Key != "" {
				ro = ro.add(kKey, str(rc.Key))
			}
			ts[i] = ro.term()
		}
		o = o.add(kRepoCode, ast.ArrayTerm(ts...))
	}
	if len(s.Code) > 0 {
		ts := make([]*ast.Term, len(s.Code))
		for i, c := range s.Code {
			co := obj{items: make([][2]*ast.Term, 0, 3)}
			co = co.add(kCarries, enum(c.Carries))
			co = co.add(kVia, nameTerm(c.Via))
			co = co.add(kSpan, spanTerm(c.Span))
			ts[i] = co.term()
		}
		o = o.add(kCode, ast.ArrayTerm(ts...))
	}
	if s.Walk != nil {
		o = o.add(kWalk, walkTerm(s.Walk))
	}
	if s.Produces != nil {
		o = o.add(kProduces, producesTerm(s.Produces))
	}
	if s.InputArgs != nil {
		io := obj{items: make([][2]*ast.Term, 0, 2)}
		if s.InputArgs.Nul {
			io = io.add(kNul, boolean(true))
		}
		if s.InputArgs.Replace != "" {
			io = io.add(kReplace, str(s.InputArgs.Replace))
		}
		o = o.add(kInputArgs, io.term())
	}
	if s.ConfigAlias != "" {
		o = o.add(kConfigAlias, nameTerm(s.ConfigAlias))
	}
	o = o.add(kSpan, spanTerm(s.Span))
	if len(s.Traits) > 0 {
		o = o.add(kTraits, enumsTerm(s.Traits))
	}
	if len(s.Pushes) > 0 {
		ts := make([]*ast.Term, len(s.Pushes))
		for i, p := range s.Pushes {
			po := obj{items: make([][2]*ast.Term, 0, 3)}
			po = po.add(kBranch, str(p.Branch))
			if p.Force {
				po = po.add(kForce, boolean(true))
			}
			po = po.add(kSpan, spanTerm(p.Span))
			ts[i] = po.term()
		}
		o = o.add(kPushes, ast.ArrayTerm(ts...))
	}
	return o.term()
}

// walkTerm encodes a segment's walk facts as their JSON.
func walkTerm(w *classify.Walk) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 5)}
	if w.NamesOnly {
		o = o.add(kNamesOnly, boolean(true))
	}
	if w.SkipHidden {
		o = o.add(kSkipHidden, boolean(true))
	}
	if w.HiddenEnv != "" {
		o = o.add(kHiddenEnv, nameTerm(w.HiddenEnv))
	}
	if w.Hint != "" {
		o = o.add(kHint, nameTerm(w.Hint))
	}
	if len(w.Excludes) > 0 {
		ts := make([]*ast.Term, len(w.Excludes))
		for i, e := range w.Excludes {
			eo := obj{items: make([][2]*ast.Term, 0, 2)}
			eo = eo.add(kKind, enum(e.Kind))
			eo = eo.add(kGlob, str(e.Glob))
			ts[i] = eo.term()
		}
		o = o.add(kExcludes, ast.ArrayTerm(ts...))
	}
	return o.term()
}

// producesTerm encodes a segment's producer facts as their JSON.
func producesTerm(p *classify.Produces) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 5)}
	if len(p.Without) > 0 {
		o = o.add(kWithout, stringsTerm(p.Without))
	}
	if p.Other != "" {
		o = o.add(kOther, nameTerm(p.Other))
	}
	if p.Nul {
		o = o.add(kNul, boolean(true))
	}
	if p.DefaultRoot != "" {
		o = o.add(kDefaultRoot, enum(p.DefaultRoot))
	}
	if p.NameGlob != "" {
		o = o.add(kNameGlob, str(p.NameGlob))
	}
	return o.term()
}

func pathRefTerm(p *classify.PathRef) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 16)}
	o = o.add(kPath, str(p.Path))
	o = o.add(kKind, enum(p.Kind))
	if p.Dynamic != "" {
		o = o.add(kDynamic, enum(p.Dynamic))
	}
	if p.Recursive {
		o = o.add(kRecursive, boolean(true))
	}
	o = o.add(kSource, enum(p.Source))
	o = o.add(kSegment, num(p.Segment))
	o = o.add(kCwd, cwdTerm(p.Cwd))
	if p.Home {
		o = o.add(kHome, boolean(true))
	}
	o = o.add(kProducer, num(p.Producer))
	o = o.add(kSpan, spanTerm(p.Span))
	if p.Split {
		o = o.add(kSplit, boolean(true))
	}
	if p.OptionLike {
		o = o.add(kOptionLike, boolean(true))
	}
	if p.Repo {
		o = o.add(kRepo, boolean(true))
	}
	if p.IfExists {
		o = o.add(kIfExists, boolean(true))
	}
	if p.PathGlob != "" {
		o = o.add(kPathGlob, str(p.PathGlob))
	}
	if p.Tracked {
		o = o.add(kTracked, boolean(true))
	}
	if p.Dots {
		o = o.add(kDots, boolean(true))
	}
	if p.Globstar {
		o = o.add(kGlobstar, boolean(true))
	}
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
	o = o.add(kCommand, str(r.Command))
	po := obj{items: make([][2]*ast.Term, 0, 3)}
	po = po.add(kOk, boolean(r.Parse.OK))
	if r.Parse.Error != "" {
		po = po.add(kError, str(r.Parse.Error))
	}
	if r.Parse.Span != nil {
		po = po.add(kSpan, spanTerm(*r.Parse.Span))
	}
	o = o.add(kParse, po.term())
	if r.Segments == nil {
		o = o.add(kSegments, ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(r.Segments))
		for i := range r.Segments {
			ts[i] = segmentTerm(&r.Segments[i])
		}
		o = o.add(kSegments, ast.ArrayTerm(ts...))
	}
	if r.Redirects == nil {
		o = o.add(kRedirects, ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(r.Redirects))
		for i, rd := range r.Redirects {
			ro := obj{items: make([][2]*ast.Term, 0, 7)}
			ro = ro.add(kOp, enum(rd.Op))
			if rd.Fd != "" {
				ro = ro.add(kFd, str(rd.Fd))
			}
			ro = ro.add(kTarget, argTerm(rd.Target))
			ro = ro.add(kMode, enum(rd.Mode))
			ro = ro.add(kHarmless, boolean(rd.Harmless))
			ro = ro.add(kSegment, num(rd.Segment))
			ro = ro.add(kSpan, spanTerm(rd.Span))
			ts[i] = ro.term()
		}
		o = o.add(kRedirects, ast.ArrayTerm(ts...))
	}
	o = o.add(kReads, pathRefsTerm(r.Reads))
	o = o.add(kWrites, pathRefsTerm(r.Writes))
	if r.Cd == nil {
		o = o.add(kCd, ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(r.Cd))
		for i, c := range r.Cd {
			co := obj{items: make([][2]*ast.Term, 0, 8)}
			co = co.add(kIndex, num(c.Index))
			co = co.add(kProgram, str(c.Program))
			co = co.add(kTarget, argTerm(c.Target))
			co = co.add(kFrom, cwdTerm(c.From))
			co = co.add(kTo, cwdTerm(c.To))
			co = co.add(kSegment, num(c.Segment))
			co = co.add(kSpan, spanTerm(c.Span))
			if c.Scoped {
				co = co.add(kScoped, boolean(true))
			}
			ts[i] = co.term()
		}
		o = o.add(kCd, ast.ArrayTerm(ts...))
	}
	o = o.add(kReversible, boolean(r.Reversible))
	if r.Findings == nil {
		o = o.add(kFindings, ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(r.Findings))
		for i, f := range r.Findings {
			ts[i] = findingTerm(f)
		}
		o = o.add(kFindings, ast.ArrayTerm(ts...))
	}
	if r.Dialect != "" {
		o = o.add(kShell, enum(r.Dialect))
	}
	return o.term()
}

func factsTerm(f *policy.Facts) *ast.Term {
	o := obj{items: make([][2]*ast.Term, 0, 7)}
	o = o.add(kMode, enum(f.Mode))
	o = o.add(kHome, str(f.Home))
	o = o.add(kRoots, stringsTerm(f.Roots))
	segs := make([]*ast.Term, len(f.Segments))
	for i, s := range f.Segments {
		if s.GrantRefused != "" {
			so := obj{items: make([][2]*ast.Term, 0, 2)}
			so = so.add(kGrant, str(s.Grant))
			so = so.add(kGrantRefused, str(s.GrantRefused))
			segs[i] = so.term()
			continue
		}
		segs[i] = grantTerms.get(s.Grant, func() *ast.Term {
			so := obj{items: make([][2]*ast.Term, 0, 1)}
			so = so.add(kGrant, str(s.Grant))
			return so.term()
		})
	}
	o = o.add(kSegments, ast.ArrayTerm(segs...))
	ws := make([]*ast.Term, len(f.Writes))
	for i, w := range f.Writes {
		wo := obj{items: make([][2]*ast.Term, 0, 8)}
		wo = wo.add(kPath, str(w.Path))
		wo = wo.add(kReal, str(w.Real))
		wo = wo.add(kEstablished, boolean(w.Established))
		wo = wo.add(kGlob, boolean(w.Glob))
		wo = wo.add(kOutsideRoots, boolean(w.OutsideRoots))
		wo = wo.add(kCritical, boolean(w.Critical))
		wo = wo.add(kDevice, boolean(w.Device))
		wo = wo.add(kShellgateConfig, boolean(w.ShellgateConfig))
		ws[i] = wo.term()
	}
	o = o.add(kWrites, ast.ArrayTerm(ws...))
	idx := obj{items: make([][2]*ast.Term, 0, len(f.Index))}
	for k, list := range f.Index {
		lt := ast.NullTerm()
		if list != nil {
			ts := make([]*ast.Term, len(list))
			for i, n := range list {
				ts[i] = num(n)
			}
			lt = ast.ArrayTerm(ts...)
		}
		idx.items = append(idx.items, [2]*ast.Term{indexKeyTerms.get(k, func() *ast.Term { return ast.StringTerm(k) }), lt})
	}
	o = o.add(kIndex, idx.term())
	o = o.add(kHas, hasTerm(f.Has))
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
	return ast.ValueFromReader(bytes.NewReader(b))
}

// inputValue builds the whole input document.
func inputValue(in *policy.Input, f *policy.Facts) (ast.Object, error) {
	o := obj{items: make([][2]*ast.Term, 0, 8)}
	o = o.add(kCommand, str(in.Command))
	o = o.add(kMode, enum(f.Mode))
	o = o.add(kCwd, str(in.Cwd))
	if in.Shell != "" {
		o = o.add(kShell, enum(in.Shell))
	}
	o = o.add(kReport, reportTerm(in.Report))
	if st, ok := in.Station.(*readstation.Station); ok && st != nil {
		o = o.add(kStation, stationTerm(st))
	} else if in.Station != nil && !isNilStation(in.Station) {
		v, err := jsonValue(in.Station)
		if err != nil {
			return nil, fmt.Errorf("station: %w", err)
		}
		if _, isNull := v.(ast.Null); !isNull {
			o = o.add(kStation, ast.NewTerm(v))
		}
	}
	ct, err := configTerm(in.Config)
	if err != nil {
		return nil, err
	}
	o = o.add(kConfig, ct)
	o = o.add(kFacts, factsTerm(f))
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
		o = o.add(kReads, ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(st.Reads))
		for i := range st.Reads {
			r := &st.Reads[i]
			ro := obj{items: make([][2]*ast.Term, 0, 13)}
			ro = ro.add(kPath, str(r.Path))
			ro = ro.add(kKind, enum(r.Kind))
			ro = ro.add(kSource, enum(r.Source))
			ro = ro.add(kResolved, str(r.Resolved))
			ro = ro.add(kReal, str(r.Real))
			ro = ro.add(kVerdict, enum(string(r.Verdict)))
			ro = ro.add(kRow, str(r.Row))
			ro = ro.add(kMessage, str(r.Message))
			ro = ro.add(kSpan, spanTerm(r.Span))
			ro = ro.add(kSegment, num(r.Segment))
			ro = ro.add(kRecursive, boolean(r.Recursive))
			if r.InTree {
				ro = ro.add(kInTree, boolean(true))
			}
			if r.Matches == nil {
				ro = ro.add(kMatches, ast.NullTerm())
			} else {
				ro = ro.add(kMatches, stringsTerm(r.Matches))
			}
			ts[i] = ro.term()
		}
		o = o.add(kReads, ast.ArrayTerm(ts...))
	}
	if st.RepoHelpers == nil {
		o = o.add(kRepoHelpers, ast.NullTerm())
	} else {
		ts := make([]*ast.Term, len(st.RepoHelpers))
		for i, h := range st.RepoHelpers {
			ho := obj{items: make([][2]*ast.Term, 0, 5)}
			ho = ho.add(kKey, str(h.Key))
			ho = ho.add(kFile, str(h.File))
			ho = ho.add(kValue, str(h.Value))
			ho = ho.add(kSegment, num(h.Segment))
			ho = ho.add(kSpan, spanTerm(h.Span))
			ts[i] = ho.term()
		}
		o = o.add(kRepoHelpers, ast.ArrayTerm(ts...))
	}
	o = o.add(kEstablished, boolean(st.Established))
	return o.term()
}

var (
	hasTerms      shared[policy.HasFlags]
	indexKeyTerms shared[string]
	grantTerms    shared[string]
	nameTerms     shared[string]
)

// hasTerm is the flags object; there are few distinct ones, so each is
// built once.
func hasTerm(h policy.HasFlags) *ast.Term {
	return hasTerms.get(h, func() *ast.Term {
		o := obj{items: make([][2]*ast.Term, 0, 16)}
		for _, kv := range []struct {
			k string
			v bool
		}{
			{"parse_error", h.ParseError}, {"not_reversible", h.NotReversible}, {"writes", h.Writes},
			{"network", h.Network}, {"shell", h.Shell}, {"git", h.Git}, {"pushes", h.Pushes},
			{"destructive_or_unknown", h.DestructiveOrUnknown}, {"fork_bomb", h.ForkBomb},
			{"granted", h.Granted}, {"grant_refused", h.GrantRefused}, {"reads_unjudged", h.ReadsUnjudged}, {"station_reads", h.StationReads},
			{"station_denied", h.StationDenied}, {"station_unsure", h.StationUnsure},
			{"station_unestablished", h.StationUnestablished}, {"station_unknown_verdict", h.StationUnknownVerdict},
			{"repo_helpers", h.RepoHelpers},
		} {
			o = o.add(ast.StringTerm(kv.k), boolean(kv.v))
		}
		return o.term()
	})
}
