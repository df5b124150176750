package agentrules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/shellgate/shellgate/trust"
)

// maxCached bounds the sources a Cache keeps.
const maxCached = 64

// Cache loads rules once per source and again only when one of the files
// they come from (a settings or rules file, a rules directory, the trust
// store, the git index that says a local settings file is untracked)
// changed. It is safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	stamp []stat
	rules *Rules
}

type stat struct {
	path  string
	size  int64
	mtime time.Time
	mode  os.FileMode
	ok    bool
}

// Load is Load(src), from the cache when nothing it read changed. A nil
// Cache loads every time.
func (c *Cache) Load(src Source) *Rules {
	if c == nil {
		return Load(src)
	}
	key := cacheKey(src)
	st := stamp(src)
	c.mu.Lock()
	if e, ok := c.entries[key]; ok && slices.Equal(e.stamp, st) {
		c.mu.Unlock()
		return e.rules
	}
	c.mu.Unlock()
	r := Load(src)
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCached {
		c.entries = map[string]*cacheEntry{}
	}
	c.entries[key] = &cacheEntry{stamp: st, rules: r}
	c.mu.Unlock()
	return r
}

// cacheKey identifies a source; the trust store is part of the stamp.
func cacheKey(src Source) string {
	var b strings.Builder
	b.WriteString(src.Agent + "\x00" + src.Cwd)
	for _, n := range EnvNames {
		b.WriteString("\x00" + src.Env[n])
	}
	return b.String()
}

// stamp stats everything Load would read for src.
func stamp(src Source) []stat {
	var paths []string
	for _, f := range files(src) {
		paths = append(paths, f.path, filepath.Dir(f.path))
		if f.untrackedOK {
			paths = append(paths, gitIndexOf(f.path))
		}
	}
	if src.Agent == Codex || src.Agent == Gemini {
		// A new file in a rules directory.
		for _, d := range Dirs(src) {
			paths = append(paths, d)
		}
	}
	if p, err := trust.Path(); err == nil {
		paths = append(paths, p)
	}
	out := make([]stat, 0, len(paths))
	for _, p := range paths {
		s := stat{path: p}
		if p != "" {
			if fi, err := os.Stat(p); err == nil {
				s.size, s.mtime, s.mode, s.ok = fi.Size(), fi.ModTime(), fi.Mode(), true
			}
		}
		out = append(out, s)
	}
	return out
}

// Dirs lists the directories whose files Load reads as rules files (Codex's
// rules, Gemini CLI's policies).
func Dirs(src Source) []string {
	home := src.Env["HOME"]
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	switch src.Agent {
	case Codex:
		dir := src.Env["CODEX_HOME"]
		if dir == "" && home != "" {
			dir = filepath.Join(home, ".codex")
		}
		if dir != "" {
			return []string{filepath.Join(dir, "rules")}
		}
	case Gemini:
		var out []string
		gh := src.Env["GEMINI_CLI_HOME"]
		if gh == "" {
			gh = home
		}
		if gh != "" {
			out = append(out, filepath.Join(gh, ".gemini", "policies"))
		}
		if filepath.IsAbs(src.Cwd) {
			out = append(out, filepath.Join(src.Cwd, ".gemini", "policies"))
		}
		return out
	}
	return nil
}

// gitIndexOf is the index of the nearest repository above path ("" for
// none).
func gitIndexOf(path string) string {
	for dir := filepath.Dir(path); ; {
		gd := filepath.Join(dir, ".git")
		if _, err := os.Lstat(gd); err == nil {
			return filepath.Join(gd, "index")
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}
