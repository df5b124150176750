//go:build linux

package execution

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
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
// but start the commands of that ruleset; as root (a PID namespace per
// run), the thread with its namespaces is kept as a slot for the next
// run of the same confinement (slot_linux.go). Nothing has to be found
// on disk, so a program that uses the gate package as a library gets the
// same confinement.
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
	// pidns: a thread can give its commands a PID namespace of their
	// own with a procfs of it (root); pidnsErr says why not.
	pidns    bool
	pidnsErr string
	// helper: without root, commands start through the helper
	// (userns_linux.go), which gives them the mount and PID namespace
	// root's get; helperErr says why not.
	helper    bool
	helperErr string
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
		s.pidns, s.pidnsErr = probePidns(bash)
		if !s.mountns {
			s.helper, s.helperErr = probeHelper(bash)
		}

		s.support.Isolation = []string{"no-caps", "no_new_privs", "rlimits"}
		if s.pidns || (s.helper && !s.mountns && helperPidns.ok) {
			s.support.Isolation = append(s.support.Isolation, "pidns")
		}
		if seccompAvailable {
			s.support.Isolation = append(s.support.Isolation, "seccomp")
		}
		if pidsCgroupBase() != "" {
			s.support.Isolation = append(s.support.Isolation, "pids-cgroup")
		}
		defer func() { s.support.Missing = missingProtections() }()
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

// probePidns sets up, once, on a thread of its own, what a command's PID
// namespace needs (see enterPidns), to learn whether commands can get one.
func probePidns(bash string) (bool, string) {
	if bash == "" {
		return false, "no shell to start its init"
	}
	// The os package's first start of a process first forks a child to
	// learn whether pidfds work; on a thread in a new PID namespace that
	// child would be the namespace's init, and its end would leave no
	// namespace to start anything in. FindProcess asks the same once,
	// here.
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
	ch := make(chan error, 1)
	go func() {
		// Never unlocked: the thread left the process's namespaces.
		runtime.LockOSThread()
		init, err := enterPidns(bash)
		if err == nil {
			_ = init.Process.Kill()
			holdInit(init)
		}
		ch <- err
	}()
	if err := <-ch; err != nil {
		return false, err.Error()
	}
	return true, ""
}

// enterPidns gives the calling (locked) thread a mount namespace of its
// own (a copy of the one it is in, which receives no mount back from it)
// and makes the children it forks from now on start a new PID namespace,
// whose procfs is mounted on /proc: a command sees only its own
// processes in /proc, and can name no other to signal or trace. The
// namespace's first process, its init, is started here (startInit); it
// outlives the command, and when it ends, the kernel kills everything
// left in the namespace.
func enterPidns(bash string) (*exec.Cmd, error) {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return nil, fmt.Errorf("mount namespace: %w", err)
	}
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return nil, fmt.Errorf("make / a slave: %w", err)
	}
	if err := unix.Unshare(unix.CLONE_NEWPID); err != nil {
		return nil, fmt.Errorf("PID namespace: %w", err)
	}
	init, err := startInit(bash)
	if err != nil {
		return nil, err
	}
	// procfs's pidns option (Linux 6.16): a procfs of the namespace the
	// thread's children are in (it exists once init does).
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "pidns=/proc/thread-self/ns/pid_for_children"); err != nil {
		_ = init.Process.Kill()
		holdInit(init)
		return nil, fmt.Errorf("mount the namespace's procfs: %w", err)
	}
	return init, nil
}

// grantProc adds to the ruleset fd the right to read the procfs mounted
// on /proc (the command's own, enterPidns).
func grantProc(fd int) error {
	p, err := unix.Open("/proc", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open the namespace's procfs: %w", err)
	}
	defer unix.Close(p)
	attr := ll.PathBeneathAttr{AllowedAccess: ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir, ParentFd: p}
	if err := ll.LandlockAddPathBeneathRule(fd, &attr, 0); err != nil {
		return fmt.Errorf("grant the namespace's procfs: %w", err)
	}
	return nil
}

// startInit starts the PID namespace's init on the calling thread (which
// entered it, enterPidns), before the thread confines itself: the shell,
// traced (PTRACE_O_EXITKILL), stopped at its exec before it ran an
// instruction, and left stopped (a command cannot reach it: Landlock's
// scope keeps it from tracing or signalling a process outside its domain,
// and a traced stop is not ended by SIGCONT). It reaps
// nothing, so a process the command orphans stays a zombie until the run
// ends; ending it (SIGKILL) ends the run's every process. If this process
// dies first, the kernel kills it (EXITKILL) and the namespace with it.
func startInit(bash string) (*exec.Cmd, error) {
	init := exec.Command(bash, "-c", ":")
	init.Args[0] = "shellgate-init"
	init.Env = []string{}
	init.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	if err := init.Start(); err != nil {
		return nil, fmt.Errorf("sandbox: start the PID namespace's init: %w", err)
	}
	pid := init.Process.Pid
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(pid, &ws, unix.WALL|unix.WUNTRACED, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || !ws.Stopped() {
			_ = init.Process.Kill()
			return nil, fmt.Errorf("sandbox: the PID namespace's init did not stop at its exec (%v, %v)", err, ws)
		}
		break
	}
	if err := unix.PtraceSetOptions(pid, unix.PTRACE_O_EXITKILL); err != nil {
		_ = init.Process.Kill()
		return nil, fmt.Errorf("sandbox: the PID namespace's init: %w", err)
	}
	return init, nil
}

// nsProcesses counts the live processes the namespace's init pid adopted:
// what the command left running once its shell and process group were
// gone (a setsid child, a daemon), each with what it started.
func nsProcesses(pid int) int {
	p := strconv.Itoa(pid)
	b, err := os.ReadFile("/proc/" + p + "/task/" + p + "/children")
	if err != nil {
		return 0
	}
	n := 0
	for _, c := range strings.Fields(string(b)) {
		if st, err := os.ReadFile("/proc/" + c + "/stat"); err == nil {
			if i := bytes.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) && st[i+2] != 'Z' && st[i+2] != 'X' {
				n++
			}
		}
	}
	return n
}

