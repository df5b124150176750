package execution

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// SandboxMode is how far the kernel lets a command reach.
type SandboxMode string

// The sandbox modes, narrowest first.
const (
	// SandboxReadOnly: no file may be written, created or removed except
	// /dev/null (the output pipe was opened before); reads are limited to
	// the roots and the system's program and library directories; no
	// network unless egress was approved.
	SandboxReadOnly SandboxMode = "read-only"
	// SandboxWorkspaceWrite: reads as in read-only; writes only inside the
	// roots and a private temp dir (TMPDIR); no network unless egress was
	// approved.
	SandboxWorkspaceWrite SandboxMode = "workspace-write"
	// SandboxFullAccess: no confinement.
	SandboxFullAccess SandboxMode = "full-access"
)

// sandboxModes lists the modes, narrowest first.
var sandboxModes = []SandboxMode{SandboxReadOnly, SandboxWorkspaceWrite, SandboxFullAccess}

// rank orders the modes; 0 is not a mode.
func (m SandboxMode) rank() int {
	for i, x := range sandboxModes {
		if x == m {
			return i + 1
		}
	}
	return 0
}

// Valid reports whether m is one of the three modes.
func (m SandboxMode) Valid() bool { return m.rank() > 0 }

// Wider reports whether m lets a command reach strictly more than other.
func (m SandboxMode) Wider(other SandboxMode) bool {
	return m.Valid() && other.Valid() && m.rank() > other.rank()
}

// ParseSandboxMode parses a mode name; "" is not a mode.
func ParseSandboxMode(s string) (SandboxMode, error) {
	m := SandboxMode(s)
	if !m.Valid() {
		return "", fmt.Errorf("unknown sandbox mode %q (want read-only, workspace-write or full-access)", s)
	}
	return m, nil
}

// Confinement is what a Runner is asked to enforce for one command.
type Confinement struct {
	// Mode is the sandbox mode; full-access asks for nothing.
	Mode SandboxMode
	// Roots are the directories the command may read (read-only) or read
	// and write (workspace-write): the workspace and the configured roots,
	// absolute.
	Roots []string
	// Network allows egress: the decision approved it.
	Network bool
	// Reads are files and directories outside the roots that the command
	// may read as well: the reads a person approved (or a grant allowed),
	// as the read station resolved them.
	Reads []string
	// Lists are directories outside the roots whose listing a person
	// approved (ls ~): the command may list them (and the directories
	// beneath), not read the files in them.
	Lists []string
	// Toolchains are directories outside the roots that hold the
	// toolchains in use (ToolchainDirs): readable and executable.
	Toolchains []string
	// Cache is the per-user sandbox cache (SandboxCacheDir): the
	// directory of the confinement's workspace in it (workspaceCache:
	// one per set of roots) is writable in both confined modes, and the
	// build tools' cache variables point into that (cacheEnv); "" is none.
	Cache string
	// GitDirs are git directories that are roots or lie in them besides
	// ROOT/.git (a worktree's or submodule's): their ProtectedGitNames
	// are protected too.
	GitDirs []string
	// Unprotect are protected paths a person made writable for this one
	// call (shellgate run --unprotect PATH); what lies beneath them too.
	Unprotect []string
	// Limits are the command's resource limits (zero fields: the
	// defaults, DefaultLimits).
	Limits ResourceLimits
}

// ResourceLimits are resource limits a confined command runs under (setrlimit,
// hard and soft, before the shell starts): a negative value is no limit,
// zero the default.
type ResourceLimits struct {
	// Processes is how many processes the command may run beyond those
	// the user already runs (RLIMIT_NPROC counts every process of the
	// user).
	Processes int `json:"processes,omitempty"`
	// MemoryMB bounds each process's data (heap and private writable
	// mappings, RLIMIT_DATA), in MiB.
	MemoryMB int64 `json:"memory_mb,omitempty"`
	// FileSizeMB bounds the size of a file a process writes
	// (RLIMIT_FSIZE), in MiB.
	FileSizeMB int64 `json:"file_size_mb,omitempty"`
}

