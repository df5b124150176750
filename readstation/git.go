package readstation

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gitrepo"
)

// maxConfigBytes bounds a git config or attributes file that is read.
const maxConfigBytes = 1 << 20

// maxIncludeDepth bounds include.path chains, as git does (10).
const maxIncludeDepth = 10

// cfgEntry is one key of git's configuration (package gitrepo reads it).
type cfgEntry struct {
	section, sub, key string // section and key lower-cased; sub as written
	value             string
	file              string
	scope             gitrepo.Scope
	noValue           bool
	// shadowed: a later entry has the name, so git does not use this
	// value (a key of one value).
	shadowed bool
}

func (e cfgEntry) name() string {
	if e.section == "" {
		return e.key // a key outside any section (gitrepo.Entry.PrintsKey)
	}
	if e.sub != "" {
		return e.section + "." + e.sub + "." + e.key
	}
	return e.section + "." + e.key
}

// entry is e as package gitrepo names it.
func (e cfgEntry) entry() gitrepo.Entry {
	return gitrepo.Entry{Scope: e.scope, File: e.file, Name: e.name(), Value: e.value, NoValue: e.noValue}
}

func fromEntry(e gitrepo.Entry) cfgEntry {
	v := e.Value
	if e.NoValue {
		v = "true" // a bare key reads as true
	}
	file := e.File
	if file == "" && e.EnvKey != "" {
		file = "the environment (" + e.EnvKey + ")"
	}
	return cfgEntry{section: e.Section(), sub: e.Subsection(), key: e.Key(), value: v, file: file, scope: e.Scope, noValue: e.NoValue}
}

// parseGitConfig parses a config file as git does (gitrepo.ParseFile),
// without its includes: the entries before a line git refuses.
func parseGitConfig(data []byte, file string) []cfgEntry {
	es, _ := gitrepo.ParseFile(data)
	out := make([]cfgEntry, 0, len(es))
	for _, e := range es {
		e.File, e.Scope = file, gitrepo.ScopeLocal
		out = append(out, fromEntry(e))
	}
	return out
}

// gitFiles reads git's files for package gitrepo through the judger: each
// is recorded (stamp in the admission, and in j.record).
type gitFiles struct{ j *judger }

func (f gitFiles) ReadFile(p string) ([]byte, error) {
	data, problem := f.j.readRecorded(p)
	switch {
	case problem != "":
		return nil, errors.New(problem)
	case data == nil:
		return nil, fs.ErrNotExist
	}
	return data, nil
}

func (f gitFiles) RealPath(p string) (string, error) {
	res := f.j.fs.resolve(p)
	if res.err != nil {
		return "", res.err
	}
	return res.real, nil
}

// gitEnv is the environment git runs in, as far as it is known: HOME is
// the boundary's home (the station's "~"), every other variable the
// agent's (Boundary.Env; one it does not know is not known).
func (j *judger) gitEnv(name string) (string, bool) {
	if name == "HOME" {
		return j.b.Home, j.b.Home != "" // no home: where git looks is not known
	}
	if j.b.Env == nil {
		return "", false
	}
	return j.b.Env.Lookup(name)
}

// gitConfig reads the configuration git reads in the repository whose git
// directory is gitdir (every scope: system, global, local, worktree, the
// environment's). What cannot be read exactly as git reads it is noted
// in j.unreadable, and then there are no entries.
func (j *judger) gitConfig(gitdir, common string) []cfgEntry {
	cfg, err := gitrepo.Load(gitrepo.Options{Files: gitFiles{j}, Env: j.gitEnv, GitDir: gitdir, CommonDir: common})
	if err == nil && !cfg.WorktreeConfig {
		// git does not read config.worktree now; one that appears before
		// the spawn is still a change (with the extension set with it).
		p := joinAbs(gitdir, "config.worktree")
		if st, err := statStamp(p); err == nil {
			j.adm.addFile(p, st)
		}
	}
	return j.configEntries(cfg, err)
}

