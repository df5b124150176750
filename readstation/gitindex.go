package readstation

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gitrepo"
)

// git prints what a repository tracks: git grep searches the tracked
// files, and git log -p, git show, git diff and git cat-file print their
// content and history. A secret the repository tracks (a committed .env)
// is printed by them although no path in the command names it. The
// station reads the repository's index (the list of tracked paths) and
// judges each tracked path against the deny rows.
//
// History is not read: a secret committed once and removed since is in no
// index, and git log -p still prints it.

// maxIndexBytes caps the index read: a larger one is not established.
const maxIndexBytes = 64 << 20

// errIndexUnsupported marks an index whose tracked paths are not all in
// it (a split or sparse index).
var errIndexUnsupported = errors.New("unsupported index")

// parseIndex returns the paths a git index lists (format versions 2, 3
// and 4; SHA-1 or SHA-256 object names). The trailing checksum is
// verified unless it is zero (index.skipHash). A split index (the "link"
// extension: most entries live in a shared index) and a sparse index
// (directory entries stand for the paths below them) do not list every
// tracked path: they are errIndexUnsupported.
func parseIndex(data []byte) ([]string, error) {
	es, err := parseIndexEntries(data, nil)
	return entryPaths(es), err
}

// indexEntry is one entry of a git index: its path and its mode (0o160000
// for a gitlink: a submodule's commit, which git status and git diff step
// into).
type indexEntry struct {
	path string
	mode uint32
}

// gitlinkMode is the mode of an index entry that records a submodule.
const gitlinkMode = 0o160000

// entryPaths are the entries' paths, or nil for none.
func entryPaths(es []indexEntry) []string {
	if es == nil {
		return nil
	}
	paths := make([]string, len(es))
	for i, e := range es {
		paths[i] = e.path
	}
	return paths
}

