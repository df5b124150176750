package readstation

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// rg reads the user's git excludes file as a .gitignore, and its negated
// patterns show hidden names (catalog walk.hidden.git_excludes): the file
// core.excludesFile names in ~/.gitconfig, else in
// $XDG_CONFIG_HOME/git/config, else $XDG_CONFIG_HOME/git/ignore (~/.config
// for an unset XDG_CONFIG_HOME). rg does not parse git's configuration: a
// line "excludesfile = PATH" of any section counts, case aside, with every
// "~" in PATH the home directory (ignore's gitconfig_excludes_path; rg 14
// also reads the file GIT_CONFIG_GLOBAL names and strips quotes). With
// ~/.gitconfig naming ~/.my-ignore saying !.env, rg 13 searched the
// workspace's .env (hostile traps rg-excludes-file-whitelist,
// rg-xdg-excludes-file-whitelist, redrepo4).

// excludesFileLine is rg's reading of core.excludesFile, a line at a time.
var excludesFileLine = regexp.MustCompile(`(?i)^\s*excludesfile\s*=\s*(.+)$`)

// gitExcludesFiles returns the user's git excludes files rg may read, as
// absolute paths (a superset: every file any of the configurations names,
// and the default), or "?" and why they cannot be known.
func (j *judger) gitExcludesFiles() []string {
	home := j.b.Home
	if home == "" {
		return []string{"?the home directory, where rg finds the user's git excludes file (whose negated patterns show hidden names), is not known"}
	}
	lookup := func(name string) (string, bool) {
		if j.b.Env == nil {
			return "", false
		}
		return j.b.Env.Lookup(name)
	}
	xdg, known := lookup("XDG_CONFIG_HOME")
	if !known {
		return []string{"?$XDG_CONFIG_HOME, where rg finds the user's git excludes file (whose negated patterns show hidden names), is not known"}
	}
	dir := filepath.Join(home, ".config")
	if xdg != "" {
		if !filepath.IsAbs(xdg) {
			return []string{fmt.Sprintf("?$XDG_CONFIG_HOME (%s), where rg finds the user's git excludes file, is not an absolute path", show(xdg))}
		}
		dir = xdg
	}
	configs := []string{filepath.Join(home, ".gitconfig"), filepath.Join(dir, "git", "config")}
	if g, _ := lookup("GIT_CONFIG_GLOBAL"); g != "" && g != "/dev/null" {
		if !filepath.IsAbs(g) {
			return []string{fmt.Sprintf("?$GIT_CONFIG_GLOBAL (%s), a git configuration rg reads, is not an absolute path", show(g))}
		}
		configs = append(configs, g)
	}
	out := []string{filepath.Join(dir, "git", "ignore")}
	seen := map[string]bool{out[0]: true}
	for _, c := range configs {
		data, _, problem := readSmallStamp(c)
		if problem != "" {
			return []string{fmt.Sprintf("?%s, a git configuration that may name the excludes file rg reads, cannot be read (%s)", show(c), problem)}
		}
		for _, line := range strings.Split(string(data), "\n") {
			m := excludesFileLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			v := m[1]
			trimmed := strings.TrimSpace(v)
			for _, p := range []string{v, trimmed, strings.TrimSpace(strings.Trim(trimmed, `"`))} {
				p = strings.ReplaceAll(p, "~", home)
				if p == "" || seen[p] {
					continue
				}
				seen[p] = true
				if !filepath.IsAbs(p) {
					return []string{fmt.Sprintf("?%s says %s, a file rg reads from the directory it runs in", show(c), clip(strings.TrimSpace(line)))}
				}
				out = append(out, p)
			}
		}
	}
	return out
}
