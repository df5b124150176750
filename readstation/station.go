package readstation

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/shellgate/shellgate/classify"
)

// Verdict is what the station found of a read. Verdicts are stable codes:
// policies match on them.
type Verdict string

// Verdicts a read can get.
const (
	// VerdictOK: the read stays inside the roots and touches no deny row.
	VerdictOK Verdict = "ok"
	// VerdictMissing: the path does not exist (inside the roots, no deny
	// row): reading it fails, nothing leaks.
	VerdictMissing Verdict = "missing"
	// VerdictOutsideRoots: the path as written or its real path lies
	// outside every root.
	VerdictOutsideRoots Verdict = "outside-roots"
	// VerdictNotEstablished: where the read goes cannot be established
	// (dynamic word, unknown cwd, untrusted producer, a cap hit, permission
	// denied, a symlink loop, an invalid boundary).
	VerdictNotEstablished Verdict = "not-established"
	// VerdictDenied: the read touches a deny row (Read.Row names it).
	VerdictDenied Verdict = "denied"
)

// Verdicts lists every verdict, for policies and tests that check they
// know them all.
var Verdicts = []Verdict{VerdictOK, VerdictMissing, VerdictOutsideRoots, VerdictNotEstablished, VerdictDenied}

// rank orders verdicts from best to worst; a read with several candidates
// (glob matches, producer roots) gets the worst.
func rank(v Verdict) int {
	switch v {
	case VerdictOK:
		return 0
	case VerdictMissing:
		return 1
	case VerdictOutsideRoots:
		return 2
	case VerdictNotEstablished:
		return 3
	}
	return 4 // denied, and anything unknown
}

// Station is the read station's judgment of one command: every read
// resolved and judged, the repository-controlled helpers its git segments
// may run, and an admission to re-check right before the spawn. It
// marshals to the "station" part of the policy input.
type Station struct {
	// Reads are the report's reads, in order, each judged, then any reads
	// the station adds (source "repository").
	Reads []Read `json:"reads"`
	// RepoHelpers are commands a repository configured that its git
	// segments may run, and project files through which a segment's
	// program runs code the repository chose (catalog hidden_inputs).
	RepoHelpers []RepoHelper `json:"repo_helpers"`
	// Established is true only when every read is ok or missing.
	Established bool `json:"established"`

	adm *Admission
}

// Read is one judged read.
type Read struct {
	// Path is the path as the report gives it ("~/x", a glob pattern, or
	// the source text of a dynamic word).
	Path string `json:"path"`
	// Kind is the report's kind: literal, glob or dynamic.
	Kind string `json:"kind"`
	// Source is the report's source: operand, option, redirect, implicit,
	// cwd-flag, xargs-input, ...; "repository" for a read the station adds
	// for a git segment whose repository it cannot establish.
	Source string `json:"source"`
	// Resolved is the path as written made absolute and cleaned (cwd
	// applied, ~ folded, ".." removed lexically); for a glob, the absolute
	// pattern. Empty when it cannot be known.
	Resolved string `json:"resolved"`
	// Real is the real path, every symlink followed. Empty for globs and
	// when it cannot be known.
	Real string `json:"real"`
	// Verdict is ok, missing, outside-roots, not-established or denied.
	Verdict Verdict `json:"verdict"`
	// Row is the deny row that matched (verdict denied).
	Row string `json:"row"`
	// Message says why, for a person.
	Message string `json:"message"`
	// Span locates the word in the command.
	Span classify.Span `json:"span"`
	// Segment is the index of the segment that reads.
	Segment int `json:"segment"`
	// Recursive is set when the whole tree under the path is read.
	Recursive bool `json:"recursive"`
	// InTree is set when a denied verdict is about a path below a tree the
	// command reads whole (or below a producer's roots), not about the
	// path as written: the command may never open it.
	InTree bool `json:"in_tree,omitempty"`
	// Matches are the glob's matches (resolved), or the producer roots
	// that bound an xargs-fed read. Empty otherwise.
	Matches []string `json:"matches"`
}

