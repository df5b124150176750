//go:build linux

package execution

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Without root, starting the helper (userns_linux.go) is most of what a
// confined run costs: a user, mount and network namespace, this program
// started again, the protected paths bound, an init started, a seccomp
// filter and a Landlock ruleset, for every run. So the helper is kept,
// as root's confined threads are (slot_linux.go): a kept helper (the
// keeper, argv[0] keeperArg0) is started once per confinement, in its
// namespaces, with the protected paths bound and the sockets hidden; its
// main thread gives its children a PID namespace (its init waits on a
// pipe only the keeper holds), mounts that namespace's procfs on /proc
// and confines itself as the helper does (no capabilities, no_new_privs,
// the seccomp filter, whose refusals a supervisor records, the Landlock
// ruleset). It then serves runs, one at a time, over a unix socket the
// runner holds the other end of: for each, the runner sends the shell's
// command line, environment, directory and descriptors (SCM_RIGHTS), and
// the keeper's confined thread starts the shell with CLONE_PARENT, so
// that the shell is the runner's own child: the runner waits for it,
// signals its process group and reads its exit status as for any
// command. The keeper's resource limits (set by the runner while it was
// stopped at its exec, as for the helper) are what its shells inherit.
//
// When the shell was waited for, the runner asks the keeper what the
// filter refused (the run's alone: a keeper serves one run at a time)
// and how many processes are in its namespace but init (its own procfs
// lists every one, a process whose parent is outside included); the
// keeper is kept for the next run of the same confinement only when the
// namespace holds nothing but init (as root's slots, the next run sees no
// process of an earlier one) and the run's TMPDIR was emptied. Otherwise
// it is retired: init is killed, and with it, by the kernel, everything
// in the namespace, then the keeper.
//
// A keeper is kept under a key that holds everything it was made of: the
// Landlock rules with the identity of every path they name, the identity
// of every protected path and socket it bound (the runner holds a
// descriptor of each, so that an inode number cannot come back for
// another file: see mountnsCache), /etc's listing, the network and the
// limits. A path that names another file since makes another key, so a
// new keeper. A keeper ends when the runner's process does: its socket
// reads end of file, and its init's pipe closes with it.
//
// Where a keeper cannot be used (made, or asked to start a shell), the
// run starts through a helper of its own, as before (oneShot): never with
// less confinement.

// keeperArg0 is argv[0] of a kept helper.
const keeperArg0 = "shellgate-sandbox-keeper"

// keeperConfig is what the runner tells a keeper, as JSON on a pipe.
type keeperConfig struct {
	Protect []helperPath `json:"protect,omitempty"`
	Sockets []string     `json:"sockets,omitempty"`
	// Bash starts the namespace's init where /bin/sh cannot.
	Bash string `json:"bash"`
	// Ruleset and Flags are the Landlock ruleset's descriptor and flags;
	// Sock is the keeper's end of the socket.
	Ruleset  int    `json:"ruleset"`
	Flags    uint32 `json:"flags"`
	Sock     int    `json:"sock"`
	MemLimit uint64 `json:"mem_limit,omitempty"`
	// Notify is an eventfd the keeper adds one to for each call its
	// filter refused (0: none).
	Notify int `json:"notify,omitempty"`
}

// keeperRun is one run's request: the shell's program, arguments,
// environment and directory; Files are the shell's descriptors 0, 1, 2
// and its extra files, each an index into the descriptors passed with
// the request or -1 (none: /dev/null for 0-2, closed otherwise). It is
// sent as NUL-ended fields (appendTo, parseKeeperRun): JSON cost a run
// ~35 µs to write and read.
type keeperRun struct {
	Path  string
	Args  []string
	Env   []string
	Dir   string
	Files []int
}

// appendTo appends the request to b: its fields, each ended by a NUL
// (none of them can hold one: they are a path, a directory, arguments
// and environment entries of an exec), the lists led by their length.
func (r keeperRun) appendTo(b []byte) []byte {
	field := func(s string) { b = append(append(b, s...), 0) }
	num := func(n int) { b = append(strconv.AppendInt(b, int64(n), 10), 0) }
	field(r.Path)
	field(r.Dir)
	num(len(r.Args))
	for _, a := range r.Args {
		field(a)
	}
	num(len(r.Env))
	for _, e := range r.Env {
		field(e)
	}
	num(len(r.Files))
	for _, f := range r.Files {
		num(f)
	}
	return b
}

