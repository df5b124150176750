package hook

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/shellgate/shellgate/trust"
)

// ProtocolVersion is the version of the client/engine protocol. A client and
// an engine talk only when both this and their build versions match.
const ProtocolVersion = 1

// Ops a Request carries.
const (
	// OpHook answers one hook call.
	OpHook = "hook"
	// OpPing checks that the engine is alive and of the same version.
	OpPing = "ping"
)

// Request is what the thin client sends to the engine: one JSON object on
// one line, then the client waits for one Response.
type Request struct {
	Proto   int    `json:"proto"`
	Version string `json:"version"`
	Op      string `json:"op"`
	Agent   Agent  `json:"agent,omitempty"`
	Flags   Flags  `json:"flags"`
	// Payload is the agent's hook payload, byte for byte.
	Payload string `json:"payload,omitempty"`
	// Ack asks the engine to write a Response with Ack set as soon as it
	// has read a hook request and starts deciding, before the answer: the
	// client then knows the engine is alive (not stopped or hung), however
	// long the decision takes (a policy rebuilt after a change).
	Ack bool `json:"ack,omitempty"`
}

// Response is the engine's answer to a Request.
type Response struct {
	Proto   int    `json:"proto"`
	Version string `json:"version"`
	Answer  Answer `json:"answer"`
	// Error is set when the engine could not answer; the client must then
	// not use Answer.
	Error string `json:"error,omitempty"`
	// Ack is set on the line an engine writes before the answer when the
	// request asked for it (see Request.Ack); the answer follows.
	Ack bool `json:"ack,omitempty"`
	// Pid is the engine's process id (for `shellgate doctor` and the
	// logs; 0 from an engine that does not say).
	Pid int `json:"pid,omitempty"`
}

// ErrVersion is returned by AskEngine when the engine runs another version; the
// engine exits after saying so, so that a new one can start.
var ErrVersion = errors.New("engine version differs")

// maxFrame bounds one request line: the payload, JSON-escaped, plus room.
const maxFrame = 6*MaxPayload + 64<<10

// DefaultSocketPath is where the engine listens unless told otherwise:
// $SHELLGATE_SOCKET, else $XDG_RUNTIME_DIR/shellgate/engine.sock, else
// <tmp>/shellgate-<uid>/engine.sock.
func DefaultSocketPath() string {
	if p := os.Getenv("SHELLGATE_SOCKET"); p != "" {
		return p
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "shellgate", "engine.sock")
	}
	return filepath.Join(os.TempDir(), "shellgate-"+strconv.Itoa(os.Getuid()), "engine.sock")
}

// checkDir makes sure dir is a real directory owned by this user that no one
// else can enter: otherwise another user could stand in for the engine.
func checkDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("socket directory %s is not a directory", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("socket directory %s has mode %04o; want 0700", dir, fi.Mode().Perm())
	}
	return trust.CheckOwner(dir, fi)
}

// DefaultAnswerTimeout bounds the wait for an engine's answer when the
// caller's context has no deadline.
const DefaultAnswerTimeout = 30 * time.Second

// AskEngine sends req to the engine at path and returns its response. The
// connection must be made within dialTimeout (an engine that is not there
// fails at once); the answer must come before ctx's deadline, or
// DefaultAnswerTimeout. The socket's directory must be user-only and, where
// the system tells, the engine must run as this user.
func AskEngine(ctx context.Context, path string, req Request, dialTimeout time.Duration) (Response, error) {
	return AskEngineAcked(ctx, path, req, dialTimeout, nil)
}

// AskEngineAcked is AskEngine that, when acked is not nil, asks the engine
// to acknowledge the request as soon as it starts deciding (Request.Ack)
// and calls acked when it does, before the answer comes.
func AskEngineAcked(ctx context.Context, path string, req Request, dialTimeout time.Duration, acked func()) (Response, error) {
	var resp Response
	if err := checkDir(filepath.Dir(path)); err != nil {
		return resp, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultAnswerTimeout)
		defer cancel()
	}
	dctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(dctx, "unix", path)
	if err != nil {
		return resp, err
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	if err := checkPeer(conn); err != nil {
		return resp, err
	}
	req.Proto = ProtocolVersion
	req.Ack = acked != nil
	b, err := json.Marshal(req)
	if err != nil {
		return resp, err
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return resp, err
	}
	rd := bufio.NewReaderSize(io.LimitReader(conn, maxFrame), 4096)
	for {
		line, err := rd.ReadBytes('\n')
		if err != nil {
			return resp, fmt.Errorf("reading the engine's answer: %w", err)
		}
		resp = Response{}
		if err := json.Unmarshal(line, &resp); err != nil {
			return resp, fmt.Errorf("engine answer: %w", err)
		}
		if !resp.Ack || acked == nil {
			break
		}
		acked()
		acked = nil // one acknowledgement; the next line is the answer
	}
	if resp.Ack {
		return resp, errors.New("the engine sent an acknowledgement where its answer belongs")
	}
	if resp.Proto != ProtocolVersion || resp.Version != req.Version {
		return resp, fmt.Errorf("%w: engine %s (protocol %d), client %s (protocol %d)",
			ErrVersion, resp.Version, resp.Proto, req.Version, ProtocolVersion)
	}
	if resp.Error != "" {
		return resp, errors.New("engine: " + resp.Error)
	}
	return resp, nil
}

