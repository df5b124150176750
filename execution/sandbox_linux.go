//go:build linux

package execution

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// How the Linux runner confines a command, without a helper program:
//
// Landlock restricts the calling thread, and a child inherits its
// parent thread's domain at fork. The runner therefore starts each
// confined command from a fresh goroutine locked to its own OS thread:
// that thread joins the private network namespace (when network is
// denied), sets no_new_privs, restricts itself with the command's
// Landlock ruleset (landlock_restrict_self without TSYNC: only this
// thread) and forks bash. The goroutine then returns without unlocking,
// so the Go runtime ends the thread: no other goroutine ever runs with
// the confined thread's credentials, and the caller's process is not
// confined. A read-only ruleset is built once per set of directories,
// and its confined thread stays, locked to a goroutine that does nothing
// but start the commands of that ruleset. Nothing has to be found on disk, so a program that uses the
// gate package as a library gets the same confinement.
//
// The network is denied twice: Landlock's TCP rules (ABI 4 and later)
// refuse every TCP bind and connect, and the command runs in a network
// namespace with no interface up (not even loopback), which stops UDP
// and DNS as well. With CAP_SYS_ADMIN (root) one namespace is created
// once and every command joins it (setns from the locked thread);
// without it, each command gets a new user and network namespace
// (CLONE_NEWUSER|CLONE_NEWNET), in which it sees itself as nobody; where
// neither works only the TCP rules remain (NetworkGuard "landlock-tcp").

var linuxSandbox struct {
	once    sync.Once
	support SandboxSupport
	netnsFD int // the shared network namespace, -1 when none
	// mountns: a thread can make a mount namespace of its own (root);
	// mountnsErr says why not.
	mountns    bool
	mountnsErr string
}

// sandboxSupport probes Landlock and the network guard once. bash is
// used to probe user namespaces.
func sandboxSupport(bash string) SandboxSupport {
	s := &linuxSandbox
	s.once.Do(func() {
		s.netnsFD = -1
		abi, err := ll.LandlockGetABIVersion()
		if err != nil || abi < 1 {
			if err == nil {
				err = errors.New("ABI version 0")
			}
			s.support.Err = fmt.Errorf("Landlock is not available in this kernel (%v)", err)
			return
		}
		s.support.Mechanism = "landlock"
		s.support.ABI = abi
		s.mountns, s.mountnsErr = probeMountns()
		s.support.Isolation = []string{"no-caps", "no_new_privs", "rlimits"}
		if seccompAvailable {
			s.support.Isolation = append(s.support.Isolation, "seccomp")
		}
		if pidsCgroupBase() != "" {
			s.support.Isolation = append(s.support.Isolation, "pids-cgroup")
		}
		if fd, err := newSharedNetns(); err == nil {
			s.netnsFD = fd
			s.support.NetworkGuard = "netns"
			return
		}
		if bash != "" && usernsWorks(bash) {
			s.support.NetworkGuard = "userns+netns"
			return
		}
		if abi >= 4 {
			s.support.NetworkGuard = "landlock-tcp"
		}
	})
	return s.support
}

// newSharedNetns creates a network namespace on a thread of its own and
// returns a descriptor for it. It needs CAP_SYS_ADMIN.
func newSharedNetns() (int, error) {
	type result struct {
		fd  int
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// Never unlocked: the thread that moved into the namespace ends
		// with this goroutine.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			ch <- result{-1, err}
			return
		}
		fd, err := unix.Open("/proc/thread-self/ns/net", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		ch <- result{fd, err}
	}()
	r := <-ch
	return r.fd, r.err
}

// probeMountns makes a mount namespace on a thread of its own once, to
// learn whether commands can get one.
func probeMountns() (bool, string) {
	ch := make(chan error, 1)
	go func() {
		// Never unlocked: the thread left the process's mount namespace.
		runtime.LockOSThread()
		ch <- unix.Unshare(unix.CLONE_NEWNS)
	}()
	if err := <-ch; err != nil {
		return false, err.Error()
	}
	return true, ""
}

// usernsWorks starts bash once in a new user and network namespace.
func usernsWorks(bash string) bool {
	cmd := exec.Command(bash, "-c", ":")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET}
	cmd.Env = []string{}
	return cmd.Run() == nil
}

