//go:build linux

package execution

import (
	"bufio"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A confined command's processes are counted in a pids cgroup of its own
// where the cgroup v1 pids controller is writable (root): pids.max bounds
// them (RLIMIT_NPROC does not bind root), and once the run is over every
// process left in it, a setsid child included, is killed. The command is
// moved into it while it is stopped at its exec (see applier), so it is
// in it from its first instruction; a kept read-only starter's thread
// joins one its commands share (v1 moves single threads).

var pidsBase struct {
	once sync.Once
	dir  string // "" when not available
	n    atomic.Int64
}

// pidsCgroupBase is this process's directory in the v1 pids hierarchy,
// when it is writable.
func pidsCgroupBase() string {
	pidsBase.once.Do(func() {
		f, err := os.Open("/proc/self/cgroup")
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			parts := strings.SplitN(sc.Text(), ":", 3)
			if len(parts) != 3 || parts[1] != "pids" {
				continue
			}
			dir := filepath.Join("/sys/fs/cgroup/pids", parts[2])
			probe := filepath.Join(dir, fmt.Sprintf("shellgate-probe-%d", os.Getpid()))
			if os.Mkdir(probe, 0o700) == nil {
				os.Remove(probe)
				pidsBase.dir = dir
				sweepPidsCgroups(dir)
			}
			return
		}
	})
	return pidsBase.dir
}

// sweepPidsCgroups removes the cgroups under base that a shellgate
// process no longer running left behind (killed before it removed them):
// the kernel removes only an empty one, and one whose process is alive,
// or whose id was reused, is left alone.
func sweepPidsCgroups(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, "shellgate-*-*"))
	for _, d := range dirs {
		f := strings.Split(filepath.Base(d), "-")
		pid, err := strconv.Atoi(f[1])
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.Remove(d)
		}
	}
}

// idleCgroups are emptied cgroups of this process kept for the next run
// (sweepPidsCgroups removes them once this process is gone).
var idleCgroups cgroupPool

const maxIdleCgroups = 8

type cgroupPool struct {
	mu   sync.Mutex
	dirs []*pidsCgroup
}

func (p *cgroupPool) get() *pidsCgroup {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.dirs); n > 0 {
		c := p.dirs[n-1]
		p.dirs = p.dirs[:n-1]
		return c
	}
	return nil
}

// put keeps c, empty, and reports whether it did.
func (p *cgroupPool) put(c *pidsCgroup) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.dirs) >= maxIdleCgroups {
		return false
	}
	p.dirs = append(p.dirs, c)
	return true
}

// pidsCgroup is one pids cgroup.
type pidsCgroup struct {
	dir string
	// limit is its pids.max (negative: none); refused0 the count of forks
	// the limit had refused when this run took the cgroup (a reused one
	// keeps its count).
	limit    int
	refused0 int64
	// empty says the run's end found every process of the run gone
	// (its PID namespace held nothing but init): no process is left in
	// the cgroup and no fork can happen in it any more. events is then
	// the final pids.events count (-1: unknown).
	empty  bool
	events int64
	// eventsF and tasksF are its pids.events and tasks files, kept open
	// while this process keeps the cgroup (nil: not opened yet); a kept
	// one is read again from its start (pread re-reads a cgroup file).
	eventsF, tasksF *os.File
}

// eventsMax is the "max" count of the cgroup's pids.events (0 when it
// cannot be read), read from the kept file.
func (c *pidsCgroup) eventsMax() int64 {
	if c.eventsF == nil {
		f, err := os.Open(filepath.Join(c.dir, "pids.events"))
		if err != nil {
			return 0
		}
		c.eventsF = f
	}
	var buf [256]byte
	n, err := c.eventsF.ReadAt(buf[:], 0)
	if n == 0 && err != nil {
		return 0
	}
	return parseEventsMax(buf[:n])
}

// remove closes the cgroup's kept files and removes it.
func (c *pidsCgroup) remove() error {
	for _, f := range []*os.File{c.eventsF, c.tasksF} {
		if f != nil {
			f.Close()
		}
	}
	c.eventsF, c.tasksF = nil, nil
	return os.Remove(c.dir)
}

// refusedForks is how many forks the cgroup's pids.max refused since
// this run took it (pids.events "max N").
func (c *pidsCgroup) refusedForks() int64 {
	if c == nil {
		return 0
	}
	n := c.eventsMax()
	if c.empty {
		c.events = n
	}
	return n - c.refused0
}