func (j *judger) configEntries(cfg *gitrepo.Config, err error) []cfgEntry {
	if err != nil {
		var ne *gitrepo.NotEstablishedError
		if errors.As(err, &ne) {
			j.unreadable = append(j.unreadable, unreadableFile{ne.File, ne.Why})
		} else {
			j.unreadable = append(j.unreadable, unreadableFile{"", err.Error()})
		}
		return nil
	}
	out := make([]cfgEntry, 0, len(cfg.Entries))
	shadowed := cfg.Shadowed()
	for i, e := range cfg.Entries {
		if e.Scope == gitrepo.ScopeCommand && ownGitConfig(j.b.Env) {
			continue // the runner's own overrides (execution.GitOverrides)
		}
		c := fromEntry(e)
		c.shadowed = shadowed[i]
		out = append(out, c)
	}
	return out
}

// loadConfig reads a repository's config file and the files it includes
// (every includeIf taken as true: the file is read without the repository
// git would evaluate its conditions in), appending to out.
func (j *judger) loadConfig(p string, _ int, out *[]cfgEntry) {
	cfg, err := gitrepo.LoadFile(gitrepo.Options{Files: gitFiles{j}, Env: j.gitEnv, AllConditions: true}, p, gitrepo.ScopeLocal)
	*out = append(*out, j.configEntries(cfg, err)...)
}

type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

// same reports an unchanged file (mtime compared as an instant).
func (s fileStamp) same(o fileStamp) bool {
	return s.size == o.size && s.ino == o.ino && s.mtime.Equal(o.mtime)
}

var gitFileCache struct {
	sync.Mutex
	m     map[string]gitFile
	bytes int // the data held, bounded by maxGitCacheBytes
}

// maxGitCacheBytes bounds the repository file data kept across calls: 256
// files of up to maxConfigBytes each would otherwise hold 256 MiB.
const maxGitCacheBytes = 4 << 20

type gitFile struct {
	stamp fileStamp
	data  []byte
}

// read reads a repository file and records its stamp (or its absence) in
// the admission: a helper configured between the check and the spawn is a
// change.
//
// A file that exists but cannot be read whole (permission denied, larger
// than maxConfigBytes, not a regular file) is noted in j.unreadable: git
// may read what the station cannot, so the commands it configures are not
// known.
func (j *judger) read(p string) ([]byte, bool) {
	data, problem := j.readRecorded(p)
	if problem != "" {
		j.unreadable = append(j.unreadable, unreadableFile{p, problem})
	}
	return data, data != nil
}

// readRecorded reads p as read does, without noting a problem: the data
// (nil when p cannot be read) and, when p exists but cannot be read
// whole, why.
func (j *judger) readRecorded(p string) ([]byte, string) {
	data, st, problem := readSmallStamp(p)
	j.adm.addFile(p, st)
	if j.record != nil {
		*j.record = append(*j.record, fileCand{p, st})
	}
	return data, problem
}

// unreadableFile is a repository file the station could not read.
type unreadableFile struct {
	path, why string
}

// statStamp returns p's stamp, zero when p does not exist; an error when
// p cannot be stat'ed for another reason.
func statStamp(p string) (fileStamp, error) {
	fsCalls.Add(1)
	fi, err := os.Stat(p)
	if err != nil {
		if notFound(err) {
			return fileStamp{}, nil
		}
		return fileStamp{}, err
	}
	_, ino := devIno(fi)
	return fileStamp{fi.Size(), fi.ModTime(), ino}, nil
}