// DefaultResourceLimits are the limits a confined command gets when
// nothing else is set: 256 more processes, 2 GiB of data per process and
// 4 GiB per file, as policy.DefaultSandboxLimits (a test keeps them
// equal). The package does not import policy: its init, which starts the
// sandbox helper (userns_linux.go), then runs before the init of policy's
// dependencies, which the helper never needs.
var DefaultResourceLimits = ResourceLimits{Processes: 256, MemoryMB: 2048, FileSizeMB: 4096}

// withDefaults fills l's zero fields from DefaultResourceLimits.
func (l ResourceLimits) withDefaults() ResourceLimits {
	if l.Processes == 0 {
		l.Processes = DefaultResourceLimits.Processes
	}
	if l.MemoryMB == 0 {
		l.MemoryMB = DefaultResourceLimits.MemoryMB
	}
	if l.FileSizeMB == 0 {
		l.FileSizeMB = DefaultResourceLimits.FileSizeMB
	}
	return l
}

// SandboxSupport says whether and how a runner can confine commands here.
type SandboxSupport struct {
	// Mechanism is "landlock" (Linux), "seatbelt" (macOS) or "" (none).
	Mechanism string
	// ABI is the Landlock ABI version in use (0 elsewhere).
	ABI int
	// NetworkGuard says how network is denied: "netns" (a network
	// namespace with no interface up, plus Landlock's TCP rules),
	// "userns+netns" (the same in a new user namespace: the command sees
	// itself as nobody), "landlock-tcp" (TCP only: UDP and DNS are not
	// guarded) or "" (none).
	NetworkGuard string
	// Isolation is the process isolation every confined command gets
	// here (see SandboxInfo.Isolation; workspace-write adds "mountns").
	Isolation []string
	// Missing are the protections a confined command cannot get here,
	// each "name: why": "mountns" (the protected paths are only checked
	// after the run), "pidns" (the command sees the host's processes and
	// what it starts may outlive the run), "pids-cgroup" (its processes
	// are bounded by RLIMIT_NPROC alone), "netns" (UDP and DNS are not
	// guarded).
	Missing []string
	// Err says why commands cannot be confined; nil when they can.
	Err error
}

// Confiner is a Runner that can enforce a Confinement (BashRunner does).
// A Runner that is not a Confiner cannot confine: the gate then treats
// confinement as impossible.
type Confiner interface {
	Runner
	// SandboxSupport reports what the runner can enforce on this machine.
	SandboxSupport() SandboxSupport
}

// SandboxInfo is the result's account of the confinement a command ran
// under (Result.Sandbox).
type SandboxInfo struct {
	// Mode is the mode the command ran in (or would have).
	Mode SandboxMode `json:"mode"`
	// Enforced is true when the kernel enforced Mode.
	Enforced bool `json:"enforced"`
	// Mechanism is "landlock", "seatbelt" or "" when nothing enforced it.
	Mechanism string `json:"mechanism,omitempty"`
	// ABI is the Landlock ABI version used.
	ABI int `json:"abi,omitempty"`
	// Network is "allowed" or "denied".
	Network string `json:"network,omitempty"`
	// NetworkGuard is how the network was denied (see SandboxSupport).
	NetworkGuard string `json:"network_guard,omitempty"`
	// Reason says why Mode was chosen (readonly-mode, reversible,
	// approved-write, granted, requested, config, escalated).
	Reason string `json:"reason,omitempty"`
	// Escalated is set when a person approved this one call in a wider
	// mode; From is the mode it would have had.
	Escalated bool        `json:"escalated,omitempty"`
	From      SandboxMode `json:"from,omitempty"`
	// Denied lists the operations the sandbox refused, as far as the
	// command's output shows them.
	Denied []SandboxDenial `json:"denied,omitempty"`
	// Note says why the command was not confined, when it was not, or
	// what of the confinement this machine could not enforce.
	Note string `json:"note,omitempty"`
	// Isolation lists the process isolation the command ran under:
	// "pidns", "no-caps", "no_new_privs", "seccomp", "mountns" (the
	// protected paths were bound read-only), "rlimits".
	Isolation []string `json:"isolation,omitempty"`
	// Limits are the resource limits the command ran under.
	Limits *ResourceLimits `json:"limits,omitempty"`
}