// RepoHelper is code a repository chose, which a segment may run: a git
// helper its config or attributes name, or a project file of catalog
// hidden_inputs.
type RepoHelper struct {
	// Key is the config key ("core.fsmonitor", "diff.x.textconv"), for
	// an attribute "attribute diff=x", for a file of catalog
	// hidden_inputs the setting it names ("yarnPath"), or "" when the file's
	// existence is what runs code (.pnpmfile.cjs).
	Key string `json:"key"`
	// File is the file that sets it.
	File string `json:"file"`
	// Value is the configured value (the attribute line for attributes,
	// the line for a hidden input's file).
	Value string `json:"value"`
	// Why, for a hidden input, says what the file says that matters
	// ("says toolchain go1.99, newer than the local go1.26.8"); "" for a
	// git helper and a project file whose existence runs code.
	Why string `json:"why"`
	// Does, for a hidden input, says what the program would do, for a
	// person: the end of "so go version would ..." ("download and run
	// that Go toolchain"). When it is set, the message is the file, Why
	// and Does.
	Does string `json:"does"`
	// Segment is the segment that would run it.
	Segment int `json:"segment"`
	// Span covers the segment.
	Span classify.Span `json:"span"`
	// Kind says how the repository's choice takes effect: "" for a
	// config key, an attribute or a project file that names code to run;
	// HelperHook for a hook file git runs (File); HelperPromisor for a
	// partial clone's promisor remote, from which git fetches missing
	// objects over the network (Key the setting or File the pack that
	// makes it one, Value the remote's URL); HelperUserConfig for a
	// setting of git's system or global configuration or the environment.
	Kind string `json:"kind,omitempty"`
}

// The kinds of RepoHelper other than a setting or a project file.
const (
	HelperHook     = "hook"
	HelperPromisor = "promisor"
	// HelperUserConfig: a setting of git's system or global configuration
	// or of the environment (GIT_CONFIG_COUNT), not the repository's own.
	HelperUserConfig = "user-config"
)

// judger holds the state of one Judge.
type judger struct {
	r     *classify.Report
	b     Boundary
	m     *matcher
	fs    *fsCache
	adm   *Admission
	cwd   memo[string, cwdResult]
	cds   memo[int, string] // cd step index → "" when fine, else the problem
	trees map[treeKey]treeResult
	// extra are reads the station adds: a git segment whose repository
	// cannot be established.
	extra []Read
	// unreadable are repository files that exist but could not be read.
	unreadable []unreadableFile
	// record, when set, collects the repository files read (for a tree
	// stamp: the tree is clean only while they are unchanged).
	record *[]fileCand
}

// judgerScratch is a judger with its file-system cache, pooled: Judge
// zeroes it before it is reused, and nothing it returns points into it.
type judgerScratch struct {
	j  judger
	fs fsCache
}

var judgerPool = sync.Pool{New: func() any { return new(judgerScratch) }}

type cwdResult struct {
	abs string
	err string
}

// Judge judges every read in r against b on the real file system. It never
// fails: anything it cannot establish is judged not-established, with a
// message. It does not decide allow/ask/deny.
func Judge(r *classify.Report, b Boundary) *Station {
	// The station and its admission are one allocation; the judger and
	// its file-system cache, which nothing keeps after Judge, are reused.
	sa := &struct {
		st  Station
		adm Admission
	}{st: Station{Reads: []Read{}, RepoHelpers: []RepoHelper{}}, adm: Admission{b: b}}
	st := &sa.st
	st.adm = &sa.adm
	if r == nil {
		st.Established = false
		return st
	}
	js := judgerPool.Get().(*judgerScratch)
	j := &js.j
	*j = judger{r: r, b: b, m: getMatcher(b), fs: &js.fs, adm: st.adm}
	defer func() {
		if p := recover(); p != nil {
			// A bug here must never turn into an established station.
			st.Established = false
			st.adm.broken = fmt.Sprint(p)
			st.Reads = append(st.Reads, Read{Kind: "dynamic", Source: "internal", Verdict: VerdictNotEstablished,
				Message: fmt.Sprintf("the read station failed: %v", p), Segment: -1, Matches: []string{}})
			return // a judger that panicked is dropped
		}
		*js = judgerScratch{}
		judgerPool.Put(js)
	}()
	for i := range r.Reads {
		st.Reads = append(st.Reads, j.judgeRef(&r.Reads[i]))
	}
	st.RepoHelpers = append(append(j.repoHelpers(), j.hiddenInputs()...), j.pathPrograms()...)
	st.Reads = append(st.Reads, j.extra...)
	if j.m.err != nil && len(st.Reads) == 0 {
		// A command with no reads is still judged against a boundary that
		// does not validate: it is not established, and says why.
		st.Reads = append(st.Reads, Read{Kind: "dynamic", Source: "boundary", Verdict: VerdictNotEstablished,
			Message: j.m.err.Error(), Segment: -1, Matches: []string{}})
	}
	st.Established = true
	for _, rd := range st.Reads {
		if rd.Verdict != VerdictOK && rd.Verdict != VerdictMissing {
			st.Established = false
		}
	}
	if !r.Parse.OK {
		st.Established = false
	}
	return st
}

