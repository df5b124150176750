package readstation

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/classify"
)

// A trustedProducer is a program whose output, fed to xargs or substituted
// for find's {}, names only paths under its own roots. Reads fed by it are
// judged by walking those roots (each a recursive read). Any producer not
// in this table, or spelt differently, leaves the fed reads
// not-established.
type trustedProducer struct {
	// Program and Subcommand name the producer segment.
	Program, Subcommand string
	// AnyOf: at least one of these options must be given (grep prints
	// lines, not paths, without -l). Empty: none needed.
	AnyOf []string
	// NoneOf: none of these options may be given (they print other text).
	NoneOf []string
	// Nul are the options that make it print NUL-separated paths.
	Nul []string
	// DefaultRoot is the root when the segment names no path: "cwd" or
	// "repo" (the git top level of its cwd); "" means it must name one.
	DefaultRoot string
}

// trustedProducers lists the producers whose output is bounded by their
// roots. The same table is documented in doc.go.
var trustedProducers = []trustedProducer{
	{Program: "find", NoneOf: []string{"-printf", "-fprintf", "-fprint", "-fprint0", "-fls", "-ls",
		"-exec", "-execdir", "-ok", "-okdir"}, Nul: []string{"-print0"}, DefaultRoot: "cwd"},
	{Program: "grep", AnyOf: []string{"--files-with-matches", "--files-without-match", "-l", "-L"},
		Nul: []string{"--null", "-Z"}},
	{Program: "rg", AnyOf: []string{"--files-with-matches", "--files-without-match", "--files", "-l"},
		Nul: []string{"--null", "-0"}, DefaultRoot: "cwd"},
	{Program: "git", Subcommand: "ls-files", NoneOf: []string{"--format", "--debug", "--eol"},
		Nul: []string{"-z"}, DefaultRoot: "repo"},
	// git diff --name-only prints paths of the repository's tree (relative
	// to its top level), never outside it, unless --no-index compares
	// other files or --line-prefix adds text before each name.
	{Program: "git", Subcommand: "diff", AnyOf: []string{"--name-only"},
		NoneOf: []string{"--no-index", "--line-prefix", "--output", "--name-status", "--stat", "--numstat",
			"--shortstat", "--dirstat", "--summary", "--raw", "--patch", "-p", "-u", "--patch-with-stat",
			"--patch-with-raw", "--compact-summary", "--check", "--word-diff", "--color-words", "--ext-diff", "--textconv"},
		Nul: []string{"-z"}, DefaultRoot: "repo"},
}

// segOpts lists the option names of a segment: the catalog's canonical and
// written names, plus raw words for a program the catalog does not know.
func segOpts(s *classify.Segment) map[string]bool {
	m := map[string]bool{}
	for _, o := range s.Options {
		m[o.Name] = true
		m[o.Written] = true
	}
	if !s.Known || len(s.Options) == 0 {
		for _, a := range s.Args {
			v := a.Value
			if v == "--" {
				break
			}
			if i := strings.IndexByte(v, '='); i > 0 && strings.HasPrefix(v, "--") {
				v = v[:i]
			}
			if strings.HasPrefix(v, "--") {
				m[v] = true
			} else if strings.HasPrefix(v, "-") && len(v) > 1 {
				m[v] = true
				for _, c := range v[1:] {
					m["-"+string(c)] = true
				}
			}
		}
	}
	return m
}

func anyOpt(opts map[string]bool, names []string) string {
	for _, n := range names {
		if opts[n] {
			return n
		}
	}
	return ""
}