// SandboxDenial is one operation the sandbox refused.
type SandboxDenial struct {
	// Op is "write", "read", "network", "process" (processes the
	// command left running were killed when the run ended, or the
	// process limit refused forks: Path "pids.max"), "syscall"
	// (the seccomp filter refused a system call: Path names it) or
	// "memory" (the memory limit refused an allocation: Path names the
	// limit). "unchecked" is no refusal: the check for protected names
	// made beneath the roots stopped at its bounds (Line says where).
	Op string `json:"op"`
	// Path is the file, when the output names one, the system call, or
	// the limit.
	Path string `json:"path,omitempty"`
	// Line is the output line that shows it, or what the sandbox
	// recorded itself.
	Line string `json:"line"`
	// Undone is set when the sandbox found, after the run, a protected
	// path the command made or replaced and undid it (moved it aside, or
	// put back the symlink that was there).
	Undone bool `json:"undone,omitempty"`
}

// memoryLimitPath names the memory limit of mb MiB in a SandboxDenial.
func memoryLimitPath(mb int64) string {
	return fmt.Sprintf("memory limit %d MiB per process", mb)
}

// SandboxMarker is the line added to a command's output when the sandbox
// refused an operation of kind op ("write", "read", "network") in mode m:
// "[sandbox: write denied under read-only mode]".
func SandboxMarker(op string, m SandboxMode) string {
	return "[sandbox: " + op + " denied under " + string(m) + " mode]"
}

// systemReadDirs are the system's program and library directories a
// confined command may read and execute from.
var systemReadDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
	"/nix", "/snap", "/proc", "/sys", "/dev", "/run/current-system",
	// macOS
	"/System", "/Library", "/private/etc", "/private/var/db/timezone", "/opt/homebrew", "/Applications/Xcode.app",
}

// macReadDirs are the entries of systemReadDirs that only macOS has.
var macReadDirs = []string{"/System", "/Library", "/private/etc", "/private/var/db/timezone", "/opt/homebrew", "/Applications/Xcode.app"}

// readDirs returns the directories a confined command may read: the
// system directories, the absolute directories on PATH that are not the
// file system root or the home directory itself (a toolchain in
// ~/go/bin stays usable; the rest of the home directory does not), and
// the roots. Only those that exist are returned.
func readDirs(c *Confinement, env []string) []string {
	return readDirsIDs(c, env, nil)
}

// fileID is the identity of a file: its device and inode.
type fileID struct{ dev, ino uint64 }

// readDirsIDs is readDirs; it records in ids (when not nil) the identity
// of each directory it returns, as it found it.
func readDirsIDs(c *Confinement, env []string, ids map[string]fileID) []string {
	home, _ := os.UserHomeDir()
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok && v != "" {
			home = v
		}
	}
	seen := make(map[string]bool, 32)
	out := make([]string, 0, 32)
	knownPaths.refresh()
	add := func(p string, kind dirKind) {
		p = filepath.Clean(p)
		if !filepath.IsAbs(p) || p == "/" || seen[p] {
			return
		}
		if kind == pathDir && home != "" && within(filepath.Clean(home), p) {
			return // the home directory or a directory above it
		}
		// A directory on PATH that is (now) a symlink into the home's
		// secrets (a virtualenv's bin in a root, replaced by a command of
		// an earlier run) grants nothing, in a system directory too (a
		// root in /usr/src/app or /opt: only the directory a path names
		// tells whether root alone changes it).
		st, safe, err := safePathDir(p, home, kind)
		if err != nil || !safe {
			return
		}
		if ids != nil {
			ids[p] = fileID{st.dev, st.ino}
		}
		seen[p] = true
		out = append(out, p)
	}
	for _, d := range systemReadDirs {
		if runtime.GOOS != "darwin" && slices.Contains(macReadDirs, d) {
			continue // looked for in vain on every run
		}
		add(d, systemDir)
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, d := range filepath.SplitList(v) {
				add(d, pathDir)
			}
		}
	}
	for _, r := range c.Roots {
		add(r, rootDir)
	}
	sort.Strings(out)
	return out
}

