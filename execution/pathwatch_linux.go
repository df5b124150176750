//go:build linux

package execution

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// What readDirsIDs finds about a directory (its identity, a verdict, or
// that it does not exist) stays true until a directory its resolution
// passes through gains, loses or renames an entry, or a mount comes or
// goes. knownPaths keeps those findings and watches exactly that: each
// directory a kept path's resolution looks a name up in, with inotify
// (events are queued by the call that makes the change, before it
// returns), and the mount table, by polling its mountinfo. A run asks for
// the events once (refresh: one poll when nothing changed) and takes
// what is still kept without a system call per directory; a finding is
// made afresh when an event touched one of its directories.
//
// A finding is kept only when the watches were in place before it was
// made: the path is resolved once to learn its directories, they are
// watched, and resolved again; only when both resolutions agree is the
// finding made, and only when no event came for those directories from
// then until it is kept. A kept finding is never what a ruleset is
// built from blindly either: the identities it gives are those a kept
// ruleset is looked up by, and a ruleset built afresh holds what it
// opened (buildRuleset).

// watchMask are the inotify events that change how a name in the
// directory resolves. Only directories of local file systems are
// watched (localFS): elsewhere a change can come without an event.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ATTRIB | unix.IN_ONLYDIR | unix.IN_MASK_ADD

// maxKnownPaths bounds the findings kept; beyond it all are dropped and
// the watches with them.
const maxKnownPaths = 4096

type knownPath struct {
	st   ctimeStat
	safe bool
	real string // the real path (knownRealPath)
	err  error  // the path does not exist (fs.ErrNotExist)
}

// pathWatch is knownPaths' state.
type pathWatch struct {
	mu      sync.Mutex
	started bool
	fd      int // inotify; -1: none (nothing is kept)
	// mounts is this process's mountinfo, polled: a raw descriptor (one
	// opened through os.Open reported no change to our poll here, the
	// runtime's own poller seemingly taking it first: seen on Linux 6.18,
	// not traced further).
	mounts  int
	gen     map[int32]uint64
	mountGn uint64
	deps    map[int32]map[pathDirKey]bool
	known   map[pathDirKey]knownPath
	wds     map[pathDirKey][]int32
	// held are the watches held, by descriptor (an IN_IGNORED event
	// ends one); wds are each finding's watches.
	held map[int32]bool
}

// knownPaths are the kept findings of readDirsIDs.
var knownPaths = pathWatch{fd: -1}

// start makes the inotify instance and opens the mountinfo, once.
func (w *pathWatch) start() {
	if w.started {
		return
	}
	w.started = true
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return
	}
	// This thread's view of the mounts (any thread of this process
	// that runs this code is an unconfined one).
	m, err := unix.Open("/proc/thread-self/mountinfo", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Close(fd)
		return
	}
	w.fd, w.mounts = fd, m
	w.reset()
	w.poll() // the first poll reports the table as changed
}

// addWatch watches the directory p (w.mu held), unless this process
// holds maxWatches watches already: the user's watches are shared with
// every program of theirs (an editor watching the workspace), and what
// is not watched is looked at each run instead.
func (w *pathWatch) addWatch(p string) (int, error) {
	if len(w.held) >= maxWatches() {
		return -1, unix.ENOSPC
	}
	wd, err := unix.InotifyAddWatch(w.fd, p, watchMask)
	if err == nil {
		w.held[int32(wd)] = true
	}
	return wd, err
}

// maxWatches is how many inotify watches this process takes at most: an
// eighth of the user's (fs.inotify.max_user_watches), at most 16,384 (a
// variable for the tests).
var maxWatches = sync.OnceValue(func() int {
	n := 8192
	if b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches"); err == nil {
		if v, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && v > 0 {
			n = v
		}
	}
	return min(n/8, 16384)
})

// reset forgets every finding.
func (w *pathWatch) reset() {
	w.gen = map[int32]uint64{}
	w.deps = map[int32]map[pathDirKey]bool{}
	w.known = map[pathDirKey]knownPath{}
	w.wds = map[pathDirKey][]int32{}
	w.held = map[int32]bool{}
}

// refresh takes the events that came since the last one and drops the
// findings they touch.
func (w *pathWatch) refresh() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.start()
	if w.fd >= 0 {
		w.poll()
	}
}

