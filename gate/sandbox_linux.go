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
// confined. Nothing has to be found on disk, so a program that uses the
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
	var fd int
	var flags uint32
	cached := false
	key := ""
	if c.Mode == SandboxReadOnly {
		key = fmt.Sprintf("%v\x00%q", c.Network, sets.read)
		fd, flags, cached = rulesets.get(key)
	}
	if !cached {
		fd, flags, err = cfg.NewRulesetFD(rules...)
		if err != nil {
			cleanup()
			return nil, nil, nil, nil, fmt.Errorf("landlock ruleset: %w", err)
		}
		if fd < 0 {
			cleanup()
			return nil, nil, nil, nil, errors.New("landlock: nothing to restrict")
		}
		if key != "" {
			cached = rulesets.put(key, fd, flags)
		}
	}
	start = func() error {
		if !cached {
			defer unix.Close(fd)
		}
		ch := make(chan error, 1)
		go func() {
			// Never unlocked: this thread is confined, and it ends with
			// this goroutine.
			runtime.LockOSThread()
			if joinNetns >= 0 {
				if err := unix.Setns(joinNetns, unix.CLONE_NEWNET); err != nil {
					ch <- fmt.Errorf("sandbox: join the network namespace: %w", err)
					return
				}
			}
			if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
				ch <- fmt.Errorf("sandbox: no_new_privs: %w", err)
				return
			}
			if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
				ch <- fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
				return
			}
			ch <- cmd.Start()
		}()
		return <-ch
	}
	return start, info, sets, cleanup, nil
}

// rulesets caches the read-only rulesets by what they grant: a ruleset
// descriptor can restrict any number of threads, and building one (a
// descriptor per directory) is most of what confinement costs. The cache
// only grows, up to maxRulesets; descriptors in it are never closed.
var rulesets = rulesetCache{m: map[string]cachedRuleset{}}

const maxRulesets = 64

type cachedRuleset struct {
	fd    int
	flags uint32
}

type rulesetCache struct {
	mu sync.Mutex
	m  map[string]cachedRuleset
}

func (c *rulesetCache) get(key string) (int, uint32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[key]
	return r.fd, r.flags, ok
}

// put keeps fd under key and reports whether it did (the cache owns it).
func (c *rulesetCache) put(key string, fd int, flags uint32) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok || len(c.m) >= maxRulesets {
		return false
	}
	c.m[key] = cachedRuleset{fd, flags}
	return true
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