// namesGrantedSystemFile reports whether the symlink p names (now) a
// file in a system directory that every confined command may read whole
// (systemReadDirs but /etc, whose secrets are not granted; /proc is
// granted whole, the command's own procfs where it has one): what it
// names is granted whether or not it is the file a ruleset was built
// with, so a kept ruleset need not follow it (/etc/localtime,
// /etc/os-release, /etc/mtab).
func namesGrantedSystemFile(p string) bool {
	real, err := realPath(p)
	if err != nil || within(real, "/etc") || within(real, "/private/etc") {
		return false
	}
	return inSystemDir(real)
}

// inSystemDir reports whether p lies in one of systemReadDirs (which
// only root changes).
func inSystemDir(p string) bool {
	for _, d := range systemReadDirs {
		if within(p, d) {
			return true
		}
	}
	return false
}

// extraReads splits c.Reads that exist into directories and files.
func extraReads(c *Confinement) (dirs, files []string) {
	for _, p := range c.Reads {
		fi, err := os.Stat(p)
		switch {
		case err != nil || !filepath.IsAbs(p):
		case fi.IsDir():
			dirs = append(dirs, filepath.Clean(p))
		default:
			files = append(files, filepath.Clean(p))
		}
	}
	return dirs, files
}

// rootDirs returns the roots that exist, cleaned, without duplicates.
func rootDirs(c *Confinement) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range c.Roots {
		r = filepath.Clean(r)
		if !filepath.IsAbs(r) || seen[r] {
			continue
		}
		if _, _, err := safePathDir(r, "", rootDir); err != nil {
			continue
		}
		seen[r] = true
		out = append(out, r)
	}
	return out
}

// workspaceCache is the directory of c's workspace in the sandbox cache
// c.Cache ("" for none): ws/NAME-HASH, NAME the first root's base name,
// HASH of the roots. Build tools trust what is in their caches (go
// builds a module's source from GOMODCACHE without hashing it again,
// cargo obeys CARGO_HOME/config.toml), and every confined command may
// write the cache: one cache for all workspaces would let a command
// confined to one plant code in another's builds, a binary its user
// then runs unconfined. A workspace's cache holds only what commands
// confined to it wrote, which could as well have changed its sources.
func workspaceCache(c *Confinement) string {
	if c.Cache == "" {
		return ""
	}
	var roots []string
	for _, r := range c.Roots {
		if filepath.IsAbs(r) {
			roots = append(roots, filepath.Clean(r))
		}
	}
	sort.Strings(roots)
	roots = slices.Compact(roots)
	key := strings.Join(roots, "\x00")
	if k := lastWorkspaceCache.Load(); k != nil && k.cache == c.Cache && k.key == key {
		return k.dir
	}
	sum := sha256.Sum256([]byte(key))
	name := "none"
	if len(roots) > 0 {
		name = filepath.Base(roots[0])
		if name == "/" {
			name = "root"
		}
		name = name[:min(len(name), 32)]
	}
	dir := filepath.Join(c.Cache, "ws", name+"-"+hex.EncodeToString(sum[:8]))
	lastWorkspaceCache.Store(&workspaceCacheDir{c.Cache, key, dir})
	return dir
}