// holdInit keeps the calling thread, init's tracer, until init is gone
// (killed at the end of the run), and reaps it.
func holdInit(init *exec.Cmd) {
	pid := init.Process.Pid
	for {
		var ws unix.WaitStatus
		_, err := unix.Wait4(pid, &ws, unix.WALL, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil || ws.Exited() || ws.Signaled() {
			return
		}
		// A stop (a signal for init): it stays stopped.
	}
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
	// pidns: the thread's commands get a PID namespace (enterPidns).
	pidns bool
	// helper: the command starts through the helper, which confines
	// itself; the thread only starts it (userns_linux.go).
	helper bool
	// refused, when set, collects what the seccomp filter refused (a
	// per-run thread's filter has a supervisor); nil: EPERM, unrecorded.
	refused *refusedCalls
	// memLimit is the command's RLIMIT_DATA in bytes (0: none): the
	// filter refuses, by name, a single allocation beyond it.
	memLimit uint64
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
	r := &confinedRun{cmd: cmd, c: c, bash: bash, sup: sup, refused: &refusedCalls{},
		sets: &confinedSets{mode: c.Mode}, ts: &threadSetup{netns: -1, mntns: -1}}
	if start, err = r.prepare(); err != nil {
		r.cleanup()
		return nil, nil, nil, nil, err
	}
	return start, r.info, r.sets, r.cleanup, nil
}

// confinedRun is one confined command being prepared (prepareConfined):
// the rules it gets, the account of them, and what its cleanup undoes.
type confinedRun struct {
	cmd  *exec.Cmd
	c    *Confinement
	bash string
	sup  SandboxSupport

	info *SandboxInfo
	sets *confinedSets
	ts   *threadSetup
	cfg  landlock.Config
	lim  ResourceLimits
	// rules and flat are the same rules: flat for a ruleset of one run's
	// own (buildRuleset).
	rules []landlock.Rule
	flat  flatRules
	// writable are the directories the command may write.
	writable []string
	// mntnsKey is the key of the kept mount namespace ts.mntns.
	mntnsKey string
	// tmpParent, when set, is where the run's slot keeps its TMPDIR.
	tmpParent string
	// ids are the identities of the read directories as addReads found
	// them (see ruleIdentity).
	ids map[string]fileID
	// etcGen and etcLinks are /etc's listing's generation and its
	// entries that are symlinks (etcGrants).
	etcGen   uint64
	etcLinks []string
	// protectStates are the guard's states of ts.protect before the
	// run, one each (mountnsFor's key).
	protectStates []pathState

	// What the cleanup undoes or reports.
	tmp      string
	g        *guard
	cg       *pidsCgroup   // this run's own (not a kept read-only starter's)
	endPidns func() int    // ends the run's PID namespace; nil: none
	helper   *helperRun    // the command starts through the helper; nil: not
	refused  *refusedCalls // what this run's seccomp filter refused
}

// cleanup ends what the run left (its PID namespace, its pids cgroup),
// undoes what it did to protected paths, and returns those refusals and
// the calls its seccomp filter refused.
func (r *confinedRun) cleanup() []SandboxDenial {
	var d []SandboxDenial
	left := 0
	if r.endPidns != nil {
		left = r.endPidns()
	}
	if n := r.cg.refusedForks(); n > 0 {
		d = append(d, SandboxDenial{Op: "process", Path: "pids.max",
			Line: fmt.Sprintf("the sandbox's process limit (%d) refused %d forks", r.cg.limit, n)})
	}
	if n, err := r.cg.end(); n+left > 0 || err != nil {
		n += left
		line := fmt.Sprintf("%d processes the command left running were killed at the end of the run", n)
		if err != nil {
			line += " (" + err.Error() + ")"
		}
		d = append(d, SandboxDenial{Op: "process", Line: line})
	}
	d = append(d, r.g.undo()...)
	d = append(d, r.refused.denials()...)
	if r.tmp != "" {
		os.RemoveAll(r.tmp)
	}
	return d
}

// prepare builds the run's rules and isolation and returns the function
// that starts the command.
func (r *confinedRun) prepare() (func() error, error) {
	r.addReads()
	r.info = &SandboxInfo{Mode: r.c.Mode, Enforced: true, Mechanism: "landlock", ABI: r.sup.ABI, Network: "allowed"}
	if r.c.Mode == SandboxWorkspaceWrite {
		if err := r.workspaceWrite(); err != nil {
			return nil, err
		}
	}
	r.sets.write = append(r.sets.write, r.writable...)
	if len(r.writable) > 0 {
		r.rules = append(r.rules, landlock.PathAccess(rwNoDevices, r.writable...))
		r.flat.add(uint64(rwNoDevices), false, r.writable...)
	}
	r.network()
	if err := r.isolation(); err != nil {
		return nil, err
	}
	r.lim = r.c.Limits.withDefaults()
	r.info.Limits = &r.lim
	r.sets.memoryMB = r.lim.MemoryMB
	if r.lim.MemoryMB > 0 {
		r.ts.memLimit, r.refused.memLimitMB = uint64(r.lim.MemoryMB)<<20, r.lim.MemoryMB
	}
	// A read-only ruleset is kept, with a confined thread that starts
	// every command of that ruleset: building the ruleset and a thread
	// per command is most of what confinement costs. Its commands share
	// the thread's pids cgroup.
	key := ""
	if r.c.Mode == SandboxReadOnly && !linuxSandbox.pidns && !r.ts.helper {
		key = fmt.Sprintf("%v\x00%d\x00%d\x00%d\x00%d\x00%q\x00%q", r.c.Network, r.ts.netns, r.ts.allowClone, r.lim.Processes, r.lim.MemoryMB, r.sets.read, r.sets.write)
		if w := rulesets.get(key); w != nil {
			return r.keptStart(w), nil
		}
	}
	if pidsCgroupBase() != "" {
		max := -1
		if r.lim.Processes >= 0 {
			max = r.lim.Processes
		}
		r.ts.cg = newPidsCgroup(max)
		if key == "" {
			r.cg = r.ts.cg
		}
		if r.ts.cg == nil {
			return nil, errors.New("sandbox: the pids cgroup could not be made")
		}
	}
	if r.ts.pidns {
		return r.slotStart()
	}
	if r.ts.helper {
		return r.helperStart() // userslot_linux.go
	}
	kept, err := r.ruleset(key)
	if err != nil {
		return nil, err
	}
	if key != "" {
		if w := rulesets.put(key, r.ts); w != nil {
			return r.keptStart(w), nil
		}
	}
	return r.wrapHelper(r.starter(kept)), nil
}

// keptStart starts the command with the kept read-only starter w.
func (r *confinedRun) keptStart(w *confinedStarter) func() error {
	cmd, lim := r.cmd, r.lim
	return func() error { return w.start(cmd, lim) }
}

// addReads adds what the command may read: the read directories (/etc
// but its secrets), extra reads, approved listings, toolchains, and the
// sandbox cache (also writable, with the tools' cache variables pointed
// at it).
func (r *confinedRun) addReads() {
	c, sets := r.c, r.sets
	var etc []string
	r.ids = make(map[string]fileID, 32)
	r.flat = make(flatRules, 0, 256)
	for _, d := range readDirsIDs(c, r.cmd.Env, r.ids) {
		if d != "/etc" {
			sets.read = append(sets.read, d)
			continue
		}
		// /etc but its secrets (etcSecrets): the directory can be
		// listed, its other entries read.
		if dirs, files, ok, gen, links := etcGrants.getStamped(d); ok {
			r.rules = append(r.rules, landlock.PathAccess(landlock.AccessFSSet(ll.AccessFSReadDir), d),
				landlock.RODirs(dirs...).IgnoreIfMissing(), landlock.ROFiles(files...).IgnoreIfMissing())
			flat, all := etcRules(d, gen, dirs, files)
			r.flat = append(r.flat, flat...)
			r.etcGen, r.etcLinks = gen, links
			etc = all
		}
	}
	// With a PID namespace, /proc is the command's own procfs, which
	// the thread grants once it is mounted (grantProc): a rule on the
	// host's /proc names the host's procfs only.
	ro := sets.read
	if linuxSandbox.pidns {
		ro = slices.DeleteFunc(slices.Clone(sets.read), func(d string) bool { return d == "/proc" })
	}
	r.rules = append(r.rules, landlock.RODirs(ro...), landlock.RWFiles("/dev/null"))
	r.flat.add(roDirs, false, ro...)
	r.flat.add(rwFiles, false, "/dev/null")
	sets.read = append(slices.Grow(sets.read, len(etc)), etc...)
	if dirs, files := extraReads(c); len(dirs)+len(files) > 0 {
		r.rules = append(r.rules, landlock.RODirs(dirs...), landlock.ROFiles(files...))
		r.flat.add(roDirs, false, dirs...)
		r.flat.add(roFiles, false, files...)
		sets.read = append(append(sets.read, dirs...), files...)
	}
	if lists := absDirs(c.Lists, nil); len(lists) > 0 {
		r.rules = append(r.rules, landlock.PathAccess(landlock.AccessFSSet(ll.AccessFSReadDir), lists...))
		r.flat.add(ll.AccessFSReadDir, false, lists...)
	}
	if tools := absDirs(c.Toolchains, r.ids); len(tools) > 0 {
		r.rules = append(r.rules, landlock.RODirs(tools...))
		r.flat.add(roDirs, false, tools...)
		sets.read = append(sets.read, tools...)
	}
	if wc := workspaceCache(c); wc != "" {
		if id, ok := ensureCacheDirID(wc); ok {
			r.ids[wc] = id // a directory, not a symlink: as stat finds it
			r.writable = append(r.writable, wc)
			sets.read = append(sets.read, wc)
			r.cmd.Env = cacheEnv(r.cmd.Env, wc, envHome(r.cmd.Env))
		}
	}
}

// etcRules are the flat rules of /etc's listing (the directory d, then
// its entries, listed), and the entries, kept for the listing's
// generation: a run appends them whole.
func etcRules(d string, gen uint64, dirs, files []string) (flatRules, []string) {
	etcFlat.Lock()
	defer etcFlat.Unlock()
	if etcFlat.gen != gen || etcFlat.dir != d || etcFlat.flat == nil {
		var f flatRules
		f.add(ll.AccessFSReadDir, false, d)
		n := len(f)
		f.add(roDirs, true, dirs...)
		f.add(roFiles, true, files...)
		for i := n; i < len(f); i++ {
			f[i].listed = true
		}
		etcFlat.gen, etcFlat.dir, etcFlat.flat = gen, d, f
		etcFlat.all = append(append([]string(nil), dirs...), files...)
	}
	return etcFlat.flat, etcFlat.all
}

var etcFlat struct {
	sync.Mutex
	gen  uint64
	dir  string
	flat flatRules
	all  []string
}

// absDirs are the absolute paths of list that are directories, cleaned;
// it records in ids (when not nil) the identity of each, as it found it
// (ruleIdentity uses it instead of looking again).
func absDirs(list []string, ids map[string]fileID) []string {
	var out []string
	for _, d := range list {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		st, _, err := safePathDir(d, "", rootDir) // its identity only
		if err != nil || !st.dir {
			continue
		}
		out = append(out, d)
		if ids != nil {
			ids[d] = fileID{st.dev, st.ino}
		}
	}
	return out
}

// workspaceWrite adds what workspace-write grants: the roots and the
// run's TMPDIR writable, the protected paths bound read-only where they
// exist and watched after the run, and the outside sockets hidden.
func (r *confinedRun) workspaceWrite() error {
	c, ts := r.c, r.ts
	// Each run's TMPDIR is a directory of its own in one directory of
	// this user's; the ruleset grants this run's only (tmpRule), so that
	// runs at the same time do not see each other's temp files.
	parent, err := sandboxTmpParent()
	if err != nil {
		return fmt.Errorf("sandbox temp dir: %w", err)
	}
	if linuxSandbox.pidns || userSlotsOn() {
		// The run's slot (or kept helper) has a TMPDIR of its own,
		// emptied between its runs (slotStart, helperStart).
		r.tmpParent = parent
	} else if r.tmp, err = os.MkdirTemp(parent, "shellgate-tmp-"); err != nil {
		return fmt.Errorf("sandbox temp dir: %w", err)
	}
	r.writable = append(r.writable, rootDirs(c)...)
	if r.tmp != "" {
		r.sets.read = append(r.sets.read, r.tmp)
		r.sets.write = append(r.sets.write, r.tmp)
		r.cmd.Env = setEnv(r.cmd.Env, "TMPDIR", r.tmp)
	}

	// The protected paths: those that exist (and are no symlink) are
	// bound read-only in a mount namespace of the command's own; all
	// are checked after the run (one that appeared is moved aside).
	prot, nested := protectedPathsScan(c)
	watch := make([]string, 0, len(prot))
	for _, p := range prot {
		watch = append(watch, p.path)
		if !p.pin {
			r.sets.protected = append(r.sets.protected, p.path)
		}
	}
	q := ""
	if c.Cache != "" {
		q = filepath.Join(filepath.Dir(c.Cache), "quarantine")
	}
	r.g = newGuard(watch, q)
	r.g.nested = nested
	// A protected name that is a symlink cannot be bound, and leads to
	// what is as much obeyed: where that lies in a root, it is protected
	// in the name's place (watched too: one that does not exist yet).
	if targets := symlinkTargets(prot, r.g.before, rootDirs(c), c.Unprotect); len(targets) > 0 {
		prot = append(prot, targets...)
		for _, t := range targets {
			watch = append(watch, t.path)
			r.sets.protected = append(r.sets.protected, t.path)
		}
		r.g = newGuard(watch, q)
		r.g.nested = nested
	}
	for i, p := range prot {
		if st := r.g.before[i]; st.exists && st.symlink == "" && st.mode&os.ModeSymlink == 0 {
			ts.protect = append(ts.protect, p)
			r.protectStates = append(r.protectStates, st)
		}
	}
	if (linuxSandbox.mountns || linuxSandbox.helper) && r.sup.ABI < 9 {
		// The outside sockets, hidden. Inside are those in the roots
		// (the run's TMPDIR is new or empty: none there). Read here, not
		// beside the rest on another thread: on two busy CPUs waking that
		// thread and waiting for it cost more than the read (~20 µs, the
		// kernel's walk of its sockets).
		var inside []string
		for _, d := range c.Roots {
			if filepath.IsAbs(d) {
				inside = append(inside, filepath.Clean(d))
			}
		}
		ts.sockets = outsideSockets(inside)
	}
	if len(ts.protect) > 0 && !linuxSandbox.mountns && !linuxSandbox.helper {
		r.info.Note = "the protected paths are checked after the run but not bound read-only: no mount namespace here (" + linuxSandbox.mountnsErr + ")"
		ts.protect = nil
	}
	return nil
}

// network sets the Landlock config and how the network is kept out
// when the command has none.
func (r *confinedRun) network() {
	r.cfg = landlock.V11.BestEffort()
	if r.c.Network {
		r.cfg.HandledAccessNet = 0
		return
	}
	r.info.Network = "denied"
	r.info.NetworkGuard = r.sup.NetworkGuard
	switch r.sup.NetworkGuard {
	case "netns":
		r.ts.netns = linuxSandbox.netnsFD
	case "userns+netns":
		if linuxSandbox.helper && !linuxSandbox.mountns {
			break // the helper's namespaces (viaHelper)
		}
		if r.cmd.SysProcAttr == nil {
			r.cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		r.cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
		r.ts.allowClone |= unix.CLONE_NEWUSER | unix.CLONE_NEWNET
	case "landlock-tcp":
	default:
		r.info.Network = "unguarded"
	}
}

// recordIsolation records in the run's info the isolation both routes
// (root's threads, the unprivileged helper) give a command: whether it has
// a PID namespace (pidnsErr says why not, in the note), the seccomp
// filter, the pids cgroup, and a mount namespace when paths are protected
// or sockets hidden.
func (r *confinedRun) recordIsolation(pidns bool, pidnsErr string) {
	info := r.info
	info.Isolation = append(info.Isolation, "no-caps", "no_new_privs", "rlimits")
	if pidns {
		info.Isolation = append(info.Isolation, "pidns")
	} else {
		note := "no PID namespace here (" + pidnsErr + "): the command can see the host's processes in /proc"
		if info.Note != "" {
			info.Note += "; " + note
		} else {
			info.Note = note
		}
	}
	if seccompAvailable {
		info.Isolation = append(info.Isolation, "seccomp")
	}
	if pidsCgroupBase() != "" {
		info.Isolation = append(info.Isolation, "pids-cgroup")
	}
	if len(r.ts.protect)+len(r.ts.sockets) > 0 {
		info.Isolation = append(info.Isolation, "mountns")
	}
}

// isolation records the process isolation the run gets and makes (or
// reuses) the mount namespace of its protected paths and hidden sockets.
func (r *confinedRun) isolation() error {
	ts := r.ts
	if linuxSandbox.helper && !linuxSandbox.mountns {
		return r.viaHelper()
	}
	// A PID namespace of the command's own, whose init is not the shell
	// (an init ignores SIGTERM and cannot kill itself, so timeouts and
	// exit statuses would change) but a stopped process (startInit).
	// Without one, signals to processes outside are refused by Landlock's
	// scope (ABI 6 on), renice and prlimit of another process by the
	// seccomp filter.
	if linuxSandbox.pidns {
		ts.pidns = true
	}
	r.recordIsolation(linuxSandbox.pidns, linuxSandbox.pidnsErr)
	if len(ts.protect)+len(ts.sockets) > 0 {
		// A mount namespace is kept for the same protected files and
		// sockets: making one per command and tearing it down when the
		// command ends costs milliseconds.
		states := r.protectStates
		if len(states) != len(ts.protect) {
			states = nil
		}
		fd, key, err := mountnsFor(ts.protect, states, ts.sockets)
		if err != nil {
			return err
		}
		ts.mntns, r.mntnsKey = fd, key
	}
	return nil
}

// ruleset sets the run's Landlock ruleset descriptor in ts: a kept one
// for the same rules, or a new one (kept when it can be). kept says the
// descriptor is not the run's to close. key is the read-only starter's
// key ("" for none). (A run with a PID namespace starts from a slot,
// slotStart.)
func (r *confinedRun) ruleset(key string) (kept bool, err error) {
	ts := r.ts
	var rk string
	var fd int
	var flags uint32
	// A run with a TMPDIR of its own gets a ruleset of its own: a kept
	// one is shared (and so does one the helper adds its procfs to).
	own := ts.pidns || ts.helper || r.tmp != ""
	if !own {
		rk = fmt.Sprintf("%v\x00%v", r.cfg, r.rules)
		fd, flags, kept = rulesetFDs.get(rk)
	}
	built := false
	if own {
		// A ruleset of its own, built from descriptors kept open
		// (opening every path is most of what a ruleset costs).
		kept = false
		if fd, flags, _, err = buildRuleset(r.cfg, r.flat, r.sup.ABI); err == nil {
			built = true
		}
	}
	if !kept && !built {
		fd, flags, err = r.cfg.NewRulesetFD(r.rules...)
		if err != nil {
			return false, fmt.Errorf("landlock ruleset: %w", err)
		}
		if fd < 0 {
			return false, errors.New("landlock: nothing to restrict")
		}
		if key == "" && !own {
			kept = rulesetFDs.put(rk, fd, flags)
		}
	}
	if r.tmp != "" {
		if err := tmpRule(fd, r.tmp, r.sup.ABI); err != nil {
			unix.Close(fd)
			return false, err
		}
	}
	ts.fd, ts.flags = fd, flags
	if key != "" && kept {
		// The read-only starter owns (and closes) its descriptor.
		if fd, err = unix.Dup(fd); err != nil {
			return kept, fmt.Errorf("landlock ruleset: %w", err)
		}
		ts.fd = fd
	}
	return kept, nil
}

// tmpRule grants, in the ruleset fd (the run's own), the run's TMPDIR
// tmp as a writable directory, through a descriptor opened for this run
// only (pathFDs keeps descriptors for good).
func tmpRule(fd int, tmp string, abi int) error {
	p, err := unix.Open(tmp, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("sandbox temp dir: %w", err)
	}
	defer unix.Close(p)
	attr := ll.PathBeneathAttr{AllowedAccess: uint64(rwNoDevices) & handledFS(abi), ParentFd: p}
	if err := ll.LandlockAddPathBeneathRule(fd, &attr, 0); err != nil {
		return fmt.Errorf("sandbox temp dir: %w", err)
	}
	return nil
}

// starter returns the function that starts the command from a confined
// thread of its own (closing the ruleset descriptor unless it is kept).
// (A run with a PID namespace starts from a slot, slotStart.)
func (r *confinedRun) starter(kept bool) func() error {
	ts, cmd, bash, lim, fd := r.ts, r.cmd, r.bash, r.lim, r.ts.fd
	return func() error {
		if !kept {
			defer unix.Close(fd)
		}
		ch := make(chan error, 1)
		ap := newApplier(lim)
		// The command, stopped at its exec, is moved into the run's
		// cgroup; the thread stays out of it, so that the cgroup empties
		// when the command's processes are gone.
		ap.cg, ts.cg = ts.cg, nil
		ts.refused = r.refused
		go func() {
			// Never unlocked: this thread is confined, and it ends with
			// this goroutine.
			runtime.LockOSThread()
			if _, err := confineThread(ts, bash); err != nil {
				ch <- err
				return
			}
			ch <- startStopped(cmd, ap)
		}()
		return ap.serve(ch)
	}
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
	cg      *pidsCgroup // the run's pids cgroup the command is moved into; nil: none
	stopped chan int
	applied chan error
	// join and leave, when join is not nil, are the tasks files of the
	// run's pids cgroup and of this process's (opened unconfined): the
	// starting thread joins the run's cgroup for the fork, so that the
	// command is born in it, and leaves it again (see joinFork).
	join, leave *os.File
}

// newApplier makes the applier of one start (its channels hold the one
// pid and the one answer: neither side waits to hand them over).
func newApplier(lim ResourceLimits) *applier {
	return &applier{lim: lim, stopped: make(chan int, 1), applied: make(chan error, 1)}
}

// serve runs on the caller's goroutine until the start is over (done).
func (a *applier) serve(done chan error) error {
	for {
		select {
		case pid := <-a.stopped:
			err := setLimits(pid, a.lim)
			if err == nil && a.cg != nil {
				if err = a.cg.add(pid); err != nil {
					err = fmt.Errorf("sandbox: move the command into its pids cgroup: %w", err)
				}
			}
			a.applied <- err
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
// tracer): the command stops at its exec, the caller sets its limits (applier.serve), and
// it is let go. A command that cannot be stopped and limited is killed.
func startStopped(cmd *exec.Cmd, a *applier) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = true
	if err := joinFork(cmd, a); err != nil {
		return err
	}
	// The exec is done (a vfork): the command runs no instruction of its
	// own before this thread lets it go, so its limits are set (by the
	// caller's goroutine) while this thread waits for its stop.
	pid := cmd.Process.Pid
	a.stopped <- pid
	var ws unix.WaitStatus
	var werr error
	for {
		_, werr = unix.Wait4(pid, &ws, unix.WALL|unix.WUNTRACED, nil)
		if werr != unix.EINTR {
			break
		}
	}
	// Wait for the limits to be set before anything else: the caller is
	// done with pid then. (A command killed before its stop is reaped
	// here first; its pid is not given to another process before the
	// kernel's pid numbers wrap, which takes far longer than setting four
	// limits.)
	aerr := <-a.applied
	if werr != nil {
		_ = cmd.Process.Kill()
		return fmt.Errorf("sandbox: the command did not stop at its exec: %w", werr)
	}
	if !ws.Stopped() {
		// It ended (and was reaped here) before it could be limited.
		return fmt.Errorf("sandbox: the command ended before its limits were set (%v)", ws)
	}
	if aerr != nil {
		_ = unix.Kill(pid, unix.SIGKILL)
		_ = unix.PtraceDetach(pid)
		return aerr
	}
	if err := unix.PtraceDetach(pid); err != nil {
		_ = unix.Kill(pid, unix.SIGKILL)
		return fmt.Errorf("sandbox: let the command go: %w", err)
	}
	return nil
}

// joinFork starts cmd (traced), in a.join's cgroup when a.join is set:
// the calling thread writes 0 (itself: no lock over the whole thread
// group, unlike moving a process, which costs ~50 µs) into the run's
// cgroup's tasks, forks, and writes itself back into this process's
// cgroup. A thread that cannot leave the run's cgroup kills the command.
func joinFork(cmd *exec.Cmd, a *applier) error {
	if a.join == nil {
		return cmd.Start()
	}
	if _, err := a.join.Write([]byte("0")); err != nil {
		return fmt.Errorf("sandbox: join the pids cgroup: %w", err)
	}
	err := cmd.Start()
	if _, lerr := a.leave.Write([]byte("0")); lerr != nil {
		if err == nil {
			_ = cmd.Process.Kill()
			_, _ = cmd.Process.Wait()
		}
		return fmt.Errorf("sandbox: leave the pids cgroup: %w", lerr)
	}
	return err
}

// The rights of go-landlock's RODirs, ROFiles and RWFiles.
const (
	roDirs  = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	roFiles = ll.AccessFSExecute | ll.AccessFSReadFile
	rwFiles = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate
)

// flatRules are path rules as go-landlock's FSRule has them.
type flatRules []flatRule

type flatRule struct {
	path          string
	access        uint64
	ignoreMissing bool
	// listed: an entry of /etc's kept listing (etcGrants), whose
	// identity the listing's generation stands for (see ruleIdentity).
	listed bool
}

func (f *flatRules) add(access uint64, ignoreMissing bool, paths ...string) {
	for _, p := range paths {
		*f = append(*f, flatRule{path: p, access: access, ignoreMissing: ignoreMissing})
	}
}

// handledFS are the file system rights a best-effort V11 ruleset handles
// at Landlock ABI abi.
func handledFS(abi int) uint64 {
	h := uint64(ll.AccessFSMakeSym<<1) - 1 // ABI 1
	if abi >= 2 {
		h |= ll.AccessFSRefer
	}
	if abi >= 3 {
		h |= ll.AccessFSTruncate
	}
	if abi >= 5 {
		h |= ll.AccessFSIoctlDev
	}
	if abi >= 9 {
		h |= ll.AccessFSResolveUnix
	}
	return h
}

// pathFDs keeps an O_PATH descriptor of every path a ruleset named, for
// buildRuleset, with the identity of the file it names: a path that
// names another file since is opened again.
var pathFDs = struct {
	sync.Mutex
	m map[string]pathFDEntry
}{m: map[string]pathFDEntry{}}

type pathFDEntry struct {
	fd       int
	dev, ino uint64
}

const maxPathFDs = 4096

// pathFD returns a kept O_PATH descriptor of p (the file p names now)
// and its identity, and whether the caller must close it (the cache is
// full). The caller holds pathFDs.
func pathFD(p string) (pathFDEntry, bool, error) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return pathFDEntry{}, false, err
	}
	old, ok := pathFDs.m[p]
	if ok && old.dev == st.Dev && old.ino == st.Ino {
		return old, false, nil
	}
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return pathFDEntry{}, false, err
	}
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return pathFDEntry{}, false, err
	}
	e := pathFDEntry{fd, st.Dev, st.Ino}
	if ok {
		unix.Close(old.fd)
		delete(pathFDs.m, p)
	}
	if len(pathFDs.m) >= maxPathFDs {
		return e, true, nil
	}
	pathFDs.m[p] = e
	return e, false, nil
}

