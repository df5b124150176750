//go:build linux

package sandboxes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A sandbox under comparison: how a bash command line runs in it, in its
// workspace-write mode, with the workspace as the working directory.
type sandbox struct {
	// name is the column's title.
	name string
	// argv returns the program and arguments that run command in ws.
	argv func(ws, command string) []string
	// env is added to the run's environment.
	env []string
	// shellgate: stdout is `shellgate run --json`'s result.
	shellgate bool
	// unavailable says why the sandbox cannot run here ("" when it can).
	unavailable string
	// startFailed, when set, says whether an output is the wrapper's own
	// failure to start (not the command's): such a run is tried again.
	startFailed func(out string) bool
}

// outcome is what one run did.
type outcome struct {
	// ran: the command started in the sandbox (for shellgate: the gate ran
	// it; a refusal before it ran is not ran).
	ran bool
	// exit is the command's exit status when it ran.
	exit int
	// out is stdout and stderr (shellgate: the captured output).
	out string
	// refused says why it did not run (a wrapper that could not start, a
	// policy that denied it).
	refused string
	// denied are the denials shellgate reported ("write /path").
	denied []string
	// isolation, mechanism and abi are shellgate's sandbox report.
	isolation []string
	mechanism string
	abi       int
	// restarts are the wrapper's own start failures before this run.
	restarts []string
	dur      time.Duration
	// cpu is the user and system time of the wrapper and the processes
	// it waited for.
	cpu time.Duration
}