// threadSetup is what a confined command's starting thread does before it
// forks the command, in this order: join the network namespace, make a
// mount namespace that binds the protected paths read-only (and pins the
// git directories), drop the capabilities the command could inherit,
// set no_new_privs, install the seccomp filter and restrict itself with
// the Landlock ruleset.
type threadSetup struct {
	fd         int
	flags      uint32
	netns      int
	protect    []protectedPath
	allowClone uint32
	// sockets are the pathname unix sockets outside the writable
	// directories that a bind of /dev/null hides (Landlock refuses
	// connecting to them only from ABI 9 on).
	sockets []string
	// cg is the pids cgroup the thread joins first (nil: none).
	cg *pidsCgroup
	// mntns is a kept mount namespace with protect and sockets bound
	// (see mountnsFor); -1: the thread makes its own.
	mntns int
}

// prepareConfined returns the function that starts cmd under c, the
// account of the confinement, the paths the command may read and write
// (for telling sandbox denials in the output) and a cleanup for after the
// run, which undoes what the command did to protected paths the kernel
// could not pin and returns those refusals. It fails when the confinement
// cannot be built: the command must then not run.
func prepareConfined(cmd *exec.Cmd, c *Confinement, bash string) (start func() error, info *SandboxInfo, sets *confinedSets, cleanup func() []SandboxDenial, err error) {
	sup := sandboxSupport(bash)
	if sup.Err != nil {
		return nil, nil, nil, nil, sup.Err
	}
	var tmp string
	var g *guard
	var cg *pidsCgroup // this run's own (not a kept read-only starter's)
	cleanup = func() []SandboxDenial {
		var d []SandboxDenial
		if n, err := cg.end(); n > 0 || err != nil {
			line := fmt.Sprintf("%d processes the command left running were killed at the end of the run", n)
			if err != nil {
				line += " (" + err.Error() + ")"
			}
			d = append(d, SandboxDenial{Op: "process", Line: line})
		}
		d = append(d, g.undo()...)
		if tmp != "" {
			os.RemoveAll(tmp)
		}
		return d
	}
	fail := func(err error) (func() error, *SandboxInfo, *confinedSets, func() []SandboxDenial, error) {
		cleanup()
		return nil, nil, nil, nil, err
	}
	home := envHome(cmd.Env)
	sets = &confinedSets{mode: c.Mode}
	var rules []landlock.Rule
	var etc []string
	for _, d := range readDirs(c, cmd.Env) {
		if d != "/etc" {
			sets.read = append(sets.read, d)
			continue
		}
		// /etc but its secrets (etcSecrets): the directory can be
		// listed, its other entries read.
		if dirs, files, ok := etcGrants.get(d); ok {
			rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(ll.AccessFSReadDir), d),
				landlock.RODirs(dirs...).IgnoreIfMissing(), landlock.ROFiles(files...).IgnoreIfMissing())
			etc = append(append(etc, dirs...), files...)
		}
	}
	rules = append(rules, landlock.RODirs(sets.read...), landlock.RWFiles("/dev/null"))
	sets.read = append(sets.read, etc...)
	if dirs, files := extraReads(c); len(dirs)+len(files) > 0 {
		rules = append(rules, landlock.RODirs(dirs...), landlock.ROFiles(files...))
		sets.read = append(append(sets.read, dirs...), files...)
	}
	var lists []string
	for _, d := range c.Lists {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && filepath.IsAbs(d) {
			lists = append(lists, filepath.Clean(d))
		}
	}
	if len(lists) > 0 {
		rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(ll.AccessFSReadDir), lists...))
	}
	var tools []string
	for _, d := range c.Toolchains {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && filepath.IsAbs(d) {
			tools = append(tools, filepath.Clean(d))
		}
	}
	if len(tools) > 0 {
		rules = append(rules, landlock.RODirs(tools...))
		sets.read = append(sets.read, tools...)
	}
	var writable []string
	if c.Cache != "" && ensureCacheDir(c.Cache) {
		writable = append(writable, c.Cache)
		sets.read = append(sets.read, c.Cache)
		cmd.Env = cacheEnv(cmd.Env, c.Cache, home)
	}
	info = &SandboxInfo{Mode: c.Mode, Enforced: true, Mechanism: "landlock", ABI: sup.ABI, Network: "allowed"}
	ts := &threadSetup{netns: -1, mntns: -1}
	if c.Mode == SandboxWorkspaceWrite {
		// Each run's TMPDIR lies in one directory of this user's, which
		// the ruleset grants: the ruleset stays the same from run to run
		// and is kept (see rulesetFDs).
		parent, err := sandboxTmpParent()
		if err != nil {
			return fail(fmt.Errorf("sandbox temp dir: %w", err))
		}
		if tmp, err = os.MkdirTemp(parent, "shellgate-tmp-"); err != nil {
			return fail(fmt.Errorf("sandbox temp dir: %w", err))
		}
		writable = append(append(writable, rootDirs(c)...), parent)
		sets.read = append(sets.read, parent)
		cmd.Env = setEnv(cmd.Env, "TMPDIR", tmp)
		// The protected paths: those that exist (and are no symlink) are
		// bound read-only in a mount namespace of the command's own; all
		// are checked after the run (one that appeared is moved aside).
		ps := protectedPaths(c)
		var watch []string
		for _, p := range ps {
			watch = append(watch, p.path)
			if !p.pin {
				sets.protected = append(sets.protected, p.path)
			}
			if fi, err := os.Lstat(p.path); err == nil && fi.Mode()&os.ModeSymlink == 0 {
				ts.protect = append(ts.protect, p)
			}
		}
		q := ""
		if c.Cache != "" {
			q = filepath.Join(filepath.Dir(c.Cache), "quarantine")
		}
		g = newGuard(watch, q)
		if linuxSandbox.mountns && sup.ABI < 9 {
			ts.sockets = outsideSockets(append(append([]string(nil), rootDirs(c)...), tmp))
		}
		if len(ts.protect) > 0 && !linuxSandbox.mountns {
			info.Note = "the protected paths are checked after the run but not bound read-only: no mount namespace here (" + linuxSandbox.mountnsErr + ")"
			ts.protect = nil
		}
	}
	sets.write = writable
	if len(writable) > 0 {
		rules = append(rules, landlock.PathAccess(rwNoDevices, writable...))
	}
	cfg := landlock.V11.BestEffort()
	if c.Network {
		cfg.HandledAccessNet = 0
	} else {
		info.Network = "denied"
		info.NetworkGuard = sup.NetworkGuard
		switch sup.NetworkGuard {
		case "netns":
			ts.netns = linuxSandbox.netnsFD
		case "userns+netns":
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
			ts.allowClone |= unix.CLONE_NEWUSER | unix.CLONE_NEWNET
		case "landlock-tcp":
		default:
			info.Network = "unguarded"
		}
	}
	// No PID namespace: bash would be its init, which ignores SIGTERM
	// and cannot kill itself, so timeouts and exit statuses would change.
	// Signals to processes outside are refused by Landlock's scope (ABI
	// 6 on), renice and prlimit of another process by the seccomp filter.
	info.Isolation = append(info.Isolation, "no-caps", "no_new_privs", "rlimits")
	if seccompAvailable {
		info.Isolation = append(info.Isolation, "seccomp")
	}
	if pidsCgroupBase() != "" {
		info.Isolation = append(info.Isolation, "pids-cgroup")
	}
	if len(ts.protect)+len(ts.sockets) > 0 {
		info.Isolation = append(info.Isolation, "mountns")
		// A mount namespace is kept for the same protected files and
		// sockets: making one per command and tearing it down when the
		// command ends costs milliseconds.
		if fd, err := mountnsFor(ts.protect, ts.sockets); err == nil {
			ts.mntns = fd
		} else {
			return fail(err)
		}
	}
	lim := c.Limits.withDefaults()
	info.Limits = &lim
	// A read-only ruleset is kept, with a confined thread that starts
	// every command of that ruleset: building the ruleset and a thread
	// per command is most of what confinement costs. Its commands share
	// the thread's pids cgroup.
	key := ""
	if c.Mode == SandboxReadOnly {
		key = fmt.Sprintf("%v\x00%d\x00%d\x00%d\x00%q\x00%q", c.Network, ts.netns, ts.allowClone, lim.Processes, sets.read, sets.write)
		if w := rulesets.get(key); w != nil {
			return func() error { return w.start(cmd, lim) }, info, sets, cleanup, nil
		}
	}
	if pidsCgroupBase() != "" {
		max := -1
		if lim.Processes >= 0 {
			max = lim.Processes
		}
		ts.cg = newPidsCgroup(max)
		if key == "" {
			cg = ts.cg
		}
		if ts.cg == nil {
			return fail(errors.New("sandbox: the pids cgroup could not be made"))
		}
	}
	rk := fmt.Sprintf("%v\x00%v", cfg, rules)
	fd, flags, kept := rulesetFDs.get(rk)
	if !kept {
		fd, flags, err = cfg.NewRulesetFD(rules...)
		if err != nil {
			return fail(fmt.Errorf("landlock ruleset: %w", err))
		}
		if fd < 0 {
			return fail(errors.New("landlock: nothing to restrict"))
		}
		if key == "" {
			kept = rulesetFDs.put(rk, fd, flags)
		}
	}
	ts.fd, ts.flags = fd, flags
	if key != "" && kept {
		// The read-only starter owns (and closes) its descriptor.
		if fd, err = unix.Dup(fd); err != nil {
			return fail(fmt.Errorf("landlock ruleset: %w", err))
		}
		ts.fd = fd
	}
	if key != "" {
		if w := rulesets.put(key, ts); w != nil {
			return func() error { return w.start(cmd, lim) }, info, sets, cleanup, nil
		}
	}
	start = func() error {
		if !kept {
			defer unix.Close(fd)
		}
		ch := make(chan error, 1)
		ap := newApplier(lim)
		go func() {
			// Never unlocked: this thread is confined, and it ends with
			// this goroutine.
			runtime.LockOSThread()
			if err := confineThread(ts); err != nil {
				ch <- err
				return
			}
			ch <- startStopped(cmd, ap)
		}()
		return ap.serve(ch)
	}
	return start, info, sets, cleanup, nil
}

