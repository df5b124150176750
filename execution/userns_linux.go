//go:build linux

package execution

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// How an unprivileged user's command gets what root's gets (a mount
// namespace with the protected paths bound read-only and the outside
// sockets hidden, a PID namespace with a procfs of its own, no network):
//
// A process of a threaded program cannot enter a new user namespace, and
// without one an unprivileged thread can make no mount or PID namespace.
// So the command's starting thread confines nothing itself: it starts
// this program again (/proc/self/exe, argv[0] helperArg0) in a new user,
// mount and network namespace, in which the user's own uid and gid are
// mapped onto themselves (files keep their owner, the command sees its
// own uid) and which holds CAP_SYS_ADMIN as an ambient capability. This
// helper, before any other code of the program runs (the package's
// init), binds the protected paths read-only and hides the sockets,
// gives the children of its thread a new PID namespace whose first
// process (an init that waits on a pipe the runner holds) keeps it
// alive until the run ends, mounts that namespace's procfs on /proc, and
// then confines its thread as the root route confines its own (no
// capabilities, no_new_privs, the seccomp filter, the Landlock ruleset
// the runner built and passed, with the new /proc granted) and starts
// the command's shell from it, as PID 2. It waits for the shell, answers
// the seccomp filter's refusals, reports them, and ends as the shell
// ended (its exit code, or the signal that killed it): the runner sees
// the helper as the shell.
//
// Where the helper cannot do this (user namespaces off, a procfs it may
// not mount), the run falls back to the older route and says what it
// lacks (SandboxInfo.Note, SandboxSupport.Missing).
//
// With a PID namespace, a run starts from a kept helper of its
// confinement (userslot_linux.go), which does all of the above once and
// then starts one run's shell after another; this one-shot helper is the
// route of a run that cannot use one.

// helperArg0 is argv[0] of the helper.
const helperArg0 = "shellgate-sandbox-helper"

// helperConfig is what the runner tells the helper, as JSON on a pipe.
type helperConfig struct {
	// Protect are the protected paths (path, pin); Sockets the sockets to hide.
	Protect []helperPath `json:"protect,omitempty"`
	Sockets []string     `json:"sockets,omitempty"`
	// Keep is how many descriptors from 3 on are the shell's own (the
	// runner's ExtraFiles); the helper's follow them.
	Keep int `json:"keep"`
	// Ruleset, Report and End are the helper's descriptors: the Landlock
	// ruleset, the report pipe's write end, the read end of the pipe the
	// PID namespace's init waits on.
	Ruleset int    `json:"ruleset"`
	Flags   uint32 `json:"flags"`
	Report  int    `json:"report"`
	End     int    `json:"end"`
	// Notify: refusals go to a supervisor (recorded); else plain EPERM.
	Notify bool `json:"notify"`
	// MemLimit is the command's RLIMIT_DATA in bytes (0: none), for the
	// seccomp filter (installSeccomp).
	MemLimit uint64 `json:"mem_limit,omitempty"`
	// Probe: set up, start the shell with ":" and report, nothing else.
	Probe bool `json:"probe,omitempty"`
	// NoPidns: no PID namespace (this kernel's procfs cannot be mounted
	// for one: see helperPidns); the rest still holds.
	NoPidns bool `json:"no_pidns,omitempty"`
}

type helperPath struct {
	Path string `json:"path"`
	Pin  bool   `json:"pin,omitempty"`
}

func init() {
	if len(os.Args) >= 3 && os.Args[0] == helperArg0 {
		os.Exit(helperMain(os.Args[1], os.Args[2:]))
	}
}

