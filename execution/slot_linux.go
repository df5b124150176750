//go:build linux

package execution

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// A confined command with a PID namespace (root) starts from a slot: a
// thread that joined the network and mount namespaces, entered a PID
// namespace of its own (its init, startInit, and a procfs of it on
// /proc), dropped its capabilities, set no_new_privs, installed the
// seccomp filter and restricted itself with the Landlock ruleset, once.
// Setting all of that up is most of what confinement costs (a process
// start for init, a mount namespace, a ruleset, a BPF program). A slot
// serves one run at a time; when the run is over and its namespace holds
// nothing but init (every process the command started is gone and
// reaped: init has no child, not even a zombie), the slot is kept for
// the next run with the same confinement, which therefore gets a PID
// namespace in which no process of an earlier run is left (only the
// numbering goes on). A run that left anything behind retires its slot:
// init is killed, and with it, by the kernel, everything in the
// namespace, as when every run had a namespace of its own.
//
// A slot is kept under a key that holds everything its thread's
// confinement was made of: the Landlock rules with the identity (device
// and inode) of every path they name, as the rules hold the file that was
// there when they were added; the kept mount namespace's key (the
// identity of every protected path it binds); the network namespace and
// the clone flags the seccomp filter lets through. A path that names
// another file since (a directory replaced, a symlink swapped) makes
// another key, so a new slot with rules built afresh.

// slot is a kept confined thread with its PID namespace.
type slot struct {
	key string
	// tmps is the slot's TMPDIR (nil: none).
	tmps    *slotTmpDir
	reqs    chan startReq // closed to retire the slot
	initPid int
	// children is init's children file, and siblings the slot thread's
	// (tid): a process the command started with CLONE_PARENT is the
	// thread's child, not init's. The thread may have forked other
	// children before it became the slot's (Go gives a goroutine that
	// locks itself any idle thread): only those in the slot's PID
	// namespace (pidns, as /proc/PID/ns/pid names it) are the slot's.
	children, siblings childrenFile
	tid                int
	pidns              string
	gone               chan struct{} // closed once init is reaped and the thread ended
	// calls collects what the seccomp filter refused; each run moves it
	// into its own account (the slot serves one run at a time).
	calls refusedCalls
}

// maxIdleSlots bounds the slots kept between runs; the least recently
// used one is retired to keep another.
const maxIdleSlots = 8

// slots keeps the idle slots, least recently used first.
var slots = idlePool[*slot]{key: func(s *slot) string { return s.key }}

// idlePool keeps idle kept confinements (root's slots, the unprivileged
// route's keepers), least recently used first, at most maxIdleSlots.
type idlePool[T any] struct {
	mu   sync.Mutex
	idle []T
	key  func(T) string
}

// take returns an idle one of key, no longer idle, or the zero T.
func (p *idlePool[T]) take(key string) T {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.idle) - 1; i >= 0; i-- {
		if s := p.idle[i]; p.key(s) == key {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			return s
		}
	}
	var zero T
	return zero
}

// put keeps s idle; it returns the one to retire to make room (ok false:
// none).
func (p *idlePool[T]) put(s T) (old T, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.idle = append(p.idle, s)
	if len(p.idle) > maxIdleSlots {
		old = p.idle[0]
		p.idle = p.idle[1:]
		return old, true
	}
	return old, false
}

// newSlot starts a slot's thread, confined as ts says (ts.pidns), and
// waits until it is ready. The thread owns ts.fd: it closes it once it
// restricted itself.
func newSlot(key string, ts *threadSetup, bash string) (*slot, error) {
	s := &slot{key: key, reqs: make(chan startReq), gone: make(chan struct{})}
	ts.refused = &s.calls
	ready := make(chan error, 1)
	go func() {
		// Never unlocked: the thread is confined, and it ends with this
		// goroutine.
		runtime.LockOSThread()
		defer close(s.gone)
		s.tid = unix.Gettid()
		init, err := confineThread(ts, bash)
		unix.Close(ts.fd)
		if err == nil && init == nil {
			err = errors.New("sandbox: no PID namespace was made")
		}
		if err != nil {
			ready <- err
			return
		}
		s.initPid = init.Process.Pid
		ready <- nil
		for r := range s.reqs {
			r.done <- startStopped(r.cmd, r.ap)
		}
		// Retired: init was killed (a confined thread cannot signal it,
		// Landlock's scope); this thread, its tracer, reaps it.
		holdInit(init)
	}()
	if err := <-ready; err != nil {
		<-s.gone
		return nil, err
	}
	// (Read here: the confined thread cannot look at init's namespace.)
	ns, err := os.Readlink("/proc/" + strconv.Itoa(s.initPid) + "/ns/pid")
	if err != nil {
		s.retire()
		return nil, fmt.Errorf("sandbox: the slot's PID namespace: %w", err)
	}
	s.pidns = ns
	return s, nil
}

