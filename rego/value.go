package rego

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// This file describes the policy input once, as a stream of JSON values
// (describeInput and the functions it calls, written against enc). Two
// encoders read that one description: the builder (below) makes the
// ast.Value the policy evaluates, and the hasher (memokey.go) makes the
// memo key, without building anything. The value's shape is exactly the
// JSON encoding of policy.Input (plus "facts"):
// TestInputValueCoversEveryField holds the builder to that for every field
// of the input types, and TestMemoKeyCoversEveryField holds the hasher to
// see every field, so the JSON, the value and the key cannot drift apart.

// enc receives the input document in order. An object is object(), then
// key(k) and one value per member, then end(); an array is array(), its
// elements, then end().
type enc interface {
	object()
	array()
	end()
	key(k *ast.Term)
	// str is a string; name is a frequent one (a program, a subcommand,
	// an option, the cwd) and enum an enum-like value (kinds, sources,
	// roles): the builder shares their terms across inputs.
	str(s string)
	name(s string)
	enum(s string)
	num(n int)
	boolean(b bool)
	null()
	// term is a value built elsewhere (a station of a foreign type).
	term(t *ast.Term)
	// config is the input's config, which the builder encodes once per
	// config and the memo key holds by identity.
	config(c *policy.Config)
}

// cached describes a value that is a function of k alone (a span, an
// argument, a finding): the builder reuses the term it built for an equal
// k before, held in c; the hasher writes it in full.
func cached[K comparable](e enc, c *shared[K], k K, describe func(enc)) {
	b, ok := e.(*builder)
	if !ok {
		describe(e)
		return
	}
	if t := c.lookup(k); t != nil {
		b.push(t)
		return
	}
	describe(b)
	c.store(k, b.last)
}

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
	kHiddenInputs    = ast.StringTerm("hidden_inputs")
	kIn              = ast.StringTerm("in")
	kFileEnv         = ast.StringTerm("file_env")
	kCheck           = ast.StringTerm("check")
	kUnlessEnv       = ast.StringTerm("unless_env")
	kDoes            = ast.StringTerm("does")
	kWhy             = ast.StringTerm("why")
	kCarries         = ast.StringTerm("carries")
	kSubstitutions   = ast.StringTerm("substitutions")
	kHost            = ast.StringTerm("host")
	kOptionEffects   = ast.StringTerm("option_effects")
	kShiftRoles      = ast.StringTerm("shift_roles")
	kVia             = ast.StringTerm("via")
	kGrantRefused    = ast.StringTerm("grant_refused")
	kAgentRule       = ast.StringTerm("agent_rule")
	kAgent           = ast.StringTerm("agent")
	kScope           = ast.StringTerm("scope")
	kRemoteRead      = ast.StringTerm("remote_read")
	kRunsGit         = ast.StringTerm("runs_git")
	kGitRepo         = ast.StringTerm("git_repo")
	kEnv             = ast.StringTerm("env")
	kGitDir          = ast.StringTerm("git_dir")
	kBare            = ast.StringTerm("bare")
	kWorkTree        = ast.StringTerm("work_tree")
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
	// Keys of the decision and its reasons.
	kAction     = ast.StringTerm("action")
	kReasons    = ast.StringTerm("reasons")
	kGrantable  = ast.StringTerm("grantable")
	kRun        = ast.StringTerm("run")
	kKeepGrants = ast.StringTerm("keep_grants")
	kRule       = ast.StringTerm("rule")
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

// Terms shared by every input (terms are never changed once built).
var (
	emptyString = ast.StringTerm("")
	nullTerm    = ast.NullTerm()
	emptyArray  = ast.ArrayTerm()
)

// shared caches terms that recur across inputs (spans, contexts, cwds).
// Terms are never changed once built, so inputs evaluated at the same time
// may share them. Each cache is emptied when it grows past maxShared.
type shared[K comparable] struct {
	mu sync.RWMutex
	m  map[K]*ast.Term
}

const maxShared = 4096

func (c *shared[K]) lookup(k K) *ast.Term {
	c.mu.RLock()
	t := c.m[k]
	c.mu.RUnlock()
	return t
}

func (c *shared[K]) store(k K, t *ast.Term) {
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxShared {
		c.m = make(map[K]*ast.Term, 64)
	}
	c.m[k] = t
	c.mu.Unlock()
}