// helperMain is the helper: cfgFD is its config pipe, argv the shell's
// command line (argv[0] its path). It returns only on a failure before
// the shell started (exit status 125, the reason on stderr and the report).
func helperMain(cfgFD string, argv []string) int {
	runtime.LockOSThread() // never unlocked: this thread is confined
	fd, err := strconv.Atoi(cfgFD)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shellgate sandbox helper: bad config descriptor")
		return 125
	}
	f := os.NewFile(uintptr(fd), "config")
	var cfg helperConfig
	err = json.NewDecoder(io.LimitReader(f, 64<<20)).Decode(&cfg)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "shellgate sandbox helper: config:", err)
		return 125
	}
	report := os.NewFile(uintptr(cfg.Report), "report")
	fail := func(err error) int {
		fmt.Fprintf(report, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		fmt.Fprintf(os.Stderr, "shellgate: the sandbox could not be set up, so nothing ran: %v\n", err)
		return 125
	}
	for _, d := range []int{cfg.Ruleset, cfg.Report, cfg.End} {
		unix.CloseOnExec(d)
	}
	ps := make([]protectedPath, len(cfg.Protect))
	for i, p := range cfg.Protect {
		ps[i] = protectedPath{p.Path, p.Pin}
	}
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fail(fmt.Errorf("make / a slave: %w", err))
	}
	if err := bindPaths(ps, cfg.Sockets); err != nil {
		return fail(fmt.Errorf("protect paths: %w", err))
	}
	if !cfg.NoPidns {
		init, err := enterHelperPidns(argv[0], cfg.End, cfg.Ruleset)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(report, "init %d\n", init)
	} else {
		unix.Close(cfg.End)
	}
	refused := &refusedCalls{}
	if err := confineHelperThread(cfg.Ruleset, cfg.Flags, cfg.Notify, cfg.MemLimit, refused); err != nil {
		return fail(err)
	}
	if cfg.Probe {
		argv = []string{argv[0], "-c", ":"}
	}
	sh := exec.Command(argv[0], argv[1:]...)
	sh.Args = argv
	sh.Env = os.Environ()
	sh.Stdin, sh.Stdout, sh.Stderr = os.Stdin, os.Stdout, os.Stderr
	for i := 0; i < cfg.Keep; i++ {
		var f *os.File
		if _, err := unix.FcntlInt(uintptr(3+i), unix.F_GETFD, 0); err == nil {
			f = os.NewFile(uintptr(3+i), "extra")
		}
		sh.ExtraFiles = append(sh.ExtraFiles, f)
	}
	// The runner signals the whole process group (the helper's, which
	// the shell joins): the helper leaves what reaches it to the shell.
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGPIPE, syscall.SIGALRM)
	if err := sh.Start(); err != nil {
		return fail(fmt.Errorf("start the shell: %w", err))
	}
	for _, f := range sh.ExtraFiles {
		if f != nil {
			f.Close()
		}
	}
	_ = sh.Wait()
	// The supervisor records a refusal before it answers it, so the
	// shell's are all in (it never ends before this process: this
	// thread has the filter too).
	writeRefusals(report, refused)
	report.Close()
	ws, _ := sh.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		s := ws.Signal()
		signal.Reset(s)
		_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
		_ = unix.Kill(os.Getpid(), s)
		time.Sleep(100 * time.Millisecond)
		return 128 + int(s)
	}
	return ws.ExitStatus()
}

// enterHelperPidns gives the children of the calling thread a new PID
// namespace, starts its init (startPipeInit, waiting on the descriptor
// end), mounts the namespace's procfs on /proc and grants it in the
// ruleset; it returns the init's pid.
func enterHelperPidns(bash string, end, ruleset int) (int, error) {
	// The os package learns once, by forking a child, whether pidfds
	// work: that child must not become the new namespace's init.
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
	if err := unix.Unshare(unix.CLONE_NEWPID); err != nil {
		return 0, fmt.Errorf("PID namespace: %w", err)
	}
	init, err := startPipeInit(bash, end)
	if err != nil {
		return 0, err
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "pidns=/proc/thread-self/ns/pid_for_children"); err != nil {
		return 0, fmt.Errorf("mount the namespace's procfs: %w", err)
	}
	return init, grantProc(ruleset)
}

