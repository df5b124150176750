package confirm

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// Syscalls is the strace -e trace= list the parser understands: program
// execution, file opens (for the flags), every call that creates, removes,
// renames or changes a file, and the socket calls.
const Syscalls = "execve,execveat,open,openat,openat2,creat,unlink,unlinkat,rmdir,mkdir,mkdirat," +
	"rename,renameat,renameat2,link,linkat,symlink,symlinkat,truncate,chmod,fchmodat,mknod,mknodat," +
	"socket,connect,sendto,sendmsg,bind,listen,chdir,fchdir,clone,clone3,fork,vfork"

// StraceArgs are the strace options the parser expects before "-o FILE":
// follow forks, strings in hex (so no path can confuse the parser), paths
// of descriptors, long strings, no signal lines.
var StraceArgs = []string{"-f", "-qq", "-xx", "-y", "-s", "4096", "-e", "signal=none", "-e", "trace=" + Syscalls}

// Event kinds.
const (
	KindExec   = "exec"   // a program was executed (Path, Argv)
	KindOpen   = "open"   // a file was opened for reading (Path)
	KindWrite  = "write"  // a file was opened for writing or created, removed, renamed, linked, chmod'ed (Path)
	KindSocket = "socket" // a socket was created or connected (Family, Path for AF_UNIX)

	// kindChdir and kindFork are read by ParseTrace to follow each
	// process's working directory; they are not in Trace.Events.
	kindChdir = "chdir" // the working directory became Path
	kindFork  = "fork"  // a process or thread Path (its id) was made; Flags hold the call
)

// Event is one traced system call that succeeded.
type Event struct {
	PID     int
	Kind    string
	Syscall string
	// Path is the file (absolute when strace could say where), or the
	// AF_UNIX socket path.
	Path string
	// From is the source of a rename or link.
	From string
	// Argv is the argument vector of an exec.
	Argv []string
	// Flags are an open's flags (O_WRONLY|O_CREAT…).
	Flags string
	// Family is a socket's address family (AF_INET…).
	Family string
}

// Trace is a parsed strace log.
type Trace struct {
	// Root is the first process (the shell the case runs in).
	Root   int
	Events []Event
	// Unparsed counts lines the parser did not understand; a judge that
	// cannot read the trace must not pass the case.
	Unparsed []string
}

// ParseTrace reads an strace log written with [StraceArgs].
func ParseTrace(r io.Reader) (*Trace, error) {
	t := &Trace{Root: -1}
	pending := map[int]string{}
	// cwds is each process's working directory once it changed it ("" is
	// the directory the trace started in). Threads and clones made with
	// CLONE_FS share one cell, as they share the kernel's fs struct: a
	// JVM fchdirs into its hsperfdata directory and unlinks relative names.
	cwds := map[int]*string{}
	cwdOf := func(pid int) string {
		if c := cwds[pid]; c != nil {
			return *c
		}
		return ""
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		sp := strings.IndexByte(line, ' ')
		if sp <= 0 {
			t.Unparsed = append(t.Unparsed, line)
			continue
		}
		pid, err := strconv.Atoi(line[:sp])
		if err != nil {
			t.Unparsed = append(t.Unparsed, line)
			continue
		}
		if t.Root < 0 {
			t.Root = pid
		}
		rest := strings.TrimLeft(line[sp+1:], " ") // strace pads the pid column
		if strings.HasPrefix(rest, "+++ ") || strings.HasPrefix(rest, "--- ") || strings.HasSuffix(rest, "<detached ...>") {
			continue // exit and signal notes, a process strace let go of
		}
		if s, ok := strings.CutSuffix(rest, " <unfinished ...>"); ok {
			pending[pid] = s
			continue
		}
		if strings.HasPrefix(rest, "<... ") {
			i := strings.Index(rest, " resumed>")
			if i < 0 {
				t.Unparsed = append(t.Unparsed, line)
				continue
			}
			head, ok := pending[pid]
			delete(pending, pid)
			if !ok {
				t.Unparsed = append(t.Unparsed, line)
				continue
			}
			rest = head + rest[i+len(" resumed>"):]
		}
		ev, ok, err := parseCall(pid, rest, cwdOf(pid))
		if err != nil {
			t.Unparsed = append(t.Unparsed, line)
			continue
		}
		switch ev.Kind {
		case kindChdir:
			if c := cwds[pid]; c != nil {
				*c = ev.Path
			} else {
				p := ev.Path
				cwds[pid] = &p
			}
			continue
		case kindFork:
			child, err := strconv.Atoi(ev.Path)
			if err != nil {
				t.Unparsed = append(t.Unparsed, line)
				continue
			}
			c := cwds[pid]
			if c == nil {
				c = new(string) // still the starting directory
				cwds[pid] = c
			}
			if strings.Contains(ev.Flags, "CLONE_FS") {
				cwds[child] = c
			} else {
				p := *c
				cwds[child] = &p
			}
			continue
		}
		if ok {
			t.Events = append(t.Events, ev)
		}
	}
	if err := sc.Err(); err != nil {
		return t, err
	}
	for pid, s := range pending {
		// A call that never returned (the process was killed in it):
		// an exec or a write that may have happened is judged as done.
		if ev, ok, err := parseCall(pid, s+") = ?", cwdOf(pid)); err == nil && ok && ev.Kind != kindChdir && ev.Kind != kindFork {
			t.Events = append(t.Events, ev)
		}
	}
	return t, nil
}

