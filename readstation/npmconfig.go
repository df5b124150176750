package readstation

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// npm reads the user config userconfig names and the global config
// globalconfig names (else PREFIX/etc/npmrc), and a .npmrc, the project's
// or the user's, may set all three: it warns of every key of them it does
// not know, quoting the line. A project .npmrc saying
// userconfig=${HOME}/.netrc, or ~/.npmrc saying prefix=~/.npm-global with
// ~/.npm-global/etc/npmrc a link to ~/.netrc, made npm ls print its line
// (npm 11.19; hostile traps npmrc-userconfig, npmrc-prefix-link,
// redrepo4). The check npm-config-files judges each file they name as a
// read the command makes: a secret is denied, a file out of the roots and
// the home directory, or a link out of the roots, asked about.

// npmConfigEntry reads a .npmrc line as npm's ini parser does: the key
// (its quotes taken off) and the value (its quotes taken off, or cut at
// an unescaped ";" or "#" and unescaped); ok false for a blank line, a
// comment, a section header or a line with no "=". The real npm 11.19
// read `"userconfig"=~/.netrc`, `'userconfig'='~/.netrc'` and
// `userconfig = ~/.netrc ; c` all as userconfig (and printed the
// secret's line), and neither `USERCONFIG=` nor `userconfig[]=`.
func npmConfigEntry(line string) (key, value string, ok bool) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == ';' || line[0] == '#' || line[0] == '[' {
		return "", "", false
	}
	k, v, ok := strings.Cut(line, "=")
	if !ok {
		return "", "", false
	}
	return iniUnquote(strings.TrimSpace(k)), iniUnquote(strings.TrimSpace(v)), true
}

// iniUnquote is ini's unsafe(): a quoted string loses its quotes; any
// other is cut at its first unescaped ";" or "#", and "\;" "\#" "\\"
// stand for the character.
func iniUnquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	var b strings.Builder
	esc := false
	for _, c := range v {
		switch {
		case esc:
			if !strings.ContainsRune(`\;#`, c) {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
			esc = false
		case c == '\\':
			esc = true
		case c == ';' || c == '#':
			return strings.TrimSpace(b.String())
		default:
			b.WriteRune(c)
		}
	}
	if esc {
		b.WriteByte('\\')
	}
	return strings.TrimSpace(b.String())
}

// npmEnvRef is npm's ${VAR} (and ${VAR?}) in a config value.
var npmEnvRef = regexp.MustCompile(`\$\{([^${}?]+)\??\}`)

func checkNpmConfigFiles(h *hiddenRun) []RepoHelper {
	j := h.j
	var rcs []string
	for d := h.cwd; ; d = filepath.Dir(d) {
		rcs = append(rcs, joinAbs(d, ".npmrc"))
		if filepath.Dir(d) == d {
			break
		}
	}
	if j.b.Home != "" {
		rcs = append(rcs, filepath.Join(j.b.Home, ".npmrc"))
	}
	seen := map[string]bool{}
	for _, rc := range rcs {
		if seen[rc] {
			continue
		}
		seen[rc] = true
		data, ok := h.read(rc)
		if !ok {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			key, v, ok := npmConfigEntry(line)
			if !ok || key != "userconfig" && key != "globalconfig" && key != "prefix" {
				continue
			}
			var unknown string
			v = npmEnvRef.ReplaceAllStringFunc(v, func(ref string) string {
				name := npmEnvRef.FindStringSubmatch(ref)[1]
				val, known := h.env(name)
				if !known && name == "HOME" && j.b.Home != "" {
					val, known = j.b.Home, true
				}
				if !known && unknown == "" {
					unknown = name
				}
				return val
			})
			if unknown != "" {
				j.notEstablished(h.s, rc, fmt.Sprintf("%s reads %s, whose %s names a file through $%s, whose value is not known, so which file npm reads (and quotes) cannot be established", h.who, show(rc), key, unknown))
				continue
			}
			if v == "" {
				continue
			}
			if v == "~" || strings.HasPrefix(v, "~/") {
				if j.b.Home == "" {
					j.notEstablished(h.s, rc, fmt.Sprintf("%s reads %s, whose %s names a file in the home directory, which is not known", h.who, show(rc), key))
					continue
				}
				v = filepath.Join(j.b.Home, v[1:])
			}
			if !filepath.IsAbs(v) {
				v = filepath.Join(h.cwd, v)
			}
			p := filepath.Clean(v)
			if key == "prefix" {
				p = filepath.Join(p, "etc", "npmrc")
			}
			h.judgeNamed(p, fmt.Sprintf("%s says %s", show(rc), clip(strings.TrimSpace(line))))
		}
	}
	return nil
}

// judgeNamed judges a file a hidden input's file names (by a path the
// attacker chose) as a read the command makes, which the program quotes:
// denied under a deny row, asked about out of the roots or when it is not
// a regular file; a file that does not exist is not read.
func (h *hiddenRun) judgeNamed(p, why string) {
	j := h.j
	res := j.fs.resolve(p)
	j.adm.addPath(p, res)
	if res.err == nil && !res.exists {
		return
	}
	v, row, msg := j.verdictFor(p, res)
	inHome := j.b.Home != "" && within(p, filepath.Clean(j.b.Home)) && res.real == p
	switch {
	case v == VerdictDenied, v == VerdictNotEstablished:
	case v == VerdictOutsideRoots && !(inHome && res.err == nil && res.mode.IsRegular()):
		// A regular file of the home directory is the attacker's own
		// writing (a secret there is under a deny row); one elsewhere,
		// or a link, is a name they chose.
	case res.err == nil && !res.mode.IsRegular():
		v, msg = VerdictNotEstablished, fmt.Sprintf("%s is a %s", show(p), typeName(res.mode))
	default:
		return
	}
	j.extra = append(j.extra, Read{Path: p, Kind: "literal", Source: "repository", Resolved: p, Real: res.real,
		Verdict: v, Row: row, Message: fmt.Sprintf("%s reads %s (%s) and would %s, and %s", h.who, show(p), why, h.hi.Does, msg),
		Span: h.s.Span, Segment: h.s.Index, Matches: []string{}})
}