// confineHelperThread confines the calling (locked) thread of a helper
// as the root route confines its threads: no capabilities, no_new_privs,
// the seccomp filter (whose refusals, with notify, go to refused) and
// the Landlock ruleset, which it closes.
func confineHelperThread(ruleset int, flags uint32, notify bool, memLimit uint64, refused *refusedCalls) error {
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if seccompAvailable {
		lfd, err := installSeccomp(0, notify, memLimit)
		if err != nil {
			return err
		}
		if lfd >= 0 {
			go superviseSeccomp(lfd, refused)
		}
	}
	if err := ll.LandlockRestrictSelf(ruleset, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	unix.Close(ruleset)
	return nil
}

// startPipeInit starts the PID namespace's init on the calling thread
// (its children's namespace): a shell that waits on the descriptor end
// (the read end of a pipe whose write end the runner holds) and ends when
// the runner closes it, ending the namespace and what is left in it. It
// is in a process group of its own (the runner's signals to the command's
// group miss it), started before the thread confines itself (Landlock's
// scope keeps the command from signalling or tracing it) and, as a
// namespace's init, ignores the signals it has no handler for. It returns
// the init's pid. The shell is /bin/sh where it is executable (dash
// starts in half the time bash does, and a run pays for its init's
// start), else bash: the choice is made before the fork, as the first
// process of the namespace is its init (a failed exec would end it).
func startPipeInit(bash string, end int) (int, error) {
	sh := "/bin/sh"
	if unix.Access(sh, unix.X_OK) != nil {
		sh = bash
	}
	init := exec.Command(sh, "-c", "read -r _ <&3; :")
	init.Args[0] = "shellgate-init"
	init.Env = []string{}
	endF := os.NewFile(uintptr(end), "end")
	defer endF.Close()
	init.ExtraFiles = []*os.File{endF}
	init.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := init.Start(); err != nil {
		return 0, fmt.Errorf("start the PID namespace's init: %w", err)
	}
	pid := init.Process.Pid
	// Reaped by whoever adopts it once the helper is gone.
	init.Process.Release()
	return pid, nil
}

// helperRun is the runner's side of one command started through the
// helper.
type helperRun struct {
	cfg     helperConfig
	files   []*os.File // the parent's copies passed to the helper
	endW    *os.File   // held until the run ends
	reportR *os.File
	done    chan struct{} // the report was read to its end
	reading bool          // started: the report is being read
	init    int
	initFD  int // a pidfd of init; -1: none
	errLine string
}

// useHelper makes cmd start the helper (see above) with r's protected
// paths and sockets and the ruleset descriptor rs: it rewrites cmd's
// program, arguments, extra files and namespaces, and returns the
// handle whose start runs right before the command starts and whose end
// runs when the run is over.
func useHelper(cmd *exec.Cmd, ps []protectedPath, sockets []string, network bool) *helperRun {
	h := &helperRun{done: make(chan struct{}), initFD: -1}
	for _, p := range ps {
		h.cfg.Protect = append(h.cfg.Protect, helperPath{p.path, p.pin})
	}
	h.cfg.Sockets = sockets
	h.cfg.Keep = len(cmd.ExtraFiles)
	h.cfg.Notify = true
	argv := append([]string{cmd.Path}, cmd.Args[1:]...)
	cmd.Path = "/proc/self/exe"
	cmd.Args = append([]string{helperArg0, strconv.Itoa(3 + len(cmd.ExtraFiles))}, argv...)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	sp := cmd.SysProcAttr
	sp.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	if !network {
		sp.Cloneflags |= syscall.CLONE_NEWNET
	}
	sp.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	sp.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	sp.GidMappingsEnableSetgroups = false
	sp.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	return h
}

// start passes the config and the descriptors (the ruleset rs with its
// flags) to the helper through cmd's extra files; call it right before
// cmd starts, and finish right after.
func (h *helperRun) start(cmd *exec.Cmd, rs int, flags uint32) error {
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		cfgR.Close()
		cfgW.Close()
		return err
	}
	endR, endW, err := os.Pipe()
	if err != nil {
		cfgR.Close()
		cfgW.Close()
		repR.Close()
		repW.Close()
		return err
	}
	dup, err := unix.FcntlInt(uintptr(rs), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		for _, f := range []*os.File{cfgR, cfgW, repR, repW, endR, endW} {
			f.Close()
		}
		return err
	}
	ruleset := os.NewFile(uintptr(dup), "ruleset")
	base := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, cfgR, ruleset, repW, endR)
	h.cfg.Ruleset, h.cfg.Flags, h.cfg.Report, h.cfg.End = base+1, flags, base+2, base+3
	h.files = []*os.File{cfgR, ruleset, repW, endR}
	h.endW, h.reportR = endW, repR
	go func() {
		json.NewEncoder(cfgW).Encode(h.cfg)
		cfgW.Close()
	}()
	return nil
}