// token is one argument of a call: a string (decoded), an fd or dirfd with
// its path annotation, or anything else as written.
type token struct {
	text  string // as written, annotation removed
	str   string // decoded string, when quoted
	isStr bool
	annot string // decoded <...> annotation
}

// parseCall parses "name(args) = ret". It reports ok=false for calls that
// failed or that say nothing (a read-only open of nothing of interest is
// still reported, as KindOpen).
// cwd is the process's working directory when the trace saw it change
// ("" otherwise): relative paths are resolved against it.
func parseCall(pid int, s string, cwdPath string) (Event, bool, error) {
	open := strings.IndexByte(s, '(')
	if open <= 0 {
		return Event{}, false, fmt.Errorf("no call")
	}
	name := s[:open]
	// The result follows the last " = ", which strace pads with spaces
	// after the closing parenthesis.
	eq := strings.LastIndex(s, " = ")
	if eq < open {
		return Event{}, false, fmt.Errorf("no result")
	}
	ret := strings.TrimSpace(s[eq+len(" = "):])
	eq = len(strings.TrimRight(s[:eq], " "))
	if eq == 0 || s[eq-1] != ')' {
		return Event{}, false, fmt.Errorf("no closing parenthesis")
	}
	eq--
	if strings.HasPrefix(ret, "-1") {
		// A connect or send to an internet address that failed was still
		// an attempt to reach the network: a non-blocking connect (Go's)
		// returns EINPROGRESS, and a refused one knocked all the same.
		// Anything else that failed did nothing.
		if name != "connect" && name != "sendto" && name != "sendmsg" {
			return Event{}, false, nil
		}
		if f, _ := sockaddr(s[open+1 : eq]); f != "AF_INET" && f != "AF_INET6" {
			return Event{}, false, nil
		}
	}
	args, err := splitArgs(s[open+1 : eq])
	if err != nil {
		return Event{}, false, err
	}
	ev := Event{PID: pid, Syscall: name}
	// pathAt resolves a path argument against a dirfd annotation.
	pathAt := func(dir token, p token) string {
		if !p.isStr {
			return ""
		}
		base := dir.annot
		if base == "" {
			base = cwdPath // AT_FDCWD or a call with no dirfd
		}
		if filepath.IsAbs(p.str) || base == "" {
			return p.str
		}
		return filepath.Join(base, p.str)
	}
	str := func(i int) token {
		if i < len(args) {
			return args[i]
		}
		return token{}
	}
	cwd := token{}
	retPath := ""
	if i := strings.IndexByte(ret, '<'); i > 0 && strings.HasSuffix(ret, ">") {
		retPath, _ = unhex(ret[i+1 : len(ret)-1])
	}
	switch name {
	case "execve":
		ev.Kind, ev.Path = KindExec, str(0).str
		ev.Argv = argvOf(str(1))
	case "execveat":
		ev.Kind, ev.Path = KindExec, pathAt(str(0), str(1))
		ev.Argv = argvOf(str(2))
	case "open", "creat":
		ev.Path = pathAt(cwd, str(0))
		ev.Flags = str(1).text
		if name == "creat" {
			ev.Flags = "O_CREAT|O_WRONLY|O_TRUNC"
		}
		ev.Kind = openKind(ev.Flags)
	case "openat", "openat2":
		ev.Path = pathAt(str(0), str(1))
		ev.Flags = str(2).text
		if name == "openat2" {
			ev.Flags = s // the flags sit in a struct; look for them anywhere
		}
		ev.Kind = openKind(ev.Flags)
	case "unlink", "rmdir", "mkdir", "truncate", "chmod", "mknod":
		ev.Kind, ev.Path = KindWrite, pathAt(cwd, str(0))
	case "unlinkat", "mkdirat", "fchmodat", "mknodat":
		ev.Kind, ev.Path = KindWrite, pathAt(str(0), str(1))
	case "rename", "link", "symlink":
		ev.Kind, ev.Path, ev.From = KindWrite, pathAt(cwd, str(1)), pathAt(cwd, str(0))
	case "renameat", "renameat2", "linkat":
		ev.Kind, ev.Path, ev.From = KindWrite, pathAt(str(2), str(3)), pathAt(str(0), str(1))
	case "symlinkat":
		ev.Kind, ev.Path = KindWrite, pathAt(str(1), str(2))
	case "socket":
		ev.Kind, ev.Family = KindSocket, str(0).text
	case "listen":
		ev.Kind, ev.Family = KindSocket, "listen"
	case "connect", "sendto", "sendmsg", "bind":
		ev.Kind = KindSocket
		ev.Family, ev.Path = sockaddr(s[open+1 : eq])
		if ev.Family == "" {
			return Event{}, false, nil // sendto on a connected socket: its connect was seen
		}
	case "chdir":
		ev.Kind, ev.Path = kindChdir, pathAt(cwd, str(0))
	case "fchdir":
		ev.Kind, ev.Path = kindChdir, str(0).annot
	case "clone", "clone3", "fork", "vfork":
		if strings.HasPrefix(ret, "?") {
			return Event{}, false, nil
		}
		ev.Kind, ev.Path, ev.Flags = kindFork, strings.Fields(ret)[0], s
	default:
		return Event{}, false, nil
	}
	if retPath != "" && (ev.Kind == KindOpen || ev.Kind == KindWrite) && strings.HasPrefix(name, "open") {
		ev.Path = retPath
	}
	if ev.Kind == "" {
		return Event{}, false, nil
	}
	return ev, true, nil
}

