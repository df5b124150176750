package readstation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// man-db looks for pages beside the directories of PATH: for each entry
// the system configuration does not map, the first directory of DIR/../man,
// DIR/man, DIR/../share/man and DIR/share/man that exists joins its search
// path (manp.c's has_mandir), before /usr/share/man when the entry comes
// first. With ~/.local/bin on PATH, a page ~/.local/share/man/man1/ls.1
// saying ".so /root/.netrc" made man ls print the secret (man-db 2.11;
// hostile trap man-home-path-page, redrepo4). MANPATH, when set, replaces
// that search path (an empty element of it stands for the derived one).
//
// The check man-pages looks in those directories that are the attacker's
// (in the home directory or a root) for a page of a topic the command
// names (man-db matches names without regard to case, NAME.SECTION[...]
// in manN, catN and their locale directories), or for an index database,
// whose entries can name any file: either asks, with the page named. A
// home that holds pages of other topics (pip's) keeps man ls allowed.
// A topic that is not static, or --regex, --wildcard or -K, makes any
// page count.

// maxManDirs bounds the directories listed in one directory of pages.
const maxManDirs = 256

func checkManPages(h *hiddenRun) []RepoHelper {
	j := h.j
	path, known := h.env("PATH")
	if !known {
		return nil // as for the workspace's PATH directories (in: path)
	}
	var homeRoots []string
	if j.b.Home != "" {
		homeRoots = append(homeRoots, filepath.Clean(j.b.Home))
	}
	homeRoots = append(homeRoots, j.b.AbsRoots()...)
	// The entries the catalog's in: path inputs cover already.
	covered := map[string]bool{}
	for _, d := range j.workspacePathDirs(h.cwd) {
		covered[d] = true
	}
	type dirFrom struct{ dir, from string }
	var dirs []dirFrom
	fromPath := func() {
		entries := filepath.SplitList(path)
		if len(entries) > maxPathEntries {
			entries = entries[:maxPathEntries]
		}
		for _, e := range entries {
			d := e
			if d == "" {
				d = "."
			}
			if !filepath.IsAbs(d) {
				d = filepath.Join(h.cwd, d)
			}
			d = filepath.Clean(d)
			if covered[d] {
				continue
			}
			parent := filepath.Dir(d)
			for _, c := range []string{joinAbs(parent, "man"), joinAbs(d, "man"), joinAbs(parent, "share/man"), joinAbs(d, "share/man")} {
				if withinAny(c, homeRoots) {
					dirs = append(dirs, dirFrom{c, fmt.Sprintf("beside the PATH entry %s", show(e))})
				}
			}
		}
	}
	mp, mpKnown := h.env("MANPATH")
	switch {
	case !mpKnown:
		j.notEstablished(h.s, "$MANPATH", fmt.Sprintf("%s looks for pages in the directories $MANPATH names, whose value is not known, so whether a page it shows is one a file in the home directory or the workspace chose cannot be established", h.who))
		return nil
	case mp == "":
		fromPath()
	default:
		derived := false
		for _, e := range filepath.SplitList(mp) {
			if e == "" {
				if !derived {
					derived = true
					fromPath()
				}
				continue
			}
			if !filepath.IsAbs(e) {
				e = filepath.Join(h.cwd, e)
			}
			if c := filepath.Clean(e); withinAny(c, homeRoots) {
				dirs = append(dirs, dirFrom{c, "that $MANPATH names"})
			}
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	topics, any := manTopics(h)
	if len(topics) == 0 && !any {
		return nil
	}
	var out []RepoHelper
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d.dir] {
			continue
		}
		seen[d.dir] = true
		res := j.fs.resolve(d.dir)
		j.adm.addPath(d.dir, res)
		if res.err != nil {
			j.notEstablished(h.s, d.dir, fmt.Sprintf("%s looks for pages in %s, which cannot be established (%v)", h.who, show(d.dir), res.err))
			continue
		}
		if !res.exists || !res.mode.IsDir() {
			continue
		}
		p, why, problem := findManPage(d.dir, topics, any)
		switch {
		case problem != "":
			j.notEstablished(h.s, d.dir, fmt.Sprintf("%s looks for pages in %s (%s), which %s, so whether it shows a page a file there chose cannot be established", h.who, show(d.dir), d.from, problem))
		case p != "":
			out = append(out, RepoHelper{File: p, Why: fmt.Sprintf("%s, in the directory of pages %s finds %s", why, h.s.Name, d.from),
				Does: h.hi.Does, Segment: h.s.Index, Span: h.s.Span})
		}
	}
	return out
}

// manTopics returns the page names the command asks for, folded to lower
// case (man-db ignores case), and whether any page may be shown: a topic
// that is not static, or an option that makes topics patterns or searches
// every page's text.
func manTopics(h *hiddenRun) ([]string, bool) {
	any := false
	for _, o := range h.s.Options {
		switch o.Name {
		case "--regex", "--wildcard", "--global-apropos":
			any = true
		}
	}
	var topics []string
	for _, op := range h.s.Operands {
		if !op.Static() {
			any = true
			continue
		}
		topics = append(topics, strings.ToLower(op.Value))
	}
	return topics, any
}

// findManPage looks in a directory of pages, three levels down (a locale
// directory, a section directory, a page), for a page of one of topics (any
// page when any) or an index database (at its top or a locale's): the path found and what
// it is, or a problem that keeps it from being established.
func findManPage(dir string, topics []string, any bool) (string, string, string) {
	listed := 0
	var look func(d string, depth int) (string, string, string)
	look = func(d string, depth int) (string, string, string) {
		listed++
		if listed > maxManDirs {
			return "", "", fmt.Sprintf("holds more than %d directories", maxManDirs)
		}
		fsCalls.Add(1)
		es, err := os.ReadDir(d)
		if err != nil {
			return "", "", fmt.Sprintf("cannot be listed (%v)", err)
		}
		for _, e := range es {
			name := e.Name()
			p := joinAbs(d, name)
			isDir := e.IsDir()
			if e.Type()&os.ModeSymlink != 0 {
				fsCalls.Add(1)
				fi, err := os.Stat(p)
				isDir = err == nil && fi.IsDir()
			}
			if depth < 2 && strings.HasPrefix(strings.ToLower(name), "index.") {
				return p, fmt.Sprintf("%s is an index database, whose entries can name any file as a page", show(p)), ""
			}
			if depth > 0 && !isDir {
				if t, ok := manPageOf(name, topics, any); ok {
					return p, fmt.Sprintf("%s is a page of %s", show(p), t), ""
				}
			}
			if depth < 2 && isDir {
				if p, why, problem := look(p, depth+1); p != "" || problem != "" {
					return p, why, problem
				}
			}
		}
		return "", "", ""
	}
	return look(dir, 0)
}

// manPageOf reports whether a file name is a page man-db would take for one
// of topics: the topic, or the topic and a dot (ls.1, ls.1.gz, ls.1posix),
// compared in lower case; a topic with a dot (ls.1) counts by its part
// before the dot too. With any, every name is one.
func manPageOf(name string, topics []string, any bool) (string, bool) {
	if any {
		return "any topic", true
	}
	lower := strings.ToLower(name)
	for _, t := range topics {
		for _, k := range []string{t, strings.SplitN(t, ".", 2)[0]} {
			if k != "" && (lower == k || strings.HasPrefix(lower, k+".")) {
				return t, true
			}
		}
	}
	return "", false
}