// parseKeeperRun reads a request appendTo wrote.
func parseKeeperRun(b []byte) (keeperRun, error) {
	var r keeperRun
	bad := errors.New("bad request")
	field := func() (string, bool) {
		i := bytes.IndexByte(b, 0)
		if i < 0 {
			return "", false
		}
		s := string(b[:i])
		b = b[i+1:]
		return s, true
	}
	num := func() (int, bool) {
		s, ok := field()
		if !ok {
			return 0, false
		}
		n, err := strconv.Atoi(s)
		return n, err == nil
	}
	list := func() ([]string, bool) {
		n, ok := num()
		if !ok || n < 0 || n > len(b) {
			return nil, false
		}
		out := make([]string, 0, n)
		for i := 0; i < n; i++ {
			s, ok := field()
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	var ok bool
	if r.Path, ok = field(); !ok {
		return r, bad
	}
	if r.Dir, ok = field(); !ok {
		return r, bad
	}
	if r.Args, ok = list(); !ok {
		return r, bad
	}
	if r.Env, ok = list(); !ok {
		return r, bad
	}
	files, ok := list()
	if !ok || len(b) != 0 {
		return r, bad
	}
	for _, f := range files {
		n, err := strconv.Atoi(f)
		if err != nil || n < -1 {
			return r, bad
		}
		r.Files = append(r.Files, n)
	}
	return r, nil
}

// maxKeeperMsg bounds a request (the environment is most of it); a run
// whose request is longer starts through a helper of its own.
const maxKeeperMsg = 1 << 20

func init() {
	if len(os.Args) == 2 && os.Args[0] == keeperArg0 {
		os.Exit(keeperMain(os.Args[1]))
	}
}

// keeperMain is a kept helper: cfgFD is its config pipe. It returns only
// when it could not be set up (the reason went to its socket).
func keeperMain(cfgFD string) int {
	runtime.LockOSThread() // never unlocked: this thread is confined
	fd, err := strconv.Atoi(cfgFD)
	if err != nil {
		return 125
	}
	f := os.NewFile(uintptr(fd), "config")
	var cfg keeperConfig
	err = json.NewDecoder(io.LimitReader(f, 64<<20)).Decode(&cfg)
	f.Close()
	if err != nil {
		return 125
	}
	sock := cfg.Sock
	unix.CloseOnExec(sock)
	unix.CloseOnExec(cfg.Ruleset)
	fail := func(err error) int {
		_, _ = unix.Write(sock, []byte("error "+strings.ReplaceAll(err.Error(), "\n", " ")))
		return 125
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
	// The init waits on a pipe whose write end only this process holds:
	// it ends when the keeper does.
	var end [2]int
	if err := unix.Pipe2(end[:], unix.O_CLOEXEC); err != nil {
		return fail(err)
	}
	// A file system context of this thread's own: it changes directory
	// for each run's shell.
	if err := unix.Unshare(unix.CLONE_FS); err != nil {
		return fail(fmt.Errorf("unshare the file system context: %w", err))
	}
	init, err := enterHelperPidns(cfg.Bash, end[0], cfg.Ruleset)
	if err != nil {
		return fail(err)
	}
	refused := &refusedCalls{}
	if cfg.Notify > 0 {
		unix.CloseOnExec(cfg.Notify)
		var one [8]byte
		binary.NativeEndian.PutUint64(one[:], 1)
		refused.notify = func() { _, _ = unix.Write(cfg.Notify, one[:]) }
	}
	if err := confineHelperThread(cfg.Ruleset, cfg.Flags, true, cfg.MemLimit, refused); err != nil {
		return fail(err)
	}
	if _, err := unix.Write(sock, []byte("ready "+strconv.Itoa(init))); err != nil {
		return 125
	}
	keeperServe(sock, refused)
	return 0
}

// keeperServe answers the runner on the socket, from the keeper's
// confined thread, until the runner closes it (it retired the keeper, or
// its process ended): then the keeper ends. "run" starts a shell; "end"
// reports what the filter refused since the last "end" and the processes
// in the namespace but init.
func keeperServe(sock int, refused *refusedCalls) {
	buf := make([]byte, maxKeeperMsg)
	oob := make([]byte, unix.CmsgSpace(4*64))
	for {
		n, oobn, flags, _, err := unix.Recvmsg(sock, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			os.Exit(0)
		}
		var files []*os.File
		if cmsgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for _, c := range cmsgs {
				if fds, err := unix.ParseUnixRights(&c); err == nil {
					for _, fd := range fds {
						files = append(files, os.NewFile(uintptr(fd), "run"))
					}
				}
			}
		}
		kind, body, _ := bytes.Cut(buf[:n], []byte("\n"))
		answer := "error bad request"
		switch {
		case flags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) != 0:
			answer = "error the request was too long"
		case string(kind) == "run":
			run, err := parseKeeperRun(body)
			if err != nil {
				answer = "error " + err.Error()
				break
			}
			answer = keeperStart(run, files)
		case string(kind) == "end":
			var b strings.Builder
			fmt.Fprintf(&b, "report %d\n", nsOthers())
			writeRefusals(&b, refused)
			answer = b.String()
		}
		for _, f := range files {
			f.Close()
		}
		if err := unix.Sendmsg(sock, []byte(answer), nil, nil, unix.MSG_NOSIGNAL); err != nil {
			os.Exit(0)
		}
	}
}

// nsOthers counts the processes of the keeper's PID namespace but its
// init, as the namespace's procfs (mounted on /proc) lists them; -1 when
// it cannot be read.
func nsOthers() int {
	d, err := os.Open("/proc")
	if err != nil {
		return -1
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return -1
	}
	n := 0
	for _, name := range names {
		if name != "1" && name[0] >= '0' && name[0] <= '9' {
			n++
		}
	}
	return n
}

// keeperStart starts a run's shell from the keeper's confined thread, in
// its PID namespace, as a child of the runner (CLONE_PARENT) leading a
// process group of its own, and answers "started PID" (the pid as the
// runner sees it) or "error WHY" (the shell did not start: nothing of
// the command ran).
func keeperStart(run keeperRun, files []*os.File) string {
	if len(run.Args) == 0 || len(run.Files) < 3 {
		return "error bad request"
	}
	file := func(i int) (*os.File, bool) {
		if i < 0 {
			return nil, true
		}
		if i >= len(files) {
			return nil, false
		}
		return files[i], true
	}
	// The directory is this thread's own (its file system context), so
	// that the child does not change it: a failure after the fork would
	// leave it to the runner to reap.
	if err := unix.Chdir(run.Dir); err != nil {
		return "error chdir " + run.Dir + ": " + err.Error()
	}
	cmd := &exec.Cmd{Path: run.Path, Args: run.Args, Env: run.Env}
	var ok [3]bool
	var std [3]*os.File
	for i := range std {
		std[i], ok[i] = file(run.Files[i])
	}
	if !ok[0] || !ok[1] || !ok[2] {
		return "error bad request"
	}
	// (nil: /dev/null, which the ruleset grants.)
	if std[0] != nil {
		cmd.Stdin = std[0]
	}
	if std[1] != nil {
		cmd.Stdout = std[1]
	}
	if std[2] != nil {
		cmd.Stderr = std[2]
	}
	for _, i := range run.Files[3:] {
		f, ok := file(i)
		if !ok {
			return "error bad request"
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_PARENT}
	if err := cmd.Start(); err != nil {
		return "error start the shell: " + strings.ReplaceAll(err.Error(), "\n", " ")
	}
	pid := cmd.Process.Pid
	cmd.Process.Release() // the runner's child: the runner waits for it
	return "started " + strconv.Itoa(pid)
}

// userSlot is a kept helper, as the runner holds it.
type userSlot struct {
	key  string
	cmd  *exec.Cmd // the keeper
	sock int       // the runner's end of the socket
	init int       // the namespace's init (its pid here)
	// initFD is a pidfd of init; pidns names its PID namespace (as
	// /proc/PID/ns/pid reads).
	initFD int
	pidns  string
	// children is init's children file; siblings is the children file
	// of forker, the thread that started the keeper: the keeper's
	// shells, started with CLONE_PARENT, are its children, and so is
	// what they start with CLONE_PARENT.
	children, siblings childrenFile
	forker             int
	// notify is an eventfd the keeper counts its filter's refusals on
	// (-1: none): a run with none need not ask for the keeper's report.
	notify int
	// pins hold every protected path and socket the keeper bound.
	pins []int
	// keep: the keeper may serve another run (false: a path changed
	// while it was made, or it failed).
	keep bool
	// tmps is the runs' TMPDIR, kept as a slot's; nil: none.
	tmps *slotTmpDir
}

// userSlots keeps the idle keepers, least recently used first.
var userSlots = idlePool[*userSlot]{key: func(s *userSlot) string { return s.key }}

// userSlotsOn says whether runs without root start from kept helpers:
// the helper gives them a PID namespace (which tells a run that left
// nothing behind), and no pids cgroup is to be joined (a keeper's shells
// are not born in a cgroup of their run's).
func userSlotsOn() bool {
	return linuxSandbox.helper && !linuxSandbox.mountns && helperPidns.ok && pidsCgroupBase() == ""
}

// userSlotFits says whether the run's command can start from a keeper:
// its descriptors are files (they are passed over the socket) and it asks
// for nothing but a process group of its own.
func (r *confinedRun) userSlotFits() bool {
	cmd := r.cmd
	if !userSlotsOn() || r.ts.cg != nil || cmd.SysProcAttr == nil {
		return false
	}
	sp := cmd.SysProcAttr
	if !sp.Setpgid || sp.Pgid != 0 || sp.Cloneflags != 0 || sp.Unshareflags != 0 || sp.Credential != nil || sp.Setsid ||
		sp.Setctty || sp.Noctty || sp.Foreground || sp.Ptrace || sp.Chroot != "" || sp.Pdeathsig != 0 ||
		len(sp.AmbientCaps) > 0 || sp.UidMappings != nil || sp.GidMappings != nil || sp.UseCgroupFD || sp.PidFD != nil {
		return false
	}
	for _, x := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if _, ok := x.(*os.File); x != nil && !ok {
			return false
		}
	}
	return cmd.Process == nil && len(cmd.Args) > 0
}

// helperStart returns the function that starts the command through a
// helper: a kept one of the run's confinement (an idle one, or one made
// for it), or, where none can be used, one of the run's own (oneShot).
// The run's end keeps the keeper when the run left its namespace empty
// and retires it otherwise.
func (r *confinedRun) helperStart() (func() error, error) {
	if !r.userSlotFits() {
		return r.oneShot()
	}
	prefix, mkey, id, err := r.userSlotKey()
	if err != nil {
		return r.oneShot()
	}
	s := userSlots.take(prefix + id)
	if s == nil {
		if s, err = newUserSlot(prefix, mkey, r); err != nil {
			return r.oneShot()
		}
	}
	if s.tmps != nil {
		tmp, err := s.tmps.nextTmp()
		if err != nil {
			s.retire()
			return r.oneShot()
		}
		r.sets.read = append(r.sets.read, tmp)
		r.sets.write = append(r.sets.write, tmp)
		r.cmd.Env = setEnv(r.cmd.Env, "TMPDIR", tmp)
	}
	started := false
	cmd, refused := r.cmd, r.refused
	r.endPidns = func() int {
		if !started {
			return s.retire()
		}
		if s.keep && cmd.ProcessState != nil && s.quiet() && (s.tmps == nil || s.tmps.emptyTmp()) {
			if old, ok := userSlots.put(s); ok {
				old.retire()
			}
			return 0
		}
		left, err := s.end(refused)
		if err == nil && left == 0 && s.keep && cmd.ProcessState != nil && s.initEmpty() && (s.tmps == nil || s.tmps.emptyTmp()) {
			if old, ok := userSlots.put(s); ok {
				old.retire()
			}
			return 0
		}
		return max(s.retire(), left)
	}
	return func() error {
		ran, err := s.start(cmd)
		if err == nil {
			started = true
			return nil
		}
		s.retire()
		if ran {
			return fmt.Errorf("sandbox: the kept helper failed while the command started, which was stopped: %w", err)
		}
		// Nothing of the command ran: it starts through a helper of its
		// own (with a TMPDIR of its own: the keeper's is gone with it).
		r.endPidns = nil
		start, err := r.oneShot()
		if err != nil {
			return err
		}
		return start()
	}, nil
}

// userSlotKey returns the key of the run's confinement as a keeper holds
// it: prefix (the Landlock config, the network, the limits, the
// protected paths and sockets (mkey, as mountnsFor keys them) and /etc's
// listing) and id, the identity of the rules (ruleIdentity).
func (r *confinedRun) userSlotKey() (prefix, mkey, id string, err error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%v\x00%s\x00%d\x00%d\x00%d\x00%d\x00", cfgString(r.cfg), r.c.Network, r.bash,
		r.lim.Processes, r.lim.MemoryMB, r.lim.FileSizeMB, r.ts.memLimit)
	var m strings.Builder
	states := r.protectStates
	if len(states) != len(r.ts.protect) {
		states = nil
	}
	for i, p := range r.ts.protect {
		if states != nil {
			if st := states[i]; st.exists {
				fmt.Fprintf(&m, "%s\x00%t\x00%d\x00%d\x00", p.path, p.pin, st.dev, st.ino)
			}
			continue
		}
		var st unix.Stat_t
		if unix.Lstat(p.path, &st) == nil {
			fmt.Fprintf(&m, "%s\x00%t\x00%d\x00%d\x00", p.path, p.pin, st.Dev, st.Ino)
		}
	}
	for _, p := range r.ts.sockets {
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil {
			fmt.Fprintf(&m, "s%s\x00%d\x00%d\x00", p, st.Dev, st.Ino)
		}
	}
	mkey = m.String()
	b.WriteString(mkey)
	b.WriteByte(0)
	b.WriteString(r.etcIdentity())
	if r.tmpParent != "" {
		b.WriteString("tmp\x00")
	}
	id, err = ruleIdentity(r.flat, r.sup.ABI, r.ids)
	return b.String(), mkey, id, err
}