// readSmallStamp reads p. It returns the data (nil when p cannot be read),
// p's stamp (zero when p does not exist) and, when p exists but cannot be
// read whole, why.
func readSmallStamp(p string) ([]byte, fileStamp, string) {
	fsCalls.Add(1)
	fi, err := os.Stat(p)
	if err != nil {
		if notFound(err) {
			return nil, fileStamp{}, ""
		}
		return nil, fileStamp{}, err.Error()
	}
	_, ino := devIno(fi)
	st := fileStamp{fi.Size(), fi.ModTime(), ino}
	if !fi.Mode().IsRegular() {
		return nil, st, "it is a " + typeName(fi.Mode())
	}
	if fi.Size() > maxConfigBytes {
		return nil, st, fmt.Sprintf("it is larger than %d bytes", maxConfigBytes)
	}
	gitFileCache.Lock()
	f, ok := gitFileCache.m[p]
	gitFileCache.Unlock()
	if ok && f.stamp == st {
		return f.data, st, ""
	}
	fsCalls.Add(4)
	data, err := readRegular(p, maxConfigBytes)
	if err != nil {
		return nil, st, err.Error()
	}
	if len(data) > maxConfigBytes {
		return nil, st, fmt.Sprintf("it is larger than %d bytes", maxConfigBytes)
	}
	if data == nil {
		data = []byte{}
	}
	gitFileCache.Lock()
	if old, ok := gitFileCache.m[p]; ok {
		gitFileCache.bytes -= len(old.data)
	}
	if gitFileCache.m == nil || len(gitFileCache.m) > 256 || gitFileCache.bytes+len(data) > maxGitCacheBytes {
		gitFileCache.m = map[string]gitFile{}
		gitFileCache.bytes = 0
	}
	gitFileCache.m[p] = gitFile{st, data}
	gitFileCache.bytes += len(data)
	gitFileCache.Unlock()
	return data, st, ""
}

// findGitDir discovers the repository for the real directory dir the way
// git does: dir/.git (a directory, or a file "gitdir: X"), or dir itself
// being a git directory (a bare repository), then the parent, up to /.
func (j *judger) findGitDir(dir string) (top, gitdir string, ok bool) {
	for d := dir; ; {
		g := joinAbs(d, ".git")
		// A .git that appears, goes or changes between the check and the
		// spawn is another repository, with other helpers.
		j.adm.addPath(g, j.fs.resolve(g))
		n := j.fs.lstat(g)
		if n.err == nil {
			res := resolved{real: g, exists: true, mode: n.mode}
			if n.mode&fs.ModeSymlink != 0 {
				res = j.fs.resolve(g)
			}
			switch {
			case res.isDir():
				return d, res.real, true
			case res.exists:
				if p, ok := j.gitdirFile(res.real, d); ok {
					return d, p, true
				}
			}
		}
		if j.isGitDir(d) {
			return d, d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", false
		}
		d = parent
	}
}

// gitdirFile reads a .git file ("gitdir: PATH", a worktree's or a
// submodule's): the git directory it names, relative to dir.
func (j *judger) gitdirFile(p, dir string) (string, bool) {
	data, ok := j.read(p)
	if !ok {
		return "", false
	}
	line := strings.TrimSpace(string(bytes.SplitN(data, []byte("\n"), 2)[0]))
	g, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return "", false
	}
	g = strings.TrimSpace(g)
	if !filepath.IsAbs(g) {
		g = filepath.Join(dir, g)
	}
	return filepath.Clean(g), true
}

func (j *judger) isGitDir(d string) bool {
	h := j.fs.lstat(joinAbs(d, "HEAD"))
	if h.err != nil || !h.mode.IsRegular() {
		return false
	}
	o := j.fs.lstat(joinAbs(d, "objects"))
	r := j.fs.lstat(joinAbs(d, "refs"))
	return o.err == nil && o.mode.IsDir() && r.err == nil && r.mode.IsDir()
}

// repoTop is the git top level of the directory abs (for git ls-files).
func (j *judger) repoTop(abs string) (string, bool) {
	res := j.fs.resolve(abs)
	if !res.isDir() {
		return "", false
	}
	top, gitdir, ok := j.findGitDir(res.real)
	if !ok || top == gitdir {
		return "", false // bare: no work tree
	}
	return top, true
}

// helperKey reports whether a config key names a command git may run
// (the table gitrepo.Keys): in the repository's own config every key of
// the table; in the user's (system, global) and the environment's, the
// keys a read-only command runs, in the value git uses (gitrepo.IsHelper).
func helperKey(e cfgEntry, alias string) bool {
	if e.shadowed && !e.scope.Repository() {
		return false // git uses a later value
	}
	_, ok := gitrepo.IsHelper(e.entry(), alias)
	return ok
}