// parseIndexEntries is parseIndex with each entry's mode; when keep is
// not nil, only the entries whose mode it keeps are returned (the others
// are parsed and checked all the same, without a copy of their path).
func parseIndexEntries(data []byte, keep func(mode uint32) bool) ([]indexEntry, error) {
	if len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, errors.New("not a git index (no DIRC header)")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("index version %d is not supported", version)
	}
	var firstErr error
	for _, hashLen := range []int{sha1.Size, sha256.Size} {
		if len(data) < 12+hashLen {
			continue
		}
		body, sum := data[:len(data)-hashLen], data[len(data)-hashLen:]
		if !bytes.Equal(sum, make([]byte, hashLen)) && !checksumOK(body, sum) {
			continue
		}
		es, err := parseEntryList(body, version, hashLen, keep)
		if err == nil || errors.Is(err, errIndexUnsupported) {
			return es, err
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if firstErr == nil {
		firstErr = errors.New("the index checksum does not match")
	}
	return nil, firstErr
}

func checksumOK(body, sum []byte) bool {
	switch len(sum) {
	case sha1.Size:
		s := sha1.Sum(body)
		return bytes.Equal(s[:], sum)
	case sha256.Size:
		s := sha256.Sum256(body)
		return bytes.Equal(s[:], sum)
	}
	return false
}

// parseEntries parses the entries and extensions of an index whose
// trailing checksum is cut off; every byte must be accounted for.
func parseEntries(data []byte, version uint32, hashLen int) ([]string, error) {
	es, err := parseEntryList(data, version, hashLen, nil)
	return entryPaths(es), err
}

// parseEntryList is parseEntries with each entry's mode.
func parseEntryList(data []byte, version uint32, hashLen int, keep func(mode uint32) bool) ([]indexEntry, error) {
	n := binary.BigEndian.Uint32(data[8:12])
	// Each entry takes at least 40 bytes of stat data, the object name
	// and 2 bytes of flags: a count the data cannot hold is corrupt.
	if uint64(n)*uint64(40+hashLen+2) > uint64(len(data)) {
		return nil, fmt.Errorf("the index claims %d entries in %d bytes", n, len(data))
	}
	var paths []indexEntry
	if keep == nil {
		paths = make([]indexEntry, 0, n)
	}
	off := 12
	var prev []byte
	empty := false
	for i := uint32(0); i < n; i++ {
		start := off
		if off+40+hashLen+2 > len(data) {
			return nil, errors.New("the index ends inside an entry")
		}
		mode := binary.BigEndian.Uint32(data[off+24 : off+28])
		flags := binary.BigEndian.Uint16(data[off+40+hashLen:])
		off += 40 + hashLen + 2
		if flags&0x4000 != 0 {
			if version < 3 {
				return nil, errors.New("an extended entry in a version 2 index")
			}
			off += 2
			if off > len(data) {
				return nil, errors.New("the index ends inside an entry")
			}
		}
		var name []byte
		if version == 4 {
			strip, k, ok := indexVarint(data[off:])
			if !ok || strip > uint64(len(prev)) {
				return nil, errors.New("a bad path prefix in a version 4 index")
			}
			off += k
			end := bytes.IndexByte(data[off:], 0)
			if end < 0 {
				return nil, errors.New("the index ends inside a path")
			}
			name = append(append([]byte{}, prev[:uint64(len(prev))-strip]...), data[off:off+end]...)
			off += end + 1
		} else {
			end := bytes.IndexByte(data[off:], 0)
			if end < 0 {
				return nil, errors.New("the index ends inside a path")
			}
			name = data[off : off+end]
			if l := int(flags & 0x0fff); l < 0x0fff && l != end {
				return nil, errors.New("a path length in the index does not match its path")
			}
			// 1 to 8 NUL bytes pad the entry to a multiple of 8 bytes.
			next := start + (off-start+end+8)&^7
			if next > len(data) {
				return nil, errors.New("the index ends inside an entry")
			}
			for _, b := range data[off+end : next] {
				if b != 0 {
					return nil, errors.New("bad padding in the index")
				}
			}
			off = next
		}
		if mode>>12 == 0o04 {
			return nil, fmt.Errorf("%w: a sparse index (directory entries stand for the paths below them)", errIndexUnsupported)
		}
		if len(name) == 0 {
			// Only a split index has them (the entry replaces one in the
			// shared index): the "link" extension below says so.
			empty = true
			continue
		}
		if keep == nil || keep(mode) {
			paths = append(paths, indexEntry{string(name), mode})
		}
		prev = name
	}
	for off < len(data) {
		if off+8 > len(data) {
			return nil, errors.New("the index ends inside an extension header")
		}
		sig := string(data[off : off+4])
		size := uint64(binary.BigEndian.Uint32(data[off+4 : off+8]))
		if uint64(off)+8+size > uint64(len(data)) {
			return nil, fmt.Errorf("the index extension %q overruns the index", sig)
		}
		switch sig {
		case "link":
			return nil, fmt.Errorf("%w: a split index (most entries are in a shared index)", errIndexUnsupported)
		case "sdir":
			return nil, fmt.Errorf("%w: a sparse index (directory entries stand for the paths below them)", errIndexUnsupported)
		}
		off += 8 + int(size)
	}
	if empty {
		return nil, errors.New("an empty path in the index")
	}
	return paths, nil
}

// indexVarint decodes the offset varint of a version 4 index (as in pack
// files: each continuation adds one before shifting).
func indexVarint(b []byte) (uint64, int, bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	c := b[0]
	v := uint64(c & 127)
	k := 1
	for c&128 != 0 {
		if k >= len(b) || k > 9 {
			return 0, 0, false
		}
		c = b[k]
		k++
		v = (v+1)<<7 | uint64(c&127)
	}
	return v, k, true
}

// noIndexKey returns the setting of git's configuration outside a
// repository (the user's, the system's, the environment's) that makes
// segment seg's git command read the directory it runs in whole
// (gitrepo.NoIndexKeys: grep.fallbackToNoIndex for git grep).
func (j *judger) noIndexKey(seg int) (cfgEntry, bool) {
	if seg < 0 || seg >= len(j.r.Segments) {
		return cfgEntry{}, false
	}
	sub := j.r.Segments[seg].Subcommand
	var found cfgEntry
	ok := false
	for _, e := range j.gitConfig("", "") {
		for _, k := range gitrepo.NoIndexKeys {
			if e.section == k.Section && e.sub == "" && e.key == k.Key && slices.Contains(k.Commands, sub) {
				// The last value wins, as git reads it.
				found, ok = e, gitrepo.IsTrue(e.entry())
			}
		}
	}
	return found, ok
}

// judgeTracked judges the read of what a whole repository tracks
// (PathRef.Source "git-tracked": git grep, git log -p, git show, git diff
// with no pathspec): the repository is found from the cwd as git finds
// it; a tracked path a deny row covers makes the read denied, in the
// tree (asked; readonly: denied), since a pathspec can leave it out.
func (j *judger) judgeTracked(ref *classify.PathRef, rd *Read) {
	top, gitdir, ok, why := j.cwdRepo(ref.Cwd)
	switch {
	case why != "":
		rd.set(VerdictNotEstablished, "", why)
		return
	case !ok:
		if e, ok := j.noIndexKey(ref.Segment); ok {
			// The whole tree, as git grep --no-index reads it.
			c := j.cwdOf(ref.Cwd)
			res := j.fs.resolve(c.abs)
			rd.Resolved, rd.Real = c.abs, res.real
			v, row, msg := j.checkTree(c.abs, res.real, j.walkOpts(ref.Segment))
			rd.InTree = v == VerdictDenied
			if v != VerdictOK {
				msg = fmt.Sprintf("the command runs in no repository, and %s in %s makes git read the directory's files (%s): %s", e.name(), show(e.file), e.key, msg)
			}
			rd.set(v, row, msg)
			return
		}
		rd.set(VerdictOK, "", "the command runs in no repository: git has nothing tracked to print")
		return
	}
	rd.Resolved, rd.Real = top, top
	if p, ok := j.existingPathspec(ref.Segment); ok {
		rd.set(VerdictOK, "", fmt.Sprintf("%s exists, so git takes it as a pathspec: it prints what is tracked there, judged on its own", quote(p)))
		return
	}
	if top == gitdir {
		rd.set(VerdictNotEstablished, "", fmt.Sprintf("%s is a bare repository: git prints its history, and no index says which paths it tracks", show(top)))
		return
	}
	d, found, why := j.trackedDenied(top, gitdir, top)
	switch {
	case why != "":
		rd.set(VerdictNotEstablished, "", why)
	case found:
		rd.InTree = true
		rd.set(VerdictDenied, d.row, fmt.Sprintf("the repository %s tracks %s (deny row %s), and with no pathspec to narrow it git prints what the repository tracks (and its history, with log -p or show): name the paths after --", show(top), show(d.path), quote(d.row)))
	default:
		rd.set(VerdictOK, "", fmt.Sprintf("the repository %s tracks no path a deny row covers (its history is not read)", show(top)))
		j.trackedInSubmodules(top, gitdir, rd)
	}
}

// trackedInSubmodules judges what the submodules of the repository at top
// track: with submodule.recurse set git grep searches every active
// submodule's tracked files too, and with diff.submodule=diff git diff,
// git log -p and git show print the changes inside submodules (in any
// config, the user's global one included, which the station does not
// read; both confirmed with the real git: a .env a submodule tracks is
// printed). rd is an ok read.
func (j *judger) trackedInSubmodules(top, gitdir string, rd *Read) {
	mark := len(j.unreadable)
	subs := j.submoduleRepos(top, gitdir, j.commonDir(gitdir))
	if u := j.unreadable[mark:]; len(u) > 0 {
		j.unreadable = j.unreadable[:mark]
		rd.set(VerdictNotEstablished, "", fmt.Sprintf("git prints what submodules track (git grep with submodule.recurse, diffs with diff.submodule=diff), and which submodules there are cannot be established: %s: %s", show(u[0].path), u[0].why))
		return
	}
	for _, sub := range subs {
		if sub.top == "" || sub.top == sub.gitdir {
			continue // under modules with no work tree known: not checked out there
		}
		d, found, why := j.trackedDenied(sub.top, sub.gitdir, sub.top)
		switch {
		case why != "":
			rd.set(VerdictNotEstablished, "", why)
			return
		case found:
			rd.InTree = true
			rd.set(VerdictDenied, d.row, fmt.Sprintf("the submodule %s tracks %s (deny row %s), and git prints what submodules track (git grep with submodule.recurse, diffs with diff.submodule=diff): name the paths after --", show(sub.top), show(d.path), quote(d.row)))
			return
		}
	}
}

// cwdRepo finds the repository a segment running in cwd works in, as git
// finds it from there. why says why the cwd cannot be established; ok is
// false when it is in no repository.
func (j *judger) cwdRepo(cwd classify.Cwd) (top, gitdir string, ok bool, why string) {
	c := j.cwdOf(cwd)
	if c.err != "" {
		return "", "", false, c.err
	}
	res := j.fs.resolve(c.abs)
	if res.err != nil {
		return "", "", false, fmt.Sprintf("%s cannot be established: %v", show(c.abs), res.err)
	}
	top, gitdir, ok = j.findGitDir(res.real)
	return top, gitdir, ok, ""
}

// existingPathspec returns a word of segment seg before "--" that git
// takes as a pathspec because it exists (git diff a.go): git then prints
// only what is tracked there, and that path is a read of its own.
func (j *judger) existingPathspec(seg int) (string, bool) {
	for i := range j.r.Reads {
		ref := &j.r.Reads[i]
		if ref.Segment != seg || !ref.IfExists || ref.Kind != "literal" {
			continue
		}
		text, err := j.absText(ref.Path, ref.Home, false, ref.Cwd)
		if err != "" {
			continue
		}
		if res := j.fs.resolve(filepath.Clean(text)); res.exists && res.err == nil {
			return ref.Path, true
		}
	}
	return "", false
}

// judgeTrackedUnder judges a directory git prints the tracked content of
// (git log -p -- DIR): a path the repository tracks below it that a deny
// row covers makes the read denied, in the tree. A directory in no work
// tree is read whole. rd is an ok read.
func (j *judger) judgeTrackedUnder(rd *Read) {
	j.judgeTrackedUnderGlob(rd, "")
}

// judgeTrackedUnderGlob is judgeTrackedUnder for a git pathspec glob
// (git grep x -- '*.go'): git prints only the tracked paths below the
// directory whose path relative to it the glob matches ("*" and "?"
// match "/" too; confirmed with git 2.39: '*.go' leaves .env out, '*env'
// takes src/.env in), so a denied path the glob misses is not read.
func (j *judger) judgeTrackedUnderGlob(rd *Read, glob string) {
	res := j.fs.resolve(rd.Real)
	if !res.isDir() {
		return
	}
	top, gitdir, ok := j.findGitDir(res.real)
	if !ok || top == gitdir {
		// Outside a work tree git diff compares paths as diff -r does
		// (--no-index): the whole tree is read.
		v, row, msg := j.checkTree(rd.Resolved, res.real, j.walkOpts(rd.Segment))
		rd.InTree = v == VerdictDenied
		rd.set(v, row, msg)
		return
	}
	d, found, why := j.trackedDeniedGlob(top, gitdir, res.real, glob)
	switch {
	case why != "":
		rd.set(VerdictNotEstablished, "", why)
	case found:
		rd.InTree = true
		rd.set(VerdictDenied, d.row, fmt.Sprintf("the repository tracks %s under %s (deny row %s), and git prints it: name narrower paths after --", show(d.path), show(rd.Resolved), quote(d.row)))
	}
}

// trackedDeniedGlob is trackedDenied, leaving out the paths whose path
// relative to dir a git pathspec glob (when set) does not match.
func (j *judger) trackedDeniedGlob(top, gitdir, dir, glob string) (d trackedDenial, found bool, why string) {
	if glob == "" {
		return j.trackedDenied(top, gitdir, dir)
	}
	res, why := j.index(top, gitdir)
	if why != "" {
		return d, false, why
	}
	spec := pathspecRegexp(glob)
	for _, t := range res.denied {
		if !within(t.path, dir) {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(t.path, dir), "/")
		if spec != nil && !spec.MatchString(rel) {
			continue
		}
		return t, true, ""
	}
	return d, false, ""
}

// trackedDenial is a tracked path a deny row covers.
type trackedDenial struct {
	path, row string
}

// trackedResult is what an index says: the tracked paths deny rows cover
// (absolute, sorted), or why the index cannot be read.
type trackedResult struct {
	denied []trackedDenial
	err    string
	// split is the first tracked path holding a character an unquoted
	// $(...) splits or glob-expands (shellSplitChars), dash the first
	// with a component starting with "-" (relative; "" for none).
	split, dash string
}

type trackedKey struct {
	index, top string
	stamp      fileStamp
	m          *matcher
}

// trackedCache remembers each index's result while the index is
// unchanged: a large repository's index is read once, not per command.
var trackedCache struct {
	sync.Mutex
	m map[trackedKey]trackedResult
}

const maxTrackedCache = 64

// trackedDenied returns the first path under dir (absolute, real; the
// whole repository when dir is top) that the repository at top, with
// git directory gitdir, tracks and a deny row covers. ok is false when
// the tracked paths cannot be established (why says why).
func (j *judger) trackedDenied(top, gitdir, dir string) (d trackedDenial, found bool, why string) {
	res, why := j.index(top, gitdir)
	if why != "" {
		return d, false, why
	}
	for _, t := range res.denied {
		if within(t.path, dir) {
			return t, true, ""
		}
	}
	return d, false, ""
}

// index reads the index of the work tree top (git directory gitdir) once
// per change of it: the tracked paths deny rows cover. A missing index
// lists nothing. why says why the index cannot be read.
func (j *judger) index(top, gitdir string) (trackedResult, string) {
	p := joinAbs(gitdir, "index")
	fsCalls.Add(1)
	fi, err := os.Stat(p)
	switch {
	case err != nil && notFound(err):
		j.adm.addFile(p, fileStamp{})
		return trackedResult{}, "" // nothing is tracked yet
	case err != nil:
		return trackedResult{}, fmt.Sprintf("the index %s cannot be read: %v", show(p), err)
	}
	_, ino := devIno(fi)
	st := fileStamp{fi.Size(), fi.ModTime(), ino}
	j.adm.addFile(p, st)
	if !fi.Mode().IsRegular() {
		return trackedResult{}, fmt.Sprintf("the index %s is a %s", show(p), typeName(fi.Mode()))
	}
	if fi.Size() > maxIndexBytes {
		return trackedResult{}, fmt.Sprintf("the index %s is larger than %d bytes", show(p), maxIndexBytes)
	}
	k := trackedKey{index: p, top: top, stamp: st, m: j.m}
	trackedCache.Lock()
	res, ok := trackedCache.m[k]
	trackedCache.Unlock()
	if !ok {
		res = j.readTracked(p, top, st)
		trackedCache.Lock()
		if trackedCache.m == nil || len(trackedCache.m) >= maxTrackedCache {
			trackedCache.m = map[trackedKey]trackedResult{}
		}
		trackedCache.m[k] = res
		trackedCache.Unlock()
	}
	return res, res.err
}

// readTracked reads and judges the index p of the work tree top.
func (j *judger) readTracked(p, top string, st fileStamp) trackedResult {
	data, why := readIndexFile(p, st)
	if why != "" {
		return trackedResult{err: why}
	}
	entries, err := parseIndexEntries(data, nil)
	if err != nil {
		return trackedResult{err: fmt.Sprintf("the paths the repository tracks are not known: the index %s: %v", show(p), err)}
	}
	var res trackedResult
	for _, e := range entries {
		rel := e.path
		if strings.HasPrefix(rel, "/") || strings.Contains("/"+rel+"/", "/../") {
			return trackedResult{err: fmt.Sprintf("the index %s lists the path %s, which leaves the work tree", show(p), quote(rel))}
		}
		if res.split == "" && strings.ContainsAny(rel, shellSplitChars) {
			res.split = rel
		}
		if res.dash == "" && strings.Contains("/"+rel, "/-") {
			res.dash = rel
		}
		abs := joinAbs(top, rel)
		if row, ok := j.m.denied(abs); ok {
			res.denied = append(res.denied, trackedDenial{abs, row})
		}
	}
	sort.Slice(res.denied, func(a, b int) bool { return res.denied[a].path < res.denied[b].path })
	return res
}

// readIndexFile reads the index p whose stamp was st: its data, or why it
// cannot be read whole as stamped.
func readIndexFile(p string, st fileStamp) ([]byte, string) {
	fsCalls.Add(3)
	data, err := readRegular(p, maxIndexBytes)
	if err != nil {
		return nil, fmt.Sprintf("the index %s cannot be read: %v", show(p), err)
	}
	if int64(len(data)) != st.size {
		return nil, fmt.Sprintf("the index %s changed while it was read", show(p))
	}
	return data, ""
}