// newUserSlot starts a keeper for the run's confinement and waits until
// it is ready; it is kept under prefix and the identity of what its rules
// hold (a path may have changed since userSlotKey looked).
func newUserSlot(prefix, mkey string, r *confinedRun) (*userSlot, error) {
	fd, flags, built, err := buildRuleset(r.cfg, r.flat, r.sup.ABI)
	if err != nil {
		return nil, fmt.Errorf("landlock ruleset: %w", err)
	}
	rs := os.NewFile(uintptr(fd), "ruleset")
	defer rs.Close()
	s := &userSlot{key: prefix + built, sock: -1, initFD: -1, notify: -1, keep: true}
	ok := false
	defer func() {
		if !ok {
			s.retire()
		}
	}()
	if r.tmpParent != "" {
		if s.tmps, err = newSlotTmpDir(r.tmpParent, fd, r.sup.ABI); err != nil {
			return nil, fmt.Errorf("sandbox temp dir: %w", err)
		}
	}
	pins, same := pinPaths(r.ts.protect, r.ts.sockets, mkey)
	s.pins, s.keep = pins, same
	sp, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	s.sock = sp[0]
	theirs := os.NewFile(uintptr(sp[1]), "keeper socket")
	defer theirs.Close()
	for _, d := range sp {
		_ = unix.SetsockoptInt(d, unix.SOL_SOCKET, unix.SO_SNDBUF, maxKeeperMsg+64<<10)
		_ = unix.SetsockoptInt(d, unix.SOL_SOCKET, unix.SO_RCVBUF, maxKeeperMsg+64<<10)
	}
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer cfgR.Close()
	if s.notify, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return nil, err
	}
	nfd, err := unix.FcntlInt(uintptr(s.notify), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	notify := os.NewFile(uintptr(nfd), "keeper refusals")
	defer notify.Close()
	cfg := keeperConfig{Sockets: r.ts.sockets, Bash: r.bash, Ruleset: 4, Flags: flags, Sock: 5, MemLimit: r.ts.memLimit, Notify: 6}
	for _, p := range r.ts.protect {
		cfg.Protect = append(cfg.Protect, helperPath{p.path, p.pin})
	}
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{keeperArg0, "3"}, Env: []string{},
		ExtraFiles: []*os.File{cfgR, rs, theirs, notify}}
	sys := &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings:                []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings:                []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}},
		AmbientCaps:                []uintptr{unix.CAP_SYS_ADMIN},
		GidMappingsEnableSetgroups: false}
	if !r.c.Network {
		sys.Cloneflags |= syscall.CLONE_NEWNET
	}
	cmd.SysProcAttr = sys
	// Started stopped at its exec, its limits set (its shells inherit
	// them), as the helper is.
	ch := make(chan error, 1)
	ap := newApplier(r.lim)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		s.forker = unix.Gettid()
		ch <- startStopped(cmd, ap)
	}()
	err = ap.serve(ch)
	s.cmd = cmd // (killed, when it started, by a failed start)
	if err != nil {
		cfgW.Close()
		return nil, err
	}
	go func() {
		json.NewEncoder(cfgW).Encode(cfg)
		cfgW.Close()
	}()
	theirs.Close()
	cfgR.Close()
	rs.Close()
	notify.Close()
	answer, err := s.recv()
	if err != nil {
		return nil, fmt.Errorf("the kept helper: %w", err)
	}
	kind, rest, _ := strings.Cut(answer, " ")
	if kind != "ready" {
		return nil, fmt.Errorf("the kept helper: %s", rest)
	}
	if s.init, err = strconv.Atoi(rest); err != nil || s.init <= 0 {
		return nil, fmt.Errorf("the kept helper: bad answer %q", answer)
	}
	if s.initFD, err = unix.PidfdOpen(s.init, 0); err != nil {
		return nil, fmt.Errorf("the kept helper's init: %w", err)
	}
	if s.pidns, err = os.Readlink("/proc/" + rest + "/ns/pid"); err != nil {
		return nil, fmt.Errorf("the kept helper's init: %w", err)
	}
	ok = true
	return s, nil
}