// judgeProduced judges a read whose paths come from a producer segment.
func (j *judger) judgeProduced(ref *classify.PathRef, rd *Read) {
	fail := func(format string, a ...any) {
		rd.set(VerdictNotEstablished, "", fmt.Sprintf(format, a...))
	}
	if ref.Producer >= len(j.r.Segments) {
		fail("the producer segment %d is missing from the report", ref.Producer)
		return
	}
	p := &j.r.Segments[ref.Producer]
	var tp *trustedProducer
	for i := range trustedProducers {
		t := &trustedProducers[i]
		if t.Program == p.Name && (t.Subcommand == "" || t.Subcommand == p.Subcommand) {
			tp = t
		}
	}
	what := p.Name
	if p.Subcommand != "" {
		what += " " + p.Subcommand
	}
	if tp == nil || p.DynamicProgram || p.PathPrefixed {
		fail("the paths come from %s (segment %d), which is not a trusted producer", quote(what), p.Index)
		return
	}
	// The word must be the producer's path alone: "" (xargs appends it),
	// "{}" (find -exec) or xargs' replace string. "{}/../x" or "../{}"
	// leave the producer's roots.
	if ref.Path != "" && ref.Path != j.placeholder(ref) {
		fail("%s builds a path around the paths %s (segment %d) prints, so they no longer bound it", quote(ref.Path), what, p.Index)
		return
	}
	opts := segOpts(p)
	if ref.Dynamic == "xargs-input" {
		if len(tp.AnyOf) > 0 && anyOpt(opts, tp.AnyOf) == "" {
			fail("%s (segment %d) prints lines, not paths, without one of %s", what, p.Index, strings.Join(tp.AnyOf, ", "))
			return
		}
		if o := anyOpt(opts, tp.NoneOf); o != "" {
			fail("%s %s (segment %d) prints text other than paths", what, o, p.Index)
			return
		}
	}
	// Paths the producer prints are relative to its cwd; the reader must
	// run in the same one.
	pc := j.cwdOf(p.Cwd)
	if pc.err != "" {
		fail("producer %s: %s", what, pc.err)
		return
	}
	if ref.Dynamic == "xargs-input" {
		if eff, ok := j.effectiveCwd(p); !ok || eff != pc.abs {
			fail("%s (segment %d) runs in another directory than the reader", what, p.Index)
			return
		}
	}
	// find's {} is the match itself wherever the command runs (-execdir
	// runs it in the match's directory as ./NAME); xargs' input is
	// opened relative to the reader's directory.
	var rc cwdResult
	if ref.Dynamic == "xargs-input" {
		rc = j.cwdOf(ref.Cwd)
		if rc.err != "" {
			fail("%s", rc.err)
			return
		}
		if rc.abs != pc.abs {
			fail("%s (segment %d) runs in %s, the reader in %s", what, p.Index, show(pc.abs), show(rc.abs))
			return
		}
	}
	// What the producer prints decides which names the reader gets: rg
	// prints no hidden names unless told to; find, grep and git ls-files
	// print them all.
	opt := walkOpts{hint: "narrow the producer's path"}
	if p.Name == "rg" && !rgHidden(p) {
		opt.skipHidden = true
	}
	if p.Name == "find" && !ref.Recursive {
		// A recursive reader (grep -r {}) reads the whole tree of a
		// directory find prints (lib.go/.env under -name '*.go'), so then
		// every name is judged.
		opt.nameGlob = findNameFilter(p)
	}
	if ref.Dynamic == "xargs-input" {
		nul := anyOpt(opts, tp.Nul) != ""
		x := -1
		if s := ref.Segment; s >= 0 && s < len(j.r.Segments) {
			x = j.r.Segments[s].Parent
		}
		xnul := false
		if x >= 0 && x < len(j.r.Segments) && j.r.Segments[x].Name == "xargs" {
			xo := segOpts(&j.r.Segments[x])
			xnul = xo["--null"] || xo["-0"]
		}
		opt.splitNames = !(nul && xnul)
		opt.splitBase = rc.abs
	}
	// The producer's roots.
	var texts []string
	for i := range j.r.Reads {
		r := &j.r.Reads[i]
		if r.Segment != p.Index || (r.Source != "operand" && r.Source != "implicit") {
			continue
		}
		if r.Kind == "dynamic" {
			fail("the producer %s reads %s, which is not known statically", what, quote(r.Path))
			return
		}
		t, err := j.absText(r.Path, r.Home, r.Kind == "glob", r.Cwd)
		if r.Repo {
			t, err = j.repoText(r)
		}
		if err != "" {
			fail("producer %s: %s", what, err)
			return
		}
		if r.IfExists {
			if res := j.fs.resolve(filepath.Clean(t)); !res.exists && res.err == nil {
				j.adm.addPath(filepath.Clean(t), res)
				continue // git diff HEAD~1: a revision, not a root
			}
		}
		if r.Kind == "glob" {
			mode := j.globMode(r.Dots, r.Globstar)
			ms, gerr := j.expandGlob(t, mode, j.b.maxGlob())
			j.adm.addGlob(t, mode, ms, gerr)
			if gerr != nil {
				fail("producer %s: %v", what, gerr)
				return
			}
			texts = append(texts, ms...)
			continue
		}
		texts = append(texts, t)
	}
	if len(texts) == 0 {
		switch tp.DefaultRoot {
		case "cwd":
			if !producerNamesNoPath(p) {
				fail("cannot tell which paths %s (segment %d) reads", what, p.Index)
				return
			}
			texts = []string{pc.abs}
		case "repo":
			top, ok := j.repoTop(pc.abs)
			if !ok {
				fail("%s (segment %d) does not run in a git repository", what, p.Index)
				return
			}
			texts = []string{top}
		default:
			fail("%s (segment %d) names no path to bound its output", what, p.Index)
			return
		}
	}
	best := Read{Verdict: VerdictOK}
	first := true
	for _, t := range texts {
		var sub Read
		j.judgeText(t, true, opt, &sub)
		rd.Matches = append(rd.Matches, sub.Resolved)
		if first || rank(sub.Verdict) > rank(best.Verdict) {
			best, first = sub, false
		}
	}
	rd.Real = ""
	v := best.Verdict
	if v == VerdictMissing {
		v = VerdictOK // a missing root produces no paths
	}
	rd.set(v, best.Row, fmt.Sprintf("the paths come from %s (segment %d), bounded by its roots %s: %s",
		what, p.Index, strings.Join(rd.Matches, ", "), best.Message))
	rd.InTree = best.InTree
}

