package readstation

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// go list and go doc load the module graph of the main module (or the
// workspace's modules): a module go.mod requires whose go.mod or source is
// not in the module cache is downloaded from GOPROXY (confirmed with
// GOPROXY=off: go doc, go list -m all, go list -deps and go list of a
// package in a dependency all fail with "module lookup disabled"; go list
// ./... without -deps does not look dependencies up). GOFLAGS=-mod=mod
// also lets go look up the module of an import go.mod does not provide.
// The station reads go.mod's require and replace directives and looks for
// each required module in the module cache; GOPROXY=off makes the lookups
// fail instead. A go.mod whose go line is before 1.17 has an unpruned
// graph (modules beyond its require lines are loaded): not established.

// checkGoModules: go list and go doc would download modules.
func checkGoModules(h *hiddenRun) []RepoHelper {
	g := loadGoEnv(h)
	if !g.ok || g.exe == "" {
		return nil
	}
	proxy, _, known := g.get("GOPROXY")
	if !known {
		h.j.notEstablished(h.s, "$GOPROXY", h.who+": GOPROXY is not known, so whether it downloads modules cannot be established")
		return nil
	}
	if proxy == "off" {
		return nil
	}
	var out []RepoHelper
	flags, from, known := g.get("GOFLAGS")
	if !known {
		h.j.notEstablished(h.s, "$GOFLAGS", h.who+": GOFLAGS is not known, so whether it downloads modules cannot be established")
		return nil
	}
	for _, f := range strings.Fields(flags) {
		if f == "-mod=mod" || f == "--mod=mod" {
			file := from
			if file == "the environment" {
				file = "$GOFLAGS"
			}
			out = append(out, RepoHelper{Key: "GOFLAGS", File: file, Value: "GOFLAGS=" + flags,
				Why:  fmt.Sprintf("sets GOFLAGS=%s, which lets go look up the module of an import go.mod does not provide", flags),
				Does: fmt.Sprintf("download modules (GOPROXY=%s)", proxy), Segment: h.s.Index, Span: h.s.Span})
		}
	}
	var mods []string
	work, ok := g.findGoWork(h.cwd)
	if !ok {
		return out
	}
	if work != "" {
		bad := h.bad
		data, _ := h.read(work)
		if h.bad > bad {
			return out
		}
		for _, u := range goModDirectives(data, "use") {
			d := u[0]
			if !filepath.IsAbs(d) {
				d = filepath.Join(filepath.Dir(work), d)
			}
			mods = append(mods, filepath.Join(d, "go.mod"))
		}
	} else if m := g.findGoMod(h.cwd); m != "" {
		mods = append(mods, m)
	}
	if len(mods) == 0 {
		return out
	}
	cache, ok := g.modCache()
	if !ok {
		return out
	}
	for _, m := range mods {
		bad := h.bad
		data, found := h.read(m)
		if h.bad > bad || !found {
			continue
		}
		reqs := goModDirectives(data, "require")
		if len(reqs) == 0 {
			continue
		}
		if v, _ := goModLookup(data, "go"); v == "" || goCompare(v, "1.17") < 0 {
			h.j.notEstablished(h.s, m, fmt.Sprintf("%s: %s says go %s, before 1.17, so go loads the whole module graph beyond its require lines, and what %s downloads cannot be established", h.who, show(m), cmpOr(v, "(none)"), h.who))
			continue
		}
		repl := map[string][]string{} // path or path@version → replacement
		for _, r := range goModDirectives(data, "replace") {
			if i := indexOf(r, "=>"); i > 0 {
				key := r[0]
				if i == 2 {
					key += "@" + r[1]
				}
				repl[key] = r[i+1:]
			}
		}
		for _, r := range reqs {
			if len(r) < 2 {
				continue
			}
			path, ver := r[0], r[1]
			if to, ok := repl[path+"@"+ver]; ok {
				path, ver = replaced(to, path, ver)
			} else if to, ok := repl[path]; ok {
				path, ver = replaced(to, path, ver)
			}
			if ver == "" {
				continue // replaced by a directory
			}
			if !goModCached(cache, path, ver) {
				line := "require " + r[0] + " " + r[1]
				out = append(out, RepoHelper{Key: "require", File: m, Value: line,
					Why:  fmt.Sprintf("requires %s %s, which is not in the module cache %s", path, ver, show(cache)),
					Does: fmt.Sprintf("download it (GOPROXY=%s)", proxy), Segment: h.s.Index, Span: h.s.Span})
				break
			}
		}
	}
	return out
}

// cmpOr is s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// indexOf returns the index of w in ws, -1 when absent.
func indexOf(ws []string, w string) int {
	for i, x := range ws {
		if x == w {
			return i
		}
	}
	return -1
}

// replaced applies a replacement's right side: a directory (no version)
// or a module version.
func replaced(to []string, path, ver string) (string, string) {
	if len(to) == 1 {
		return to[0], "" // a directory: nothing to download
	}
	if len(to) >= 2 {
		return to[0], to[1]
	}
	return path, ver
}

// modCache returns the module cache directory as go does (GOMODCACHE, else
// the first GOPATH entry's pkg/mod, else ~/go/pkg/mod).
func (g *goEnv) modCache() (string, bool) {
	v, _, known := g.get("GOMODCACHE")
	if known && v == "" {
		var gopath string
		gopath, _, known = g.get("GOPATH")
		if known {
			if list := filepath.SplitList(gopath); len(list) > 0 && list[0] != "" {
				v = filepath.Join(list[0], "pkg", "mod")
			} else if g.h.j.b.Home != "" {
				v = filepath.Join(g.h.j.b.Home, "go", "pkg", "mod")
			}
		}
	}
	if !known || v == "" || !filepath.IsAbs(v) {
		g.h.j.notEstablished(g.h.s, "$GOMODCACHE", g.h.who+": the module cache cannot be established (GOMODCACHE, GOPATH or the home directory), so whether it downloads modules cannot be established")
		return "", false
	}
	return v, true
}