// recv reads the keeper's next answer.
func (s *userSlot) recv() (string, error) {
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Read(s.sock, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return "", err
		}
		if n == 0 {
			return "", io.EOF
		}
		return string(buf[:n]), nil
	}
}

// start starts cmd's shell from the keeper and makes cmd its handle (the
// shell is this process's child). ran says whether something of the
// command may have run although start failed (it was then killed).
func (s *userSlot) start(cmd *exec.Cmd) (ran bool, err error) {
	run := keeperRun{Path: cmd.Path, Args: cmd.Args, Env: cmd.Environ(), Dir: cmd.Dir}
	if run.Dir == "" {
		if run.Dir, err = os.Getwd(); err != nil {
			return false, err
		}
	}
	var fds []int
	add := func(f *os.File) {
		if f == nil {
			run.Files = append(run.Files, -1)
			return
		}
		run.Files = append(run.Files, len(fds))
		fds = append(fds, int(f.Fd()))
	}
	for _, x := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		f, _ := x.(*os.File)
		add(f)
	}
	for _, f := range cmd.ExtraFiles {
		add(f)
	}
	msg := run.appendTo([]byte("run\n"))
	if len(msg) > maxKeeperMsg {
		return false, errors.New("the request is too long")
	}
	var oob []byte
	if len(fds) > 0 {
		oob = unix.UnixRights(fds...)
	}
	err = unix.Sendmsg(s.sock, msg, oob, nil, unix.MSG_NOSIGNAL)
	runtime.KeepAlive(cmd)
	if err != nil {
		return false, err
	}
	answer, err := s.recv()
	if err != nil {
		// The shell may have started: whatever of it is in the
		// namespace is killed.
		return s.reapNs() > 0, err
	}
	kind, rest, _ := strings.Cut(answer, " ")
	if kind != "started" {
		// It did not start (a child that failed before its exec is
		// this process's to reap).
		s.reapNs()
		return false, errors.New(rest)
	}
	pid, err := strconv.Atoi(rest)
	if err != nil || pid <= 0 {
		return s.reapNs() > 0, fmt.Errorf("bad answer %q", answer)
	}
	// This process's child, which only it reaps: the pid names it until
	// it is waited for.
	p, err := os.FindProcess(pid)
	if err != nil {
		return s.reapNs() > 0, err
	}
	cmd.Process = p
	return false, nil
}

