//go:build linux

// Package asuser runs a test as an unprivileged user, the way developers
// run shellgate: a test that calls Run as root (CI runs as root) is
// re-executed from a copy of its own test binary under a fresh uid and
// gid that own nothing else on the machine, with a HOME and TMPDIR of
// their own; the re-executed test's output and verdict become the
// test's. Run as anyone else, the test simply runs as that user.
//
// It is test support: Run takes a *testing.T.
package asuser

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv marks the re-executed test process.
const childEnv = "SHELLGATE_ASUSER_CHILD"

// User is the unprivileged user a test runs as, while Run prepares it.
type User struct {
	// UID and GID are the user's (fresh: no file or process had them).
	UID, GID int
	// Dir is the user's directory (theirs): Home and the temp dir are in it.
	Dir string
	// Home is the user's home directory (theirs).
	Home string
	// Env is the environment the test runs with (HOME, TMPDIR, USER and
	// PATH set); a setup may add to it.
	Env []string
}

// Command returns a command that runs as the user, in dir, with u.Env.
func (u *User) Command(dir, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, u.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID), Groups: []uint32{}}}
	return cmd
}

// Run, in a test process that runs as root, re-executes the calling test
// (t.Name(), a subtest included) as a fresh unprivileged user and reports
// true: the caller returns, its verdict is the re-executed test's. setup,
// when not nil, runs first (as root) to give the user what the test needs
// in their home (it must leave what it makes owned by the user; see
// User.Command and Chown). Anywhere else (not root, or the re-executed
// test itself) Run reports false and the test goes on as this user.
func Run(t *testing.T, setup func(t *testing.T, u *User)) bool {
	t.Helper()
	if os.Getuid() != 0 || os.Getenv(childEnv) == "1" {
		return false
	}
	var run []string
	for _, part := range strings.Split(t.Name(), "/") {
		run = append(run, "^"+regexp.QuoteMeta(part)+"$")
	}
	reexec(t, setup, "-test.run="+strings.Join(run, "/"))
	return true
}

// RunTests, in a test process that runs as root, runs the tests of this
// test binary that the -test.run pattern run matches, but the calling
// test and the top-level tests named in skip, as a fresh unprivileged
// user, as Run runs one; their verdict is the calling test's. Anywhere
// else it skips the calling test: the tests run as this user anyway.
func RunTests(t *testing.T, run string, skip []string, setup func(t *testing.T, u *User)) {
	t.Helper()
	if os.Getuid() != 0 || os.Getenv(childEnv) == "1" {
		t.Skip("not root: the tests run as this user anyway")
	}
	skips := "^(" + regexp.QuoteMeta(t.Name())
	for _, n := range skip {
		skips += "|" + regexp.QuoteMeta(n)
	}
	reexec(t, setup, "-test.run="+run, "-test.skip="+skips+")$")
}

// reexec runs this test binary with args as a fresh user and makes its
// verdict t's.
func reexec(t *testing.T, setup func(t *testing.T, u *User), args ...string) {
	t.Helper()
	u := newUser(t)
	if setup != nil {
		setup(t, u)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(u.Dir, "bin", filepath.Base(exe))
	if err := copyFile(exe, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := u.Command(childDir(u), bin, append(args, "-test.v", "-test.count=1", "-test.timeout=20m")...)
	cmd.Env = append(append([]string{}, u.Env...), childEnv+"=1")
	cmd.SysProcAttr.Setpgid = true
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the test as uid %d: %v", u.UID, err)
	}
	t.Logf("re-executed as uid %d, gid %d, HOME %s", u.UID, u.GID, u.Home)
	var all strings.Builder
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		all.WriteString(line + "\n")
		t.Log("| " + line)
	}
	_, _ = io.Copy(io.Discard, out)
	err = cmd.Wait()
	text := all.String()
	switch {
	case strings.Contains(text, "testing: warning: no tests to run"):
		t.Fatalf("the re-executed test binary found no test for %q", args)
	case err != nil:
		t.Fatalf("the test, run as uid %d, failed: %v", u.UID, err)
	case strings.Contains(text, "--- SKIP: "+t.Name()+" "):
		t.Skipf("the test, run as uid %d, was skipped", u.UID)
	}
}