// workspaceCacheDir is the last workspaceCache answered (every run of a
// workspace asks for the same).
type workspaceCacheDir struct{ cache, key, dir string }

var lastWorkspaceCache atomic.Pointer[workspaceCacheDir]

// within reports whether p is dir or beneath it.
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// confinedSets are the directories a confined command may read and
// write, kept to tell the sandbox's refusals in its output.
type confinedSets struct {
	mode        SandboxMode
	read, write []string
	network     bool
	// protected are paths inside write that stay read-only.
	protected []string
	// memoryMB is the command's memory limit (RLIMIT_DATA, MiB; 0 or
	// negative: none).
	memoryMB int64
}

// isProtected reports whether p is a protected path or beneath one.
func (s *confinedSets) isProtected(p string) bool {
	for _, d := range s.protected {
		if within(p, d) {
			return true
		}
	}
	return false
}

// protectedOf is the protected path p is or lies beneath ("" for none;
// the nearest when several hold it).
func (s *confinedSets) protectedOf(p string) string {
	best := ""
	for _, d := range s.protected {
		if within(p, d) && len(d) > len(best) {
			best = d
		}
	}
	return best
}

func (s *confinedSets) readable(p string) bool {
	for _, d := range s.read {
		if within(p, d) {
			return true
		}
	}
	return p == "/dev/null"
}

func (s *confinedSets) writable(p string) bool {
	for _, d := range s.write {
		if within(p, d) {
			return true
		}
	}
	return p == "/dev/null"
}

// maxDenials bounds the denials a result lists.
const maxDenials = 20

// networkRefusals are what programs print when the sandbox refused them
// the network (no interface up; Landlock's TCP rules; no resolver).
var networkRefusals = []string{
	"network is unreachable",
	"connect: permission denied",
	"couldn't connect to server",
	"failed to connect to",
	"could not resolve host",
	"temporary failure in name resolution",
	"name or service not known",
}

// fileRefusals are the error texts of a refused file operation: Landlock
// answers EACCES or EXDEV, a protected path bound read-only EROFS, a
// pinned git directory EBUSY. EPERM ("operation not permitted") is not
// among them: in a confined command it comes from the seccomp filter,
// which names the system call itself (refusedCalls), or from the
// capabilities it lacks, and a guess from the line would call a mknod or
// a chroot a read or a write.
var fileRefusals = []string{"permission denied", "invalid cross-device link",
	"read-only file system", "device or resource busy"}

// memoryRefusals are what programs print when an allocation failed
// (Python, the C library's strerror, Go's runtime, C++, Rust, Node, Java,
// bash's xmalloc).
var memoryRefusals = []string{"memoryerror", "cannot allocate memory", "out of memory", "bad_alloc",
	"memory allocation of", "cannot allocate"}