// buildRuleset makes a new ruleset of cfg (its handled rights and flags
// as go-landlock makes them) with the rules of flat, from kept
// descriptors, and returns the identity of what its rules hold (see
// appendRuleIdentity). An error leaves nothing open.
func buildRuleset(cfg landlock.Config, flat flatRules, abi int) (int, uint32, string, error) {
	fd, flags, err := cfg.NewRulesetFD(landlock.RWFiles("/dev/null"))
	if err != nil {
		return -1, 0, "", err
	}
	if fd < 0 {
		return -1, 0, "", errors.New("landlock: nothing to restrict")
	}
	pathFDs.Lock()
	defer pathFDs.Unlock()
	var id strings.Builder
	h := handledFS(abi)
	for _, r := range flat {
		access := r.access & h // best effort: cut to what is handled
		if access == 0 {
			continue
		}
		e, closeIt, err := pathFD(r.path)
		if err != nil {
			if r.ignoreMissing && errors.Is(err, unix.ENOENT) {
				if !r.listed {
					appendRuleIdentity(&id, r.path, access, nil)
				}
				continue
			}
			unix.Close(fd)
			return -1, 0, "", fmt.Errorf("%s: %w", r.path, err)
		}
		if !r.listed {
			appendRuleIdentity(&id, r.path, access, &unix.Stat_t{Dev: e.dev, Ino: e.ino})
		}
		attr := ll.PathBeneathAttr{AllowedAccess: access, ParentFd: e.fd}
		err = ll.LandlockAddPathBeneathRule(fd, &attr, 0)
		if closeIt {
			unix.Close(e.fd)
		}
		if err != nil {
			unix.Close(fd)
			return -1, 0, "", fmt.Errorf("%s: %w", r.path, err)
		}
	}
	return fd, flags, id.String(), nil
}