type repoInfo struct {
	top, gitdir string
	// common is the git directory's common directory; subs are the
	// submodules git steps into (submodule.go).
	common string
	subs   []gitRepoRef
	// problems are what makes the repository's reading not established
	// beyond a file that cannot be read (a work tree elsewhere).
	problems []unreadableFile
	config   []cfgEntry
	attrs    []RepoHelper
	// unreadable are the repository files that exist but could not be read.
	unreadable []unreadableFile
}

// commonDir is the directory a git directory shares its config and
// objects with: its commondir (a worktree's), else itself.
func (j *judger) commonDir(gitdir string) string {
	if data, ok := j.read(joinAbs(gitdir, "commondir")); ok {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitdir, c)
		}
		return filepath.Clean(c)
	}
	return gitdir
}

// configFiles are a repository's own config files, in the order git reads
// them.
func configFiles(gitdir, common string) []string {
	return []string{joinAbs(common, "config"), joinAbs(gitdir, "config.worktree")}
}

// repo reads a repository's config and attributes once per Judge.
func (j *judger) repo(top, gitdir string, cwd string, cache map[string]*repoInfo) *repoInfo {
	key := gitdir + "\x00" + cwd
	if ri, ok := cache[key]; ok {
		return ri
	}
	ri := &repoInfo{top: top, gitdir: gitdir}
	mark := len(j.unreadable)
	defer func() { ri.unreadable = slices.Clone(j.unreadable[mark:]) }()
	common := j.commonDir(gitdir)
	ri.common = common
	ri.config = j.gitConfig(gitdir, common)
	ri.problems = j.worktreeElsewhere(top, gitdir, ri.config)
	ri.subs = j.submoduleRepos(top, gitdir, common)
	for _, sr := range ri.subs {
		for _, f := range configFiles(sr.gitdir, sr.common) {
			j.loadConfig(f, 0, &ri.config)
		}
	}
	drivers := map[string]cfgEntry{}
	for _, e := range ri.config {
		if k := gitrepo.DriverKey(e.entry()); k != "" {
			drivers[k] = e
		}
	}
	if len(drivers) > 0 {
		files := []string{j.attributesFile(ri.config), joinAbs(common, "info/attributes")}
		if top != gitdir {
			// .gitattributes from the top level down to the cwd.
			files = append(files, joinAbs(top, ".gitattributes"))
			if rel, err := filepath.Rel(top, cwd); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
				d := top
				for _, c := range strings.Split(rel, "/") {
					d = joinAbs(d, c)
					files = append(files, joinAbs(d, ".gitattributes"))
				}
			}
		}
		for _, f := range files {
			if f == "" {
				continue
			}
			data, ok := j.read(f)
			if !ok {
				continue
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				line := strings.TrimSpace(sc.Text())
				if line == "" || line[0] == '#' {
					continue
				}
				fields := strings.Fields(line)
				for _, a := range fields[1:] {
					for _, kind := range []string{"diff", "filter", "merge"} {
						if drv, ok := strings.CutPrefix(a, kind+"="); ok {
							if _, set := drivers[kind+"="+drv]; set {
								ri.attrs = append(ri.attrs, RepoHelper{Key: "attribute " + a, File: f, Value: line})
							}
						}
					}
				}
			}
		}
	}
	cache[key] = ri
	return ri
}

// attributesFile is the attributes file git reads besides the
// repository's: core.attributesFile (its last value; "~/" is home), else
// $XDG_CONFIG_HOME/git/attributes or ~/.config/git/attributes; "" when
// none is known.
func (j *judger) attributesFile(cfg []cfgEntry) string {
	for i := len(cfg) - 1; i >= 0; i-- {
		if e := cfg[i]; e.section == "core" && e.sub == "" && e.key == "attributesfile" {
			switch v := e.value; {
			case strings.HasPrefix(v, "~/") && j.b.Home != "":
				return joinAbs(j.b.Home, v[2:])
			case filepath.IsAbs(v):
				return filepath.Clean(v)
			default:
				return "" // relative: to the cwd git runs in (rare)
			}
		}
	}
	if x, known := j.gitEnv("XDG_CONFIG_HOME"); known && x != "" && filepath.IsAbs(x) {
		return joinAbs(filepath.Clean(x), "git/attributes")
	}
	if j.b.Home != "" {
		return joinAbs(j.b.Home, ".config/git/attributes")
	}
	return ""
}

