package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
)

// sessionDirs holds each session's working directory, as Claude Code's
// Bash tool keeps one: it starts at the server's directory, and a bash
// or bash_readonly call whose shell ends in another directory (a cd)
// moves it there, once the policy allows a cd there. A session absent
// from the map is in the server's directory; its entry goes when the
// session ends.
type sessionDirs struct {
	mu   sync.Mutex
	dirs map[*mcp.ServerSession]string
}

func newSessionDirs() *sessionDirs {
	return &sessionDirs{dirs: map[*mcp.ServerSession]string{}}
}

func (t *sessionDirs) get(ss *mcp.ServerSession, def string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if d, ok := t.dirs[ss]; ok {
		return d
	}
	return def
}

// move sets ss's directory to to when it is still from (a call that ran
// at the same time and moved it first wins), and reports whether it did.
func (t *sessionDirs) move(ss *mcp.ServerSession, def, from, to string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	cur, ok := t.dirs[ss]
	if !ok {
		cur = def
	}
	if cur != from {
		return false
	}
	if to == def {
		delete(t.dirs, ss)
		return true
	}
	t.dirs[ss] = to
	if !ok && ss != nil {
		go func() {
			_ = ss.Wait()
			t.mu.Lock()
			delete(t.dirs, ss)
			t.mu.Unlock()
		}()
	}
	return true
}

// reset puts ss back in the server's directory.
func (t *sessionDirs) reset(ss *mcp.ServerSession) {
	t.mu.Lock()
	delete(t.dirs, ss)
	t.mu.Unlock()
}

// errSessionDir is a session directory that can no longer be used.
type errSessionDir struct{ dir, why, root string }

func (e *errSessionDir) Error() string {
	return fmt.Sprintf("this session's working directory %s %s; nothing ran, and the session is back in the server's directory %s (call again, with cwd if the command needs another directory)", e.dir, e.why, e.root)
}

// callDir is the directory a call runs in (its cwd: "" is the session's
// directory, a relative one starts there) and the session directory it
// started from. A session directory that no longer exists, is no longer
// a directory, or is no longer the same physical path (a directory
// replaced by a symlink) is refused, and the session goes back to the
// server's directory: a command meant for one directory does not run in
// another.
func (s *Server) callDir(ss *mcp.ServerSession, cwd string) (dir, base string, err error) {
	base = s.dirs.get(ss, s.o.Cwd)
	if base != s.o.Cwd && !filepath.IsAbs(cwd) {
		if why := sameDir(base); why != "" {
			s.dirs.reset(ss)
			return "", "", &errSessionDir{dir: base, why: why, root: s.o.Cwd}
		}
	}
	return policy.ResolveCwd(base, cwd), base, nil
}

// sameDir says why dir, a physical path, is no longer that directory
// ("" when it is).
func sameDir(dir string) string {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "no longer exists"
	case err != nil:
		return "cannot be used: " + err.Error()
	case !fi.IsDir():
		return "is no longer a directory"
	}
	if real, err := filepath.EvalSymlinks(dir); err != nil || real != dir {
		return "is no longer the same directory (a part of its path was replaced)"
	}
	return ""
}

// follow moves the session to the directory the shell of res ended in,
// when it ended somewhere else than it started (dir) and the policy
// allows a cd there from dir, in the call's mode, as it judges any cd:
// a directory outside the roots or a denied one does not become the
// session's directory. It returns the line the result ends with: where
// the next call runs, and why when the shell's directory was not taken
// ("" when nothing changed).
func (s *Server) follow(ctx context.Context, ss *mcp.ServerSession, g *gate.Gate, res gate.Result, mode, base, dir string) string {
	if res.Run == nil || res.Decision == nil || !execution.ReportsDir(res.Decision.Shell) {
		return ""
	}
	final := res.Run.FinalDir
	if final == "" {
		return fmt.Sprintf("[cwd: the shell reported no final directory (it exec'd, set its own EXIT trap or was stopped); the next call runs in %s]", s.dirs.get(ss, s.o.Cwd))
	}
	start := dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		start = real
	}
	if final == start {
		return ""
	}
	refused := func(why string) string {
		return fmt.Sprintf("[cwd: the shell ended in %s, which does not become this session's directory: %s; the next call runs in %s]", final, why, s.dirs.get(ss, s.o.Cwd))
	}
	cmd, err := cdCommand(final)
	if err != nil {
		return refused(err.Error())
	}
	d, err := g.Decide(ctx, gate.Request{Command: cmd, Cwd: dir, Mode: mode, Shell: res.Decision.Shell})
	if err != nil {
		return refused("shellgate could not judge a cd there: " + err.Error())
	}
	if d.Action != policy.Allow {
		var rs []string
		for _, r := range d.Reasons {
			rs = append(rs, r.Code+": "+strings.Join(strings.Fields(r.Message), " "))
		}
		return refused(fmt.Sprintf("the policy would %s `%s` (%s)", d.Action, cmd, strings.Join(rs, "; ")))
	}
	if !s.dirs.move(ss, s.o.Cwd, base, final) {
		return refused("another call of this session moved it first")
	}
	return fmt.Sprintf("[cwd: the next call runs in %s]", final)
}

// cdCommand is `cd DIR`, DIR quoted for the shell.
func cdCommand(dir string) (string, error) {
	q, err := syntax.Quote(dir, syntax.LangBash)
	if err != nil {
		return "", fmt.Errorf("the path cannot be quoted for a shell: %v", err)
	}
	return "cd " + q, nil
}
