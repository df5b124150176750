package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shellgate/shellgate/hook"
)

func init() {
	register("serve", "run the resident engine that shellgate-hook asks (a user-only unix socket)", runServe)
}

// takeoverProbe is how long a new engine waits for the answer of one that
// holds the socket before it takes the socket over. The new engine starts
// in the background, so this is not on any hook call's path.
const takeoverProbe = 500 * time.Millisecond

func runServe(e *env) int {
	fs := newFlags(e, "serve", "[--socket PATH] [--idle DURATION] [--poll DURATION] [--log FILE] [--opa-config FILE]")
	opaConfig := fs.String("opa-config", os.Getenv(OPAConfigEnv), "OPA configuration `FILE` (default: $SHELLGATE_OPA_CONFIG): decide every hook call with the policy bundle it names (a hook's --config and --policy are then refused) and log decisions as it says")
	socket := fs.String("socket", hook.DefaultSocketPath(), "unix socket `PATH` (its directory is made user-only)")
	idle := fs.Duration("idle", 30*time.Minute, "exit after this long without a request (0: never)")
	poll := fs.Duration("poll", time.Second, "how often this binary is checked for a replacement (config, policy and trust are checked on every decision)")
	logFile := fs.String("log", "", "append the engine's log to `FILE` (default: stderr)")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	if len(ops) > 0 {
		fs.Usage()
		return exitUsage
	}
	if *poll <= 0 {
		fmt.Fprintln(e.stderr, "shellgate serve: --poll must be positive")
		return exitUsage
	}
	var logw io.Writer = e.stderr
	if *logFile != "" {
		// The log usually sits next to the socket, in a directory that
		// may not exist yet: make it user-only, as Listen would.
		if err := os.MkdirAll(filepath.Dir(*logFile), 0o700); err != nil {
			fmt.Fprintln(e.stderr, "shellgate serve:", err)
			return exitUsage
		}
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			fmt.Fprintln(e.stderr, "shellgate serve:", err)
			return exitUsage
		}
		defer f.Close()
		logw = f
	}
	residentGC()
	logger := log.New(logw, fmt.Sprintf("shellgate serve[%d]: ", os.Getpid()), log.LstdFlags)

	// Another engine may hold the socket: one that answers a ping keeps
	// it; one that does not (stopped, hung) is taken over; one of another
	// version steps down, so wait a little for its lock.
	var ln *hook.Listener
	var err error
	for start := time.Now(); ; {
		ln, err = hook.TakeOver(*socket, hook.BuildVersion(), takeoverProbe)
		if !errors.Is(err, hook.ErrSteppingDown) || time.Since(start) > 2*time.Second {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if errors.Is(err, hook.ErrRunning) || errors.Is(err, hook.ErrSteppingDown) {
		logger.Printf("another engine serves %s: exiting", *socket)
		return exitOK
	}
	if err != nil {
		logger.Printf("listen: %v", err)
		fmt.Fprintln(e.stderr, "shellgate serve:", err)
		return exitInternal
	}
	if ln.TookOver != "" {
		logger.Printf("%s", ln.TookOver)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	eng := newEngine()
	if *opaConfig != "" {
		f, err := startFleet(*opaConfig, "", nil, false)
		if err != nil {
			logger.Printf("%v", err)
			fmt.Fprintln(e.stderr, "shellgate serve:", err)
			return exitUsage
		}
		defer f.stop()
		eng.fleet = f
		logger.Printf("policy bundle in force: %s", f.revision())
	}
	// Exit when this binary is replaced: the next hook call starts the new
	// one.
	self := hook.Executable()
	selfStamp := hook.Fingerprint(self)
	go func() {
		t := time.NewTicker(*poll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if self != "" && hook.Fingerprint(self) != selfStamp {
					logger.Printf("%s changed: exiting", self)
					stop()
					return
				}
			}
		}
	}()
	srv := &hook.Server{
		Version: hook.BuildVersion(),
		Handle:  eng.handle,
		Idle:    *idle,
		Logf:    logger.Printf,
	}
	logger.Printf("serving %s (version %s)", *socket, srv.Version)
	if err := srv.Serve(ctx, ln); err != nil {
		logger.Printf("serve: %v", err)
		return exitInternal
	}
	logger.Printf("stopped")
	return exitOK
}

// engine answers hook calls with warm gates: one gateCache per set of
// policy and config flags.
type engine struct {
	mu     sync.Mutex
	caches map[string]*gateCache
	// fleet, with --opa-config, decides every call.
	fleet *fleetState
}

// newEngine returns an engine with no gates yet.
func newEngine() *engine { return &engine{caches: map[string]*gateCache{}} }

func (en *engine) handle(ctx context.Context, req hook.Request) hook.Answer {
	if en.fleet != nil {
		return hook.Handle(ctx, req.Agent, []byte(req.Payload), req.Flags, fleetHook{en.fleet, req.Flags}, explainExit)
	}
	key := strings.Join(req.Flags.Policy, "\x00") + "\x01" + req.Flags.Config
	en.mu.Lock()
	c, ok := en.caches[key]
	if !ok {
		c = newGateCache(req.Flags)
		en.caches[key] = c
	}
	en.mu.Unlock()
	return hook.Handle(ctx, req.Agent, []byte(req.Payload), req.Flags, c, explainExit)
}