// How the resource limits are set without a helper process: the command
// starts traced (SysProcAttr.Ptrace), so it stops at its exec before any
// of its instructions ran; an unconfined thread sets its limits with
// prlimit (the seccomp filter refuses the confined thread that), and the
// confined thread, its tracer, lets it go (PTRACE_DETACH).

// applier carries a stopped command's pid to the unconfined goroutine
// that sets its limits, and the outcome back.
type applier struct {
	lim     ResourceLimits
	stopped chan int
	applied chan error
}

func newApplier(lim ResourceLimits) *applier {
	return &applier{lim: lim, stopped: make(chan int), applied: make(chan error)}
}

// apply runs on the confined thread: it hands pid over and waits.
func (a *applier) apply(pid int) error {
	a.stopped <- pid
	return <-a.applied
}

// serve runs on the caller's goroutine until the start is over (done).
func (a *applier) serve(done chan error) error {
	for {
		select {
		case pid := <-a.stopped:
			a.applied <- setLimits(pid, a.lim)
		case err := <-done:
			return err
		}
	}
}

// setLimits sets lim on the process pid (hard and soft).
func setLimits(pid int, lim ResourceLimits) error {
	set := func(res int, v int64) error {
		r := unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
		if v >= 0 {
			r.Cur, r.Max = uint64(v), uint64(v)
		}
		return unix.Prlimit(pid, res, &r, nil)
	}
	mb := func(v int64) int64 {
		if v < 0 {
			return -1
		}
		return v << 20
	}
	if err := set(unix.RLIMIT_DATA, mb(lim.MemoryMB)); err != nil {
		return fmt.Errorf("sandbox: RLIMIT_DATA: %w", err)
	}
	if err := set(unix.RLIMIT_FSIZE, mb(lim.FileSizeMB)); err != nil {
		return fmt.Errorf("sandbox: RLIMIT_FSIZE: %w", err)
	}
	// RLIMIT_NPROC counts every process of the user (and never binds
	// root, whose processes the pids cgroup counts).
	if lim.Processes >= 0 && os.Getuid() != 0 {
		if n := userProcesses(); n >= 0 {
			if err := set(unix.RLIMIT_NPROC, int64(n+lim.Processes)); err != nil {
				return fmt.Errorf("sandbox: RLIMIT_NPROC: %w", err)
			}
		}
	}
	return nil
}