// globMode is the expansion mode of a glob read in this report: zsh's
// component syntax unless only bash or POSIX sh runs the command.
func (j *judger) globMode(dots, globstar bool) globMode {
	return globMode{dots: dots, globstar: globstar, zsh: j.r.Dialect != string(classify.DialectBash) && j.r.Dialect != string(classify.DialectSh)}
}

// Admission returns the candidates this judgment established, to re-check
// right before the command is spawned.
func (s *Station) Admission() *Admission {
	if s == nil || s.adm == nil {
		return &Admission{broken: "no station"}
	}
	return s.adm
}

func newRead(ref *classify.PathRef) Read {
	return Read{Path: ref.Path, Kind: ref.Kind, Source: ref.Source, Span: ref.Span,
		Segment: ref.Segment, Recursive: ref.Recursive, Matches: []string{}}
}

func (rd *Read) set(v Verdict, row, msg string) {
	rd.Verdict, rd.Row, rd.Message = v, row, msg
}

func (j *judger) judgeRef(ref *classify.PathRef) Read {
	rd := newRead(ref)
	if j.m.err != nil {
		rd.set(VerdictNotEstablished, "", j.m.err.Error())
		return rd
	}
	if ref.Kind == "dynamic" {
		if ref.Producer >= 0 && (ref.Dynamic == "xargs-input" || ref.Dynamic == "find-match" || ref.Dynamic == "command-substitution") {
			j.judgeProduced(ref, &rd)
			return rd
		}
		why := ref.Dynamic
		if why == "" {
			why = "dynamic"
		}
		msg := fmt.Sprintf("%s is not known statically (%s)", quote(ref.Path), why)
		if why == "command-substitution" {
			msg = fmt.Sprintf("%s is what its command prints, which is not known statically: only an unquoted $(...) alone whose one command is find, git ls-files or rg --files (without an option whose output is not modelled, nor NUL-separated output), run where the reader runs and with nothing changing IFS, is judged as the paths it prints", quote(ref.Path))
		}
		if why == "files-from" {
			list := quote(ref.Path)
			if ref.Path == "-" {
				list = "stdin"
			}
			msg = fmt.Sprintf("reads the paths %s lists, which are only known when it is read (files-from)", list)
		}
		rd.set(VerdictNotEstablished, "", msg)
		return rd
	}
	if ref.Kind != "literal" && ref.Kind != "glob" {
		rd.set(VerdictNotEstablished, "", fmt.Sprintf("unknown path kind %q", ref.Kind))
		return rd
	}
	if ref.Source == "git-config" || ref.Source == "git-config-value" {
		j.judgeGitConfig(ref, &rd)
		return rd
	}
	if ref.Source == "git-tracked" {
		j.judgeTracked(ref, &rd)
		return rd
	}
	text, err := j.absText(ref.Path, ref.Home, ref.Kind == "glob", ref.Cwd)
	if ref.Repo {
		text, err = j.repoText(ref)
	}
	if err != "" {
		rd.set(VerdictNotEstablished, "", err)
		return rd
	}
	opt := j.walkOpts(ref.Segment)
	opt.pathGlob = ref.PathGlob
	if ref.Kind == "glob" {
		g := globChecks{tracked: ref.Tracked, mode: j.globMode(ref.Dots, ref.Globstar)}
		if ref.Split {
			g.split = strings.Count(strings.Trim(strings.TrimPrefix(ref.Path, "~"), "/"), "/") + 1
		}
		if ref.OptionLike && !ref.Home && !strings.HasPrefix(ref.Path, "/") {
			// The shell hands the program each match as it is relative to
			// the cwd: one that begins with "-" is an option.
			g.dashBase = j.cwdOf(ref.Cwd).abs + "/"
		}
		j.judgeGlob(text, ref.Recursive, g, opt, &rd)
		return rd
	}
	j.judgeText(text, ref.Recursive, opt, &rd)
	if !ref.IfExists || rd.Verdict == VerdictOK {
		// nothing more to say
	} else if res := j.fs.resolve(filepath.Clean(text)); !res.exists && res.err == nil {
		// git takes a word that names no path as a revision: nothing is
		// read (the admission has the path's absence).
		rd.set(VerdictMissing, "", fmt.Sprintf("%s is not a path here, so git takes it as a revision", quote(ref.Path)))
	}
	if ref.Tracked && rd.Verdict == VerdictOK {
		j.judgeTrackedUnderGlob(&rd, ref.PathGlob)
	}
	return rd
}

