package gitrepo

import (
	"fmt"
	"strconv"
	"strings"
)

// condition is include_condition_is_true: whether includeIf.COND.path
// includes. A condition it cannot evaluate exactly counts as true (and
// marks the Config a superset): reading more than git reads can only find
// more helpers.
func (l *loader) condition(cond, file string) (bool, error) {
	if l.o.AllConditions {
		l.cfg.Superset = true
		return true, nil
	}
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		return l.gitdirCond(cond[len("gitdir:"):], file, false), nil
	case strings.HasPrefix(cond, "gitdir/i:"):
		return l.gitdirCond(cond[len("gitdir/i:"):], file, true), nil
	case strings.HasPrefix(cond, "onbranch:"):
		return l.onbranchCond(cond[len("onbranch:"):]), nil
	case strings.HasPrefix(cond, "hasconfig:remote.*.url:"):
		// git matches the pattern against every remote.*.url of the
		// whole configuration (read with these includes followed).
		l.cfg.Superset = true
		return true, nil
	}
	return false, nil // git: unknown conditions are false
}

// gitdirCond is include_by_gitdir.
func (l *loader) gitdirCond(pat, file string, icase bool) bool {
	if l.o.GitDir == "" {
		return false
	}
	// interpolate_path(pat, 1): "~/" is the real path of $HOME; a path
	// git cannot expand stays as written.
	switch {
	case strings.HasPrefix(pat, "%(prefix)/"), strings.HasPrefix(pat, "~") && !strings.HasPrefix(pat, "~/") && pat != "~":
		l.cfg.Superset = true
		return true
	case strings.HasPrefix(pat, "~") && l.homeSet:
		home := l.home
		if r, err := l.o.Files.RealPath(home); err == nil {
			home = r
		} else {
			l.cfg.Superset = true
			return true
		}
		pat = home + pat[1:]
	}
	prefix := 0
	switch {
	case strings.HasPrefix(pat, "./"):
		if file == "" {
			return false // git: relative conditions must come from files
		}
		real, err := l.o.Files.RealPath(file)
		if err != nil {
			l.cfg.Superset = true
			return true
		}
		dir := real[:strings.LastIndexByte(real, '/')]
		pat = dir + pat[1:]
		prefix = len(dir) + 1
	case !strings.HasPrefix(pat, "/"):
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	if strings.ContainsAny(pat[prefix:], `[\`) {
		l.cfg.Superset = true
		return true
	}
	for _, text := range []string{l.gitReal, l.o.GitDir} {
		if len(text) < prefix {
			continue
		}
		head, tail := pat[:prefix], text[:prefix]
		if icase && !strings.EqualFold(head, tail) || !icase && head != tail {
			continue
		}
		if wildmatch(pat[prefix:], text[prefix:], true, icase) {
			return true
		}
	}
	return false
}

// onbranchCond is include_by_branch: HEAD is a symbolic ref to
// refs/heads/NAME and NAME matches.
func (l *loader) onbranchCond(pat string) bool {
	if l.o.GitDir == "" {
		return false
	}
	data, err := l.o.Files.ReadFile(l.o.GitDir + "/HEAD")
	if err != nil {
		l.cfg.Superset = true
		return true
	}
	s := string(data)
	ref, ok := strings.CutPrefix(s, "ref:")
	if !ok {
		// A detached HEAD, or a symlink (which git reads as a symbolic
		// ref, and a read through it as the commit's id).
		l.cfg.Superset = true
		return true
	}
	ref = strings.TrimRight(strings.TrimLeft(ref, " \t\n\r\v\f"), " \t\n\r\v\f")
	name, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok {
		return false
	}
	// The branch may itself be a symbolic ref, which git follows.
	if b, err := l.o.Files.ReadFile(l.o.GitDir + "/" + ref); err == nil && strings.HasPrefix(string(b), "ref:") {
		l.cfg.Superset = true
		return true
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	if strings.ContainsAny(pat, `[\`) {
		l.cfg.Superset = true
		return true
	}
	return wildmatch(pat, name, true, false)
}

// envConfig reads GIT_CONFIG_COUNT's GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n (git_config_from_parameters), then
// GIT_CONFIG_PARAMETERS.
func (l *loader) envConfig() error {
	count, set, err := l.env("GIT_CONFIG_COUNT")
	if err != nil {
		return err
	}
	if set {
		n, ok := parseCount(count)
		if !ok {
			return &NotEstablishedError{Scope: l.scope, Why: fmt.Sprintf("GIT_CONFIG_COUNT=%q is not a count git reads (git dies) or is larger than %d", count, maxEnvCount), unsure: true}
		}
		for i := 0; i < n; i++ {
			k, kset, err := l.env(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
			if err != nil {
				return err
			}
			v, _, err := l.env(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))
			if err != nil {
				return err
			}
			if !kset {
				return &NotEstablishedError{Scope: l.scope, Why: fmt.Sprintf("GIT_CONFIG_KEY_%d is not set: git dies", i)}
			}
			name, ok := canonicalKey(k)
			if !ok {
				return &NotEstablishedError{Scope: l.scope, Why: fmt.Sprintf("GIT_CONFIG_KEY_%d=%q is not a key git reads: git dies", i, k)}
			}
			l.depth = 0
			l.envKey = fmt.Sprintf("GIT_CONFIG_KEY_%d", i)
			err = l.entry(rawEntry{name: name, value: v}, "")
			l.envKey = ""
			if err != nil {
				return err
			}
		}
	}
	if _, set, err := l.env("GIT_CONFIG_PARAMETERS"); err != nil || set {
		if err == nil {
			err = &NotEstablishedError{Scope: l.scope, Why: "GIT_CONFIG_PARAMETERS is set (git -c settings passed down), and its settings are not read", unsure: true}
		}
		return err
	}
	return nil
}

// parseCount reads GIT_CONFIG_COUNT as git's strtoul does, bounded.
func parseCount(s string) (int, bool) {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	s = strings.TrimPrefix(s, "+")
	if s == "" {
		return 0, true // no digits: strtoul reads 0 and stops at the end
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > maxEnvCount {
		return 0, false
	}
	return n, true
}

// canonicalKey is git_config_parse_key: the section and the key
// lower-cased and checked (key characters, the key beginning with a
// letter), the subsection kept as written (no newline).
func canonicalKey(key string) (string, bool) {
	last := strings.LastIndexByte(key, '.')
	if last <= 0 || last == len(key)-1 {
		return "", false
	}
	b := []byte(key)
	dot := false
	for i := 0; i < len(b); i++ {
		c := int(b[i])
		if c == '.' {
			dot = true
		}
		if !dot || i > last {
			if !isKeyChar(c) || i == last+1 && !isAlpha(c) {
				return "", false
			}
			b[i] = byte(lower(c))
		} else if c == '\n' {
			return "", false
		}
	}
	return cString(b), true
}