// openKind says whether open flags write.
func openKind(flags string) string {
	// O_TMPFILE makes a file with no name, gone when closed; linking it
	// into the tree is a linkat, judged on its own.
	if strings.Contains(flags, "O_TMPFILE") {
		return KindOpen
	}
	for _, f := range []string{"O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"} {
		if strings.Contains(flags, f) {
			return KindWrite
		}
	}
	return KindOpen
}

// sockaddr finds sa_family and sun_path in a call's arguments.
func sockaddr(args string) (family, path string) {
	i := strings.Index(args, "sa_family=")
	if i < 0 {
		return "", ""
	}
	rest := args[i+len("sa_family="):]
	j := strings.IndexAny(rest, ", }")
	if j < 0 {
		j = len(rest)
	}
	family = rest[:j]
	if k := strings.Index(rest, "sun_path="); k >= 0 {
		p := rest[k+len("sun_path="):]
		if strings.HasPrefix(p, "@") {
			p = p[1:] // abstract socket
		}
		if strings.HasPrefix(p, "\"") {
			if e := strings.IndexByte(p[1:], '"'); e >= 0 {
				path, _ = unhex(p[1 : e+1])
			}
		}
	}
	return family, path
}

// argvOf decodes an execve argument vector token ["a", "b"].
func argvOf(t token) []string {
	var out []string
	s := t.text
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i+1:], '"')
		if j < 0 {
			return out
		}
		v, _ := unhex(s[i+1 : i+1+j])
		out = append(out, v)
		s = s[i+1+j+1:]
	}
}

// splitArgs splits a call's arguments at top-level commas. Strings are in
// hex (-xx), so they hold no quote, comma or bracket of their own; the
// annotations <...> are hex too.
func splitArgs(s string) ([]token, error) {
	var out []token
	depth := 0
	inStr := false
	start := 0
	flush := func(end int) error {
		raw := strings.TrimSpace(s[start:end])
		tk := token{text: raw}
		if strings.HasPrefix(raw, "\"") {
			e := strings.IndexByte(raw[1:], '"')
			if e < 0 {
				return fmt.Errorf("unterminated string")
			}
			v, err := unhex(raw[1 : e+1])
			if err != nil {
				return err
			}
			tk.str, tk.isStr = v, true
		} else if i := strings.IndexByte(raw, '<'); i > 0 && strings.HasSuffix(raw, ">") {
			v, err := unhex(raw[i+1 : len(raw)-1])
			if err != nil {
				return err
			}
			tk.text, tk.annot = raw[:i], v
		}
		out = append(out, tk)
		return nil
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '[' || c == '{' || c == '(':
			depth++
		case c == ']' || c == '}' || c == ')':
			depth--
		case c == ',' && depth == 0:
			if err := flush(i); err != nil {
				return nil, err
			}
			start = i + 1
		}
	}
	if inStr {
		return nil, fmt.Errorf("unterminated string")
	}
	if strings.TrimSpace(s[start:]) != "" {
		if err := flush(len(s)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// unhex decodes strace's -xx escapes (\xNN), and the few others it may
// still write (\n, \t, \\, \").
func unhex(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'x':
			if i+3 > len(s) {
				return "", fmt.Errorf("short \\x escape")
			}
			v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
			if err != nil {
				return "", fmt.Errorf("bad \\x escape: %w", err)
			}
			b.WriteByte(byte(v))
			i += 2
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'v':
			b.WriteByte('\v')
		case 'f':
			b.WriteByte('\f')
		case '\\', '"':
			b.WriteByte(s[i])
		default:
			// An octal escape \NNN.
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			if j == i {
				return "", fmt.Errorf("unknown escape \\%c", s[i])
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 8)
			b.WriteByte(byte(v))
			i = j - 1
		}
	}
	return b.String(), nil
}