// get returns the term for k, building it the first time.
func (c *shared[K]) get(k K, build func() *ast.Term) *ast.Term {
	if t := c.lookup(k); t != nil {
		return t
	}
	t := build()
	c.store(k, t)
	return t
}

var (
	spanTerms     shared[classify.Span]
	contextTerms  shared[classify.Context]
	cwdTerms      shared[cwdKey]
	argTerms      shared[classify.Arg]
	operandTerms  shared[classify.Operand]
	findingTerms  shared[classify.Finding]
	hasTerms      shared[policy.HasFlags]
	indexKeyTerms shared[string]
	grantTerms    shared[string]
	nameTerms     shared[string]
)

// builder is the encoder that builds the ast.Value. An open object's
// members collect on pairs (key() starts a member, the value pushed next
// completes it), an open array's elements on elems; end replaces the
// innermost open object's or array's items by its term.
type builder struct {
	elems  []*ast.Term
	pairs  [][2]*ast.Term
	frames []frame
	// last is the term pushed last.
	last *ast.Term
}

// frame is an open object or array: where its items start on pairs or
// elems.
type frame struct {
	start  int
	object bool
}

// builders keeps builders and their stacks between decisions.
var builders = sync.Pool{New: func() any { return newBuilder() }}

func newBuilder() *builder {
	return &builder{elems: make([]*ast.Term, 0, 64), pairs: make([][2]*ast.Term, 0, 128), frames: make([]frame, 0, 16)}
}

func (b *builder) push(t *ast.Term) {
	b.last = t
	if n := len(b.frames); n > 0 && b.frames[n-1].object {
		b.pairs[len(b.pairs)-1][1] = t
		return
	}
	b.elems = append(b.elems, t)
}

func (b *builder) object()          { b.frames = append(b.frames, frame{len(b.pairs), true}) }
func (b *builder) array()           { b.frames = append(b.frames, frame{len(b.elems), false}) }
func (b *builder) key(k *ast.Term)  { b.pairs = append(b.pairs, [2]*ast.Term{k, nil}) }
func (b *builder) num(n int)        { b.push(ast.InternedTerm(n)) }
func (b *builder) boolean(v bool)   { b.push(ast.InternedTerm(v)) }
func (b *builder) null()            { b.push(nullTerm) }
func (b *builder) term(t *ast.Term) { b.push(t) }

func (b *builder) str(s string) {
	if s == "" {
		b.push(emptyString)
		return
	}
	b.push(ast.StringTerm(s))
}

func (b *builder) name(s string) {
	if s == "" {
		b.push(emptyString)
		return
	}
	b.push(nameTerms.get(s, func() *ast.Term { return ast.StringTerm(s) }))
}

func (b *builder) enum(s string) {
	if t := enums[s]; t != nil {
		b.push(t)
		return
	}
	b.str(s)
}

func (b *builder) config(c *policy.Config) { b.push(configTerm(c)) }

func (b *builder) end() {
	fr := b.frames[len(b.frames)-1]
	b.frames = b.frames[:len(b.frames)-1]
	var t *ast.Term
	switch {
	case fr.object:
		// NewObject copies the members.
		t = ast.NewTerm(ast.NewObject(b.pairs[fr.start:]...))
		b.pairs = b.pairs[:fr.start]
	case len(b.elems) == fr.start:
		t = emptyArray
	default:
		ts := make([]*ast.Term, len(b.elems)-fr.start)
		copy(ts, b.elems[fr.start:])
		t = ast.ArrayTerm(ts...)
		b.elems = b.elems[:fr.start]
	}
	b.push(t)
}

// maxBuilderStack is the largest stack a builder keeps for the next
// decision.
const maxBuilderStack = 1 << 16

// inputValue builds the whole input document.
func inputValue(in *policy.Input, f *policy.Facts) (ast.Object, error) {
	b := builders.Get().(*builder)
	defer func() {
		// The terms left on the stacks are garbage: drop them.
		clear(b.elems[:cap(b.elems)])
		clear(b.pairs[:cap(b.pairs)])
		b.elems, b.pairs, b.frames, b.last = b.elems[:0], b.pairs[:0], b.frames[:0], nil
		if cap(b.elems)+cap(b.pairs) <= maxBuilderStack {
			builders.Put(b)
		}
	}()
	if err := describeInput(b, in, f); err != nil {
		return nil, err
	}
	if len(b.elems) != 1 || len(b.pairs) != 0 || len(b.frames) != 0 {
		return nil, fmt.Errorf("internal error: the input's description left %d values, %d members and %d open", len(b.elems), len(b.pairs), len(b.frames))
	}
	o, ok := b.elems[0].Value.(ast.Object)
	if !ok {
		return nil, fmt.Errorf("internal error: the input is %s, not an object", ast.ValueName(b.elems[0].Value))
	}
	return o, nil
}

