package confirm

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/shellgate/shellgate/readstation"
	"github.com/shellgate/shellgate/trust"
)

// The claims a read-only command keeps; a Problem names the one it broke.
const (
	ClaimNoWrite   = "writes no file"
	ClaimNoExec    = "runs only its declared programs"
	ClaimNoNetwork = "opens no socket and resolves no name"
	ClaimNoDenied  = "opens no file a deny row covers"
	ClaimNoCanary  = "prints no secret"
	ClaimTraced    = "can be traced"
)

// Problem is one broken claim of a run.
type Problem struct {
	Claim  string
	Detail string
}

func (p Problem) String() string { return p.Claim + ": " + p.Detail }

// Expect is what a case may do.
type Expect struct {
	// Programs are the names (basenames) the case may execute: the
	// programs its segments name and their catalog helpers.
	Programs map[string]bool
	// Cwd resolves relative paths; Tmp is the directory of the runs'
	// TMPDIRs, where the shell itself may keep a here-document.
	Cwd, Tmp string
	// Boundary's deny rows say which files must not be opened.
	Boundary readstation.Boundary
	// Canaries are strings that must not appear in the output (value →
	// where it was planted).
	Canaries map[string]string
	// Caches are rows (deny-row syntax) of files the case's programs may
	// write as their own caches (catalog caches: git status refreshes
	// .git/index under its lock).
	Caches []string
	// Opens are rows of deny-row files the case's programs open by design
	// (catalog opens: ps reads /proc/*/cmdline); the canary check still
	// holds for them.
	Opens []string
}

// quietWrites are paths any program may open for writing: the null
// device, terminals, its own standard streams.
func quietWrite(p string) bool {
	switch p {
	case "/dev/null", "/dev/tty", "/dev/stdout", "/dev/stderr", "/dev/zero", "/dev/full", "/dev/ptmx":
		return true
	}
	return strings.HasPrefix(p, "/dev/pts/") || strings.HasPrefix(p, "/dev/fd/") ||
		strings.HasPrefix(p, "/proc/self/fd/") || strings.HasPrefix(p, "pipe:") || strings.HasPrefix(p, "socket:")
}

// nameFiles are the files glibc's resolver reads when it looks a name up
// (resolv.conf alone is read by resolver libraries that start up and
// look nothing up, as node's does).
var nameFiles = map[string]bool{"/etc/hosts": true, "/etc/host.conf": true}

// localSockets are AF_UNIX sockets a read-only program may use: the name
// service caches that answer user and group lookups (id, ls -l).
func localSocket(p string) bool {
	return p == "/var/run/nscd/socket" || p == "/run/nscd/socket" || strings.HasPrefix(p, "/run/systemd/userdb/")
}

