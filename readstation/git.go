package readstation

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shellgate/shellgate/classify"
)

// maxConfigBytes bounds a git config or attributes file that is read.
const maxConfigBytes = 1 << 20

// maxIncludeDepth bounds include.path chains, as git does (10).
const maxIncludeDepth = 10

// cfgEntry is one key in a git config file.
type cfgEntry struct {
	section, sub, key string // section and key lower-cased; sub as written
	value             string
	file              string
}

func (e cfgEntry) name() string {
	if e.sub != "" {
		return e.section + "." + e.sub + "." + e.key
	}
	return e.section + "." + e.key
}

// parseGitConfig parses git's config syntax: [section], [section "sub"],
// [section.sub], key = value, bare keys (true), ; and # comments, quotes,
// escapes and backslash-newline continuations.
func parseGitConfig(data []byte, file string) []cfgEntry {
	var out []cfgEntry
	section, sub := "", ""
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(strings.TrimSuffix(lines[i], "\r"))
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.LastIndexByte(line, ']')
			if end < 0 {
				section, sub = "", ""
				continue
			}
			h := strings.TrimSpace(line[1:end])
			rest := strings.TrimSpace(line[end+1:])
			if q := strings.IndexByte(h, '"'); q >= 0 {
				section = strings.ToLower(strings.TrimSpace(h[:q]))
				sub = strings.TrimSuffix(h[q+1:], `"`)
				sub = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(sub)
			} else if d := strings.IndexByte(h, '.'); d >= 0 {
				section, sub = strings.ToLower(h[:d]), strings.ToLower(h[d+1:])
			} else {
				section, sub = strings.ToLower(h), ""
			}
			if rest == "" || rest[0] == '#' || rest[0] == ';' {
				continue
			}
			line = rest // "[core] pager = x" on one line
		}
		if section == "" {
			continue // no section, or a broken header: git refuses the file
		}
		key, raw, hasEq := strings.Cut(line, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !hasEq {
			out = append(out, cfgEntry{section, sub, key, "true", file})
			continue
		}
		for strings.HasSuffix(raw, "\\") && !strings.HasSuffix(raw, "\\\\") && i+1 < len(lines) {
			i++
			raw = strings.TrimSuffix(raw, "\\") + strings.TrimSuffix(lines[i], "\r")
		}
		out = append(out, cfgEntry{section, sub, key, configValue(raw), file})
	}
	return out
}