// startStopped starts cmd traced, on the calling confined thread (its
// tracer): the command stops at its exec, a.apply sets its limits, and
// it is let go. A command that cannot be stopped and limited is killed.
func startStopped(cmd *exec.Cmd, a *applier) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = true
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(pid, &ws, unix.WALL|unix.WUNTRACED, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			_ = cmd.Process.Kill()
			return fmt.Errorf("sandbox: the command did not stop at its exec: %w", err)
		}
		break
	}
	if !ws.Stopped() {
		// It ended (and was reaped here) before it could be limited.
		return fmt.Errorf("sandbox: the command ended before its limits were set (%v)", ws)
	}
	if err := a.apply(pid); err != nil {
		_ = unix.Kill(pid, unix.SIGKILL)
		_ = unix.PtraceDetach(pid)
		return err
	}
	if err := unix.PtraceDetach(pid); err != nil {
		_ = unix.Kill(pid, unix.SIGKILL)
		return fmt.Errorf("sandbox: let the command go: %w", err)
	}
	return nil
}

// rwNoDevices are the file system rights of a writable directory: all
// but making character and block devices.
const rwNoDevices = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
	ll.AccessFSReadDir | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeDir |
	ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeSym |
	ll.AccessFSRefer | ll.AccessFSTruncate | ll.AccessFSResolveUnix)