// sgResult is the part of `shellgate run --json`'s result the harness
// reads (its own type, so that the move of gate's runner into another
// package does not break the harness).
type sgResult struct {
	Status  string `json:"status"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Run     *struct {
		ExitCode int `json:"exit_code"`
	} `json:"run"`
	Output *struct {
		Head string `json:"head"`
		Tail string `json:"tail"`
	} `json:"output"`
	Sandbox *struct {
		Mechanism string   `json:"mechanism"`
		ABI       int      `json:"abi"`
		Isolation []string `json:"isolation"`
		Denied    []struct {
			Op   string `json:"op"`
			Path string `json:"path"`
		} `json:"denied"`
	} `json:"sandbox"`
}

// run runs command in sb with env, in ws, and says what happened; a run
// the wrapper itself failed to start is tried again, up to three times.
func run(sb sandbox, ws string, env []string, command string, timeout time.Duration) outcome {
	var restarts []string
	for {
		o := runOnce(sb, ws, env, command, timeout)
		if sb.startFailed == nil || !sb.startFailed(o.out) || len(restarts) == 2 {
			o.restarts = restarts
			return o
		}
		restarts = append(restarts, firstLine(o.out))
	}
}

// runOnce is one try of run.
func runOnce(sb sandbox, ws string, env []string, command string, timeout time.Duration) outcome {
	if sb.unavailable != "" {
		return outcome{refused: sb.unavailable}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	argv := sb.argv(ws, command)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = ws
	cmd.Env = append(append([]string{}, env...), sb.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	if sb.shellgate {
		cmd.Stderr = &stderr
	} else {
		cmd.Stderr = &stdout
	}
	start := time.Now()
	err := cmd.Run()
	o := outcome{dur: time.Since(start)}
	if ps := cmd.ProcessState; ps != nil {
		o.cpu = ps.UserTime() + ps.SystemTime()
	}
	if ctx.Err() != nil {
		return outcome{refused: "timed out after " + timeout.String(), out: stdout.String(), dur: o.dur, cpu: o.cpu}
	}
	if !sb.shellgate {
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			o.exit = ee.ExitCode()
		default:
			return outcome{refused: "did not start: " + err.Error(), dur: o.dur}
		}
		o.ran, o.out = true, stdout.String()
		return o
	}
	var res sgResult
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
		return outcome{refused: fmt.Sprintf("shellgate run: %v; no JSON result (%v): %s", err, jerr, firstLine(stderr.String()+stdout.String()))}
	}
	if res.Output != nil {
		o.out = res.Output.Head + res.Output.Tail
	}
	if res.Sandbox != nil {
		for _, d := range res.Sandbox.Denied {
			o.denied = append(o.denied, d.Op+" "+d.Path)
		}
		o.isolation, o.mechanism, o.abi = res.Sandbox.Isolation, res.Sandbox.Mechanism, res.Sandbox.ABI
	}
	if res.Run == nil {
		o.refused = strings.TrimSpace(res.Code + ": " + res.Message)
		return o
	}
	o.ran, o.exit = true, res.Run.ExitCode
	return o
}

// verdict is a cell of the table.
type verdict struct {
	kind string // worked, failed, escaped, refused, not run
	why  string
}

func (v verdict) String() string {
	s := v.kind
	if v.kind == "escaped" {
		s = "**ESCAPED**"
	}
	if v.why != "" {
		s += ": " + v.why
	}
	return s
}

// errLine matches the line of an output that says why something failed.
var errLine = regexp.MustCompile(`(?i)(denied|not permitted|read-only|permission|error|cannot|can't|no such|not found|refused|failed|fatal|invalid|unable|killed|memoryerror|errno|EPERM|EACCES|ENOSPC|not in std|\[sandbox:)`)

// why is the line of out that says best why it failed, shortened, with
// the run's directories named $WS and $HOME.
func why(out string, dirs map[string]string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	pick := ""
	for _, l := range lines {
		if errLine.MatchString(l) && !strings.HasPrefix(l, "[sandbox:") {
			pick = l
			break
		}
	}
	if pick == "" && len(lines) > 0 {
		pick = lines[len(lines)-1]
	}
	for dir, name := range dirs {
		if dir != "" {
			pick = strings.ReplaceAll(pick, dir, name)
		}
	}
	return short(pick)
}

// short makes s one table cell: one line, at most 110 characters, with |
// escaped.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 110 {
		s = string(r[:107]) + "…"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// marked says whether a failed run's output carries a visible denial:
// shellgate's [sandbox: …] marker or its denial list.
func marked(o outcome, dirs map[string]string) string {
	if len(o.denied) > 0 {
		var ds []string
		for _, d := range o.denied {
			for dir, name := range dirs {
				if dir != "" {
					d = strings.ReplaceAll(d, dir, name)
				}
			}
			ds = append(ds, strings.TrimSpace(d))
		}
		return " · " + short("shellgate reported: "+strings.Join(ds, "; "))
	}
	if strings.Contains(o.out, "[sandbox:") {
		return " · [sandbox:] marker"
	}
	return ""
}

// restartNote says how often the wrapper failed to start first.
func restartNote(o outcome) string {
	if len(o.restarts) == 0 {
		return ""
	}
	return fmt.Sprintf(" (the wrapper failed to start %d time(s) first: %s)", len(o.restarts), short(o.restarts[0]))
}

// taskVerdict judges a task's run: it worked when it exited 0.
func taskVerdict(o outcome, dirs map[string]string) verdict {
	v := taskVerdict1(o, dirs)
	v.why = strings.TrimSpace(v.why + restartNote(o))
	return v
}

func taskVerdict1(o outcome, dirs map[string]string) verdict {
	switch {
	case !o.ran:
		return verdict{"not run", short(o.refused)}
	case o.exit == 0:
		return verdict{"worked", ""}
	default:
		return verdict{"failed", fmt.Sprintf("exit %d, %s%s", o.exit, why(o.out, dirs), marked(o, dirs))}
	}
}

// escapeVerdict judges an escape's run by what the check saw on the real
// system after it.
// held, when not "", says what the check saw when it did not happen
// (instead of the output's line).
func escapeVerdict(o outcome, escaped bool, what, held string, dirs map[string]string) verdict {
	v := escapeVerdict1(o, escaped, what, held, dirs)
	v.why = strings.TrimSpace(v.why + restartNote(o))
	return v
}

func escapeVerdict1(o outcome, escaped bool, what, held string, dirs map[string]string) verdict {
	switch {
	case escaped:
		return verdict{"escaped", what}
	case !o.ran:
		return verdict{"not run", short(o.refused)}
	case held != "":
		return verdict{"refused", held + marked(o, dirs)}
	default:
		return verdict{"refused", why(o.out, dirs) + marked(o, dirs)}
	}
}

// versionOf is the first line a program prints with args, or why not.
func versionOf(argv ...string) string {
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("unknown (%v)", err)
	}
	return firstLine(string(out))
}

// moduleRoot is the repository's root (two levels above this package).
func moduleRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

// sandboxes builds shellgate from this checkout and finds Codex and srt;
// a sandbox that cannot run here says why in its column.
func sandboxes(t *testing.T, base string) (all []sandbox, versions map[string]string) {
	t.Helper()
	versions = map[string]string{}
	root := moduleRoot(t)
	agents := os.Getenv("SHELLGATE_AGENTS")
	if agents == "" {
		agents = "/opt/shellgate-agents"
	}
	bin := filepath.Join(base, "bin")

	all = append(all, sandbox{name: "unconfined", argv: func(_, c string) []string { return []string{"bash", "-c", c} }})

	sg := filepath.Join(bin, "shellgate")
	build := exec.Command("go", "build", "-o", sg, "./cmd/shellgate")
	build.Dir = root
	sgBox := sandbox{name: "shellgate", shellgate: true, argv: func(ws, c string) []string {
		return []string{sg, "run", "--yes", "--json", "--sandbox", "workspace-write", "--timeout", "300000", "--cwd", ws, "--", c}
	}}
	if out, err := build.CombinedOutput(); err != nil {
		sgBox.unavailable = fmt.Sprintf("go build ./cmd/shellgate: %v: %s", err, firstLine(string(out)))
	}
	commit := strings.TrimSpace(versionOf("git", "-C", root, "rev-parse", "--short", "HEAD"))
	if st, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output(); len(st) > 0 {
		commit += " (with uncommitted changes)"
	}
	versions["shellgate"] = "`shellgate run` built from commit " + commit
	all = append(all, sgBox)

	// Codex: the native binary the npm package's node shim execs, run
	// directly (the shim's node start-up is not the sandbox's cost), with
	// a CODEX_HOME of its own outside /tmp (codex refuses to put its
	// helper links under a temporary directory).
	codexBox := sandbox{name: "codex"}
	codexRoot := filepath.Join(agents, "node_modules", "@openai", "codex")
	codex := filepath.Join(agents, "node_modules", "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex")
	if runtime.GOARCH == "arm64" {
		codex = filepath.Join(agents, "node_modules", "@openai", "codex-linux-arm64", "vendor", "aarch64-unknown-linux-musl", "bin", "codex")
	}
	if _, err := os.Stat(codex); err != nil {
		codexBox.unavailable = fmt.Sprintf("codex is not installed (%v)", err)
		versions["codex"] = "not installed"
	} else {
		cache, _ := os.UserCacheDir()
		codexHome := filepath.Join(cache, "shellgate-compare", "codex-home")
		os.MkdirAll(codexHome, 0o700)
		codexBox.env = []string{"CODEX_HOME=" + codexHome, "CODEX_MANAGED_PACKAGE_ROOT=" + codexRoot, "CODEX_MANAGED_BY_NPM=1"}
		codexBox.argv = func(ws, c string) []string {
			// The working directory is the workspace (cmd.Dir): codex's
			// -C needs a --permission-profile.
			return []string{codex, "sandbox", "-c", `sandbox_mode="workspace-write"`, "--", "bash", "-c", c}
		}
		versions["codex"] = versionOf(codex, "--version") + " (`codex sandbox -c sandbox_mode=\"workspace-write\"`; its own bubblewrap: " +
			versionOf(filepath.Join(filepath.Dir(filepath.Dir(codex)), "codex-resources", "bwrap"), "--version") + ")"
	}
	all = append(all, codexBox)

	// srt with the workspace writable, as its README's example settings.
	srtBox := sandbox{name: "srt"}
	srt := filepath.Join(agents, "node_modules", ".bin", "srt")
	if _, err := os.Stat(srt); err != nil {
		srtBox.unavailable = fmt.Sprintf("srt (npm @anthropic-ai/sandbox-runtime) is not installed (%v)", err)
		versions["srt"] = "not installed"
	} else {
		settings := filepath.Join(base, "srt-settings.json")
		if err := os.WriteFile(settings, []byte(srtSettings), 0o644); err != nil {
			t.Fatal(err)
		}
		srtBox.argv = func(_, c string) []string { return []string{srt, "--settings", settings, "-c", c} }
		// srt looks its dependencies up with `which` under a 1 s timeout;
		// on a loaded machine that fails, and srt says "Sandbox
		// dependencies not available: socat not installed".
		srtBox.startFailed = func(out string) bool { return strings.Contains(out, "Sandbox dependencies not available") }
		// srt points TMPDIR at /tmp/claude, writable in its sandbox, but
		// does not make it: without it the Go tasks fail with "go:
		// creating work dir: stat /tmp/claude: no such file or
		// directory". The harness makes it, and removes it after when it
		// was not there before.
		if _, err := os.Stat(srtTmp); errors.Is(err, os.ErrNotExist) {
			if err := os.Mkdir(srtTmp, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { removeAll(srtTmp) })
			versions["srt-tmp"] = srtTmp + " (srt's TMPDIR) was made by the harness: srt run alone does not make it, and without it the Go tasks fail with \"stat /tmp/claude: no such file or directory\""
		} else {
			versions["srt-tmp"] = srtTmp + " (srt's TMPDIR) was there before the run"
		}
		versions["srt"] = versionOf(srt, "--version") + " (`srt --settings F -c CMD`, F: `" + srtSettings + "`)"
	}
	all = append(all, srtBox)
	versions["bubblewrap"] = versionOf("bwrap", "--version") + " (Debian's, used by srt)"
	versions["node"] = versionOf("node", "--version")
	versions["kernel"] = versionOf("uname", "-srm")
	versions["go"] = versionOf("go", "version")
	versions["user"] = versionOf("id")
	return all, versions
}

// srtTmp is the TMPDIR srt gives the command.
const srtTmp = "/tmp/claude"

// srtSettings makes the workspace (srt's working directory) writable and
// allows no network, as srt's README shows.
const srtSettings = `{"filesystem":{"denyRead":[],"allowWrite":["."],"denyWrite":[]},"network":{"allowedDomains":[],"deniedDomains":[]}}`

// probe runs `echo probe` in each sandbox: one that cannot run here is
// marked unavailable with the error (so every cell of its column says so).
func probe(t *testing.T, all []sandbox, base string, versions map[string]string) {
	t.Helper()
	ws := filepath.Join(base, "probe")
	os.MkdirAll(ws, 0o755)
	for i, sb := range all {
		if sb.unavailable != "" {
			continue
		}
		o := run(sb, ws, os.Environ(), "echo probe", 2*time.Minute)
		switch {
		case !o.ran:
			all[i].unavailable = "cannot run here: " + short(o.refused)
		case o.exit != 0 || !strings.Contains(o.out, "probe"):
			all[i].unavailable = fmt.Sprintf("cannot run here: exit %d: %s", o.exit, short(o.out))
		}
		if sb.shellgate && o.ran {
			versions["landlock"] = fmt.Sprintf("shellgate's sandbox: %s ABI %d, isolation %s", o.mechanism, o.abi, strings.Join(o.isolation, ", "))
		}
		t.Logf("probe %s: %+v", sb.name, o)
	}
}

// TestCompare runs issue 26's everyday tasks and escapes under no
// sandbox, shellgate, Codex's sandbox and srt, measures each sandbox's
// cost, and prints the markdown table (SHELLGATE_COMPARE_OUT=FILE: also
// writes it into FILE between its markers).
func TestCompare(t *testing.T) {
	if os.Getenv("SHELLGATE_COMPARE") == "" {
		t.Skip("a measurement, not a gate: set SHELLGATE_COMPARE=1 to compare the sandboxes (minutes)")
	}
	parent := os.Getenv("SHELLGATE_COMPARE_DIR")
	if parent == "" {
		// Not under /tmp: Codex's workspace-write makes /tmp writable,
		// and a developer's checkout is not there.
		parent = "/var/tmp"
	}
	base, err := os.MkdirTemp(parent, "shellgate-compare-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { removeAll(base) })
	hostname, _ := os.Hostname()
	t.Cleanup(func() {
		if h, _ := os.Hostname(); h != hostname {
			t.Logf("restoring the host name %q (was changed to %q)", hostname, h)
			syscall.Sethostname([]byte(hostname))
		}
	})

	all, versions := sandboxes(t, base)
	probe(t, all, base, versions)
	date := time.Now().UTC().Format("2006-01-02 15:04 UTC")

	tasks := compareTasks(t, all, base)
	escapes := compareEscapes(t, all, base, hostname)
	over := compareOverhead(t, all, base, tasks)

	var md strings.Builder
	writeMarkdown(&md, date, versions, all, tasks, escapes, over)
	fmt.Println(md.String())
	if out := os.Getenv("SHELLGATE_COMPARE_OUT"); out != "" {
		if err := writeBetweenMarkers(out, md.String()); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", out)
	}
}

// removeAll removes dir, first making everything in it writable (Go's
// module cache and read-only files a run left).
func removeAll(dir string) {
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			os.Chmod(p, 0o755)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// row is one line of a table: a name and a verdict per sandbox.
type row struct {
	name  string
	cells []verdict
}

const (
	beginMarker = "<!-- TestCompare output: begin (regenerated by the harness; edit outside the markers) -->"
	endMarker   = "<!-- TestCompare output: end -->"
)

// writeBetweenMarkers puts body between the markers of file, or writes
// the file anew when it has none.
func writeBetweenMarkers(file, body string) error {
	block := beginMarker + "\n\n" + body + "\n" + endMarker + "\n"
	old, err := os.ReadFile(file)
	if err == nil {
		s := string(old)
		i, j := strings.Index(s, beginMarker), strings.Index(s, endMarker)
		if i >= 0 && j > i {
			return os.WriteFile(file, []byte(s[:i]+block+strings.TrimPrefix(s[j+len(endMarker):], "\n")), 0o644)
		}
	}
	return os.WriteFile(file, []byte("# Sandboxes side by side\n\n"+block), 0o644)
}