// configValue unquotes a config value and strips a trailing comment.
func configValue(raw string) string {
	var b strings.Builder
	inq := false
	raw = strings.TrimSpace(raw)
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '"':
			inq = !inq
		case c == '\\' && i+1 < len(raw):
			i++
			switch raw[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(raw[i])
			}
		case (c == '#' || c == ';') && !inq:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
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
	data, st, problem := readSmallStamp(p)
	j.adm.addFile(p, st)
	if j.record != nil {
		*j.record = append(*j.record, fileCand{p, st})
	}
	if problem != "" {
		j.unreadable = append(j.unreadable, unreadableFile{p, problem})
	}
	return data, data != nil
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
	data, err := os.ReadFile(p)
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

// helperKey reports whether a config key names a command git may run.
func helperKey(e cfgEntry, alias string) bool {
	falsy := func(v string) bool {
		switch strings.ToLower(v) {
		case "", "false", "no", "off", "0":
			return true
		}
		return false
	}
	switch e.section {
	case "core":
		switch e.key {
		case "fsmonitor":
			return !falsy(e.value)
		case "pager", "sshcommand", "editor", "askpass", "hookspath", "gitproxy", "alternaterefscommand":
			return e.sub == ""
		}
	case "diff":
		return e.sub == "" && e.key == "external" || e.sub != "" && (e.key == "textconv" || e.key == "command")
	case "filter":
		return e.sub != "" && (e.key == "clean" || e.key == "smudge" || e.key == "process")
	case "merge":
		return e.sub != "" && e.key == "driver"
	case "gpg":
		return e.key == "program" || e.key == "defaultkeycommand"
	case "tar":
		return e.sub != "" && e.key == "command"
	case "hook":
		return e.sub != "" && e.key == "command"
	case "log":
		return e.key == "showsignature" && !falsy(e.value)
	case "pager":
		return true
	case "alias":
		return alias != "" && strings.EqualFold(e.key, alias)
	case "credential":
		return e.key == "helper"
	case "remote":
		return e.key == "uploadpack" || e.key == "receivepack" || e.key == "proxy" ||
			(e.key == "url" || e.key == "pushurl") && strings.HasPrefix(e.value, "ext::")
	case "sequence":
		return e.key == "editor"
	case "interactive":
		return e.key == "difffilter"
	case "difftool", "mergetool", "browser", "man":
		return e.key == "cmd" || e.key == "path"
	case "web":
		return e.key == "browser"
	case "uploadpack":
		return e.key == "packobjectshook"
	case "submodule":
		return e.key == "update" && strings.HasPrefix(e.value, "!")
	case "protocol":
		return e.key == "allow" && e.sub == "ext" && strings.EqualFold(e.value, "always")
	}
	return false
}

// loadConfig reads a config file and the files it includes.
func (j *judger) loadConfig(p string, depth int, out *[]cfgEntry) {
	if depth > maxIncludeDepth {
		return
	}
	data, ok := j.read(p)
	if !ok {
		return
	}
	for _, e := range parseGitConfig(data, p) {
		*out = append(*out, e)
		if e.key == "path" && (e.section == "include" && e.sub == "" || e.section == "includeif") {
			inc := e.value
			switch {
			case strings.HasPrefix(inc, "~/") && j.b.Home != "":
				inc = filepath.Join(j.b.Home, inc[2:])
			case !filepath.IsAbs(inc):
				inc = filepath.Join(filepath.Dir(p), inc)
			}
			j.loadConfig(inc, depth+1, out)
		}
	}
}

type repoInfo struct {
	top, gitdir string
	// common is the git directory's common directory; subs are the
	// submodules git steps into (submodule.go).
	common string
	subs   []gitRepoRef
	config []cfgEntry
	attrs  []RepoHelper
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
	for _, f := range configFiles(gitdir, common) {
		j.loadConfig(f, 0, &ri.config)
	}
	ri.subs = j.submoduleRepos(top, gitdir, common)
	for _, sr := range ri.subs {
		for _, f := range configFiles(sr.gitdir, sr.common) {
			j.loadConfig(f, 0, &ri.config)
		}
	}
	drivers := map[string]cfgEntry{}
	for _, e := range ri.config {
		if e.sub == "" {
			continue
		}
		switch {
		case e.section == "diff" && (e.key == "textconv" || e.key == "command"),
			e.section == "filter" && (e.key == "clean" || e.key == "smudge" || e.key == "process"),
			e.section == "merge" && e.key == "driver":
			drivers[e.section+"="+e.sub] = e
		}
	}
	if len(drivers) > 0 {
		files := []string{joinAbs(common, "info/attributes")}
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
		for _, e := range ri.config {
			// core.hooksPath runs nothing itself: the hooks git would run
			// there are judged one by one (gitTraps).
			if helperKey(e, s.ConfigAlias) && !(e.section == "core" && e.key == "hookspath") {
				out = append(out, RepoHelper{Key: e.name(), File: e.file, Value: e.value, Segment: s.Index, Span: s.Span})
			}
		}
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
		j.extra = append(j.extra, Read{Path: f.path, Kind: "literal", Source: "repository", Resolved: f.path,
			Verdict: VerdictNotEstablished, Message: fmt.Sprintf("git reads %s, which cannot be read (%s), so the commands it configures cannot be established", show(f.path), f.why),
			Span: s.Span, Segment: s.Index, Matches: []string{}})
	}
}