// envHome is HOME in env, or the user's home directory.
func envHome(env []string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], "HOME="); ok && v != "" {
			return v
		}
	}
	h, _ := os.UserHomeDir()
	return h
}

// confineThread confines the calling (locked) thread as ts says.
func confineThread(ts *threadSetup) error {
	if ts.cg != nil {
		if err := ts.cg.join(); err != nil {
			return fmt.Errorf("sandbox: join the pids cgroup: %w", err)
		}
	}
	if ts.netns >= 0 {
		if err := unix.Setns(ts.netns, unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("sandbox: join the network namespace: %w", err)
		}
	}
	switch {
	case ts.mntns >= 0:
		// setns into a mount namespace needs a file system context of
		// the thread's own.
		if err := unix.Unshare(unix.CLONE_FS); err != nil {
			return fmt.Errorf("sandbox: unshare the file system context: %w", err)
		}
		if err := unix.Setns(ts.mntns, unix.CLONE_NEWNS); err != nil {
			return fmt.Errorf("sandbox: join the mount namespace: %w", err)
		}
	case len(ts.protect)+len(ts.sockets) > 0:
		if err := bindProtected(ts.protect, ts.sockets); err != nil {
			return fmt.Errorf("sandbox: protect paths: %w", err)
		}
	}
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("sandbox: drop capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: no_new_privs: %w", err)
	}
	if seccompAvailable {
		if err := installSeccomp(ts.allowClone); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	if err := ll.LandlockRestrictSelf(ts.fd, ts.flags); err != nil {
		return fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
	}
	return nil
}

