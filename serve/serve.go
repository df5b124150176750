package serve

import (
	"context"
	"errors"
	"time"

	"github.com/shellgate/shellgate/hook"
)

// takeoverProbe is how long a new engine waits for the answer of one that
// holds the socket before it takes the socket over. The new engine starts
// in the background, so this is not on any hook call's path.
const takeoverProbe = 500 * time.Millisecond

// stepDownWait is how long Listen waits for an engine of another version
// to step down and free the socket.
const stepDownWait = 2 * time.Second

// Listen takes the socket at path for an engine of this build: an engine
// that answers a ping keeps it (hook.ErrRunning); one that does not
// (stopped, hung) is taken over (Listener.TookOver says so); one of
// another version steps down, so Listen waits a little for its lock
// (hook.ErrSteppingDown when it does not let go in time).
func Listen(path string) (*hook.Listener, error) {
	for start := time.Now(); ; {
		ln, err := hook.TakeOver(path, hook.BuildVersion(), takeoverProbe)
		if !errors.Is(err, hook.ErrSteppingDown) || time.Since(start) > stepDownWait {
			return ln, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Options configure Serve.
type Options struct {
	// Handle answers each call (an Engine's Handle).
	Handle func(context.Context, hook.Request) hook.Answer
	// Idle ends Serve after this long without a request (0: never).
	Idle time.Duration
	// Poll is how often the running binary is checked for a replacement
	// (0: every second). Config, policy and trust are checked on every
	// decision (see Gates).
	Poll time.Duration
	// Logf logs what the engine does (nil: nothing).
	Logf func(format string, args ...any)
}

// Serve answers hook calls on ln until ctx ends, the engine is idle for
// o.Idle, the socket is lost, or the running binary is replaced (the next
// hook call then starts the new one). It closes ln.
func Serve(ctx context.Context, ln *hook.Listener, o Options) error {
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	poll := o.Poll
	if poll <= 0 {
		poll = time.Second
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	self := hook.Executable()
	selfStamp := hook.Fingerprint(self)
	go func() {
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if self != "" && hook.Fingerprint(self) != selfStamp {
					logf("%s changed: exiting", self)
					stop()
					return
				}
			}
		}
	}()
	srv := &hook.Server{Version: hook.BuildVersion(), Handle: o.Handle, Idle: o.Idle, Logf: o.Logf}
	logf("serving %s (version %s)", ln.Path(), srv.Version)
	return srv.Serve(ctx, ln)
}