// describeInput describes the whole input document.
func describeInput(e enc, in *policy.Input, f *policy.Facts) error {
	var station *ast.Term
	if in.Station != nil && !isNilStation(in.Station) {
		if _, ok := in.Station.(*readstation.Station); !ok {
			v, err := jsonValue(in.Station)
			if err != nil {
				return fmt.Errorf("station: %w", err)
			}
			if _, isNull := v.(ast.Null); !isNull {
				station = ast.NewTerm(v)
			}
		}
	}
	if _, err := configValue(in.Config); err != nil {
		return err
	}
	e.object()
	e.key(kCommand)
	e.str(in.Command)
	e.key(kMode)
	e.enum(f.Mode)
	e.key(kCwd)
	e.name(in.Cwd)
	if in.Shell != "" {
		e.key(kShell)
		e.enum(in.Shell)
	}
	e.key(kReport)
	describeReport(e, in.Report)
	if st, ok := in.Station.(*readstation.Station); ok && st != nil {
		e.key(kStation)
		describeStation(e, st)
	} else if station != nil {
		e.key(kStation)
		e.term(station)
	}
	e.key(kConfig)
	e.config(in.Config)
	e.key(kFacts)
	describeFacts(e, f)
	e.end()
	return nil
}

func isNilStation(x any) bool {
	st, ok := x.(*readstation.Station)
	return ok && st == nil
}

func describeSpan(e enc, s classify.Span) {
	cached(e, &spanTerms, s, func(e enc) {
		e.array()
		e.num(s.Start)
		e.num(s.End)
		e.end()
	})
}

func describeStrings(e enc, list []string) {
	e.array()
	for _, s := range list {
		e.str(s)
	}
	e.end()
}

func describeEnums[S ~string](e enc, list []S) {
	e.array()
	for _, s := range list {
		e.enum(string(s))
	}
	e.end()
}

func describeArg(e enc, a classify.Arg) {
	cached(e, &argTerms, a, func(e enc) { describeArgOf(e, a, nil) })
}

func describeOperand(e enc, op classify.Operand) {
	cached(e, &operandTerms, op, func(e enc) {
		role := string(op.Role)
		describeArgOf(e, op.Arg, &role)
	})
}

// describeArgOf describes an argument's object, with its role when role
// is not nil (an operand).
func describeArgOf(e enc, a classify.Arg, role *string) {
	e.object()
	e.key(kValue)
	e.str(a.Value)
	if a.Dynamic != "" {
		e.key(kDynamic)
		e.enum(a.Dynamic)
	}
	if a.Pattern != "" {
		e.key(kPattern)
		e.str(a.Pattern)
	}
	if a.Dots {
		e.key(kDots)
		e.boolean(true)
	}
	if a.Globstar {
		e.key(kGlobstar)
		e.boolean(true)
	}
	e.key(kSpan)
	describeSpan(e, a.Span)
	if role != nil {
		e.key(kRole)
		e.enum(*role)
	}
	e.end()
}

func describeFinding(e enc, f classify.Finding) {
	cached(e, &findingTerms, f, func(e enc) {
		e.object()
		e.key(kCode)
		e.enum(f.Code)
		e.key(kMessage)
		e.str(f.Message)
		e.key(kSpan)
		describeSpan(e, f.Span)
		e.key(kSegment)
		e.num(f.Segment)
		if f.Dialect != "" {
			e.key(kDialect)
			e.enum(f.Dialect)
		}
		e.end()
	})
}

// cwdKey is a Cwd without its After list, for the cache.
type cwdKey struct {
	path  string
	known bool
}

func describeCwd(e enc, c classify.Cwd) {
	if len(c.After) == 0 {
		cached(e, &cwdTerms, cwdKey{c.Path, c.Known}, func(e enc) { describeCwdOf(e, c) })
		return
	}
	describeCwdOf(e, c)
}