// bindProtected gives the calling thread a mount namespace of its own
// (no propagation back) in which each protected path is bound onto
// itself: a git directory stays writable but becomes a mount point (it
// cannot be renamed, removed or replaced: EBUSY), everything else is
// read-only (EROFS; a hard link out of it is EXDEV). Each path is opened
// without following a symlink and bound through its descriptor, so a
// path swapped for a symlink binds nothing else.
//
// Each unix socket of sockets is covered by a bind of /dev/null: a
// connect to it finds no socket there.
func bindProtected(ps []protectedPath, sockets []string) error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return err
	}
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("make / a slave: %w", err)
	}
	// Parents before children, pins before the read-only binds in them.
	sorted := append([]protectedPath(nil), ps...)
	sort.SliceStable(sorted, func(i, j int) bool {
		di, dj := strings.Count(sorted[i].path, "/"), strings.Count(sorted[j].path, "/")
		if di != dj {
			return di < dj
		}
		return sorted[i].pin && !sorted[j].pin
	})
	for _, p := range sorted {
		fd, err := unix.Open(p.path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // gone since: the guard sees it
			}
			return fmt.Errorf("%s: %w", p.path, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
			unix.Close(fd)
			continue
		}
		at := "/proc/thread-self/fd/" + strconv.Itoa(fd)
		err = unix.Mount(at, at, "", unix.MS_BIND, "")
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("bind %s: %w", p.path, err)
		}
		if p.pin {
			continue
		}
		// The new mount's top, opened again (the first descriptor still
		// names what lies beneath it), made read-only.
		if fd, err = unix.Open(p.path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
			return fmt.Errorf("%s: %w", p.path, err)
		}
		at = "/proc/thread-self/fd/" + strconv.Itoa(fd)
		err = unix.Mount("none", at, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("read-only %s: %w", p.path, err)
		}
	}
	for _, p := range sockets {
		fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // gone since
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
			unix.Close(fd)
			continue
		}
		at := "/proc/thread-self/fd/" + strconv.Itoa(fd)
		err = unix.Mount("/dev/null", at, "", unix.MS_BIND, "")
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("hide the socket %s: %w", p, err)
		}
	}
	return nil
}

// maxSockets bounds the unix sockets hidden from one command.
const maxSockets = 4096

// outsideSockets lists the bound pathname unix sockets of the host's
// network namespace that lie outside the directories dirs.
func outsideSockets(dirs []string) []string {
	// This thread's view: /proc/self/net is the main thread's, which may
	// have been left in the sandbox's network namespace (a locked thread
	// that ends on the main thread is kept, not ended).
	f, err := os.Open("/proc/thread-self/net/unix")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(io.LimitReader(f, 16<<20))
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for sc.Scan() && len(out) < maxSockets {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 {
			continue
		}
		p := strings.Join(fields[7:], " ")
		if !strings.HasPrefix(p, "/") || seen[p] {
			continue // abstract (@...) or unnamed; Landlock scopes abstract ones
		}
		seen[p] = true
		inside := false
		for _, d := range dirs {
			if within(p, d) {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, p)
		}
	}
	return out
}

// dropCapabilities empties the bounding, ambient and inheritable sets of
// the calling thread, so that the command it starts has no capability
// even as root (an exec recomputes them from the bounding set); the
// thread keeps its effective set to start the command in a new PID
// namespace. Without CAP_SETPCAP (not root) the bounding set cannot
// change, and there is nothing to drop.
func dropCapabilities() error {
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	if data[0].Effective&(1<<unix.CAP_SETPCAP) != 0 {
		for c := 0; c <= capLastCap(); c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
				return fmt.Errorf("bounding set: %w", err)
			}
		}
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	return unix.Capset(&hdr, &data[0])
}

// capLastCap is the highest capability this kernel knows.
var capLastCap = sync.OnceValue(func() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 && n < 64 {
			return n
		}
	}
	return 40
})

// confinedStarter is a goroutine locked to a thread confined once by a
// ruleset; it starts the commands sent to it, one at a time, so they
// inherit the thread's confinement. It lives as long as the process.
type confinedStarter struct {
	reqs chan startReq
}

type startReq struct {
	cmd  *exec.Cmd
	ap   *applier
	done chan error
}

func newConfinedStarter(ts *threadSetup) *confinedStarter {
	w := &confinedStarter{reqs: make(chan startReq)}
	go func() {
		// Never unlocked: the thread is confined.
		runtime.LockOSThread()
		err := confineThread(ts)
		unix.Close(ts.fd)
		for r := range w.reqs {
			if err != nil {
				r.done <- err
				continue
			}
			r.done <- startStopped(r.cmd, r.ap)
		}
	}()
	return w
}

func (w *confinedStarter) start(cmd *exec.Cmd, lim ResourceLimits) error {
	done := make(chan error, 1)
	ap := newApplier(lim)
	w.reqs <- startReq{cmd, ap, done}
	return ap.serve(done)
}

// rulesets keeps, for each read-only ruleset (by what it grants), a
// thread confined by it that starts its commands. The cache only grows,
// up to maxRulesets threads.
var rulesets = rulesetCache{m: map[string]*confinedStarter{}}