// detectDenials finds, in the output of a command confined to sets, the
// lines that show an operation the sandbox refused, and judges each on
// the real file system: a path outside what the sandbox grants, that the
// file permissions alone would have let the command read (or write), was
// refused by the sandbox. A refusal the file permissions explain is not
// listed. dir is the command's working directory.
func detectDenials(o *Output, sets *confinedSets, dir string) []SandboxDenial {
	if sets == nil || o == nil {
		return nil
	}
	var out []SandboxDenial
	memory := false
	text := o.Head
	if o.Tail != "" {
		text += "\n" + o.Tail
	}
	for _, line := range strings.Split(text, "\n") {
		if len(out) >= maxDenials {
			break
		}
		if len(line) > 4096 {
			continue
		}
		low := strings.ToLower(line)
		if sets.memoryMB > 0 && !memory && containsAny(low, memoryRefusals) {
			// One is enough: the limit is what the result names.
			memory = true
			out = append(out, SandboxDenial{Op: "memory", Path: memoryLimitPath(sets.memoryMB),
				Line: line + " (an allocation failed under the sandbox's memory limit, " + memoryLimitPath(sets.memoryMB) + ")"})
			continue
		}
		if !sets.network {
			if containsAny(low, networkRefusals) {
				out = append(out, SandboxDenial{Op: "network", Line: line})
				continue
			}
		}
		if !containsAny(low, fileRefusals) {
			continue
		}
		for _, p := range pathCandidates(line) {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			p = filepath.Clean(p)
			if op := judgeRefusal(p, line, sets); op != "" {
				out = append(out, SandboxDenial{Op: op, Path: p, Line: line})
				break
			}
		}
	}
	return out
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// pathCandidates returns the quoted words of an error line ('x', ‘x’,
// "x", `x') and the fields between ": " separators ("cat: FILE:
// Permission denied").
func pathCandidates(line string) []string {
	var out []string
	for _, q := range [][2]string{{"'", "'"}, {"‘", "’"}, {"\"", "\""}, {"`", "'"}} {
		rest := line
		for {
			i := strings.Index(rest, q[0])
			if i < 0 {
				break
			}
			rest = rest[i+len(q[0]):]
			j := strings.Index(rest, q[1])
			if j < 0 {
				break
			}
			if w := rest[:j]; w != "" {
				out = append(out, w)
			}
			rest = rest[j+len(q[1]):]
		}
	}
	parts := strings.Split(line, ": ")
	for i := 0; i < len(parts)-1; i++ {
		w := strings.TrimSpace(parts[i])
		if w != "" && i > 0 && (!strings.Contains(w, " ") || strings.HasPrefix(w, "/")) {
			out = append(out, w)
		}
		// Go's *PathError reads "op /path: error" ("open /x/y: permission
		// denied"), after any prefix the program adds.
		if op, p, ok := strings.Cut(w, " /"); ok && op != "" && !strings.Contains(op, " ") && !strings.Contains(p, " ") {
			out = append(out, "/"+p)
			continue
		}
		// Words, then a relative path: dash's "cannot create
		// .git/hooks/x", git's "could not lock config file .git/config".
		if k := strings.LastIndexByte(w, ' '); i > 0 && k > 0 {
			if last := w[k+1:]; (strings.Contains(last, "/") || strings.HasPrefix(last, ".")) && !strings.ContainsAny(last, "'\"`‘’") {
				out = append(out, last)
			}
		}
	}
	return out
}

// writeOnlyRefusals are the error texts of a refusal only a write gets.
var writeOnlyRefusals = []string{"read-only file system", "device or resource busy", "invalid cross-device link"}

// writeWords mark an error line as the report of a write.
var writeWords = []string{"touch", "creat", "remov", "writ", "mkdir", "director", "move", "renam", "delet", "link", "truncat", "redirect"}

// judgeRefusal says which operation on p the sandbox refused ("write",
// "read"), or "" when the sandbox grants what the line reports or the
// file permissions alone would have refused it. line is the error line.
func judgeRefusal(p, line string, sets *confinedSets) string {
	_, err := os.Lstat(p)
	exists := err == nil
	// EROFS, EBUSY and EXDEV answer only a write (a protected path bound
	// read-only, a pinned git directory, a rename or link across).
	write := !exists || containsAny(strings.ToLower(line), writeWords) || containsAny(strings.ToLower(line), writeOnlyRefusals)
	if exists && !write {
		// A read the file permissions allow here (unconfined) was refused
		// there: by Landlock outside the readable dirs, or by the dropped
		// capabilities (another process's /proc files).
		if syscall.Access(p, 4) == nil { // R_OK
			return "read"
		}
		return ""
	}
	if sets.writable(p) && !sets.isProtected(p) {
		return ""
	}
	if sets.isProtected(p) {
		return "write"
	}
	target := p
	if !exists {
		target = filepath.Dir(p)
	}
	if syscall.Access(target, 2) == nil { // W_OK
		return "write"
	}
	return ""
}

// unprotectHint follows the names of the protected paths a command was
// refused: how a person widens one call (Confinement.Unprotect).
const unprotectHint = "[sandbox: protected paths are what other programs run or obey later; a person can let one call write one: shellgate run --unprotect PATH]"

// maxProtectedMarkers bounds the protected paths named in the markers
// that the command was refused (each one undone is named).
const maxProtectedMarkers = 8

// addMarkers appends one SandboxMarker line per kind of refused operation
// to the output view, in the order write (then one per protected path
// the sandbox undid or refused, by name, and unprotectHint), read,
// network, then one per refused system call, one when the process limit
// refused forks and one when the memory limit refused an allocation.
// protectedOf names the protected path a refused write was of ("" for
// none; nil: none known).
func addMarkers(o *Output, denied []SandboxDenial, m SandboxMode, protectedOf func(string) string) {
	for _, op := range []string{"write", "read", "network", "syscall", "fork", "memory", "unchecked"} {
		found := false
		for _, d := range denied {
			if d.Op == op || op == "fork" && d.Op == "process" && d.Path == "pids.max" {
				found = true
				break
			}
		}
		if !found {
			continue
		}
		line := SandboxMarker(op, m) + "\n"
		switch op {
		case "fork":
			line = SandboxMarker("fork (the process limit)", m) + "\n"
		case "write":
			// Each protected path made or replaced, or refused, by name.
			var named []string
			for _, d := range denied {
				p := ""
				switch {
				case d.Op != op:
				case d.Undone:
					p = d.Path
				case protectedOf != nil:
					p = protectedOf(d.Path)
				}
				if p != "" && !slices.Contains(named, p) && (d.Undone || len(named) < maxProtectedMarkers) {
					named = append(named, p)
					line += SandboxMarker("write of the protected "+p, m) + "\n"
				}
			}
			if len(named) > 0 {
				line += unprotectHint + "\n"
			}
		case "syscall":
			// One line per system call: what was refused, by name.
			line = ""
			for _, d := range denied {
				if d.Op == op {
					line += SandboxMarker("syscall "+d.Path, m) + "\n"
				}
			}
		case "unchecked":
			line = "[sandbox: protected names beneath the workspace were checked only within " +
				fmt.Sprintf("%d directories and %d levels", maxNestedDirs, maxNestedDepth) + "]\n"
		case "memory":
			for _, d := range denied {
				if d.Op == op {
					line = SandboxMarker("allocation over the "+d.Path, m) + "\n"
					break
				}
			}
		}
		if o.Truncated() {
			if o.Tail != "" && !strings.HasSuffix(o.Tail, "\n") {
				o.Tail += "\n"
			}
			o.Tail += line
		} else {
			if o.Head != "" && !strings.HasSuffix(o.Head, "\n") {
				o.Head += "\n"
			}
			o.Head += line
		}
	}
}

// etcSecrets are the files under /etc (and patterns of them) that hold
// credentials: a confined command reads the rest of /etc, not these
// (root would read /etc/shadow by its file permissions alone).
var etcSecrets = []string{
	"shadow", "shadow-", "gshadow", "gshadow-", ".pwd.lock", "sudoers", "sudoers.d",
	"ssh/ssh_host_*_key", "ssl/private", "security/opasswd", "krb5.keytab",
	"NetworkManager/system-connections", "wireguard", "ppp/chap-secrets", "ppp/pap-secrets",
	"libvirt/secrets", "openvpn", "ipsec.secrets", "letsencrypt/archive", "letsencrypt/keys",
	"docker/key.json", "rancher", "kubernetes/pki", "pki/private",
}

// maxGrantEntries bounds the entries grantExcept lists.
const maxGrantEntries = 1024

// etcGrants keeps grantExcept's answer for /etc while the directories
// it listed are unchanged (their modification times), so that a command
// does not pay for listing /etc.
var etcGrants grantCache

type grantCache struct {
	mu          sync.Mutex
	dir         string
	stamps      map[string]time.Time
	dirs, files []string
	ok          bool
	// gen counts the listings; links are the granted entries that are
	// symlinks (what they name may change while the directory does not).
	gen   uint64
	links []string
	// watched watches the stamped directories (nil: not watched): while
	// nothing changed in them, the listing stands without a stat.
	watched *pathWatched
}

func (c *grantCache) get(dir string) (dirs, files []string, ok bool) {
	dirs, files, ok, _, _ = c.getStamped(dir)
	return dirs, files, ok
}

// getStamped is get, with the listing's generation (it changes whenever
// dir is listed again) and the granted entries that are symlinks.
func (c *grantCache) getStamped(dir string) (dirs, files []string, ok bool, gen uint64, links []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dir == dir && c.stamps != nil {
		if knownPaths.unchanged(c.watched) {
			return c.dirs, c.files, c.ok, c.gen, c.links
		}
		fresh := true
		for d, t := range c.stamps {
			if fi, err := os.Stat(d); err != nil || !fi.ModTime().Equal(t) {
				fresh = false
				break
			}
		}
		if fresh {
			return c.dirs, c.files, c.ok, c.gen, c.links
		}
	}
	stamps := map[string]time.Time{}
	var watch []string
	for _, d := range append([]string{dir}, secretParents(dir, etcSecrets)...) {
		if fi, err := os.Stat(d); err == nil {
			stamps[d] = fi.ModTime()
			watch = append(watch, d)
		}
	}
	// Watched before it is listed: a change while it is listed is seen.
	c.watched = knownPaths.watchDirs(watch)
	c.dirs, c.files, c.ok = grantExcept(dir, etcSecrets)
	c.dir, c.stamps = dir, stamps
	c.gen++
	c.links = nil
	for _, p := range append(append([]string(nil), c.dirs...), c.files...) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 && !namesGrantedSystemFile(p) {
			c.links = append(c.links, p)
		}
	}
	return c.dirs, c.files, c.ok, c.gen, c.links
}