// end asks the keeper, once the run's shell was waited for, what the
// filter refused (into refused) and how many processes are left in the
// namespace but init.
func (s *userSlot) end(refused *refusedCalls) (int, error) {
	if err := unix.Sendmsg(s.sock, []byte("end\n"), nil, nil, unix.MSG_NOSIGNAL); err != nil {
		return 0, err
	}
	answer, err := s.recv()
	if err != nil {
		return 0, err
	}
	left := -1
	sc := bufio.NewScanner(strings.NewReader(answer))
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		if kind == "report" {
			left, _ = strconv.Atoi(rest)
			continue
		}
		addRefusal(kind, rest, refused)
	}
	if left < 0 {
		return 0, fmt.Errorf("bad answer %q", answer)
	}
	return left, nil
}

// quiet reports, without asking the keeper, that the run (its shell
// waited for) left its namespace with nothing but init and that the
// keeper's filter refused nothing: init has no child, alive or a zombie
// (what the run left is adopted by init), the forker thread no child in
// the namespace (what the shells started with CLONE_PARENT), and the
// keeper's refusal count is zero (the keeper adds to it before a refused
// call returns). Anything else, or anything it cannot read, is asked for
// (end).
func (s *userSlot) quiet() bool {
	if s.notify < 0 || !s.initEmpty() {
		return false
	}
	pids, ok := s.siblings.pids(os.Getpid(), s.forker)
	if !ok {
		return false
	}
	for _, p := range pids {
		if p != s.cmd.Process.Pid && inPidns(p, s.pidns) {
			return false
		}
	}
	var n [8]byte
	_, err := unix.Read(s.notify, n[:])
	if err != unix.EAGAIN {
		// (Read: the count is taken, and end fetches what it counted.)
		return false
	}
	return true
}