const maxRulesets = 16

type rulesetCache struct {
	mu sync.Mutex
	m  map[string]*confinedStarter
}

func (c *rulesetCache) get(key string) *confinedStarter {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[key]
}

// put starts a confined thread for the ruleset fd under key and returns
// it, or nil when the cache is full (the caller keeps fd). The thread
// owns fd: it closes it once it restricted itself.
func (c *rulesetCache) put(key string, ts *threadSetup) *confinedStarter {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.m[key]; w != nil {
		unix.Close(ts.fd)
		return w
	}
	if len(c.m) >= maxRulesets {
		return nil
	}
	w := newConfinedStarter(ts)
	c.m[key] = w
	return w
}

// setEnv sets k=v in env, replacing every earlier k.
func setEnv(env []string, k, v string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, k+"=") {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}

// mountnsCache keeps mount namespaces built by bindProtected, by the
// identity (device and inode) of every path bound in them: a protected
// file replaced since (git config renames a new .git/config into place,
// which detaches the old bind) builds a new namespace.
var mountnsCache = struct {
	sync.Mutex
	m map[string]int
}{m: map[string]int{}}

const maxMountns = 16

// mountnsFor returns a descriptor of a mount namespace in which ps and
// sockets are bound as bindProtected binds them; the cache owns it.
func mountnsFor(ps []protectedPath, sockets []string) (int, error) {
	var key strings.Builder
	for _, p := range ps {
		var st unix.Stat_t
		if unix.Lstat(p.path, &st) != nil {
			continue
		}
		fmt.Fprintf(&key, "%s\x00%t\x00%d\x00%d\x00", p.path, p.pin, st.Dev, st.Ino)
	}
	for _, p := range sockets {
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil {
			fmt.Fprintf(&key, "s%s\x00%d\x00%d\x00", p, st.Dev, st.Ino)
		}
	}
	k := key.String()
	mountnsCache.Lock()
	defer mountnsCache.Unlock()
	if fd, ok := mountnsCache.m[k]; ok {
		return fd, nil
	}
	type result struct {
		fd  int
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// Never unlocked: the thread is in the new mount namespace.
		runtime.LockOSThread()
		if err := bindProtected(ps, sockets); err != nil {
			ch <- result{-1, fmt.Errorf("sandbox: protect paths: %w", err)}
			return
		}
		fd, err := unix.Open("/proc/thread-self/ns/mnt", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		ch <- result{fd, err}
	}()
	r := <-ch
	if r.err != nil {
		return -1, r.err
	}
	if len(mountnsCache.m) >= maxMountns {
		for old, fd := range mountnsCache.m {
			unix.Close(fd)
			delete(mountnsCache.m, old)
		}
	}
	mountnsCache.m[k] = r.fd
	return r.fd, nil
}

// rulesetFDs keeps the Landlock rulesets of workspace-write commands by
// what they grant: building one opens every path it names (/etc's
// entries among them), which is most of what confinement costs. A
// ruleset descriptor can restrict any number of threads.
var rulesetFDs = &fdCache{m: map[string]keptRuleset{}}

const maxRulesetFDs = 32

type keptRuleset struct {
	fd    int
	flags uint32
}

type fdCache struct {
	mu sync.Mutex
	m  map[string]keptRuleset
}

func (c *fdCache) get(k string) (int, uint32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[k]
	return r.fd, r.flags, ok
}

// put keeps fd under k and reports whether it did (the cache then owns
// it); a full cache keeps nothing.
func (c *fdCache) put(k string, fd int, flags uint32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok || len(c.m) >= maxRulesetFDs {
		return false
	}
	c.m[k] = keptRuleset{fd, flags}
	return true
}

// sandboxTmpParent is the directory of this user's confined commands'
// temp dirs: TMPDIR/shellgate-sandbox-UID, 0700, a real directory owned
// by this user.
func sandboxTmpParent() (string, error) {
	p := filepath.Join(os.TempDir(), "shellgate-sandbox-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return "", err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 {
		return "", fmt.Errorf("%s is not a private directory of this user", p)
	}
	return p, nil
}