func describeCwdOf(e enc, c classify.Cwd) {
	e.object()
	e.key(kPath)
	e.str(c.Path)
	e.key(kKnown)
	e.boolean(c.Known)
	if len(c.After) > 0 {
		e.key(kAfter)
		e.array()
		for _, n := range c.After {
			e.num(n)
		}
		e.end()
	}
	e.end()
}

func describeContext(e enc, c classify.Context) {
	cached(e, &contextTerms, c, func(e enc) {
		e.object()
		e.key(kPipeline)
		e.num(c.Pipeline)
		e.key(kPipelineLen)
		e.num(c.PipelineLen)
		flag(e, kSubstitution, c.Substitution)
		flag(e, kLoop, c.Loop)
		flag(e, kBackground, c.Background)
		flag(e, kNegated, c.Negated)
		flag(e, kSubshell, c.Subshell)
		flag(e, kFunction, c.Function)
		flag(e, kCondition, c.Condition)
		flag(e, kStdinFed, c.StdinFed)
		if c.Depth != 0 {
			e.key(kDepth)
			e.num(c.Depth)
		}
		e.end()
	})
}

// flag describes a member k: true that the JSON omits when false.
func flag(e enc, k *ast.Term, v bool) {
	if v {
		e.key(k)
		e.boolean(true)
	}
}

// nonEmpty describes a member k that the JSON omits when empty.
func nonEmpty(e enc, k *ast.Term, s string, as func(string)) {
	if s != "" {
		e.key(k)
		as(s)
	}
}

func describeSegment(e enc, s *classify.Segment) {
	e.object()
	e.key(kIndex)
	e.num(s.Index)
	e.key(kProgram)
	e.name(s.Program)
	e.key(kName)
	e.name(s.Name)
	flag(e, kPathPrefixed, s.PathPrefixed)
	flag(e, kDynamicProgram, s.DynamicProgram)
	e.key(kKnown)
	e.boolean(s.Known)
	nonEmpty(e, kSubcommand, s.Subcommand, e.name)
	e.key(kArgs)
	if s.Args == nil {
		e.null()
	} else {
		e.array()
		for _, a := range s.Args {
			describeArg(e, a)
		}
		e.end()
	}
	if len(s.Assigns) > 0 {
		e.key(kAssigns)
		e.array()
		for _, a := range s.Assigns {
			describeAssign(e, a)
		}
		e.end()
	}
	if len(s.Options) > 0 {
		e.key(kOptions)
		e.array()
		for i := range s.Options {
			describeOption(e, &s.Options[i])
		}
		e.end()
	}
	if len(s.Operands) > 0 {
		e.key(kOperands)
		e.array()
		for _, op := range s.Operands {
			describeOperand(e, op)
		}
		e.end()
	}
	if len(s.Wrappers) > 0 {
		e.key(kWrappers)
		describeEnums(e, s.Wrappers)
	}
	e.key(kParent)
	e.num(s.Parent)
	e.key(kContext)
	describeContext(e, s.Context)
	e.key(kCwd)
	describeCwd(e, s.Cwd)
	if len(s.Categories) > 0 {
		e.key(kCategories)
		describeEnums(e, s.Categories)
	}
	e.key(kReadOnly)
	e.boolean(s.ReadOnly)
	flag(e, kRunsGit, s.RunsGit)
	if s.GitRepo != nil {
		e.key(kGitRepo)
		describeGitRepo(e, s.GitRepo)
	}
	describeSegmentFacts(e, s)
	e.key(kSpan)
	describeSpan(e, s.Span)
	if len(s.Traits) > 0 {
		e.key(kTraits)
		describeEnums(e, s.Traits)
	}
	if len(s.Pushes) > 0 {
		e.key(kPushes)
		e.array()
		for _, p := range s.Pushes {
			e.object()
			e.key(kBranch)
			e.str(p.Branch)
			flag(e, kForce, p.Force)
			e.key(kSpan)
			describeSpan(e, p.Span)
			e.end()
		}
		e.end()
	}
	e.end()
}

func describeAssign(e enc, a classify.Assign) {
	e.object()
	e.key(kName)
	e.str(a.Name)
	e.key(kValue)
	describeArg(e, a.Value)
	e.key(kSpan)
	describeSpan(e, a.Span)
	e.end()
}