// worktreeElsewhere: core.worktree in the repository's own config makes
// git use another directory as its work tree (git diff prints the files
// there that the index, which the repository also controls, tracks). One
// that is the repository's top level, or inside it, changes nothing that
// matters; anywhere else the reads of git are not established.
func (j *judger) worktreeElsewhere(top, gitdir string, cfg []cfgEntry) []unreadableFile {
	var out []unreadableFile
	for _, e := range cfg {
		if e.section != "core" || e.sub != "" || e.key != "worktree" || !e.scope.Repository() {
			continue
		}
		wt := e.value
		if !filepath.IsAbs(wt) {
			wt = filepath.Join(gitdir, wt) // git: relative to the git directory
		}
		res := j.fs.resolve(wt)
		if top != gitdir && res.err == nil && (res.real == top || strings.HasPrefix(res.real, top+"/")) {
			continue
		}
		out = append(out, unreadableFile{e.file, fmt.Sprintf("it sets core.worktree = %s, so git reads and prints the files of that directory as its work tree", e.value)})
	}
	return out
}

// repoHelpers reports, for every segment whose program runs git (catalog
// runs_git: git itself, go list), the commands its repository configured;
// a git alias the segment may run (catalog config_aliases) counts as one.
func (j *judger) repoHelpers() []RepoHelper {
	out := []RepoHelper{}
	cache := map[string]*repoInfo{}
	for i := range j.r.Segments {
		s := &j.r.Segments[i]
		if !s.RunsGit {
			continue
		}
		cwd, ok := j.cwdAfter(s, s.GitRepo.InWorkTree)
		if !ok {
			// git runs in a repository whose config cannot be read: say
			// so with a read of its own.
			j.extra = append(j.extra, Read{Path: s.Cwd.Path, Kind: "literal", Source: "repository",
				Verdict: VerdictNotEstablished, Message: "the directory git runs in, and so its repository and the commands its config names, cannot be established",
				Span: s.Span, Segment: s.Index, Matches: []string{}})
			continue
		}
		res := j.fs.resolve(cwd)
		if !res.isDir() {
			continue
		}
		top, gitdir, ok := j.pointedRepo(s, res.real)
		if !ok {
			continue
		}
		mark := len(j.unreadable)
		if gitdir == "" {
			if top, gitdir, ok = j.findGitDir(res.real); !ok {
				j.unreadableReads(s, j.unreadable[mark:])
				continue
			}
		}
		found := slices.Clone(j.unreadable[mark:])
		ri := j.repo(top, gitdir, res.real, cache)
		j.unreadableReads(s, append(found, ri.unreadable...))
		for _, p := range ri.problems {
			j.extra = append(j.extra, Read{Path: p.path, Kind: "literal", Source: "repository", Resolved: p.path,
				Verdict: VerdictNotEstablished, Message: fmt.Sprintf("%s %s: what git reads and prints cannot be established", show(p.path), p.why),
				Span: s.Span, Segment: s.Index, Matches: []string{}})
		}
		for _, e := range ri.config {
			// core.hooksPath runs nothing itself: the hooks git would run
			// there are judged one by one (gitTraps).
			if helperKey(e, s.ConfigAlias) && !(e.section == "core" && e.key == "hookspath") {
				h := RepoHelper{Key: e.name(), File: e.file, Value: e.value, Segment: s.Index, Span: s.Span}
				if e.scope != gitrepo.ScopeLocal && e.scope != gitrepo.ScopeWorktree {
					h.Kind = HelperUserConfig
				}
				out = append(out, h)
			}
		}
		j.gitFileKeys(s, ri, res.real)
		j.printedKeyFiles(s, ri)
		for _, a := range ri.attrs {
			a.Segment, a.Span = s.Index, s.Span
			out = append(out, a)
		}
		mark = len(j.unreadable)
		out = append(out, j.gitTraps(s, ri)...)
		j.unreadableReads(s, j.unreadable[mark:])
	}
	return out
}