// Server is the resident engine's request loop.
type Server struct {
	// Version is the build version; a request of another version is
	// refused and the server stops, so that an engine of the client's
	// version can take its place.
	Version string
	// Handle answers one hook call. It must not panic (Serve recovers and
	// answers an error, which the client treats as no answer).
	Handle func(ctx context.Context, req Request) Answer
	// Idle stops the server after this long without a request (0: never).
	Idle time.Duration
	// Logf, if set, logs one line per notable event.
	Logf func(format string, args ...any)
	// OwnerCheck is how often a server on a *Listener checks that the
	// socket is still its own (see Listener.Lost); 0 means 250ms. Each
	// connection is checked as well, before it is answered: an engine that
	// wakes after another took its socket over answers nothing and exits.
	OwnerCheck time.Duration
}

func (s *Server) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}

// Serve answers requests on ln until ctx is done, the server has been idle
// for s.Idle, or a client of another version asked. It closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	// Closed again here, after every connection is done, so that the
	// socket and its lock are gone when Serve returns.
	defer ln.Close()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	activity := make(chan struct{}, 1)
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	if s.Idle > 0 {
		go func() {
			t := time.NewTimer(s.Idle)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-activity:
					if !t.Stop() {
						<-t.C
					}
					t.Reset(s.Idle)
				case <-t.C:
					s.logf("idle for %s: exiting", s.Idle)
					stop()
					return
				}
			}
		}()
	}
	lost := func() bool { return false }
	if o, ok := ln.(interface{ Lost() error }); ok {
		lost = func() bool {
			err := o.Lost()
			if err != nil {
				s.logf("lost the socket: %v: exiting", err)
				stop()
			}
			return err != nil
		}
		every := s.OwnerCheck
		if every <= 0 {
			every = 250 * time.Millisecond
		}
		go func() {
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					if lost() {
						return
					}
				}
			}
		}()
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return err
		}
		if lost() {
			conn.Close()
			return nil
		}
		select {
		case activity <- struct{}{}:
		default:
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.serveConn(ctx, conn) {
				stop()
			}
		}()
	}
}

// serveConn answers one request; it returns true when the server must stop.
func (s *Server) serveConn(ctx context.Context, conn net.Conn) (quit bool) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	resp := Response{Proto: ProtocolVersion, Version: s.Version, Pid: os.Getpid()}
	write := func() {
		b, err := json.Marshal(resp)
		if err == nil {
			conn.Write(append(b, '\n'))
		}
	}
	if err := checkPeer(conn); err != nil {
		s.logf("refused a connection: %v", err)
		return false
	}
	line, err := bufio.NewReaderSize(io.LimitReader(conn, maxFrame), 64<<10).ReadBytes('\n')
	if err != nil {
		resp.Error = "reading the request: " + err.Error()
		write()
		return false
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		resp.Error = "bad request: " + err.Error()
		write()
		return false
	}
	if req.Proto != ProtocolVersion || req.Version != s.Version {
		resp.Error = fmt.Sprintf("version mismatch: engine %s, client %s", s.Version, req.Version)
		write()
		s.logf("client of version %s (protocol %d) asked: exiting", req.Version, req.Proto)
		return true
	}
	switch req.Op {
	case OpPing:
	case OpHook:
		if _, err := ParseAgent(string(req.Agent)); err != nil {
			resp.Error = err.Error()
			break
		}
		if req.Ack {
			ack := resp
			ack.Ack = true
			if b, err := json.Marshal(ack); err == nil {
				conn.Write(append(b, '\n'))
			}
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					resp.Error = fmt.Sprintf("internal error: %v", r)
				}
			}()
			resp.Answer = s.Handle(ctx, req)
		}()
	default:
		resp.Error = fmt.Sprintf("unknown op %q", req.Op)
	}
	write()
	return false
}