// describeGitRepo describes what points a segment's git elsewhere as its
// JSON.
func describeGitRepo(e enc, g *classify.GitRepo) {
	e.object()
	if len(g.Env) > 0 {
		e.key(kEnv)
		e.array()
		for _, a := range g.Env {
			describeAssign(e, a)
		}
		e.end()
	}
	if len(g.GitDir) > 0 {
		e.key(kGitDir)
		e.array()
		for i := range g.GitDir {
			describeOption(e, &g.GitDir[i])
		}
		e.end()
	}
	if g.Bare != nil {
		e.key(kBare)
		describeOption(e, g.Bare)
	}
	if len(g.WorkTree) > 0 {
		e.key(kWorkTree)
		e.array()
		for i := range g.WorkTree {
			describeOption(e, &g.WorkTree[i])
		}
		e.end()
	}
	e.end()
}

func describeOption(e enc, op *classify.Opt) {
	e.object()
	e.key(kName)
	e.name(op.Name)
	e.key(kWritten)
	e.name(op.Written)
	if op.Value != nil {
		e.key(kValue)
		describeArg(e, *op.Value)
	}
	e.key(kKnown)
	e.boolean(op.Known)
	if len(op.Effects) > 0 {
		e.key(kEffects)
		describeEnums(e, op.Effects)
	}
	e.key(kSpan)
	describeSpan(e, op.Span)
	e.end()
}

// describeHiddenInput describes a catalog hidden input as its JSON form
// has it (every member omitted when empty).
func describeHiddenInput(e enc, hi *classify.HiddenInput) {
	e.object()
	nonEmpty(e, kFile, hi.File, e.str)
	nonEmpty(e, kIn, hi.In, e.str)
	nonEmpty(e, kFileEnv, hi.FileEnv, e.str)
	nonEmpty(e, kMatch, hi.Match, e.str)
	nonEmpty(e, kKey, hi.Key, e.str)
	nonEmpty(e, kCheck, hi.Check, e.str)
	nonEmpty(e, kVia, hi.Via, e.str)
	if len(hi.Unless) > 0 {
		e.key(kUnlessEnv)
		e.object()
		names := make([]string, 0, len(hi.Unless))
		for k := range hi.Unless {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			e.key(ast.StringTerm(k))
			e.str(hi.Unless[k])
		}
		e.end()
	}
	if len(hi.Env) > 0 {
		e.key(kEnv)
		e.array()
		for _, v := range hi.Env {
			e.str(v)
		}
		e.end()
	}
	nonEmpty(e, kDoes, hi.Does, e.str)
	e.end()
}

// describeSegmentFacts describes the members of a segment that carry the
// catalog's facts about its program (repo code, code it runs, walk and
// producer facts, xargs input, config alias), all omitted when empty.
func describeSegmentFacts(e enc, s *classify.Segment) {
	if len(s.HiddenInputs) > 0 {
		e.key(kHiddenInputs)
		e.array()
		for _, hi := range s.HiddenInputs {
			describeHiddenInput(e, &hi)
		}
		e.end()
	}
	if len(s.Code) > 0 {
		e.key(kCode)
		e.array()
		for _, c := range s.Code {
			e.object()
			e.key(kCarries)
			e.enum(c.Carries)
			e.key(kVia)
			e.name(c.Via)
			e.key(kSpan)
			describeSpan(e, c.Span)
			e.end()
		}
		e.end()
	}
	if s.Walk != nil {
		e.key(kWalk)
		describeWalk(e, s.Walk)
	}
	if s.Produces != nil {
		e.key(kProduces)
		describeProduces(e, s.Produces)
	}
	if s.InputArgs != nil {
		e.key(kInputArgs)
		e.object()
		flag(e, kNul, s.InputArgs.Nul)
		nonEmpty(e, kReplace, s.InputArgs.Replace, e.str)
		e.end()
	}
	nonEmpty(e, kConfigAlias, s.ConfigAlias, e.name)
}