// pointedRepo reads what points git segment s, running in the real
// directory dir, at a repository, config or work tree other than the one
// it finds from dir (classify.Segment.GitRepo, from the catalog's
// git_repo): each such assignment or work tree, and a git directory not
// known statically, adds a not-established read. It returns the git
// directory named statically, or dir itself for a bare one (top is then
// the git directory: no work tree), or "" to find it from dir; ok is false
// when the repository cannot be established at all.
func (j *judger) pointedRepo(s *classify.Segment, dir string) (top, gitdir string, ok bool) {
	g := s.GitRepo
	if g == nil {
		return "", "", true
	}
	for _, a := range g.Env {
		j.extra = append(j.extra, Read{Path: a.Value.Value, Kind: "literal", Source: "repository",
			Verdict: VerdictNotEstablished, Message: a.Name + " points git at a repository, config or work tree the station does not inspect",
			Span: a.Span, Segment: s.Index, Matches: []string{}})
	}
	for _, o := range g.WorkTree {
		if o.Value == nil {
			continue
		}
		kind := "literal"
		if !o.Value.Static() {
			kind = "dynamic"
		}
		j.extra = append(j.extra, Read{Path: o.Value.Value, Kind: kind, Source: "repository",
			Verdict: VerdictNotEstablished, Message: o.Name + " points git at a work tree the station does not inspect: which files git reads there, and which of them it prints, cannot be established",
			Span: o.Span, Segment: s.Index, Matches: []string{}})
	}
	ok = true
	for _, o := range g.GitDir {
		switch {
		case o.Value == nil:
		case !o.Value.Static():
			j.extra = append(j.extra, Read{Path: o.Value.Value, Kind: "dynamic", Source: "repository",
				Verdict: VerdictNotEstablished, Message: o.Name + " is not known statically, so the repository git uses and the commands its config names cannot be established",
				Span: o.Span, Segment: s.Index, Matches: []string{}})
			ok = false
		default:
			gitdir = o.Value.Value
			if !filepath.IsAbs(gitdir) {
				gitdir = filepath.Join(dir, gitdir)
			}
			gitdir = j.fs.resolve(gitdir).real
			top = gitdir
		}
	}
	if gitdir == "" && g.Bare != nil {
		// git --bare: the directory git runs in is its git directory, and
		// its config (a file named config there) is the one git reads.
		top, gitdir = dir, dir
	}
	return top, gitdir, ok
}

// unreadableReads adds a not-established read for every repository file
// git segment s would read that the station could not: what git finds
// there (a helper, another repository) is not known.
func (j *judger) unreadableReads(s *classify.Segment, files []unreadableFile) {
	for _, f := range files {
		if f.path == "" {
			// the environment git runs in (gitrepo)
			j.extra = append(j.extra, Read{Path: "$GIT_CONFIG_*", Kind: "dynamic", Source: "repository",
				Verdict: VerdictNotEstablished, Message: fmt.Sprintf("git reads its configuration from the environment, and %s, so the commands it configures cannot be established", f.why),
				Span: s.Span, Segment: s.Index, Matches: []string{}})
			continue
		}
		j.extra = append(j.extra, Read{Path: f.path, Kind: "literal", Source: "repository", Resolved: f.path,
			Verdict: VerdictNotEstablished, Message: fmt.Sprintf("git reads %s, which cannot be read (%s), so the commands it configures cannot be established", show(f.path), f.why),
			Span: s.Span, Segment: s.Index, Matches: []string{}})
	}
}