// ruleIdentity is the identity of what a ruleset built now from flat
// would hold, as buildRuleset returns it: each rule's path, rights and
// the device and inode the path names (st nil: missing). The entries of
// /etc's kept listing are left out: the listing's generation, which
// changes when /etc changes (an entry replaced, added or removed), and
// the identity of the entries that are symlinks stand for them
// (confinedRun.etcIdentity).
//
// ids are identities found moments ago (by the run's addReads), used
// instead of looking again.
func ruleIdentity(flat flatRules, abi int, ids map[string]fileID) (string, error) {
	var id strings.Builder
	h := handledFS(abi)
	for _, r := range flat {
		access := r.access & h
		if access == 0 || r.listed {
			continue
		}
		var st unix.Stat_t
		if fid, ok := ids[r.path]; ok {
			st.Dev, st.Ino = fid.dev, fid.ino
		} else if err := unix.Stat(r.path, &st); err != nil {
			if r.ignoreMissing && errors.Is(err, unix.ENOENT) {
				appendRuleIdentity(&id, r.path, access, nil)
				continue
			}
			return "", fmt.Errorf("%s: %w", r.path, err)
		}
		appendRuleIdentity(&id, r.path, access, &st)
	}
	return id.String(), nil
}

func appendRuleIdentity(b *strings.Builder, path string, access uint64, st *unix.Stat_t) {
	var num [20]byte
	b.WriteString(path)
	b.WriteByte(0)
	b.Write(strconv.AppendUint(num[:0], access, 16))
	b.WriteByte(0)
	if st == nil {
		b.WriteByte('-')
	} else {
		b.Write(strconv.AppendUint(num[:0], st.Dev, 16))
		b.WriteByte(':')
		b.Write(strconv.AppendUint(num[:0], st.Ino, 16))
	}
	b.WriteByte(0)
}