// start starts cmd from the slot's thread, its limits set by ap.
func (s *slot) start(cmd *exec.Cmd, ap *applier) error {
	done := make(chan error, 1)
	s.reqs <- startReq{cmd, ap, done}
	return ap.serve(done)
}

// retire ends the slot: init's end kills what is left in its namespace.
// It returns how many live processes were left.
func (s *slot) retire() int {
	n := nsProcesses(s.initPid)
	siblings, _ := s.threadChildren()
	for _, p := range siblings {
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat"); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) && st[i+2] != 'Z' && st[i+2] != 'X' {
				n++
			}
		}
	}
	_ = unix.Kill(s.initPid, unix.SIGKILL)
	close(s.reqs)
	// init ends once every process of its namespace is reaped: the
	// slot thread's own children there (CLONE_PARENT) are reaped here,
	// as the thread waits for init.
	for done := false; !done; {
		siblings, _ := s.threadChildren()
		for _, p := range siblings {
			_ = unix.Kill(p, unix.SIGKILL)
			var ws unix.WaitStatus
			_, _ = unix.Wait4(p, &ws, unix.WNOHANG|unix.WALL, nil)
		}
		select {
		case <-s.gone:
			done = true
		case <-time.After(time.Millisecond):
		}
	}
	s.tmps.remove()
	s.children.close()
	s.siblings.close()
	return n
}

// threadChildren lists the slot thread's children in the slot's PID
// namespace other than init (once its command is reaped, what the
// command started with CLONE_PARENT); the slot thread is their parent,
// so they are this process's to reap. ok is false when the thread's
// children could not be read.
func (s *slot) threadChildren() (pids []int, ok bool) {
	pids, ok = s.siblings.pids(os.Getpid(), s.tid)
	return slices.DeleteFunc(pids, func(p int) bool { return p == s.initPid || !inPidns(p, s.pidns) }), ok
}

// inPidns reports whether process pid (alive or a zombie) is in the PID
// namespace ns names.
func inPidns(pid int, ns string) bool {
	got, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/pid")
	return err == nil && got == ns
}

// childrenFile is a task's children file (/proc/PID/task/TID/children),
// kept open and read again from its start.
type childrenFile struct{ f *os.File }

// maxChildrenRead bounds what pids reads of the file.
const maxChildrenRead = 4096

// pids lists the children of the task tid of process pid; ok is false
// when the file cannot be read, or lists more than pids reads.
func (c *childrenFile) pids(pid, tid int) (out []int, ok bool) {
	if c.f == nil {
		f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/children")
		if err != nil {
			return nil, false
		}
		c.f = f
	}
	var b [maxChildrenRead]byte
	n, err := c.f.ReadAt(b[:], 0)
	if err != nil && err != io.EOF {
		return nil, false
	}
	for _, w := range strings.Fields(string(b[:n])) {
		if p, err := strconv.Atoi(w); err == nil && p > 0 {
			out = append(out, p)
		}
	}
	return out, n < len(b)
}

// none reports whether the task has no child (false when that cannot be
// known).
func (c *childrenFile) none(pid, tid int) bool {
	pids, ok := c.pids(pid, tid)
	return ok && len(pids) == 0
}

// close closes the file.
func (c *childrenFile) close() {
	if c.f != nil {
		c.f.Close()
		c.f = nil
	}
}

// slotTmp is the name of a slot's TMPDIR in its directory.
const slotTmp = "tmp"

// slotTmpDir is a kept TMPDIR (a slot's, a kept helper's): its runs get,
// one after the other, the same directory (cur, in the directory tmp):
// the end of a run empties it and makes it private (0700) again. Only
// the ruleset it was made for grants it, the directory itself: nothing
// beside it is writable. watch watches it: a run that made, removed or
// renamed nothing in it and changed none of its attributes leaves
// nothing to look at.
type slotTmpDir struct {
	tmp, cur string
	f        *os.File // cur, open
	ino      uint64
	watch    *pathWatched
}

// newSlotTmpDir makes, in parent, a slot directory with its TMPDIR, and
// grants the TMPDIR in the ruleset fd.
func newSlotTmpDir(parent string, fd, abi int) (*slotTmpDir, error) {
	tmp, err := newSlotDir(parent)
	if err != nil {
		return nil, err
	}
	t := &slotTmpDir{tmp: tmp, cur: filepath.Join(tmp, slotTmp)}
	var st unix.Stat_t
	if err = os.Mkdir(t.cur, 0o700); err == nil {
		if err = tmpRule(fd, t.cur, abi); err == nil {
			if t.f, err = os.Open(t.cur); err == nil {
				err = unix.Fstat(int(t.f.Fd()), &st)
			}
		}
	}
	if err != nil {
		t.remove()
		return nil, err
	}
	t.ino = st.Ino
	t.watch = knownPaths.watchDirs([]string{t.cur})
	return t, nil
}