// Judge returns the claims the run broke, each once per detail, sorted.
func Judge(o *Outcome, e Expect) []Problem {
	seen := map[Problem]bool{}
	var out []Problem
	add := func(claim, detail string) {
		p := Problem{claim, detail}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	tr := o.Trace
	if tr == nil || tr.Root < 0 {
		add(ClaimTraced, "strace recorded nothing")
		return out
	}
	for _, l := range tr.Unparsed {
		if len(l) > 200 {
			l = l[:200] + "…"
		}
		add(ClaimTraced, "unparsed strace line: "+l)
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) || strings.Contains(p, ":[") {
			return p
		}
		return filepath.Join(e.Cwd, p)
	}
	cache := e.Boundary
	cache.DenyRows = e.Caches
	isCache := func(p string) bool {
		if p == "" || len(e.Caches) == 0 {
			return p == ""
		}
		_, ok := cache.DeniedBy(p)
		return ok
	}
	open := e.Boundary
	open.DenyRows = e.Opens
	isOpen := func(p string) bool {
		if len(e.Opens) == 0 {
			return false
		}
		_, ok := open.DeniedBy(p)
		return ok
	}
	// A directory made on the way to a cache is part of the cache.
	var cached []string
	for _, ev := range tr.Events {
		if ev.Kind == KindWrite && !strings.HasPrefix(ev.Syscall, "mkdir") && isCache(abs(ev.Path)) {
			cached = append(cached, abs(ev.Path))
		}
	}
	onCacheWay := func(p string) bool {
		for _, c := range cached {
			if strings.HasPrefix(c, strings.TrimSuffix(p, "/")+"/") {
				return true
			}
		}
		return false
	}
	rootExecs := 0
	for _, ev := range tr.Events {
		switch ev.Kind {
		case KindExec:
			base := filepath.Base(ev.Path)
			if ev.PID == tr.Root && rootExecs == 0 {
				rootExecs++ // the shell the case runs in
				continue
			}
			if !e.Programs[base] {
				add(ClaimNoExec, "ran "+ev.Path+" "+quoteArgv(ev.Argv))
			}
		case KindWrite:
			p := abs(ev.Path)
			if quietWrite(p) {
				continue
			}
			if ev.PID == tr.Root && e.Tmp != "" && strings.HasPrefix(p, e.Tmp+"/") && strings.HasPrefix(filepath.Base(p), "sh-thd") {
				continue // bash's own here-document file
			}
			from := abs(ev.From)
			if isCache(p) && isCache(from) || strings.HasPrefix(ev.Syscall, "mkdir") && onCacheWay(p) {
				continue
			}
			if from != "" {
				add(ClaimNoWrite, ev.Syscall+" "+from+" → "+p)
				continue
			}
			add(ClaimNoWrite, ev.Syscall+" "+p+flagNote(ev.Flags))
		case KindOpen:
			p := abs(ev.Path)
			if nameFiles[p] {
				add(ClaimNoNetwork, "opened "+p+" (a name lookup)")
			}
			if row, ok := e.Boundary.DeniedBy(p); ok && !isOpen(p) && !cleanTemplate(p) {
				add(ClaimNoDenied, "opened "+p+" (deny row "+row+")")
			}
		case KindSocket:
			switch {
			case ev.Syscall == "socket" && ev.Family != "AF_PACKET", ev.Syscall == "bind":
				// A socket that never connects, sends or listens talks to
				// nobody (ifconfig asks the kernel through one; pip binds
				// ::1 port 0 to learn whether IPv6 works).
			case ev.Syscall == "listen":
				add(ClaimNoNetwork, "listens on a socket")
			case ev.Family == "AF_NETLINK", ev.Family == "AF_UNSPEC":
			case ev.Family == "AF_UNIX" && localSocket(ev.Path):
			case ev.Family == "AF_UNIX":
				add(ClaimNoNetwork, ev.Syscall+" to the socket "+ev.Path)
			default:
				add(ClaimNoNetwork, ev.Syscall+" "+ev.Family)
			}
		}
	}
	var names []string
	for v := range e.Canaries {
		names = append(names, v)
	}
	sort.Strings(names)
	for _, v := range names {
		if bytes.Contains(o.Output, []byte(v)) {
			add(ClaimNoCanary, "printed the secret planted in "+e.Canaries[v])
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Claim != out[j].Claim {
			return out[i].Claim < out[j].Claim
		}
		return out[i].Detail < out[j].Detail
	})
	return out
}

func flagNote(flags string) string {
	if flags == "" || strings.Contains(flags, "(") {
		return ""
	}
	return " (" + flags + ")"
}

func quoteArgv(argv []string) string {
	if len(argv) > 6 {
		argv = append(argv[:6:6], "…")
	}
	return "[" + strings.Join(argv, " ") + "]"
}

// cleanTemplate reports whether p is a template of a secret (.env.example)
// that the read station lets commands read: a regular file (not a link)
// whose content holds no real-looking secret. A canary in it is still
// caught in the output.
func cleanTemplate(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || !readstation.IsTemplate(p) {
		return false
	}
	// (Opened without blocking and checked again by the open file's type:
	// a FIFO swapped in after the Lstat is refused, not waited on.)
	data, err := trust.ReadRegular(p, 1<<20)
	if err != nil {
		return false
	}
	_, secret := readstation.LooksSecret(data)
	return !secret
}