// goModCached reports whether the module cache holds a module version's
// go.mod and its source (extracted, or as the downloaded zip).
func goModCached(cache, path, ver string) bool {
	ep, ev := escapeModPath(path), escapeModPath(ver)
	dl := filepath.Join(cache, "cache", "download", filepath.FromSlash(ep), "@v", ev)
	fsCalls.Add(3)
	if _, err := os.Stat(dl + ".mod"); err != nil {
		return false
	}
	if fi, err := os.Stat(filepath.Join(cache, filepath.FromSlash(ep)+"@"+ev)); err == nil && fi.IsDir() {
		return true
	}
	_, err := os.Stat(dl + ".zip")
	return err == nil
}

// escapeModPath escapes a module path or version for the module cache
// (golang.org/x/mod/module.EscapePath: an upper-case letter is "!" and
// the letter in lower case).
func escapeModPath(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsUpper(r) {
			b.WriteByte('!')
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// goModDirectives returns the arguments of every directive named verb in
// a go.mod or go.work file, on one line or in a block ("require (" ...
// ")"), comments removed and quoted words unquoted.
func goModDirectives(data []byte, verb string) [][]string {
	var out [][]string
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "//")
		f := goModFields(line)
		if len(f) == 0 {
			continue
		}
		if inBlock {
			if f[0] == ")" {
				inBlock = false
				continue
			}
			out = append(out, f)
			continue
		}
		if f[0] != verb {
			continue
		}
		if len(f) == 2 && f[1] == "(" {
			inBlock = true
			continue
		}
		out = append(out, f[1:])
	}
	return out
}

// goModFields splits a go.mod line into words, a quoted word (Go string
// syntax) being one.
func goModFields(line string) []string {
	var out []string
	for {
		line = strings.TrimLeft(line, " \t\r")
		if line == "" {
			return out
		}
		if line[0] == '"' || line[0] == '`' {
			if q, err := strconv.QuotedPrefix(line); err == nil {
				u, _ := strconv.Unquote(q)
				out = append(out, u)
				line = line[len(q):]
				continue
			}
		}
		i := strings.IndexAny(line, " \t\r")
		if i < 0 {
			return append(out, line)
		}
		out = append(out, line[:i])
		line = line[i:]
	}
}

// The go command parses the go.mod of every module go.work uses, and of
// every directory go.work or a go.mod replaces a module with, and names a
// line's first word in its error: go.work's "use ./sub" with sub/go.mod
// linked to ~/.vault-token made go list and go mod graph print the token
// ("unknown directive: <token>", go 1.26; hostile trap go-work-use-link,
// redrepo3). The go.work and go.mod found from the directory it runs in
// are the catalog's reads; this check judges the ones they name.

// maxGoModules bounds the go.mod files the go-work-modules check reads.
const maxGoModules = 64

// checkGoWorkModules judges, as reads the command makes, the go.mod files
// of the directories go.work uses and go.work or go.mod replace modules
// with.
func checkGoWorkModules(h *hiddenRun) []RepoHelper {
	g := loadGoEnv(h)
	if !g.ok {
		return nil
	}
	work, ok := g.findGoWork(h.cwd)
	if !ok {
		return nil
	}
	var files []string
	if work != "" {
		files = append(files, work)
	} else if m := g.findGoMod(h.cwd); m != "" {
		files = append(files, m)
	}
	const does = "print a line's first word when it does not parse (\"unknown directive: <word>\")"
	seen := map[string]bool{}
	name := func(base, dir string) string {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(filepath.Dir(base), dir)
		}
		return filepath.Join(dir, "go.mod")
	}
	for i := 0; i < len(files); i++ {
		f := files[i]
		if i > 0 {
			// A go.mod this check found: judged as the command's read,
			// and parsed for its own replacements only when it is a
			// regular file of the roots (not a link out of them).
			h.judgeRead(f, does)
			res := h.j.fs.resolve(f)
			if res.err != nil || !res.exists || !res.mode.IsRegular() || res.real != filepath.Clean(f) || !h.j.m.inRoots(res.real) {
				continue
			}
		}
		data, found := h.read(f)
		if !found {
			continue
		}
		var dirs []string
		if i == 0 && work != "" {
			for _, u := range goModDirectives(data, "use") {
				dirs = append(dirs, u[0])
			}
		}
		for _, r := range goModDirectives(data, "replace") {
			if k := indexOf(r, "=>"); k >= 0 && k+1 < len(r) && goLocalPath(r[k+1]) {
				dirs = append(dirs, r[k+1])
			}
		}
		for _, d := range dirs {
			m := name(f, d)
			if seen[m] {
				continue
			}
			seen[m] = true
			if len(files) >= maxGoModules {
				h.j.notEstablished(h.s, m, fmt.Sprintf("%s reads more than %d go.mod files through go.work and replace directives; the check stopped", h.who, maxGoModules))
				return nil
			}
			files = append(files, m)
		}
	}
	return nil
}

// goLocalPath reports whether a replacement's right side is a directory
// (cmd/go's modfile.IsDirectoryPath: it starts with ./ or ../, or is
// absolute).
func goLocalPath(p string) bool {
	return p == "." || p == ".." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || filepath.IsAbs(p)
}