// secretParents are the directories under dir that grantExcept lists
// because a secret lies in them.
func secretParents(dir string, secrets []string) []string {
	var out []string
	for _, s := range secrets {
		if i := strings.LastIndex(s, "/"); i > 0 {
			if m, _ := filepath.Glob(filepath.Join(dir, s[:i])); len(m) > 0 {
				out = append(out, m...)
			}
		}
	}
	return out
}

// grantExcept splits dir into what a confined command may read: every
// entry but the secrets (paths relative to dir, with globs) and, for a
// directory that holds one deeper down, its entries the same way. dirs
// and files are the entries to grant; ok is false when dir cannot be
// listed (grant nothing then).
func grantExcept(dir string, secrets []string) (dirs, files []string, ok bool) {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) > maxGrantEntries {
		return nil, nil, false
	}
	for _, e := range ents {
		name, secret, deeper := e.Name(), false, []string(nil)
		for _, s := range secrets {
			first, rest, nested := strings.Cut(s, "/")
			if m, _ := filepath.Match(first, name); !m {
				continue
			}
			if nested {
				deeper = append(deeper, rest)
			} else {
				secret = true
			}
		}
		p := filepath.Join(dir, name)
		switch {
		case secret:
		case len(deeper) > 0:
			if fi, err := os.Stat(p); err == nil && fi.IsDir() {
				d, f, ok := grantExcept(p, deeper)
				if ok {
					dirs, files = append(dirs, d...), append(files, f...)
				}
			}
		default:
			fi, err := os.Stat(p) // a symlink grants its target
			switch {
			case err != nil:
			case fi.IsDir():
				dirs = append(dirs, p)
			case fi.Mode().IsRegular() || fi.Mode()&os.ModeDevice == 0:
				files = append(files, p)
			}
		}
	}
	return dirs, files, true
}