// poll drains what inotify and the mount table report (w.mu held).
func (w *pathWatch) poll() {
	fds := []unix.PollFd{{Fd: int32(w.fd), Events: unix.POLLIN}, {Fd: int32(w.mounts), Events: unix.POLLPRI}}
	n, err := unix.Poll(fds, 0)
	for err == unix.EINTR {
		// A signal (the Go runtime's preemption, SIGURG) came during the
		// poll: nothing is lost, ask again. Taking it for a failure
		// dropped every finding and watch, often mid-run.
		n, err = unix.Poll(fds, 0)
	}
	if err != nil {
		w.dropAll()
		return
	}
	if n == 0 {
		return
	}
	if fds[1].Revents&(unix.POLLPRI|unix.POLLERR) != 0 {
		// A mount came or went (the poll itself takes the change).
		w.mountGn++
		w.known = map[pathDirKey]knownPath{}
		w.deps = map[int32]map[pathDirKey]bool{}
		w.wds = map[pathDirKey][]int32{}
	}
	if fds[0].Revents&unix.POLLIN == 0 {
		return
	}
	var buf [4096]byte
	for {
		n, err := unix.Read(w.fd, buf[:])
		if n <= 0 || err != nil {
			return
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				w.dropAll()
				return
			}
			w.gen[ev.Wd]++
			if ev.Mask&unix.IN_IGNORED != 0 {
				delete(w.held, ev.Wd)
			}
			for k := range w.deps[ev.Wd] {
				w.forget(k)
			}
			delete(w.deps, ev.Wd)
		}
	}
}

// dropAll forgets every finding and every watch (w.mu held).
func (w *pathWatch) dropAll() {
	if w.fd >= 0 {
		unix.Close(w.fd)
	}
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		fd = -1
	}
	w.fd = fd
	w.mountGn++
	w.reset()
}

// forget drops the finding k (w.mu held).
func (w *pathWatch) forget(k pathDirKey) {
	delete(w.known, k)
	for _, wd := range w.wds[k] {
		delete(w.deps[wd], k)
	}
	delete(w.wds, k)
}

// lookup returns the kept finding k.
func (w *pathWatch) lookup(k pathDirKey) (knownPath, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	v, ok := w.known[k]
	return v, ok
}

// pathWatched is what watch gives remember: the watches of a path's
// directories and their generations when the watching began.
type pathWatched struct {
	wds   []int32
	gens  []uint64
	mount uint64
}

// watch watches the directories path p's resolution looks names up in,
// and resolves it again; nil when they cannot all be watched or the two
// resolutions disagree (the finding is then not kept).
func (w *pathWatch) watch(p string) *pathWatched {
	w.mu.Lock()
	fd := w.fd
	w.mu.Unlock()
	if fd < 0 {
		return nil
	}
	dirs, err := lookupDirs(p)
	if err != nil {
		return nil
	}
	w.mu.Lock()
	if w.fd != fd {
		w.mu.Unlock()
		return nil
	}
	pw := &pathWatched{mount: w.mountGn}
	for _, d := range dirs {
		var fs unix.Statfs_t
		if unix.Statfs(d, &fs) != nil || !localFS(&fs) {
			w.mu.Unlock()
			return nil
		}
		wd, err := w.addWatch(d)
		if err != nil {
			w.mu.Unlock()
			return nil
		}
		pw.wds = append(pw.wds, int32(wd))
		pw.gens = append(pw.gens, w.gen[int32(wd)])
	}
	w.mu.Unlock()
	again, err := lookupDirs(p)
	if err != nil || !equalStrings(dirs, again) {
		return nil
	}
	return pw
}

// watchDirs watches the directories dirs (entries made, removed,
// renamed, their attributes) for unchanged, which reports what comes
// after watchDirs returns: the caller looks at them after it; nil when
// one cannot be watched.
func (w *pathWatch) watchDirs(dirs []string) *pathWatched {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.start()
	if w.fd < 0 {
		return nil
	}
	var wds []int32
	for _, d := range dirs {
		var fs unix.Statfs_t
		if unix.Statfs(d, &fs) != nil || !localFS(&fs) {
			return nil
		}
		wd, err := w.addWatch(d)
		if err != nil {
			return nil
		}
		wds = append(wds, int32(wd))
	}
	// What came before is taken now: the caller looks at the
	// directories after this. (A mount change or an overflow in between
	// makes no token: the watches may be gone with the descriptor.)
	gn := w.mountGn
	w.poll()
	if w.mountGn != gn {
		return nil
	}
	pw := &pathWatched{mount: w.mountGn, wds: wds}
	for _, wd := range wds {
		pw.gens = append(pw.gens, w.gen[wd])
	}
	return pw
}

// unchanged reports whether no event came for pw's directories, and no
// mount came or went, since they were watched (false for nil).
func (w *pathWatch) unchanged(pw *pathWatched) bool {
	if pw == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.unchangedLocked(pw)
}

// unchangedLocked is unchanged, w.mu held.
func (w *pathWatch) unchangedLocked(pw *pathWatched) bool {
	if w.fd < 0 {
		return false
	}
	w.poll()
	if w.mountGn != pw.mount {
		return false
	}
	for i, wd := range pw.wds {
		if !w.held[wd] || w.gen[wd] != pw.gens[i] {
			return false
		}
	}
	return true
}

