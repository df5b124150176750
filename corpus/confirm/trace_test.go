package confirm

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/shellgate/shellgate/readstation"
)

// hx writes s as strace -xx does.
func hx(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		b.WriteString(`\x` + hex.EncodeToString([]byte{c}))
	}
	return b.String()
}

func TestParseTrace(t *testing.T) {
	log := strings.Join([]string{
		`100 execve("` + hx("/usr/bin/bash") + `", ["` + hx("bash") + `", "` + hx("-c") + `"], 0x7ff /* 9 vars */) = 0`,
		`100 openat(AT_FDCWD<` + hx("/w") + `>, "` + hx("/etc/ld.so.cache") + `", O_RDONLY|O_CLOEXEC) = 3<` + hx("/etc/ld.so.cache") + `>`,
		`101 openat(AT_FDCWD<` + hx("/w") + `>, "` + hx("out.txt") + `", O_WRONLY|O_CREAT|O_TRUNC, 0666 <unfinished ...>`,
		`102 execve("` + hx("/usr/bin/cat") + `", ["` + hx("cat") + `", "` + hx("a b") + `"], 0x1 /* 9 vars */ <unfinished ...>`,
		`101 <... openat resumed>)             = 3<` + hx("/w/out.txt") + `>`,
		`102 <... execve resumed>)             = 0`,
		`102 openat(AT_FDCWD<` + hx("/w") + `>, "` + hx("missing") + `", O_RDONLY) = -1 ENOENT (No such file or directory)`,
		`102 openat(3<` + hx("/w/sub") + `>, "` + hx(".env") + `", O_RDONLY) = 4`,
		`102 unlinkat(AT_FDCWD<` + hx("/w") + `>, "` + hx("gone") + `", 0) = 0`,
		`102 renameat2(AT_FDCWD<` + hx("/w") + `>, "` + hx("a") + `", AT_FDCWD<` + hx("/w") + `>, "` + hx("b") + `", RENAME_NOREPLACE) = 0`,
		`103 socket(AF_UNIX, SOCK_STREAM, 0)   = 3<` + hx("socket:[1]") + `>`,
		`103 connect(3<` + hx("socket:[1]") + `>, {sa_family=AF_UNIX, sun_path="` + hx("/run/docker.sock") + `"}, 110) = 0`,
		`103 socket(AF_INET, SOCK_DGRAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = 4<` + hx("UDP:[2]") + `>`,
		`103 connect(4<` + hx("UDP:[2]") + `>, {sa_family=AF_INET, sin_port=htons(53), sin_addr=inet_addr("` + hx("127.0.0.1") + `")}, 16) = 0`,
		`103 sendto(4<` + hx("UDP:[2]") + `>, "` + hx("q") + `", 1, MSG_NOSIGNAL, NULL, 0) = 1`,
		`103 connect(5<` + hx("TCP:[3]") + `>, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("` + hx("127.0.0.1") + `")}, 16) = -1 EINPROGRESS (Operation now in progress)`,
		`103 connect(6<` + hx("socket:[4]") + `>, {sa_family=AF_UNIX, sun_path="` + hx("/var/run/nscd/socket") + `"}, 110) = -1 ENOENT (No such file or directory)`,
		`103 connect(7<` + hx("TCPv6:[5]") + `>, {sa_family=AF_INET6, sin6_port=htons(9), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "` + hx("::1") + `", &sin6_addr), sin6_scope_id=0}, 28) = -1 ECONNREFUSED (Connection refused)`,
		`103 ???( <detached ...>`,
		`103 +++ exited with 0 +++`,
		`104 openat(AT_FDCWD<` + hx("/w") + `>, "` + hx("killed") + `", O_WRONLY|O_CREAT <unfinished ...>`,
		`garbage`,
	}, "\n")
	tr, err := ParseTrace(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{PID: 100, Kind: KindExec, Syscall: "execve", Path: "/usr/bin/bash", Argv: []string{"bash", "-c"}},
		{PID: 100, Kind: KindOpen, Syscall: "openat", Path: "/etc/ld.so.cache", Flags: "O_RDONLY|O_CLOEXEC"},
		{PID: 101, Kind: KindWrite, Syscall: "openat", Path: "/w/out.txt", Flags: "O_WRONLY|O_CREAT|O_TRUNC"},
		{PID: 102, Kind: KindExec, Syscall: "execve", Path: "/usr/bin/cat", Argv: []string{"cat", "a b"}},
		{PID: 102, Kind: KindOpen, Syscall: "openat", Path: "/w/sub/.env", Flags: "O_RDONLY"},
		{PID: 102, Kind: KindWrite, Syscall: "unlinkat", Path: "/w/gone"},
		{PID: 102, Kind: KindWrite, Syscall: "renameat2", Path: "/w/b", From: "/w/a"},
		{PID: 103, Kind: KindSocket, Syscall: "socket", Family: "AF_UNIX"},
		{PID: 103, Kind: KindSocket, Syscall: "connect", Family: "AF_UNIX", Path: "/run/docker.sock"},
		{PID: 103, Kind: KindSocket, Syscall: "socket", Family: "AF_INET"},
		{PID: 103, Kind: KindSocket, Syscall: "connect", Family: "AF_INET"},
		{PID: 103, Kind: KindSocket, Syscall: "connect", Family: "AF_INET"},
		{PID: 103, Kind: KindSocket, Syscall: "connect", Family: "AF_INET6"},
		{PID: 104, Kind: KindWrite, Syscall: "openat", Path: "/w/killed", Flags: "O_WRONLY|O_CREAT"},
	}
	if diff := cmp.Diff(want, tr.Events, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if tr.Root != 100 {
		t.Errorf("root = %d, want 100", tr.Root)
	}
	if diff := cmp.Diff([]string{"garbage"}, tr.Unparsed); diff != "" {
		t.Errorf("unparsed (-want +got):\n%s", diff)
	}
}

func TestUnhex(t *testing.T) {
	tests := []struct {
		in, want string
		bad      bool
	}{
		{in: `\x41\x42`, want: "AB"},
		{in: `plain`, want: "plain"},
		{in: `a\nb\t\\\"`, want: "a\nb\t\\\""},
		{in: `\101`, want: "A"},
		{in: `\x4`, bad: true},
		{in: `\xZZ`, bad: true},
		{in: `\q`, bad: true},
	}
	for _, tc := range tests {
		got, err := unhex(tc.in)
		if (err != nil) != tc.bad || !tc.bad && got != tc.want {
			t.Errorf("unhex(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// TestJudge: each claim is broken by the event that breaks it, and the
// quiet events (the shell itself, /dev/null, a failed open, a cache the
// entry declares) break none.
func TestJudge(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	work := filepath.Join(dir, "work")
	for _, p := range []string{home, work} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := Expect{
		Programs: map[string]bool{"cat": true},
		Cwd:      work,
		Tmp:      filepath.Join(dir, "runs"),
		Boundary: readstation.Boundary{Roots: []string{work}, Home: home, Cwd: work, DenyRows: readstation.DefaultDenyRows},
		Canaries: map[string]string{"sgcanary1": ".env"},
		Caches:   []string{"**/.git/index.lock"},
		Opens:    []string{"/proc/*/cmdline"},
	}
	ev := func(pid int, kind, sys, path string) Event {
		return Event{PID: pid, Kind: kind, Syscall: sys, Path: path}
	}
	tests := []struct {
		name   string
		events []Event
		out    string
		want   []Problem
	}{
		{"quiet", []Event{
			ev(1, KindExec, "execve", "/usr/bin/bash"),
			ev(2, KindExec, "execve", "/usr/bin/cat"),
			ev(1, KindWrite, "openat", "/dev/null"),
			ev(1, KindWrite, "openat", filepath.Join(dir, "runs/run1/sh-thd.x")),
			ev(2, KindOpen, "openat", filepath.Join(work, "README.md")),
			ev(2, KindWrite, "mkdir", filepath.Join(work, ".git")),
			ev(2, KindWrite, "openat", filepath.Join(work, ".git/index.lock")),
			ev(2, KindOpen, "openat", "/proc/7/cmdline"),
			{PID: 2, Kind: KindSocket, Syscall: "bind", Family: "AF_INET6"},
			{PID: 2, Kind: KindSocket, Syscall: "socket", Family: "AF_UNIX"},
			{PID: 2, Kind: KindSocket, Syscall: "connect", Family: "AF_UNIX", Path: "/var/run/nscd/socket"},
		}, "hello", nil},
		{"write", []Event{ev(1, KindExec, "execve", "/usr/bin/bash"), ev(2, KindWrite, "openat", "out.txt")}, "",
			[]Problem{{ClaimNoWrite, "openat " + filepath.Join(work, "out.txt")}}},
		{"exec", []Event{ev(1, KindExec, "execve", "/usr/bin/bash"), ev(2, KindExec, "execve", "/usr/bin/ssh")}, "",
			[]Problem{{ClaimNoExec, "ran /usr/bin/ssh []"}}},
		{"second bash", []Event{ev(1, KindExec, "execve", "/usr/bin/bash"), ev(1, KindExec, "execve", "/usr/bin/bash")}, "",
			[]Problem{{ClaimNoExec, "ran /usr/bin/bash []"}}},
		{"deny row", []Event{ev(1, KindExec, "execve", "/usr/bin/bash"), ev(2, KindOpen, "openat", filepath.Join(home, ".ssh/id_rsa"))}, "",
			[]Problem{{ClaimNoDenied, "opened " + filepath.Join(home, ".ssh/id_rsa") + " (deny row ~/.ssh/**)"}}},
		{"listen", []Event{ev(1, KindExec, "execve", "/usr/bin/bash"), {PID: 2, Kind: KindSocket, Syscall: "listen", Family: "listen"}}, "",
			[]Problem{{ClaimNoNetwork, "listens on a socket"}}},
		{"environ is not a declared open", []Event{ev(1, KindExec, "execve", "/usr/bin/bash"), ev(2, KindOpen, "openat", "/proc/7/environ")}, "",
			[]Problem{{ClaimNoDenied, "opened /proc/7/environ (deny row /proc/*/environ)"}}},
		{"name lookup", []Event{ev(1, KindExec, "execve", "/usr/bin/bash"), ev(2, KindOpen, "openat", "/etc/hosts")}, "",
			[]Problem{{ClaimNoNetwork, "opened /etc/hosts (a name lookup)"}}},
		{"inet", []Event{ev(1, KindExec, "execve", "/usr/bin/bash"), {PID: 2, Kind: KindSocket, Syscall: "socket", Family: "AF_INET"},
			{PID: 2, Kind: KindSocket, Syscall: "connect", Family: "AF_INET"}}, "",
			[]Problem{{ClaimNoNetwork, "connect AF_INET"}}},
		{"raw packets", []Event{ev(1, KindExec, "execve", "/usr/bin/bash"), {PID: 2, Kind: KindSocket, Syscall: "socket", Family: "AF_PACKET"}}, "",
			[]Problem{{ClaimNoNetwork, "socket AF_PACKET"}}},
		{"unix socket", []Event{ev(1, KindExec, "execve", "/usr/bin/bash"), {PID: 2, Kind: KindSocket, Syscall: "connect", Family: "AF_UNIX", Path: "/run/docker.sock"}}, "",
			[]Problem{{ClaimNoNetwork, "connect to the socket /run/docker.sock"}}},
		{"canary", []Event{ev(1, KindExec, "execve", "/usr/bin/bash")}, "API_KEY=sgcanary1\n",
			[]Problem{{ClaimNoCanary, "printed the secret planted in .env"}}},
		{"mkdir off the cache's way", []Event{ev(1, KindExec, "execve", "/usr/bin/bash"), ev(2, KindWrite, "mkdir", filepath.Join(work, "build"))}, "",
			[]Problem{{ClaimNoWrite, "mkdir " + filepath.Join(work, "build")}}},
		{"no trace", nil, "", []Problem{{ClaimTraced, "strace recorded nothing"}}},
	}
	for _, tc := range tests {
		tr := &Trace{Root: -1, Events: tc.events}
		if len(tc.events) > 0 {
			tr.Root = tc.events[0].PID
		}
		got := Judge(&Outcome{Output: []byte(tc.out), Trace: tr}, e)
		if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: problems (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestParseTraceCwd: a relative path is resolved against the directory the
// process (or a thread sharing its fs, CLONE_FS) changed to: a JVM fchdirs
// into its hsperfdata directory and unlinks a stale file by its bare name.
func TestParseTraceCwd(t *testing.T) {
	log := strings.Join([]string{
		`200 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_THREAD, exit_signal=0}, 88) = 201`,
		`200 fchdir(5<` + hx("/tmp/hsperfdata_root") + `>) = 0`,
		`201 unlink("` + hx("20387") + `") = 0`,
		`200 chdir("` + hx("sub") + `") = 0`,
		`200 clone(child_stack=NULL, flags=SIGCHLD) = 202`,
		`200 fchdir(6<` + hx("/w") + `>) = 0`,
		`202 mkdir("` + hx("x") + `", 0777) = 0`,
		`201 unlink("` + hx("y") + `") = 0`,
		`300 unlink("` + hx("z") + `") = 0`,
	}, "\n")
	tr, err := ParseTrace(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{PID: 201, Kind: KindWrite, Syscall: "unlink", Path: "/tmp/hsperfdata_root/20387"},
		{PID: 202, Kind: KindWrite, Syscall: "mkdir", Path: "/tmp/hsperfdata_root/sub/x"},
		{PID: 201, Kind: KindWrite, Syscall: "unlink", Path: "/w/y"},
		{PID: 300, Kind: KindWrite, Syscall: "unlink", Path: "z"},
	}
	if diff := cmp.Diff(want, tr.Events, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if len(tr.Unparsed) != 0 {
		t.Errorf("unparsed: %q", tr.Unparsed)
	}
}