// remove removes the TMPDIR and its slot directory (nil: nothing).
func (t *slotTmpDir) remove() {
	if t == nil {
		return
	}
	if t.f != nil {
		t.f.Close()
	}
	os.RemoveAll(t.tmp)
}

// nextTmp gives the run the TMPDIR.
func (t *slotTmpDir) nextTmp() (string, error) {
	return t.cur, nil
}

// emptyTmp removes what the run left in the TMPDIR and makes it private
// (0700) again; false if something stays, or if it is no longer the
// directory made. Nothing is looked at when the watch of the TMPDIR
// reported nothing: it is empty and private as it was.
func (t *slotTmpDir) emptyTmp() bool {
	if t == nil || knownPaths.unchanged(t.watch) {
		return true
	}
	if !t.clearTmp() {
		return false
	}
	// Watched again before it is looked at: what is found holds until
	// the watch reports a change.
	t.watch = knownPaths.watchDirs([]string{t.cur})
	var st unix.Stat_t
	if err := unix.Lstat(t.cur, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Ino != t.ino || int(st.Uid) != os.Getuid() || st.Mode&0o7777 != 0o700 {
		return false
	}
	if _, err := t.f.Seek(0, io.SeekStart); err != nil {
		return false
	}
	names, err := t.f.Readdirnames(1)
	return len(names) == 0 && err == io.EOF
}

// clearTmp removes the entries of the TMPDIR and makes it private (0700)
// again.
func (t *slotTmpDir) clearTmp() bool {
	if _, err := t.f.Seek(0, io.SeekStart); err != nil {
		return false
	}
	names, err := t.f.Readdirnames(-1)
	if err != nil {
		return false
	}
	for _, n := range names {
		if os.RemoveAll(filepath.Join(t.cur, n)) != nil {
			return false
		}
	}
	var st unix.Stat_t
	if err := unix.Lstat(t.cur, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Ino != t.ino || int(st.Uid) != os.Getuid() {
		return false
	}
	return st.Mode&0o7777 == 0o700 || os.Chmod(t.cur, 0o700) == nil
}

// empty reports whether the slot's namespace holds nothing but init: init
// has no child, alive or a zombie (what a run leaves is adopted by init),
// and the slot thread none but init (CLONE_PARENT).
func (s *slot) empty() bool {
	if pids, ok := s.threadChildren(); !ok || len(pids) != 0 {
		return false
	}
	return s.children.none(s.initPid, s.initPid)
}

// moveTo moves what c recorded into dst.
func (c *refusedCalls) moveTo(dst *refusedCalls) {
	c.mu.Lock()
	order, count, mem, memMax := c.order, c.count, c.mem, c.memMax
	c.order, c.count, c.mem, c.memMax = nil, nil, 0, 0
	c.mu.Unlock()
	for _, name := range order {
		for i := 0; i < count[name]; i++ {
			dst.add(name)
		}
	}
	if mem > 0 {
		dst.mu.Lock()
		dst.mem += mem
		dst.memMax = max(dst.memMax, memMax)
		dst.mu.Unlock()
	}
}

// slotStart starts the command from a slot of the run's confinement: an
// idle one, or one made for it. The run's end (endPidns) keeps the slot
// when the run left its namespace empty and retires it otherwise.
func (r *confinedRun) slotStart() (func() error, error) {
	prefix := cfgString(r.cfg) + "\x00" + strconv.Itoa(r.ts.netns) + "\x00" + strconv.FormatUint(uint64(r.ts.allowClone), 16) + "\x00" +
		strconv.FormatUint(r.ts.memLimit, 10) + "\x00" + r.mntnsKey + "\x00" + r.etcIdentity()
	id, err := ruleIdentity(r.flat, r.sup.ABI, r.ids)
	if err != nil {
		return nil, fmt.Errorf("landlock ruleset: %w", err)
	}
	if r.tmpParent != "" {
		prefix += "tmp\x00"
	}
	s := slots.take(prefix + id)
	if s == nil {
		fd, flags, built, err := buildRuleset(r.cfg, r.flat, r.sup.ABI)
		if err != nil {
			return nil, fmt.Errorf("landlock ruleset: %w", err)
		}
		// The slot is kept under what its rules hold (a path may have
		// changed since ruleIdentity looked).
		var tmps *slotTmpDir
		if r.tmpParent != "" {
			// A TMPDIR of the slot's own, which only its ruleset grants.
			if tmps, err = newSlotTmpDir(r.tmpParent, fd, r.sup.ABI); err != nil {
				unix.Close(fd)
				return nil, fmt.Errorf("sandbox temp dir: %w", err)
			}
		}
		ts := *r.ts
		ts.fd, ts.flags, ts.cg = fd, flags, nil
		if s, err = newSlot(prefix+built, &ts, r.bash); err != nil {
			tmps.remove()
			return nil, err
		}
		s.tmps = tmps
	}
	if s.tmps != nil {
		tmp, err := s.tmps.nextTmp()
		if err != nil {
			s.retire()
			return nil, fmt.Errorf("sandbox temp dir: %w", err)
		}
		r.sets.read = append(r.sets.read, tmp)
		r.sets.write = append(r.sets.write, tmp)
		r.cmd.Env = setEnv(r.cmd.Env, "TMPDIR", tmp)
	}
	started := false
	cmd, lim, cg := r.cmd, r.lim, r.ts.cg
	r.ts.cg = nil
	r.endPidns = func() int {
		s.calls.moveTo(r.refused)
		// The shell was waited for and the namespace is empty: nothing
		// of this run is left in it.
		if started && cmd.ProcessState != nil && s.empty() && s.tmps.emptyTmp() {
			if cg != nil {
				// Every process of the command was in the namespace.
				cg.empty = true
			}
			if old, ok := slots.put(s); ok {
				old.retire()
			}
			return 0
		}
		n := s.retire()
		s.calls.moveTo(r.refused)
		return n
	}
	return func() error {
		ap := newApplier(lim)
		ap.cg = cg
		if leave := baseTasks(); leave != nil {
			if ap.join = cg.tasksFile(); ap.join != nil {
				// Born in the cgroup: nothing to move at its exec.
				ap.leave, ap.cg = leave, nil
			}
		}
		err := s.start(cmd, ap)
		started = err == nil
		return err
	}, nil
}

// etcIdentity stands for the identity of the entries of /etc's kept
// listing: the listing's generation and what its symlinks name.
func (r *confinedRun) etcIdentity() string {
	var b strings.Builder
	b.WriteString("etc ")
	b.WriteString(strconv.FormatUint(r.etcGen, 10))
	b.WriteByte(0)
	for _, p := range r.etcLinks {
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil {
			appendRuleIdentity(&b, p, 0, nil)
			continue
		}
		appendRuleIdentity(&b, p, 0, &st)
	}
	return b.String()
}

// sweptSlotDirs: this process removed, once, the slots' directories that
// processes no longer running left behind.
var sweptSlotDirs sync.Once

// newSlotDir makes a slot's directory of TMPDIRs in parent, named with
// this process's id: kept slots end with the process, their directories
// are removed by the next process that makes one (sweepSlotDirs).
func newSlotDir(parent string) (string, error) {
	sweptSlotDirs.Do(func() { sweepSlotDirs(parent) })
	return os.MkdirTemp(parent, "shellgate-slot-"+strconv.Itoa(os.Getpid())+"-")
}

// sweepSlotDirs removes the slot directories in parent of processes no
// longer running (one whose id was reused is left alone).
func sweepSlotDirs(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, "shellgate-slot-*-*"))
	for _, d := range dirs {
		f := strings.Split(filepath.Base(d), "-")
		pid, err := strconv.Atoi(f[2])
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := unix.Kill(pid, 0); errors.Is(err, unix.ESRCH) {
			_ = os.RemoveAll(d)
		}
	}
}

func init() { realPath = procRealPath }

// procRealPath resolves p as the kernel does (every symlink, .. after
// them) and reads the result back from the descriptor's /proc link.
func procRealPath(p string) (string, error) {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", &os.PathError{Op: "open", Path: p, Err: err}
	}
	defer unix.Close(fd)
	buf := make([]byte, unix.PathMax)
	n, err := unix.Readlink("/proc/thread-self/fd/"+strconv.Itoa(fd), buf)
	if err != nil || n <= 0 || n >= len(buf) || buf[0] != '/' {
		return filepath.EvalSymlinks(p)
	}
	return string(buf[:n]), nil
}

// cfgStrings keeps the text of each Landlock config (there are a few).
var cfgStrings sync.Map // landlock.Config -> string

// cfgString is fmt.Sprint(cfg), made once per config.
func cfgString(cfg landlock.Config) string {
	if v, ok := cfgStrings.Load(cfg); ok {
		return v.(string)
	}
	s := fmt.Sprint(cfg)
	cfgStrings.Store(cfg, s)
	return s
}
