package hook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Listener is the engine's socket: user-only and single-engine. An engine
// owns the socket while the lock file next to it (path + ".lock") is the
// file it locked and the socket at path is the one it bound; a new engine
// that takes over from a hung one (TakeOver) replaces both, and the old
// one, if it wakes, finds out with Lost and leaves without touching them.
type Listener struct {
	net.Listener
	path     string
	sock     os.FileInfo
	lockPath string
	lock     *os.File
	lockInfo os.FileInfo
	once     sync.Once
	// TookOver says, when this engine took the socket over from one that
	// held it without answering, what it found; "" otherwise.
	TookOver string
}

// Path is the socket's path.
func (l *Listener) Path() string { return l.path }

// Lost returns nil while this listener still owns its socket, and otherwise
// says what replaced it: the socket file or the lock file at their paths is
// no longer the one this engine made (another engine took over, or someone
// removed them).
func (l *Listener) Lost() error {
	fi, err := os.Lstat(l.path)
	if err != nil {
		return fmt.Errorf("the socket %s is gone: %v", l.path, err)
	}
	if !os.SameFile(fi, l.sock) {
		return fmt.Errorf("the socket %s was replaced by another engine's", l.path)
	}
	li, err := os.Lstat(l.lockPath)
	if err != nil {
		return fmt.Errorf("the lock %s is gone: %v", l.lockPath, err)
	}
	if !os.SameFile(li, l.lockInfo) {
		return fmt.Errorf("the lock %s was replaced by another engine's", l.lockPath)
	}
	return nil
}

// Close stops listening and releases the lock. It removes the socket file
// only while it is still this engine's: an engine that lost its socket to
// another leaves the other's socket alone.
func (l *Listener) Close() error {
	err := l.Listener.Close()
	l.once.Do(func() {
		if l.Lost() == nil {
			os.Remove(l.path)
		}
		unlockFile(l.lock)
	})
	return err
}

// ErrRunning is returned by Listen when another engine holds the socket, and
// by TakeOver when that engine answers (or another engine is taking over
// right now).
var ErrRunning = errors.New("another engine is running on this socket")

// ErrSteppingDown is returned by TakeOver when the engine that holds the
// socket is of another version: it answered, and is on its way out, so the
// lock is free soon (try Listen again in a moment).
var ErrSteppingDown = errors.New("the engine on this socket is of another version and is stepping down")

// Listen opens the engine socket at path: its directory is created with mode
// 0700 (and refused if it exists with a looser mode or another owner), the
// socket gets mode 0600, and a lock file makes sure only one engine serves
// a path.
func Listen(path string) (*Listener, error) {
	if err := prepareDir(path); err != nil {
		return nil, err
	}
	lock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, err
	}
	return bind(path, lock)
}

func prepareDir(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return checkDir(dir)
}

// bind makes the socket at path, holding lock (the locked lock file).
func bind(path string, lock *os.File) (*Listener, error) {
	fail := func(err error) (*Listener, error) {
		unlockFile(lock)
		return nil, err
	}
	lockInfo, err := lock.Stat()
	if err != nil {
		return fail(err)
	}
	// We hold the lock: a socket file left there is stale (or a hung
	// engine's, when we took over).
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail(err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fail(err)
	}
	// Close removes the socket itself, and only while it is ours.
	if ul, ok := ln.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		os.Remove(path)
		return fail(err)
	}
	sock, err := os.Lstat(path)
	if err != nil {
		ln.Close()
		return fail(err)
	}
	return &Listener{Listener: ln, path: path, sock: sock, lockPath: path + ".lock", lock: lock, lockInfo: lockInfo}, nil
}

// TakeOver opens the engine socket at path like Listen, and when another
// engine holds it, checks that this engine answers: a ping of version must
// be answered within probe. One that answers keeps the socket (ErrRunning,
// or ErrSteppingDown when it is of another version). One that does not (a
// stopped or hung process) is replaced: a new lock file is renamed over the
// old one and a new socket is made at path, so that clients reach this
// engine, and the old engine, if it wakes, finds the socket Lost. Only one
// engine takes over at a time (a second lock file, path + ".takeover").
func TakeOver(path, version string, probe time.Duration) (*Listener, error) {
	ln, err := Listen(path)
	if !errors.Is(err, ErrRunning) {
		return ln, err
	}
	tk, err := lockFile(path + ".takeover")
	if err != nil {
		return nil, err // ErrRunning: another engine is taking over
	}
	defer unlockFile(tk)
	alive := pingEngine(path, version, probe)
	if alive == nil {
		return nil, ErrRunning
	}
	if errors.Is(alive, ErrVersion) {
		return nil, fmt.Errorf("%w: %v", ErrSteppingDown, alive)
	}
	// The holder may have left while we asked.
	if ln, err := Listen(path); !errors.Is(err, ErrRunning) {
		return ln, err
	}
	lock, err := replaceLock(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("taking over from the engine that does not answer: %v", err)
	}
	ln, err = bind(path, lock)
	if err != nil {
		return nil, err
	}
	ln.TookOver = fmt.Sprintf("took the socket over from an engine that holds it but did not answer a ping within %s (%v)", probe, alive)
	return ln, nil
}

// pingEngine asks the engine at path for a ping until it answers or probe
// has passed; it returns nil when a same-version engine answered, an
// ErrVersion error when one of another version did, and otherwise why no
// answer came. A socket that is not there yet, or refuses, is asked again:
// an engine that just took the lock may not have bound it yet.
func pingEngine(path, version string, probe time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), probe)
	defer cancel()
	for {
		resp, err := AskEngine(ctx, path, Request{Version: version, Op: OpPing}, probe)
		if err == nil || errors.Is(err, ErrVersion) {
			return err
		}
		if resp.Proto != 0 || resp.Version != "" {
			return nil // it answered, if only with an error: it is alive
		}
		if ctx.Err() != nil {
			return fmt.Errorf("no answer within %s: %v", probe, err)
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ECONNREFUSED) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no answer within %s: %v", probe, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Ping asks the engine at path whether it is alive and of version, waiting
// at most timeout for the connection and the answer. It returns the
// engine's response (its Pid says which process answered).
func Ping(path, version string, timeout time.Duration) (Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return AskEngine(ctx, path, Request{Version: version, Op: OpPing}, timeout)
}
