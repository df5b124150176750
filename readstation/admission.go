package readstation

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// CodeChanged is the code of the error Recheck returns when a candidate
// changed between Judge and Recheck.
const CodeChanged = "changed-since-check"

// ErrChanged matches (with errors.Is) every error Recheck returns.
var ErrChanged = errors.New(CodeChanged)

// ChangeError says which candidate changed between Judge and Recheck.
type ChangeError struct {
	// Path is the candidate (an absolute path or glob pattern).
	Path string
	// Was and Now describe the candidate at Judge and at Recheck.
	Was, Now string
}

// Error formats the change.
func (e *ChangeError) Error() string {
	return fmt.Sprintf("%s: %s changed since the check: was %s, now %s", CodeChanged, show(e.Path), e.Was, e.Now)
}

// Code returns "changed-since-check".
func (e *ChangeError) Code() string { return CodeChanged }

// Is makes errors.Is(err, ErrChanged) true.
func (e *ChangeError) Is(target error) bool { return target == ErrChanged }

// Admission holds what a judgment established: every path it resolved
// (the path, its real path, whether it exists, its type, device and inode),
// every glob's match set, and every repository config or attributes file
// it read or looked for (size, mtime and inode, or absence). Recheck re-establishes them right before the
// command is spawned.
//
// Tree walks (recursive reads) are not repeated: their roots are
// re-checked, their contents are not.
type Admission struct {
	b      Boundary
	paths  []pathCand
	files  []fileCand // repository config and attribute files
	globs  []globCand
	broken string
}

type pathCand struct {
	text string
	res  resolved
}

// same reports whether two resolutions establish the same thing: the same
// real path, existence, file type, device and inode, and the same error.
func same(a, b resolved) bool {
	if (a.err == nil) != (b.err == nil) || a.err != nil && a.err.Error() != b.err.Error() {
		return false
	}
	return a.real == b.real && a.exists == b.exists && a.mode.Type() == b.mode.Type() && a.dev == b.dev && a.ino == b.ino
}

type fileCand struct {
	path  string
	stamp fileStamp // zero when the file did not exist
}

func (a *Admission) addFile(p string, st fileStamp) {
	for i := range a.files {
		if a.files[i].path == p {
			return
		}
	}
	a.files = append(a.files, fileCand{p, st})
}

func describeStamp(st fileStamp) string {
	if st == (fileStamp{}) {
		return "absent"
	}
	return fmt.Sprintf("%d bytes, modified %s, inode %d", st.size, st.mtime.Format("15:04:05.000000000"), st.ino)
}

type globCand struct {
	pattern string
	mode    globMode
	matches []string
	err     string
}

// fingerprint describes a resolution for comparison and messages.
func fingerprint(r resolved) string {
	switch {
	case r.err != nil:
		return "unresolvable (" + r.err.Error() + ")"
	case !r.exists:
		return "missing (" + r.real + ")"
	}
	return fmt.Sprintf("%s %s dev %d inode %d", show(r.real), typeName(r.mode), r.dev, r.ino)
}

func typeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "file"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "fifo"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "other"
}

func (a *Admission) addPath(text string, r resolved) {
	for i := range a.paths {
		if a.paths[i].text == text {
			return
		}
	}
	a.paths = append(a.paths, pathCand{text, r})
}

func (a *Admission) addGlob(pattern string, mode globMode, matches []string, err error) {
	for i := range a.globs {
		if a.globs[i].pattern == pattern && a.globs[i].mode == mode {
			return
		}
	}
	g := globCand{pattern: pattern, mode: mode, matches: slices.Clone(matches)}
	if err != nil {
		g.err = err.Error()
	}
	a.globs = append(a.globs, g)
}

// Len is the number of candidates (paths, globs and repository files)
// the admission holds.
func (a *Admission) Len() int { return len(a.paths) + len(a.globs) + len(a.files) }

// Recheck re-establishes every candidate. It returns nil when nothing
// changed, and otherwise a *ChangeError (errors.Is(err, ErrChanged)) naming
// the first candidate that did: a symlink re-pointed, a file replaced, a
// path created or removed, a glob that matches differently.
func (a *Admission) Recheck() error {
	if a == nil || a.broken != "" {
		return &ChangeError{Path: "(admission)", Was: "a judgment", Now: "none"}
	}
	fsc := newFSCache()
	for _, g := range a.globs {
		ms, err := expandGlob(fsc, g.pattern, g.mode, a.b.maxGlob())
		e := ""
		if err != nil {
			e = err.Error()
		}
		if e != g.err || !slices.Equal(ms, g.matches) {
			return &ChangeError{Path: g.pattern, Was: describeMatches(g.matches, g.err), Now: describeMatches(ms, e)}
		}
	}
	for _, p := range a.paths {
		if now := fsc.resolve(p.text); !same(now, p.res) {
			return &ChangeError{Path: p.text, Was: fingerprint(p.res), Now: fingerprint(now)}
		}
	}
	for _, f := range a.files {
		now, err := statStamp(f.path)
		if err != nil {
			// It can no longer be stat'ed (a symlink loop, permission
			// denied): what git reads there is not known.
			return &ChangeError{Path: f.path, Was: describeStamp(f.stamp), Now: "unresolvable (" + err.Error() + ")"}
		}
		if !now.same(f.stamp) {
			return &ChangeError{Path: f.path, Was: describeStamp(f.stamp), Now: describeStamp(now)}
		}
	}
	return nil
}

func describeMatches(ms []string, err string) string {
	if err != "" {
		return err
	}
	if len(ms) == 0 {
		return "no matches"
	}
	return fmt.Sprintf("%d matches [%s]", len(ms), strings.Join(ms, " "))
}