// started closes the parent's copies of the helper's descriptors and
// reads its report until the helper closes it; refusals go to refused.
func (h *helperRun) started(refused *refusedCalls) {
	for _, f := range h.files {
		f.Close()
	}
	h.files = nil
	h.reading = true
	go func() {
		defer close(h.done)
		sc := bufio.NewScanner(io.LimitReader(h.reportR, 1<<20))
		for sc.Scan() {
			kind, rest, _ := strings.Cut(sc.Text(), " ")
			switch kind {
			case "init":
				h.init, _ = strconv.Atoi(rest)
				if h.init > 0 {
					if fd, err := unix.PidfdOpen(h.init, 0); err == nil {
						h.initFD = fd
					}
				}
			case "error":
				h.errLine = rest
			default:
				addRefusal(kind, rest, refused)
			}
		}
		h.reportR.Close()
	}()
}

// addRefusal adds a helper's report line ("refused N NAME" or "memory N
// MAX") to refused; other lines are ignored.
func addRefusal(kind, rest string, refused *refusedCalls) {
	switch kind {
	case "refused":
		n, name, _ := strings.Cut(rest, " ")
		c, _ := strconv.Atoi(n)
		for i := 0; i < c && i < 1<<20; i++ {
			refused.add(name)
		}
	case "memory":
		n, size, _ := strings.Cut(rest, " ")
		c, _ := strconv.Atoi(n)
		m, _ := strconv.ParseUint(size, 10, 64)
		refused.mu.Lock()
		refused.mem += c
		refused.memMax = max(refused.memMax, m)
		refused.mu.Unlock()
	}
}

// writeRefusals writes what refused holds as a helper's report lines
// (addRefusal reads them) and empties it.
func writeRefusals(w io.Writer, refused *refusedCalls) {
	refused.mu.Lock()
	defer refused.mu.Unlock()
	if refused.mem > 0 {
		fmt.Fprintf(w, "memory %d %d\n", refused.mem, refused.memMax)
	}
	for _, name := range refused.order {
		fmt.Fprintf(w, "refused %d %s\n", refused.count[name], name)
	}
	refused.order, refused.count, refused.mem, refused.memMax = nil, nil, 0, 0
}