// parseEventsMax is the "max" count of the pids.events text b.
func parseEventsMax(b []byte) int64 {
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "max "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// newPidsCgroup makes a pids cgroup with pids.max max (negative: none);
// nil when the controller is not available.
func newPidsCgroup(max int) *pidsCgroup {
	base := pidsCgroupBase()
	if base == "" {
		return nil
	}
	v := "max"
	if max >= 0 {
		v = strconv.Itoa(max)
	}
	// An emptied cgroup of an earlier run is used again: making and
	// removing one costs more than the rest of its life.
	if c := idleCgroups.get(); c != nil {
		if c.limit == max || os.WriteFile(filepath.Join(c.dir, "pids.max"), []byte(v), 0) == nil {
			c.limit, c.refused0 = max, c.events
			if c.refused0 < 0 {
				c.refused0 = c.eventsMax()
			}
			c.empty, c.events = false, -1
			return c
		}
		c.remove()
	}
	// The name holds this process's id (for sweepPidsCgroups) and a
	// random part: a cgroup left by an earlier process of the same id
	// (one that was killed before it removed it) must not make this one
	// fail.
	var dir string
	for try := 0; ; try++ {
		var r [4]byte
		_, _ = rand.Read(r[:])
		dir = filepath.Join(base, fmt.Sprintf("shellgate-%d-%d-%x", os.Getpid(), pidsBase.n.Add(1), r))
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || try == 3 {
			return nil
		}
	}
	if os.WriteFile(filepath.Join(dir, "pids.max"), []byte(v), 0) != nil {
		os.Remove(dir)
		return nil
	}
	c := &pidsCgroup{dir: dir, limit: max, events: -1}
	c.refused0 = c.eventsMax()
	return c
}

// baseTasks is this process's cgroup's tasks file, kept open (nil: not
// available).
var baseTasks = sync.OnceValue(func() *os.File {
	base := pidsCgroupBase()
	if base == "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(base, "tasks"), os.O_WRONLY, 0)
	if err != nil {
		return nil
	}
	return f
})

// tasksFile is the cgroup's tasks file, open for a thread to join it
// (see joinFork) and kept open with the cgroup (the caller does not close
// it); nil when it cannot be opened, or when its pids.max leaves no room
// for the joining thread beside the command.
func (c *pidsCgroup) tasksFile() *os.File {
	if c == nil || c.limit >= 0 && c.limit < 2 {
		return nil
	}
	if c.tasksF == nil {
		f, err := os.OpenFile(filepath.Join(c.dir, "tasks"), os.O_WRONLY, 0)
		if err != nil {
			return nil
		}
		c.tasksF = f
	}
	return c.tasksF
}

// join moves the calling thread into the cgroup (v1: tasks takes a
// thread id); what it forks from then on is counted there.
func (c *pidsCgroup) join() error {
	return os.WriteFile(filepath.Join(c.dir, "tasks"), []byte(strconv.Itoa(unix.Gettid())), 0)
}

// procs lists the processes in the cgroup other than this one (whose
// starting thread may not have ended yet); mine says whether a thread of
// this process is still there.
// add moves the process pid (all its threads) into the cgroup.
func (c *pidsCgroup) add(pid int) error {
	return os.WriteFile(filepath.Join(c.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
}

func (c *pidsCgroup) procs() (out []int, mine bool) {
	b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	if err != nil {
		return nil, false
	}
	self := os.Getpid()
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.Atoi(f)
		switch {
		case err != nil || n <= 0:
		case n == self:
			mine = true
		default:
			out = append(out, n)
		}
	}
	return out, mine
}

// end kills every process left in the cgroup (never this one) and
// removes it; it reports how many were killed.
func (c *pidsCgroup) end() (int, error) {
	if c == nil {
		return 0, nil
	}
	killed := 0
	sleep := 50 * time.Microsecond
	if c.empty && idleCgroups.put(c) {
		return 0, nil
	}
	c.events = -1
	for i := 0; i < 400; i++ {
		ps, mine := c.procs()
		if len(ps) == 0 && !mine {
			if idleCgroups.put(c) {
				return killed, nil
			}
			if err := c.remove(); err == nil || errors.Is(err, os.ErrNotExist) {
				return killed, nil
			}
		}
		for _, p := range ps {
			if syscall.Kill(p, syscall.SIGKILL) == nil {
				killed++
			}
		}
		// Reap what is ours (a zombie child stays in the cgroup).
		var ws unix.WaitStatus
		for _, p := range ps {
			_, _ = unix.Wait4(p, &ws, unix.WNOHANG, nil)
		}
		time.Sleep(sleep)
		if sleep < 5*time.Millisecond {
			sleep *= 2
		}
	}
	return killed, fmt.Errorf("the pids cgroup %s did not empty", c.dir)
}
