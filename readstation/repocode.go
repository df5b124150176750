package readstation

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Some programs run code a project file names, whatever the command says:
// pnpm loads the project's .pnpmfile.cjs for every command, yarn runs the
// release a .yarnrc.yml's yarnPath names, rustup's cargo and rustc run the
// toolchain a rust-toolchain.toml's path names. The catalog lists those
// files (repo_code); the station looks for them from the directory the
// program runs in up to the root, and reports each one it finds as a
// RepoHelper, as it does git's configured helpers. A file it cannot read
// makes a not-established read.

// repoCode reports the project files through which the segments' programs
// would run code the repository chose.
func (j *judger) repoCode() []RepoHelper {
	var out []RepoHelper
	for i := range j.r.Segments {
		s := &j.r.Segments[i]
		if len(s.RepoCode) == 0 {
			continue
		}
		who := s.Name
		if s.Subcommand != "" {
			who += " " + s.Subcommand
		}
		cwd, ok := j.effectiveCwd(s)
		if !ok {
			j.extra = append(j.extra, Read{Path: s.Cwd.Path, Kind: "literal", Source: "repository",
				Verdict: VerdictNotEstablished, Message: fmt.Sprintf("the directory %s runs in, and so the project files through which it runs code, cannot be established", who),
				Span: s.Span, Segment: s.Index, Matches: []string{}})
			continue
		}
		res := j.fs.resolve(cwd)
		if res.err != nil {
			j.extra = append(j.extra, Read{Path: cwd, Kind: "literal", Source: "repository", Resolved: cwd,
				Verdict: VerdictNotEstablished, Message: fmt.Sprintf("%s cannot be established (%v), and so the project files through which %s runs code", show(cwd), res.err, who),
				Span: s.Span, Segment: s.Index, Matches: []string{}})
			continue
		}
		if !res.isDir() {
			continue // it does not run: the cd or -C before it fails
		}
		for d := res.real; ; {
			for _, rc := range s.RepoCode {
				p := joinAbs(d, rc.File)
				mark := len(j.unreadable)
				data, ok := j.read(p)
				if len(j.unreadable) > mark {
					u := j.unreadable[mark]
					j.unreadable = j.unreadable[:mark]
					j.extra = append(j.extra, Read{Path: p, Kind: "literal", Source: "repository", Resolved: p,
						Verdict: VerdictNotEstablished, Message: fmt.Sprintf("%s reads %s, which cannot be read (%s), so whether it runs code the repository chose cannot be established", who, show(p), u.why),
						Span: s.Span, Segment: s.Index, Matches: []string{}})
					continue
				}
				if !ok {
					continue
				}
				if rc.Match == "" {
					out = append(out, RepoHelper{File: p, Segment: s.Index, Span: s.Span})
					continue
				}
				re := repoCodeRegexp(rc.Match) // validated with the catalog
				for _, line := range strings.Split(string(data), "\n") {
					if re == nil || re.MatchString(line) { // a pattern that does not compile finds every file
						v := strings.TrimSpace(line)
						if len(v) > 200 {
							v = v[:200] + "…"
						}
						out = append(out, RepoHelper{Key: rc.Key, File: p, Value: v, Segment: s.Index, Span: s.Span})
						break
					}
				}
			}
			parent := filepath.Dir(d)
			if parent == d {
				break
			}
			d = parent
		}
	}
	return out
}

var repoCodeRegexps sync.Map // pattern → *regexp.Regexp

// repoCodeRegexp compiles a catalog repo_code pattern once.
func repoCodeRegexp(pat string) *regexp.Regexp {
	if re, ok := repoCodeRegexps.Load(pat); ok {
		return re.(*regexp.Regexp)
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil
	}
	repoCodeRegexps.Store(pat, re)
	return re
}