// end ends the run's PID namespace (its init reads the end of the pipe)
// and returns how many processes the command had left running in it.
func (h *helperRun) end() int {
	for _, f := range h.files {
		f.Close()
	}
	h.files = nil
	if !h.reading {
		if h.reportR != nil {
			h.reportR.Close()
			h.endW.Close()
		}
		return 0
	}
	<-h.done
	n := 0
	if h.init > 0 {
		n = nsProcesses(h.init)
	}
	if h.initFD >= 0 {
		// The init's end ends the namespace: the kernel kills the rest,
		// and the init has ended (its pidfd reads) once they are gone.
		_ = unix.PidfdSendSignal(h.initFD, unix.SIGKILL, nil, 0)
	}
	h.endW.Close() // (the init also ends when this process does)
	if h.initFD >= 0 {
		pfd := []unix.PollFd{{Fd: int32(h.initFD), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(pfd, 5000); err != unix.EINTR {
				break
			}
		}
		// Adopted by this process (a subreaper), it is reaped here; else
		// whoever adopted it reaps it.
		var ws unix.WaitStatus
		_, _ = unix.Wait4(h.init, &ws, unix.WNOHANG|unix.WALL, nil)
		unix.Close(h.initFD)
		h.initFD = -1
	}
	return n
}

// lockedFlags are the flags of the mount fd is on that a remount must
// keep: in a user namespace the mounts it inherited are locked, and a
// remount that would clear noexec or change the atime rule fails.
func lockedFlags(fd int) uintptr {
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil {
		return 0
	}
	var f uintptr
	for _, m := range [][2]uintptr{
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&m[0] != 0 {
			f |= m[1]
		}
	}
	return f
}

// viaHelper records the isolation a command started through the helper
// gets: the protected paths and sockets are the helper's to bind, not the
// starting thread's. Which helper, a kept one (userslot_linux.go) or one
// of the run's own (oneShot), helperStart decides.
func (r *confinedRun) viaHelper() error {
	r.recordIsolation(helperPidns.ok, helperPidns.err)
	r.ts.helper = true
	return nil
}

// oneShot makes the command start through a helper of its own, which
// ends with the command (see above), and returns the function that
// starts it: the run gets a TMPDIR of its own where it has none yet.
func (r *confinedRun) oneShot() (func() error, error) {
	ts := r.ts
	if r.tmpParent != "" && r.tmp == "" {
		tmp, err := os.MkdirTemp(r.tmpParent, "shellgate-tmp-")
		if err != nil {
			return nil, fmt.Errorf("sandbox temp dir: %w", err)
		}
		r.tmp = tmp
		r.sets.read = append(r.sets.read, tmp)
		r.sets.write = append(r.sets.write, tmp)
		r.cmd.Env = setEnv(r.cmd.Env, "TMPDIR", tmp)
	}
	r.helper = useHelper(r.cmd, ts.protect, ts.sockets, r.c.Network)
	r.helper.cfg.NoPidns = !helperPidns.ok
	ts.protect, ts.sockets = nil, nil
	kept, err := r.ruleset("")
	if err != nil {
		return nil, err
	}
	return r.wrapHelper(r.starter(kept)), nil
}

// wrapHelper returns start, which starts the helper when the run goes
// through it, with the helper's descriptors passed and its report read;
// the run's end then ends its PID namespace.
func (r *confinedRun) wrapHelper(start func() error) func() error {
	h := r.helper
	if h == nil {
		if r.ts.helper {
			// The starting thread confines nothing itself: without the
			// helper the command must not start.
			return func() error { return errors.New("sandbox: the helper was not set up, so nothing ran") }
		}
		return start
	}
	cmd, ts, refused := r.cmd, r.ts, r.refused
	r.endPidns = h.end
	return func() error {
		h.cfg.MemLimit = ts.memLimit
		if err := h.start(cmd, ts.fd, ts.flags); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		err := start()
		h.started(refused)
		return err
	}
}

// helperPidns says whether the helper gives commands a PID namespace
// (set by probeHelper); err says why not.
var helperPidns struct {
	ok  bool
	err string
}

// probeHelper starts the helper once, with nothing to protect and ":"
// for a command, to learn whether commands can start through it; where
// it cannot with a PID namespace (a kernel whose procfs has no pidns
// option, before Linux 6.16), it tries without one.
func probeHelper(bash string) (bool, string) {
	if bash == "" {
		return false, "no shell"
	}
	ok, why := probeHelperOnce(bash, false)
	if ok {
		helperPidns.ok = true
		return true, ""
	}
	helperPidns.err = why
	if ok2, why2 := probeHelperOnce(bash, true); ok2 {
		return true, ""
	} else if why2 != "" {
		why += "; without a PID namespace: " + why2
	}
	return false, why
}

// probeHelperOnce is one try of probeHelper, with or without (noPidns)
// a PID namespace.
func probeHelperOnce(bash string, noPidns bool) (bool, string) {
	cmd := exec.Command(bash)
	cmd.Env = []string{}
	h := useHelper(cmd, nil, nil, false)
	h.cfg.Probe, h.cfg.Notify, h.cfg.NoPidns = true, false, noPidns
	fd, flags, err := landlock.V11.BestEffort().NewRulesetFD(landlock.RODirs("/"))
	if err != nil || fd < 0 {
		return false, fmt.Sprintf("landlock ruleset: %v", err)
	}
	err = h.start(cmd, fd, flags)
	unix.Close(fd)
	if err != nil {
		return false, err.Error()
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Start()
	h.started(&refusedCalls{})
	if err == nil {
		err = cmd.Wait()
	}
	h.end()
	if err != nil {
		if h.errLine != "" {
			return false, h.errLine
		}
		return false, strings.TrimSpace(err.Error() + " " + stderr.String())
	}
	return true, ""
}

// missingProtections are what SandboxSupport.Missing lists, once the
// probes ran.
func missingProtections() []string {
	s := &linuxSandbox
	var out []string
	if !s.mountns && !s.helper {
		out = append(out, "mountns: no mount namespace ("+s.mountnsErr+"; without root: "+s.helperErr+")")
	}
	if !s.pidns && !(s.helper && !s.mountns && helperPidns.ok) {
		why := s.helperErr
		if s.helper {
			why = helperPidns.err
		}
		out = append(out, "pidns: no PID namespace ("+s.pidnsErr+"; without root: "+why+")")
	}
	if pidsCgroupBase() == "" {
		out = append(out, "pids-cgroup: no writable pids cgroup: a command's processes are bounded by RLIMIT_NPROC only")
	}
	switch s.support.NetworkGuard {
	case "netns", "userns+netns":
	case "landlock-tcp":
		out = append(out, "netns: no network namespace: only TCP is refused, not UDP or DNS")
	default:
		out = append(out, "netns: no network guard")
	}
	return out
}