// describeWalk describes a segment's walk facts as their JSON.
func describeWalk(e enc, w *classify.Walk) {
	e.object()
	flag(e, kNamesOnly, w.NamesOnly)
	flag(e, kSkipHidden, w.SkipHidden)
	nonEmpty(e, kHiddenEnv, w.HiddenEnv, e.name)
	nonEmpty(e, kHint, w.Hint, e.name)
	if len(w.Excludes) > 0 {
		e.key(kExcludes)
		e.array()
		for _, x := range w.Excludes {
			e.object()
			e.key(kKind)
			e.enum(x.Kind)
			e.key(kGlob)
			e.str(x.Glob)
			e.end()
		}
		e.end()
	}
	e.end()
}

// describeProduces describes a segment's producer facts as their JSON.
func describeProduces(e enc, p *classify.Produces) {
	e.object()
	if len(p.Without) > 0 {
		e.key(kWithout)
		describeStrings(e, p.Without)
	}
	nonEmpty(e, kOther, p.Other, e.name)
	flag(e, kNul, p.Nul)
	nonEmpty(e, kDefaultRoot, p.DefaultRoot, e.enum)
	nonEmpty(e, kNameGlob, p.NameGlob, e.str)
	e.end()
}

func describePathRef(e enc, p *classify.PathRef) {
	e.object()
	e.key(kPath)
	e.str(p.Path)
	e.key(kKind)
	e.enum(p.Kind)
	nonEmpty(e, kDynamic, p.Dynamic, e.enum)
	flag(e, kRecursive, p.Recursive)
	e.key(kSource)
	e.enum(p.Source)
	e.key(kSegment)
	e.num(p.Segment)
	e.key(kCwd)
	describeCwd(e, p.Cwd)
	flag(e, kHome, p.Home)
	e.key(kProducer)
	e.num(p.Producer)
	e.key(kSpan)
	describeSpan(e, p.Span)
	flag(e, kSplit, p.Split)
	flag(e, kOptionLike, p.OptionLike)
	flag(e, kRepo, p.Repo)
	flag(e, kIfExists, p.IfExists)
	nonEmpty(e, kPathGlob, p.PathGlob, e.str)
	flag(e, kTracked, p.Tracked)
	flag(e, kDots, p.Dots)
	flag(e, kGlobstar, p.Globstar)
	e.end()
}

func describePathRefs(e enc, ps []classify.PathRef) {
	if ps == nil {
		e.null()
		return
	}
	e.array()
	for i := range ps {
		describePathRef(e, &ps[i])
	}
	e.end()
}

// describeReport describes the report as the JSON encoding of
// classify.Report.
func describeReport(e enc, r *classify.Report) {
	if r == nil {
		e.null()
		return
	}
	e.object()
	e.key(kCommand)
	e.str(r.Command)
	e.key(kParse)
	e.object()
	e.key(kOk)
	e.boolean(r.Parse.OK)
	nonEmpty(e, kError, r.Parse.Error, e.str)
	if r.Parse.Span != nil {
		e.key(kSpan)
		describeSpan(e, *r.Parse.Span)
	}
	e.end()
	e.key(kSegments)
	if r.Segments == nil {
		e.null()
	} else {
		e.array()
		for i := range r.Segments {
			describeSegment(e, &r.Segments[i])
		}
		e.end()
	}
	e.key(kRedirects)
	if r.Redirects == nil {
		e.null()
	} else {
		e.array()
		for i := range r.Redirects {
			describeRedirect(e, &r.Redirects[i])
		}
		e.end()
	}
	e.key(kReads)
	describePathRefs(e, r.Reads)
	e.key(kWrites)
	describePathRefs(e, r.Writes)
	e.key(kCd)
	if r.Cd == nil {
		e.null()
	} else {
		e.array()
		for i := range r.Cd {
			describeCd(e, &r.Cd[i])
		}
		e.end()
	}
	e.key(kReversible)
	e.boolean(r.Reversible)
	e.key(kFindings)
	if r.Findings == nil {
		e.null()
	} else {
		e.array()
		for _, f := range r.Findings {
			describeFinding(e, f)
		}
		e.end()
	}
	if len(r.Substitutions) > 0 {
		e.key(kSubstitutions)
		e.array()
		for i := range r.Substitutions {
			describeSubstitution(e, &r.Substitutions[i])
		}
		e.end()
	}
	nonEmpty(e, kShell, r.Dialect, e.enum)
	e.end()
}