// repoText makes a path relative to the repository's top level (git show
// REV:PATH) absolute.
func (j *judger) repoText(ref *classify.PathRef) (string, string) {
	c := j.cwdOf(ref.Cwd)
	if c.err != "" {
		return "", c.err
	}
	top, ok := j.repoTop(c.abs)
	if !ok {
		return "", fmt.Sprintf("%s is relative to the repository's top level, and %s is in no repository", quote(ref.Path), show(c.abs))
	}
	return top + "/" + ref.Path, ""
}

// absText makes p absolute: "~" folded to the home directory, a relative
// path joined to the segment's cwd. The result is not cleaned: ".." is
// applied physically by resolve. For a glob the base is escaped.
func (j *judger) absText(p string, home, glob bool, cwd classify.Cwd) (string, string) {
	esc := func(s string) string { return s }
	if glob {
		esc = escapeMeta
	}
	if home {
		if j.b.Home == "" {
			return "", "the home directory is not known"
		}
		if p != "~" && !strings.HasPrefix(p, "~/") {
			return "", fmt.Sprintf("%s: a home-relative path must start with ~/", quote(p))
		}
		rest := strings.TrimPrefix(p, "~")
		return esc(filepath.Clean(j.b.Home)) + "/" + strings.TrimPrefix(rest, "/"), ""
	}
	if strings.HasPrefix(p, "/") {
		return p, ""
	}
	c := j.cwdOf(cwd)
	if c.err != "" {
		return "", c.err
	}
	return esc(c.abs) + "/" + p, ""
}

// cwdOf resolves a segment's cwd and checks that every cd step it assumes
// leads to a directory.
func (j *judger) cwdOf(c classify.Cwd) cwdResult {
	key := c.Path
	if len(c.After) > 0 || !c.Known {
		b := []byte(c.Path)
		b = append(b, 0)
		b = strconv.AppendBool(b, c.Known)
		for _, a := range c.After {
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(a), 10)
		}
		key = string(b)
	}
	if r, ok := j.cwd.get(key); ok {
		return r
	}
	r := j.cwdUncached(c)
	j.cwd.put(key, r)
	return r
}

func (j *judger) cwdUncached(c classify.Cwd) cwdResult {
	if !c.Known {
		return cwdResult{err: "the directory this runs in is not known statically"}
	}
	abs, err := j.lexCwd(c.Path)
	if err != "" {
		return cwdResult{err: err}
	}
	for _, idx := range c.After {
		if msg := j.cdStep(idx); msg != "" {
			return cwdResult{err: msg}
		}
	}
	return cwdResult{abs: abs}
}

// lexCwd makes a report cwd path absolute (lexically, as cd -L does).
func (j *judger) lexCwd(p string) (string, string) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if j.b.Home == "" {
			return "", "the home directory is not known"
		}
		return filepath.Join(j.b.Home, p[1:]), ""
	case filepath.IsAbs(p):
		return filepath.Clean(p), ""
	}
	if j.b.Cwd == "" || !filepath.IsAbs(j.b.Cwd) {
		return "", "the starting directory is not known"
	}
	return filepath.Join(j.b.Cwd, p), ""
}

// cdStep checks that cd step idx leads to an existing directory.
func (j *judger) cdStep(idx int) string {
	if msg, ok := j.cds.get(idx); ok {
		return msg
	}
	msg := ""
	var step *classify.CdStep
	for i := range j.r.Cd {
		if j.r.Cd[i].Index == idx {
			step = &j.r.Cd[i]
		}
	}
	switch {
	case step == nil:
		msg = fmt.Sprintf("cd step %d is missing from the report", idx)
	case !step.To.Known:
		msg = fmt.Sprintf("%s %s: the directory it leads to is not known statically", step.Program, quote(step.Target.Value))
	default:
		abs, err := j.lexCwd(step.To.Path)
		if err != "" {
			msg = err
			break
		}
		res := j.fs.resolve(abs)
		j.adm.addPath(abs, res)
		switch {
		case res.err != nil:
			msg = fmt.Sprintf("%s %s: %s cannot be established: %v", step.Program, quote(step.Target.Value), show(abs), res.err)
		case !res.exists:
			msg = fmt.Sprintf("%s %s: %s does not exist, so the command would not run where it says", step.Program, quote(step.Target.Value), show(abs))
		case !res.mode.IsDir():
			msg = fmt.Sprintf("%s %s: %s is not a directory", step.Program, quote(step.Target.Value), show(abs))
		}
	}
	j.cds.put(idx, msg)
	return msg
}