// watchFD watches the directory open as fd (the file itself, whatever
// its name) and returns the watch and the generations wdSame compares;
// ok is false when it cannot be watched. What came before is taken
// first: the caller reads the directory after this.
func (w *pathWatch) watchFD(fd int) (wd int32, gen, mount uint64, ok bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.start()
	if w.fd < 0 {
		return 0, 0, 0, false
	}
	var fs unix.Statfs_t
	if unix.Fstatfs(fd, &fs) != nil || !localFS(&fs) {
		return 0, 0, 0, false
	}
	n, err := w.addWatch("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return 0, 0, 0, false
	}
	gn := w.mountGn
	w.poll()
	if w.mountGn != gn {
		return 0, 0, 0, false
	}
	return int32(n), w.gen[int32(n)], w.mountGn, true
}

// genOf is the generation of the watch wd (events taken so far).
func (w *pathWatch) genOf(wd int32) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.gen[wd]
}

// mountGen is the generation of the mount table and of the inotify
// instance: a watch of another generation is gone.
func (w *pathWatch) mountGen() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.mountGn
}

// wdSame reports whether no event came for the watch wd since its
// generation was gen (and no mount came or went since mount). The
// caller polled (refresh) before.
func (w *pathWatch) wdSame(wd int32, gen, mount uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fd >= 0 && w.mountGn == mount && w.held[wd] && w.gen[wd] == gen
}

// stampsSame is wdSame of every stamp, under one hold of the lock (a
// repository's loose object directories are 256).
func (w *pathWatch) stampsSame(stamps []watchStamp) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return false
	}
	for _, s := range stamps {
		if w.mountGn != s.mount || !w.held[s.wd] || w.gen[s.wd] != s.gen {
			return false
		}
	}
	return true
}

// alive reports whether the watch wd is still held (its directory was
// not removed: a watch that ended reports nothing any more, and a new
// directory on the same inode number is not the one it watched).
func (w *pathWatch) alive(wd int32, mount uint64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fd >= 0 && w.mountGn == mount && w.held[wd]
}

// remember keeps the finding v of k, made after watch gave pw, unless an
// event came for its directories (or a mount) since.
func (w *pathWatch) remember(k pathDirKey, pw *pathWatched, v knownPath) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.fd < 0 {
		return
	}
	if !w.unchangedLocked(pw) {
		return
	}
	if len(w.known) >= maxKnownPaths {
		w.dropAll()
		return
	}
	w.forget(k)
	w.known[k] = v
	w.wds[k] = pw.wds
	for _, wd := range pw.wds {
		if w.deps[wd] == nil {
			w.deps[wd] = map[pathDirKey]bool{}
		}
		w.deps[wd][k] = true
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// lookupDirs resolves the absolute path p as the kernel does (symlinks
// followed, at most 40) and returns the directories it looks a name up
// in, in order, each once. A missing name ends the resolution there (the
// directory it was looked up in is the last one): that it is missing is
// a finding too.
func lookupDirs(p string) ([]string, error) {
	if !filepath.IsAbs(p) {
		return nil, errors.New("not absolute")
	}
	var dirs []string
	seen := map[string]bool{}
	cur := "/"
	rest := strings.Split(p, "/")
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		if !seen[cur] {
			seen[cur] = true
			dirs = append(dirs, cur)
		}
		next := filepath.Join(cur, c)
		var st unix.Stat_t
		if err := unix.Lstat(next, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return dirs, nil
			}
			return nil, err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			cur = next
			continue
		}
		if links++; links > 40 {
			return nil, unix.ELOOP
		}
		target, err := os.Readlink(next)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(target, "/") {
			cur = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return dirs, nil
}

// watch returns the watch of the directory p, which lstat found to be
// (dev, ino): a kept one of that directory, or a new one of the
// directory opened at p, when it is that one.
func (c *guardWatchCache) watch(p string, dev, ino uint64) (int32, bool) {
	c.mu.Lock()
	e, ok := c.m[p]
	c.mu.Unlock()
	if ok && e.dev == dev && e.ino == ino && knownPaths.alive(e.wd, e.mount) {
		return e.wd, true
	}
	fd, err := unix.Open(p, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || uint64(st.Dev) != dev || st.Ino != ino {
		return 0, false
	}
	wd, _, mount, ok := knownPaths.watchFD(fd)
	if !ok {
		return 0, false
	}
	c.mu.Lock()
	if len(c.m) >= maxDirNames {
		clear(c.m)
	}
	c.m[p] = guardWatched{dev, ino, wd, mount}
	c.mu.Unlock()
	return wd, true
}
