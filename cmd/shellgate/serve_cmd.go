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
	"syscall"
	"time"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/serve"
)

func init() {
	register("serve", "run the resident engine that shellgate-hook asks (a user-only unix socket)", runServe)
}

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
	logw, closeLog, err := openLog(e.stderr, *logFile)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate serve:", err)
		return exitUsage
	}
	defer closeLog()
	residentGC()
	logger := log.New(logw, fmt.Sprintf("shellgate serve[%d]: ", os.Getpid()), log.LstdFlags)

	ln, err := serve.Listen(*socket)
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
	eng := serve.NewEngine()
	if *opaConfig != "" {
		f, err := startFleet(*opaConfig)
		if err != nil {
			logger.Printf("%v", err)
			fmt.Fprintln(e.stderr, "shellgate serve:", err)
			return exitUsage
		}
		defer f.Stop()
		dec := fleetDecider(f)
		eng.Decider = func(fl hook.Flags) hook.Decider { return serve.BundleDecider{Decider: dec, Flags: fl} }
		logger.Printf("policy bundle in force: %s", f.Revision())
	}
	if err := serve.Serve(ctx, ln, serve.Options{Handle: eng.Handle, Idle: *idle, Poll: *poll, Logf: logger.Printf}); err != nil {
		logger.Printf("serve: %v", err)
		return exitInternal
	}
	logger.Printf("stopped")
	return exitOK
}

// openLog opens the engine's log: file (appended to), or stderr when
// file is "". The log usually sits next to the socket, in a directory that
// may not exist yet: it is made user-only, as the socket's is.
func openLog(stderr io.Writer, file string) (io.Writer, func(), error) {
	if file == "" {
		return stderr, func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}
