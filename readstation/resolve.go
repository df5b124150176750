package readstation

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// fsCalls counts file-system system calls, for the benchmarks' calls/op.
var fsCalls atomic.Int64

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
	nodes    memo[string, *node]
	resolved memo[string, resolved]
	dirs     map[string]dirList
}

type dirList struct {
	entries []os.DirEntry
	err     error
}

func newFSCache() *fsCache {
	return &fsCache{}
}

func (c *fsCache) lstat(p string) *node {
	if n, ok := c.nodes.get(p); ok {
		return n
	}
	n := &node{}
	fsCalls.Add(1)
	n.mode, n.dev, n.ino, n.err = statID(p, false)
	if n.err == nil {
		if n.mode&fs.ModeSymlink != 0 {
			fsCalls.Add(1)
			n.target, n.err = os.Readlink(p)
		}
	}
	c.nodes.put(p, n)
	return n
}

func (c *fsCache) readDir(p string) ([]os.DirEntry, error) {
	if c.dirs == nil {
		c.dirs = map[string]dirList{}
	}
	if d, ok := c.dirs[p]; ok {
		return d.entries, d.err
	}
	fsCalls.Add(3) // open, getdents, close
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
	if r, ok := c.resolved.get(p); ok {
		return r
	}
	r := c.resolveUncached(p)
	c.resolved.put(p, r)
	return r
}

func (c *fsCache) resolveUncached(p string) resolved {
	if !filepath.IsAbs(p) {
		return resolved{real: p, err: errors.New("not an absolute path")}
	}
	// Fast path: one stat, the kernel's own resolution of p (symlinks
	// followed, ".." physical). When it reaches the object a previous
	// resolution of the same text reached (device and inode), the real path
	// is that resolution's: the same file or directory. Only hard links and
	// bind mounts give one object two real paths, and then the data is the
	// same.
	fsCalls.Add(1)
	mode, dev, ino, serr := statID(p, true)
	if serr == nil {
		if f, ok := lookupFact(p); ok && f.dev == dev && f.ino == ino && (dev != 0 || ino != 0) {
			return resolved{real: f.real, exists: true, mode: mode, dev: dev, ino: ino}
		}
	}
	r := c.resolveSlow(p)
	if serr == nil && r.err == nil && r.exists {
		storeFact(p, dirFact{r.real, r.dev, r.ino})
	}
	return r
}

// resolveSlow resolves p's parent (through the cache) and then its last
// name, or the whole path component by component. A parent that is
// missing or not a directory (and established) makes p missing, at its
// real path and the name: what walking p from the root finds, without
// looking up its components again.
func (c *fsCache) resolveSlow(p string) resolved {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		name := p[i+1:]
		if name != "" && name != "." && name != ".." {
			if i == 0 {
				return c.walk("/", name, p)
			}
			switch r := c.resolve(p[:i]); {
			case r.err != nil:
			case r.isDir():
				return c.walk(r.real, name, p)
			default:
				// r.real is clean and name one plain component: the join is
				// clean.
				return resolved{real: joinAbs(r.real, name)}
			}
		}
	}
	return c.walk("/", p, p)
}

// dirFact is a path's real path and identity, cached across calls.
type dirFact struct {
	real     string
	dev, ino uint64
}

var factCache struct {
	sync.Mutex
	m map[string]dirFact
}

func lookupFact(p string) (dirFact, bool) {
	factCache.Lock()
	f, ok := factCache.m[p]
	factCache.Unlock()
	return f, ok
}

func storeFact(p string, f dirFact) {
	factCache.Lock()
	if factCache.m == nil || len(factCache.m) >= 8192 {
		factCache.m = map[string]dirFact{}
	}
	factCache.m[p] = f
	factCache.Unlock()
}

// walk resolves rest (a path relative to the real directory cur, or an
// absolute one) component by component; p is the whole path, for errors.
func (c *fsCache) walk(cur, rest, p string) resolved {
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
