package readstation

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxHops bounds symlink resolution, as the kernel's ELOOP does.
const maxHops = 40

// node is one lstat result, cached for the length of a Judge or Recheck.
type node struct {
	mode     fs.FileMode
	dev, ino uint64
	err      error
	target   string // symlink target
}

// resolved is a path resolved physically: every component looked up with
// lstat and every symlink followed, ".." applied to the real parent.
type resolved struct {
	// real is the real path (for a missing path: the real path of the
	// longest existing prefix plus the rest, cleaned).
	real   string
	exists bool
	mode   fs.FileMode // of the final target (symlinks followed)
	dev    uint64
	ino    uint64
	// err is set when the path cannot be established (permission denied,
	// a symlink loop).
	err error
}

func (r resolved) isDir() bool { return r.exists && r.mode.IsDir() }

// fsCache memoises file-system lookups within one Judge or Recheck.
type fsCache struct {
	nodes    map[string]*node
	resolved map[string]resolved
	dirs     map[string]dirList
}

type dirList struct {
	entries []os.DirEntry
	err     error
}

func newFSCache() *fsCache {
	return &fsCache{nodes: map[string]*node{}, resolved: map[string]resolved{}}
}

func (c *fsCache) lstat(p string) *node {
	if n, ok := c.nodes[p]; ok {
		return n
	}
	n := &node{}
	fi, err := os.Lstat(p)
	if err != nil {
		n.err = err
	} else {
		n.mode = fi.Mode()
		n.dev, n.ino = devIno(fi)
		if n.mode&fs.ModeSymlink != 0 {
			n.target, n.err = os.Readlink(p)
		}
	}
	c.nodes[p] = n
	return n
}

func (c *fsCache) readDir(p string) ([]os.DirEntry, error) {
	if c.dirs == nil {
		c.dirs = map[string]dirList{}
	}
	if d, ok := c.dirs[p]; ok {
		return d.entries, d.err
	}
	es, err := os.ReadDir(p)
	c.dirs[p] = dirList{es, err}
	return es, err
}

// notFound reports whether err means the path does not exist (or a
// component is not a directory): reading it would fail, nothing leaks.
func notFound(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func nextComp(rest string) (comp, tail string) {
	rest = strings.TrimLeft(rest, "/")
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return rest, ""
	}
	return rest[:i], rest[i+1:]
}

func moreComps(rest string) bool {
	for rest != "" {
		var c string
		c, rest = nextComp(rest)
		if c != "" {
			return true
		}
	}
	return false
}

// resolve resolves the absolute path p the way the kernel does when a
// program opens it.
func (c *fsCache) resolve(p string) resolved {
	if r, ok := c.resolved[p]; ok {
		return r
	}
	r := c.resolveUncached(p)
	c.resolved[p] = r
	return r
}

func (c *fsCache) resolveUncached(p string) resolved {
	if !filepath.IsAbs(p) {
		return resolved{real: p, err: errors.New("not an absolute path")}
	}
	cur := "/"
	rest := p
	hops := 0
	for {
		var comp string
		comp, rest = nextComp(rest)
		if comp == "" {
			if rest == "" {
				break
			}
			continue
		}
		switch comp {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := joinAbs(cur, comp)
		n := c.lstat(next)
		if n.err != nil {
			if notFound(n.err) {
				return resolved{real: filepath.Clean(next + "/" + rest)}
			}
			return resolved{real: filepath.Clean(next + "/" + rest), err: n.err}
		}
		if n.mode&fs.ModeSymlink != 0 {
			hops++
			if hops > maxHops {
				return resolved{real: next, err: &fs.PathError{Op: "resolve", Path: p, Err: syscall.ELOOP}}
			}
			if filepath.IsAbs(n.target) {
				cur = "/"
			}
			rest = n.target + "/" + rest
			continue
		}
		if !n.mode.IsDir() && moreComps(rest) {
			return resolved{real: filepath.Clean(next + "/" + rest)}
		}
		cur = next
	}
	if cur == "/" {
		n := c.lstat("/")
		if n.err != nil {
			return resolved{real: "/", err: n.err}
		}
		return resolved{real: "/", exists: true, mode: n.mode, dev: n.dev, ino: n.ino}
	}
	n := c.lstat(cur)
	return resolved{real: cur, exists: true, mode: n.mode, dev: n.dev, ino: n.ino}
}

func joinAbs(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}