// initEmpty reports whether init has no child, alive or a zombie (the
// keeper's count of its namespace covers these too; this one is read
// here, from init's children file, kept open).
func (s *userSlot) initEmpty() bool {
	return s.children.none(s.init, s.init)
}

// reapNs kills and reaps this process's children in the keeper's PID
// namespace but its init (a shell started with CLONE_PARENT that the
// runner did not take as its command's, a child that failed before its
// exec, or one the command started with CLONE_PARENT) and returns how
// many there were. A PID namespace's init cannot end while a
// process of it is left unreaped.
func (s *userSlot) reapNs() int {
	if s.pidns == "" {
		return 0
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return 0
	}
	n := 0
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, c := range strings.Fields(string(b)) {
			pid, err := strconv.Atoi(c)
			if err != nil || pid == s.init {
				continue // (init, adopted once the keeper is gone: retire's)
			}
			if !inPidns(pid, s.pidns) {
				continue
			}
			_ = unix.Kill(pid, unix.SIGKILL)
			var ws unix.WaitStatus
			for {
				if _, err := unix.Wait4(pid, &ws, unix.WALL, nil); err != unix.EINTR {
					break
				}
			}
			n++
		}
	}
	return n
}

// retire ends the keeper: init's end kills what is left in its namespace,
// then the keeper is killed and reaped. It returns how many live
// processes were left.
func (s *userSlot) retire() int {
	n := 0
	if s.initFD >= 0 {
		n = nsProcesses(s.init)
	}
	if s.initFD >= 0 {
		_ = unix.PidfdSendSignal(s.initFD, unix.SIGKILL, nil, 0)
		// init ends once every process of its namespace is reaped:
		// those whose parent is this process too.
		pfd := []unix.PollFd{{Fd: int32(s.initFD), Events: unix.POLLIN}}
		for i := 0; i < 500; i++ {
			s.reapNs()
			if k, err := unix.Poll(pfd, 10); k > 0 || (err != nil && err != unix.EINTR) {
				break
			}
		}
	}
	if s.sock >= 0 {
		unix.Close(s.sock)
		s.sock = -1
	}
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
	if s.initFD >= 0 {
		// Adopted by this process (a subreaper) once the keeper was
		// gone, init is reaped here.
		var ws unix.WaitStatus
		_, _ = unix.Wait4(s.init, &ws, unix.WNOHANG|unix.WALL, nil)
		unix.Close(s.initFD)
		s.initFD = -1
	}
	s.children.close()
	s.siblings.close()
	if s.notify >= 0 {
		unix.Close(s.notify)
		s.notify = -1
	}
	closeAll(s.pins)
	s.pins = nil
	s.tmps.remove()
	s.tmps = nil
	return n
}