// producerNamesNoPath reports whether a producer segment without path reads
// really names no path: a catalogued segment's operands are all
// non-path roles; an uncatalogued rg has at most the pattern.
func producerNamesNoPath(p *classify.Segment) bool {
	if p.Known {
		for _, o := range p.Operands {
			switch strings.TrimSuffix(o.Role, "!") {
			case "pattern", "text", "subcommand":
			default:
				return false
			}
		}
		return true
	}
	words := 0
	for _, a := range p.Args {
		if a.Value == "--" || !a.Static() {
			return false
		}
		if !strings.HasPrefix(a.Value, "-") {
			words++
		}
	}
	if segOpts(p)["--files"] {
		return words == 0
	}
	return words <= 1
}

// effectiveCwd is the cwd a segment really runs in: its cwd with git -C
// (cwd-flag reads) applied.
func (j *judger) effectiveCwd(s *classify.Segment) (string, bool) {
	c := j.cwdOf(s.Cwd)
	if c.err != "" {
		return "", false
	}
	cur := c.abs
	for i := range j.r.Reads {
		r := &j.r.Reads[i]
		if r.Segment != s.Index || r.Source != "cwd-flag" {
			continue
		}
		if r.Kind != "literal" {
			return "", false
		}
		p := r.Path
		if r.Home {
			if j.b.Home == "" {
				return "", false
			}
			p = filepath.Join(j.b.Home, strings.TrimPrefix(p, "~"))
		}
		if filepath.IsAbs(p) {
			cur = filepath.Clean(p)
		} else {
			cur = filepath.Join(cur, p)
		}
	}
	return cur, true
}

// placeholder is the word that stands for one producer path: "{}" for find
// -exec, xargs' -I/--replace string (-i alone means "{}").
func (j *judger) placeholder(ref *classify.PathRef) string {
	if ref.Dynamic == "find-match" {
		return "{}"
	}
	if ref.Segment < 0 || ref.Segment >= len(j.r.Segments) {
		return ""
	}
	x := j.r.Segments[ref.Segment].Parent
	if x < 0 || x >= len(j.r.Segments) || j.r.Segments[x].Name != "xargs" {
		return ""
	}
	for _, o := range j.r.Segments[x].Options {
		switch o.Name {
		case "--replace", "-I", "-i":
			if o.Value != nil && o.Value.Static() && o.Value.Value != "" {
				return o.Value.Value
			}
			return "{}"
		}
	}
	return ""
}

// findNameFilter returns the one -name pattern that every name find prints
// must match, or "" when its expression is not that simple: a single
// static -name (with -type, -maxdepth and the like beside it) and no
// operator that could print other names (-o, -or, !, -not, ",", -prune).
func findNameFilter(p *classify.Segment) string {
	pat := ""
	for _, o := range p.Options {
		switch o.Name {
		case "-o", "-or", "!", "-not", ",", "-prune", "-path", "-wholename", "-regex", "-iregex", "-ipath", "-iwholename":
			return ""
		case "-name":
			if pat != "" || o.Value == nil || !o.Value.Static() {
				return ""
			}
			pat = o.Value.Value
		}
	}
	for _, a := range p.Args {
		if a.Static() && (a.Value == "-o" || a.Value == "-or" || a.Value == "!" || a.Value == "-not" || a.Value == "," || a.Value == "(") {
			return ""
		}
	}
	if compilePattern(pat, synFnmatch).err != nil {
		return ""
	}
	return pat
}