// newUser makes a fresh user's directory, home and environment; the
// user's processes are killed and the directory removed when t ends.
func newUser(t *testing.T) *User {
	t.Helper()
	id := freshID()
	dir, err := os.MkdirTemp("", "shellgate-asuser-")
	if err != nil {
		t.Fatal(err)
	}
	u := &User{UID: id, GID: id, Dir: dir, Home: filepath.Join(dir, "home")}
	t.Cleanup(func() {
		killUser(u.UID)
		os.RemoveAll(dir)
	})
	for _, d := range []string{"home", "tmp", "bin"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{dir, u.Home, filepath.Join(dir, "tmp")} {
		if err := os.Chown(d, id, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	drop := map[string]bool{"HOME": true, "USER": true, "LOGNAME": true, "TMPDIR": true, "GOCACHE": true, "GOMODCACHE": true,
		"GOPATH": true, "GOENV": true, "CARGO_HOME": true, "RUSTUP_HOME": true, "PYENV_ROOT": true, "PYENV_VERSION": true,
		"NPM_CONFIG_CACHE": true, "npm_config_cache": true, "PIP_CACHE_DIR": true, "VIRTUAL_ENV": true}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case drop[k] || strings.HasPrefix(k, "XDG_"):
		case k == "PATH":
			u.Env = append(u.Env, "PATH="+userPath(v))
		default:
			u.Env = append(u.Env, kv)
		}
	}
	u.Env = append(u.Env, "HOME="+u.Home, "TMPDIR="+filepath.Join(dir, "tmp"), "USER=shellgate-test", "LOGNAME=shellgate-test")
	return u
}

// userPath is PATH without the directories root's home holds (the user
// cannot reach them).
func userPath(p string) string {
	root, _ := os.UserHomeDir()
	var out []string
	for _, d := range filepath.SplitList(p) {
		if root != "" && root != "/" && (d == root || strings.HasPrefix(d, root+"/")) {
			continue
		}
		out = append(out, d)
	}
	return strings.Join(out, string(filepath.ListSeparator))
}

// freshID is a uid (and gid) no process has and no passwd entry names.
func freshID() int {
	base := 3_000_000 + (os.Getpid()%100_000)*10
	for id := base; ; id++ {
		if !inUse(id) {
			return id
		}
	}
}

func inUse(id int) bool {
	if b, err := os.ReadFile("/etc/passwd"); err == nil && strings.Contains(string(b), ":"+strconv.Itoa(id)+":") {
		return true
	}
	return len(processesOf(id)) > 0
}

// processesOf lists the pids of the processes whose real uid is uid.
func processesOf(uid int) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" && f[1] == strconv.Itoa(uid) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// killUser kills, by pid, every process of the fresh user (all of them
// started by the test), until none is left or a few rounds passed.
func killUser(uid int) {
	for i := 0; i < 20; i++ {
		pids := processesOf(uid)
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// childDir is the re-executed test's working directory: the test's own
// package directory when the user can reach it, else the user's.
func childDir(u *User) string {
	wd, err := os.Getwd()
	if err != nil {
		return u.Dir
	}
	for d := wd; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o005 != 0o005 {
			return u.Dir
		}
		if d == "/" {
			return wd
		}
	}
}

// Chown gives the user every file and directory under p, symlinks
// included (not what they point to); a file with more than one link (a
// hard link to someone else's file) is left alone.
func Chown(u *User, p string) error {
	return filepath.Walk(p, func(q string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && !fi.IsDir() && st.Nlink > 1 {
			return nil
		}
		return os.Lchown(q, u.UID, u.GID)
	})
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// String names the user for a log line.
func (u *User) String() string { return fmt.Sprintf("uid %d (HOME %s)", u.UID, u.Home) }