// rwNoDevices are the file system rights of a writable directory: all
// but making character and block devices.
const rwNoDevices = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
	ll.AccessFSReadDir | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeDir |
	ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeSym |
	ll.AccessFSRefer | ll.AccessFSTruncate | ll.AccessFSResolveUnix)

// envHome is HOME in env, or the user's home directory.
func envHome(env []string) string {
	if v := EnvValue(env, "HOME"); v != "" {
		return v
	}
	h, _ := os.UserHomeDir()
	return h
}

// confineThread confines the calling (locked) thread as ts says; with
// ts.pidns it returns the init of the PID namespace it entered.
func confineThread(ts *threadSetup, bash string) (init *exec.Cmd, err error) {
	defer func() {
		if err != nil && init != nil {
			_ = init.Process.Kill()
			holdInit(init)
			init = nil
		}
	}()
	if ts.cg != nil {
		if err := ts.cg.join(); err != nil {
			return init, fmt.Errorf("sandbox: join the pids cgroup: %w", err)
		}
	}
	if ts.helper {
		return nil, nil // the helper confines itself (userns_linux.go)
	}
	if ts.netns >= 0 {
		if err := unix.Setns(ts.netns, unix.CLONE_NEWNET); err != nil {
			return init, fmt.Errorf("sandbox: join the network namespace: %w", err)
		}
	}
	switch {
	case ts.mntns >= 0:
		// setns into a mount namespace needs a file system context of
		// the thread's own.
		if err := unix.Unshare(unix.CLONE_FS); err != nil {
			return init, fmt.Errorf("sandbox: unshare the file system context: %w", err)
		}
		if err := unix.Setns(ts.mntns, unix.CLONE_NEWNS); err != nil {
			return init, fmt.Errorf("sandbox: join the mount namespace: %w", err)
		}
	case len(ts.protect)+len(ts.sockets) > 0:
		if err := bindProtected(ts.protect, ts.sockets); err != nil {
			return init, fmt.Errorf("sandbox: protect paths: %w", err)
		}
	}
	if ts.pidns {
		if init, err = enterPidns(bash); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		if err := grantProc(ts.fd); err != nil {
			return init, fmt.Errorf("sandbox: %w", err)
		}
	}
	if err := dropCapabilities(); err != nil {
		return init, fmt.Errorf("sandbox: drop capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return init, fmt.Errorf("sandbox: no_new_privs: %w", err)
	}
	if seccompAvailable {
		fd, err := installSeccomp(ts.allowClone, ts.refused != nil, ts.memLimit)
		if err != nil {
			return init, fmt.Errorf("sandbox: %w", err)
		}
		if fd >= 0 {
			go superviseSeccomp(fd, ts.refused)
		}
	}
	if err := ll.LandlockRestrictSelf(ts.fd, ts.flags); err != nil {
		return init, fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
	}
	return init, nil
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
	return bindPaths(ps, sockets)
}

// bindPaths binds ps and hides sockets as bindProtected does, in the
// calling thread's mount namespace (its own).
func bindPaths(ps []protectedPath, sockets []string) error {
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
		err = unix.Mount("none", at, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|lockedFlags(fd), "")
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
		err = hideSocket(fd)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("hide the socket %s: %w", p, err)
		}
	}
	return nil
}