// readRegular reads the regular file p, at most max+1 bytes, opened
// without blocking and checked to be regular on the open file (a path
// swapped for a FIFO or a device after a stat is refused, never waited on).
func readRegular(p string, max int64) ([]byte, error) {
	f, err := openNoBlock(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("it is a %s", typeName(fi.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if data == nil {
		data = []byte{}
	}
	return data, nil
}

// printedKeyFiles judges, as a read of git segment s, each config file git
// reads that has a key outside any section (gitrepo.Entry.PrintsKey): git
// prints that key in an error on every command, so a config file, or one
// it includes, that is a one-word token file (or a link to one) prints the
// token. A regular file of the roots is the attacker's own writing and
// passes; one a deny row covers, or a link to one, is denied; any other
// (outside the roots, not regular) is asked about.
func (j *judger) printedKeyFiles(s *classify.Segment, ri *repoInfo) {
	var seen []string
	for _, e := range ri.config {
		if !e.entry().PrintsKey() || !filepath.IsAbs(e.file) || slices.Contains(seen, e.file) {
			continue
		}
		seen = append(seen, e.file)
		p := filepath.Clean(e.file)
		res := j.fs.resolve(p)
		v, row, msg := j.verdictFor(p, res)
		if v == VerdictOK || v == VerdictMissing {
			if res.err == nil && res.mode.IsRegular() {
				continue
			}
			v, msg = VerdictNotEstablished, fmt.Sprintf("%s is a %s", show(p), typeName(res.mode))
		}
		j.extra = append(j.extra, Read{Path: p, Kind: "literal", Source: "repository", Resolved: p, Real: res.real,
			Verdict: v, Row: row, Message: fmt.Sprintf("git prints the key of a line outside any section of %s in an error on every command (\"key does not contain a section\"), and %s", show(p), msg),
			Span: s.Span, Segment: s.Index, Matches: []string{}})
	}
}

// gitFileKeys judges the files that configuration keys of the table
// gitrepo.FileKeys name, for a segment whose git command reads them, as
// reads of the segment: the file's path as git expands it (~/ is the home
// directory; a relative path is judged from both the directory git runs in
// and the top level); a value git would expand otherwise (%(prefix)/) is
// not established.
func (j *judger) gitFileKeys(s *classify.Segment, ri *repoInfo, cwd string) {
	for _, e := range ri.config {
		for _, fk := range gitrepo.FileKeys {
			if e.section != fk.Section || e.sub != "" || e.key != fk.Key || !slices.Contains(fk.Commands, s.Subcommand) {
				continue
			}
			rd := Read{Path: e.value, Kind: "literal", Source: "repository", Span: s.Span, Segment: s.Index, Matches: []string{}}
			var texts []string
			switch v := e.value; {
			case v == "" || e.noValue:
				continue
			case strings.HasPrefix(v, "%("):
				rd.set(VerdictNotEstablished, "", fmt.Sprintf("%s in %s names a file git finds where it is installed (%s), which is not established: %s", e.name(), show(e.file), quote(v), fk.Doc))
				j.extra = append(j.extra, rd)
				continue
			case v == "~" || strings.HasPrefix(v, "~/"):
				if j.b.Home == "" {
					rd.set(VerdictNotEstablished, "", fmt.Sprintf("%s in %s names %s, and the home directory is not known", e.name(), show(e.file), quote(v)))
					j.extra = append(j.extra, rd)
					continue
				}
				texts = []string{filepath.Join(j.b.Home, strings.TrimPrefix(v, "~"))}
			case strings.HasPrefix(v, "~"):
				rd.set(VerdictNotEstablished, "", fmt.Sprintf("%s in %s names %s, another user's home directory, which is not established", e.name(), show(e.file), quote(v)))
				j.extra = append(j.extra, rd)
				continue
			case filepath.IsAbs(v):
				texts = []string{v}
			default:
				texts = []string{filepath.Join(cwd, v), filepath.Join(ri.top, v)}
			}
			for _, t := range texts {
				r := rd
				j.judgeText(t, false, walkOpts{}, &r)
				if r.Verdict != VerdictOK && r.Verdict != VerdictMissing {
					r.Message = fmt.Sprintf("%s in %s names %s: git %s reads it (%s): %s", e.name(), show(e.file), show(t), s.Subcommand, fk.Doc, r.Message)
				}
				j.extra = append(j.extra, r)
			}
		}
	}
}
