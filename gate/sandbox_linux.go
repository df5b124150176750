//go:build linux

package gate

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
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

// usernsWorks starts bash once in a new user and network namespace.
func usernsWorks(bash string) bool {
	cmd := exec.Command(bash, "-c", ":")
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET}
	cmd.Env = []string{}
	return cmd.Run() == nil
}

// prepareConfined returns the function that starts cmd under c, the
// account of the confinement, the paths the command may read and write
// (for telling sandbox denials in the output) and a cleanup for after the
// run. It fails when the confinement cannot be built: the command must
// then not run.
func prepareConfined(cmd *exec.Cmd, c *Confinement, bash string) (start func() error, info *SandboxInfo, sets *confinedSets, cleanup func(), err error) {
	sup := sandboxSupport(bash)
	if sup.Err != nil {
		return nil, nil, nil, nil, sup.Err
	}
	cleanup = func() {}
	sets = &confinedSets{mode: c.Mode, read: readDirs(c, cmd.Env)}
	rules := []landlock.Rule{
		landlock.RODirs(sets.read...),
		landlock.RWFiles("/dev/null"),
	}
	if dirs, files := extraReads(c); len(dirs)+len(files) > 0 {
		rules = append(rules, landlock.RODirs(dirs...), landlock.ROFiles(files...))
		sets.read = append(append(sets.read, dirs...), files...)
	}
	if c.Mode == SandboxWorkspaceWrite {
		tmp, err := os.MkdirTemp("", "shellgate-tmp-")
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("sandbox temp dir: %w", err)
		}
		cleanup = func() { os.RemoveAll(tmp) }
		sets.write = append(rootDirs(c), tmp)
		sets.read = append(sets.read, tmp)
		rules = append(rules, landlock.RWDirs(sets.write...).WithRefer())
		cmd.Env = setEnv(cmd.Env, "TMPDIR", tmp)
	}
	cfg := landlock.V11.BestEffort()
	info = &SandboxInfo{Mode: c.Mode, Enforced: true, Mechanism: "landlock", ABI: sup.ABI, Network: "allowed"}
	joinNetns := -1
	if c.Network {
		cfg.HandledAccessNet = 0
	} else {
		info.Network = "denied"
		info.NetworkGuard = sup.NetworkGuard
		switch sup.NetworkGuard {
		case "netns":
			joinNetns = linuxSandbox.netnsFD
		case "userns+netns":
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			cmd.SysProcAttr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
		case "landlock-tcp":
		default:
			info.Network = "unguarded"
		}
	}
	// A read-only ruleset is kept, with a confined thread that starts
	// every command of that ruleset: building the ruleset and a thread
	// per command is most of what confinement costs.
	key := ""
	if c.Mode == SandboxReadOnly {
		key = fmt.Sprintf("%v\x00%d\x00%q", c.Network, joinNetns, sets.read)
		if w := rulesets.get(key); w != nil {
			return func() error { return w.start(cmd) }, info, sets, cleanup, nil
		}
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		cleanup()
		return nil, nil, nil, nil, fmt.Errorf("landlock ruleset: %w", err)
	}
	if fd < 0 {
		cleanup()
		return nil, nil, nil, nil, errors.New("landlock: nothing to restrict")
	}
	if key != "" {
		if w := rulesets.put(key, fd, flags, joinNetns); w != nil {
			return func() error { return w.start(cmd) }, info, sets, cleanup, nil
		}
	}
	start = func() error {
		defer unix.Close(fd)
		ch := make(chan error, 1)
		go func() {
			// Never unlocked: this thread is confined, and it ends with
			// this goroutine.
			runtime.LockOSThread()
			if err := confineThread(fd, flags, joinNetns); err != nil {
				ch <- err
				return
			}
			ch <- cmd.Start()
		}()
		return <-ch
	}
	return start, info, sets, cleanup, nil
}

// confineThread confines the calling (locked) thread: it joins the
// network namespace netns (unless -1), sets no_new_privs and restricts
// itself with the Landlock ruleset fd.
func confineThread(fd int, flags uint32, netns int) error {
	if netns >= 0 {
		if err := unix.Setns(netns, unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("sandbox: join the network namespace: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("sandbox: no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
	}
	return nil
}

// confinedStarter is a goroutine locked to a thread confined once by a
// ruleset; it starts the commands sent to it, one at a time, so they
// inherit the thread's confinement. It lives as long as the process.
type confinedStarter struct {
	reqs chan startReq
}

type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

func newConfinedStarter(fd int, flags uint32, netns int) *confinedStarter {
	w := &confinedStarter{reqs: make(chan startReq)}
	go func() {
		// Never unlocked: the thread is confined.
		runtime.LockOSThread()
		err := confineThread(fd, flags, netns)
		unix.Close(fd)
		for r := range w.reqs {
			if err != nil {
				r.done <- err
				continue
			}
			r.done <- r.cmd.Start()
		}
	}()
	return w
}

func (w *confinedStarter) start(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	w.reqs <- startReq{cmd, done}
	return <-done
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
func (c *rulesetCache) put(key string, fd int, flags uint32, netns int) *confinedStarter {
	c.mu.Lock()
	defer c.mu.Unlock()
	if w := c.m[key]; w != nil {
		unix.Close(fd)
		return w
	}
	if len(c.m) >= maxRulesets {
		return nil
	}
	w := newConfinedStarter(fd, flags, netns)
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