func describeSubstitution(e enc, s *classify.Substitution) {
	e.object()
	e.key(kKind)
	e.enum(s.Kind)
	e.key(kSpan)
	describeSpan(e, s.Span)
	e.key(kHost)
	e.num(s.Host)
	nonEmpty(e, kRole, s.Role, e.enum)
	flag(e, kOptionLike, s.OptionLike)
	if len(s.OptionEffects) > 0 {
		e.key(kOptionEffects)
		describeEnums(e, s.OptionEffects)
	}
	flag(e, kSplit, s.Split)
	if len(s.ShiftRoles) > 0 {
		e.key(kShiftRoles)
		describeEnums(e, s.ShiftRoles)
	}
	e.end()
}

func describeRedirect(e enc, rd *classify.Redirect) {
	e.object()
	e.key(kOp)
	e.enum(rd.Op)
	nonEmpty(e, kFd, rd.Fd, e.str)
	e.key(kTarget)
	describeArg(e, rd.Target)
	e.key(kMode)
	e.enum(rd.Mode)
	e.key(kHarmless)
	e.boolean(rd.Harmless)
	e.key(kSegment)
	e.num(rd.Segment)
	e.key(kSpan)
	describeSpan(e, rd.Span)
	e.end()
}

func describeCd(e enc, c *classify.CdStep) {
	e.object()
	e.key(kIndex)
	e.num(c.Index)
	e.key(kProgram)
	e.str(c.Program)
	e.key(kTarget)
	describeArg(e, c.Target)
	e.key(kFrom)
	describeCwd(e, c.From)
	e.key(kTo)
	describeCwd(e, c.To)
	e.key(kSegment)
	e.num(c.Segment)
	e.key(kSpan)
	describeSpan(e, c.Span)
	flag(e, kScoped, c.Scoped)
	e.end()
}

func describeFacts(e enc, f *policy.Facts) {
	e.object()
	e.key(kMode)
	e.enum(f.Mode)
	// The cwd, the home and the roots are the same for most inputs: the
	// builder shares their terms.
	e.key(kHome)
	e.name(f.Home)
	e.key(kRoots)
	e.array()
	for _, r := range f.Roots {
		e.name(r)
	}
	e.end()
	e.key(kSegments)
	e.array()
	for _, s := range f.Segments {
		if s.GrantRefused != "" || s.RemoteRead != "" || s.AgentRule != nil {
			e.object()
			e.key(kGrant)
			e.str(s.Grant)
			if s.GrantRefused != "" {
				e.key(kGrantRefused)
				e.str(s.GrantRefused)
			}
			if s.RemoteRead != "" {
				e.key(kRemoteRead)
				e.str(s.RemoteRead)
			}
			if a := s.AgentRule; a != nil {
				e.key(kAgentRule)
				e.object()
				e.key(kAgent)
				e.str(a.Agent)
				e.key(kRule)
				e.str(a.Rule)
				e.key(kFile)
				e.str(a.File)
				e.key(kScope)
				e.str(a.Scope)
				e.end()
			}
			e.end()
			continue
		}
		cached(e, &grantTerms, s.Grant, func(e enc) {
			e.object()
			e.key(kGrant)
			e.str(s.Grant)
			e.end()
		})
	}
	e.end()
	e.key(kWrites)
	e.array()
	for i := range f.Writes {
		describeWriteFacts(e, &f.Writes[i])
	}
	e.end()
	e.key(kIndex)
	describeIndex(e, f.Index)
	e.key(kHas)
	describeHas(e, f.Has)
	e.end()
}

func describeWriteFacts(e enc, w *policy.WriteFacts) {
	e.object()
	e.key(kPath)
	e.str(w.Path)
	e.key(kReal)
	e.str(w.Real)
	e.key(kEstablished)
	e.boolean(w.Established)
	e.key(kGlob)
	e.boolean(w.Glob)
	e.key(kOutsideRoots)
	e.boolean(w.OutsideRoots)
	e.key(kCritical)
	e.boolean(w.Critical)
	e.key(kDevice)
	e.boolean(w.Device)
	e.key(kShellgateConfig)
	e.boolean(w.ShellgateConfig)
	e.end()
}