// judgeText judges one concrete absolute path (not cleaned).
func (j *judger) judgeText(text string, recursive bool, opt walkOpts, rd *Read) {
	written := filepath.Clean(text)
	res := j.fs.resolve(text)
	j.adm.addPath(text, res)
	rd.Resolved, rd.Real = written, res.real
	v, row, msg := j.verdictFor(written, res)
	if (v == VerdictOK || v == VerdictOutsideRoots) && !opt.namesOnly && res.exists && res.mode.IsRegular() && j.gitConfigFile(res.real) {
		if what, ok := j.gitCredential(res.real); ok {
			v, row, msg = VerdictDenied, CredentialRow, fmt.Sprintf("%s holds a credential or cannot be checked for one (%s): reading it would print it", show(written), what)
		}
	}
	if recursive && res.isDir() && !opt.namesOnly {
		switch v {
		case VerdictOK:
			v, row, msg = j.checkTree(written, res.real, opt)
			rd.InTree = v == VerdictDenied
		case VerdictOutsideRoots:
			// Outside the roots it is asked about anyway; a deny row under
			// it (grep -r x ~ sees ~/.ssh) makes it denied. No full walk.
			// Outside the workspace there is no work that needs it: the read
			// is denied as if it named the secret (not in_tree).
			if tv, trow, tmsg := j.anchoredUnder(written, res.real, opt); tv == VerdictDenied {
				v, row, msg = tv, trow, tmsg
			} else if tv, trow, tmsg := j.walkList(written, res.real, walkOpts{skipHidden: opt.skipHidden, ignoreFiles: opt.ignoreFiles, hint: opt.hint, excl: opt.excl, maxDirs: outsideWalkDirs, skipRoots: true}, &treeStamp{}); tv == VerdictDenied {
				// A short walk finds the secrets near the top that no
				// anchored row names (grep -r . /proc/self sees
				// /proc/self/environ, rg x ~ sees ~/keys/a.pem); past
				// outsideWalkDirs directories the read stays asked.
				v, row, msg = tv, trow, tmsg
			}
		}
	}
	rd.set(v, row, msg)
}

// outsideWalkDirs caps the walk of a recursive read outside the roots: it
// is asked about anyway, so the walk only looks for a denied path near the
// top that would make it denied.
const outsideWalkDirs = 64

// verdictFor judges a path as written and its resolution.
func (j *judger) verdictFor(written string, res resolved) (v Verdict, row, msg string) {
	template := ""
	if r, ok := j.m.denied(written); ok {
		clean, why := j.cleanTemplate(written, res)
		if !clean {
			return VerdictDenied, r, fmt.Sprintf("%s matches deny row %s%s", show(written), quote(r), templateWhy(why))
		}
		template = why + fmt.Sprintf(" (deny row %s covers secrets of its name)", quote(r))
	}
	if r, ok := j.m.denied(res.real); ok && res.real != written {
		clean, why := j.cleanTemplate(res.real, res)
		if !clean {
			return VerdictDenied, r, fmt.Sprintf("%s resolves to %s, which matches deny row %s%s", show(written), show(res.real), quote(r), templateWhy(why))
		}
		template = why + fmt.Sprintf(" (deny row %s covers secrets of its name)", quote(r))
	}
	defer func() {
		if template != "" && v == VerdictOK {
			msg = template
		}
	}()
	if res.err != nil {
		return VerdictNotEstablished, "", fmt.Sprintf("%s cannot be established: %v", show(written), res.err)
	}
	if written == "/dev/null" {
		return VerdictOK, "", "/dev/null reads as empty"
	}
	if !j.m.inRoots(written) {
		return VerdictOutsideRoots, "", fmt.Sprintf("%s is outside the roots (%s)", show(written), strings.Join(j.m.roots, ", "))
	}
	if !j.m.inRoots(res.real) {
		return VerdictOutsideRoots, "", fmt.Sprintf("%s resolves to %s, outside the roots (%s)", show(written), show(res.real), strings.Join(j.m.roots, ", "))
	}
	if !res.exists {
		return VerdictMissing, "", fmt.Sprintf("%s does not exist", show(written))
	}
	if res.mode&(fs.ModeDevice|fs.ModeCharDevice|fs.ModeNamedPipe|fs.ModeSocket) != 0 {
		return VerdictNotEstablished, "", fmt.Sprintf("%s is a %s: reading it may block, never end or reach a device", show(written), typeName(res.mode))
	}
	if res.real != written {
		return VerdictOK, "", fmt.Sprintf("%s (real path %s) is inside the roots", show(written), show(res.real))
	}
	return VerdictOK, "", fmt.Sprintf("%s is inside the roots", show(written))
}

func quote(s string) string {
	return fmt.Sprintf("%q", s)
}