// hideSocket binds /dev/null onto the socket fd (opened with O_PATH). A
// socket removed since it was opened (its program ended) refuses the
// mount (ENOENT) and needs none: no connect reaches it by its path, and
// one made there since is a new socket, as one made after the sockets
// were read. (That refusal made whole runs fail to start while other
// programs came and went.)
func hideSocket(fd int) error {
	err := unix.Mount("/dev/null", "/proc/thread-self/fd/"+strconv.Itoa(fd), "", unix.MS_BIND, "")
	if err == unix.ENOENT {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && st.Nlink == 0 {
			return nil
		}
	}
	return err
}

// unixSockets is the host's /proc/net/unix, kept open by outsideSockets.
var unixSockets struct {
	sync.Mutex
	f   *os.File
	pid int
}

// lineBufs are outsideSockets' line buffers, reused across runs.
var lineBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// maxSockets bounds the unix sockets hidden from one command.
const maxSockets = 4096

// outsideSockets lists the bound pathname unix sockets of the host's
// network namespace that lie outside the directories dirs.
func outsideSockets(dirs []string) []string {
	// This thread's view: /proc/self/net is the main thread's, which may
	// have been left in the sandbox's network namespace (a locked thread
	// that ends on the main thread is kept, not ended). The file is kept
	// open (it stays the host's namespace's) and read again from its
	// start: opening it costs more than reading it.
	unixSockets.Lock()
	defer unixSockets.Unlock()
	f := unixSockets.f
	if f == nil || unixSockets.pid != os.Getpid() {
		var err error
		if f, err = os.Open("/proc/thread-self/net/unix"); err != nil {
			return nil
		}
		unixSockets.f, unixSockets.pid = f, os.Getpid()
	} else if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(io.LimitReader(f, 16<<20))
	buf := lineBufs.Get().(*[]byte)
	defer lineBufs.Put(buf)
	sc.Buffer(*buf, len(*buf))
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
		_, err := confineThread(ts, "") // a kept starter has no PID namespace
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
// which detaches the old bind) builds a new namespace. Each kept
// namespace holds a descriptor of every file it bound: a file removed
// since (which detaches its bind) keeps its inode number, so that a new
// file at the same path cannot get it and pass for the old one.
var mountnsCache = struct {
	sync.Mutex
	m map[string]keptMountns
}{m: map[string]keptMountns{}}

type keptMountns struct {
	fd   int
	pins []int
}

// pinPaths opens (O_PATH, not following symlinks) each path of ps and
// sockets that key names, and reports whether each still is the file
// key recorded; the caller closes the descriptors.
func pinPaths(ps []protectedPath, sockets []string, key string) ([]int, bool) {
	var pins []int
	var b strings.Builder
	pin := func(p string) (unix.Stat_t, bool) {
		var st unix.Stat_t
		fd, err := unix.Open(p, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return st, false
		}
		if unix.Fstat(fd, &st) != nil {
			unix.Close(fd)
			return st, false
		}
		pins = append(pins, fd)
		return st, true
	}
	for _, p := range ps {
		if st, ok := pin(p.path); ok {
			fmt.Fprintf(&b, "%s\x00%t\x00%d\x00%d\x00", p.path, p.pin, st.Dev, st.Ino)
		}
	}
	for _, p := range sockets {
		if st, ok := pin(p); ok {
			fmt.Fprintf(&b, "s%s\x00%d\x00%d\x00", p, st.Dev, st.Ino)
		}
	}
	return pins, b.String() == key
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

const maxMountns = 16

// mountnsFor returns a descriptor of a mount namespace in which ps and
// sockets are bound as bindProtected binds them; the cache owns it.
// states, when not nil, are what lstat said of ps a moment before (the
// guard's states, one each), which name the namespace kept.
func mountnsFor(ps []protectedPath, states []pathState, sockets []string) (int, string, error) {
	var key strings.Builder
	for i, p := range ps {
		if states != nil {
			if st := states[i]; st.exists {
				fmt.Fprintf(&key, "%s\x00%t\x00%d\x00%d\x00", p.path, p.pin, st.dev, st.ino)
			}
			continue
		}
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
	if e, ok := mountnsCache.m[k]; ok {
		return e.fd, k, nil
	}
	pins, same := pinPaths(ps, sockets, k)
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
		closeAll(pins)
		return -1, "", r.err
	}
	if !same {
		// A path changed while the key was made: the namespace is not
		// kept under it (the last of this key's is closed when another
		// takes its place).
		closeAll(pins)
		pins = nil
		k += "\x00unkept"
	}
	if len(mountnsCache.m) >= maxMountns {
		for old, e := range mountnsCache.m {
			unix.Close(e.fd)
			closeAll(e.pins)
			delete(mountnsCache.m, old)
		}
	}
	if old, ok := mountnsCache.m[k]; ok {
		unix.Close(old.fd)
		closeAll(old.pins)
	}
	mountnsCache.m[k] = keptMountns{r.fd, pins}
	return r.fd, k, nil
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
	var st unix.Stat_t
	err := unix.Lstat(p, &st)
	if err == unix.ENOENT {
		if err := os.Mkdir(p, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return "", err
		}
		err = unix.Lstat(p, &st)
	}
	if err != nil {
		return "", &os.PathError{Op: "lstat", Path: p, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Getuid() || st.Mode&0o077 != 0 {
		return "", fmt.Errorf("%s is not a private directory of this user", p)
	}
	return p, nil
}