// describeIndex describes the facts' index, its keys in order (the value
// does not depend on the order, the memo key does).
func describeIndex(e enc, idx map[string][]int) {
	var buf [32]string
	keys := buf[:0]
	for k := range idx {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.object()
	for _, k := range keys {
		e.key(indexKeyTerms.get(k, func() *ast.Term { return ast.StringTerm(k) }))
		list := idx[k]
		if list == nil {
			e.null()
			continue
		}
		e.array()
		for _, n := range list {
			e.num(n)
		}
		e.end()
	}
	e.end()
}

// hasKeys are the keys of the facts' flags, in the order of hasValues.
var hasKeys = func() []*ast.Term {
	var ts []*ast.Term
	for _, k := range strings.Fields(`parse_error not_reversible writes network shell git pushes
		destructive_or_unknown fork_bomb granted grant_refused reads_unjudged station_reads
		station_denied station_unsure station_unestablished station_unknown_verdict repo_helpers
		agent_approved`) {
		ts = append(ts, ast.StringTerm(k))
	}
	return ts
}()

// hasValues lists the flags in the order of hasKeys.
func hasValues(h policy.HasFlags) [19]bool {
	return [19]bool{h.ParseError, h.NotReversible, h.Writes, h.Network, h.Shell, h.Git, h.Pushes,
		h.DestructiveOrUnknown, h.ForkBomb, h.Granted, h.GrantRefused, h.ReadsUnjudged, h.StationReads,
		h.StationDenied, h.StationUnsure, h.StationUnestablished, h.StationUnknownVerdict,
		h.RepoHelpers, h.AgentApproved}
}

// describeHas describes the flags object; there are few distinct ones, so
// the builder builds each once.
func describeHas(e enc, h policy.HasFlags) {
	cached(e, &hasTerms, h, func(e enc) {
		e.object()
		for i, v := range hasValues(h) {
			e.key(hasKeys[i])
			e.boolean(v)
		}
		e.end()
	})
}

// describeStation describes the station as the JSON encoding of
// readstation.Station.
func describeStation(e enc, st *readstation.Station) {
	e.object()
	e.key(kReads)
	if st.Reads == nil {
		e.null()
	} else {
		e.array()
		for i := range st.Reads {
			describeRead(e, &st.Reads[i])
		}
		e.end()
	}
	e.key(kRepoHelpers)
	if st.RepoHelpers == nil {
		e.null()
	} else {
		e.array()
		for _, h := range st.RepoHelpers {
			e.object()
			e.key(kKey)
			e.str(h.Key)
			e.key(kFile)
			e.str(h.File)
			e.key(kValue)
			e.str(h.Value)
			e.key(kWhy)
			e.str(h.Why)
			e.key(kDoes)
			e.str(h.Does)
			e.key(kSegment)
			e.num(h.Segment)
			e.key(kSpan)
			describeSpan(e, h.Span)
			nonEmpty(e, kKind, h.Kind, e.str)
			e.end()
		}
		e.end()
	}
	e.key(kEstablished)
	e.boolean(st.Established)
	e.end()
}

func describeRead(e enc, r *readstation.Read) {
	e.object()
	e.key(kPath)
	e.str(r.Path)
	e.key(kKind)
	e.enum(r.Kind)
	e.key(kSource)
	e.enum(r.Source)
	e.key(kResolved)
	e.str(r.Resolved)
	e.key(kReal)
	e.str(r.Real)
	e.key(kVerdict)
	e.enum(string(r.Verdict))
	e.key(kRow)
	e.str(r.Row)
	e.key(kMessage)
	e.str(r.Message)
	e.key(kSpan)
	describeSpan(e, r.Span)
	e.key(kSegment)
	e.num(r.Segment)
	e.key(kRecursive)
	e.boolean(r.Recursive)
	flag(e, kInTree, r.InTree)
	e.key(kMatches)
	if r.Matches == nil {
		e.null()
	} else {
		describeStrings(e, r.Matches)
	}
	e.end()
}

// configValues caches the value of the configs in use (configs are not
// changed once loaded); it is emptied when it grows past maxConfigValues,
// so a process that reloads its config does not accumulate them.
var configValues struct {
	sync.Mutex
	m map[*policy.Config]*ast.Term
}

const maxConfigValues = 64

// configTerm is the config's value, built by configValue before.
func configTerm(c *policy.Config) *ast.Term {
	t, err := configValue(c)
	if err != nil {
		// describeInput called configValue first, which returned the error.
		return nullTerm
	}
	return t
}

// configValue returns the config's value, building it the first time.
func configValue(c *policy.Config) (*ast.Term, error) {
	if c == nil {
		return nullTerm, nil
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
