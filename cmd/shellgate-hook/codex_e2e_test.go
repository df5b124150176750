package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/internal/testenv"
)

// The real Codex CLI (npm @openai/codex, installed by .ci/run under
// $SHELLGATE_AGENTS) runs headless (`codex exec`) against a model server
// this test starts on 127.0.0.1, which answers each request with a scripted
// exec_command call, in a temporary HOME and CODEX_HOME. The hook is
// installed by the real `shellgate install codex`, and runs the real
// shellgate-hook and shellgate binaries built here. What ran is read from
// marker files and from what reaches the model server. Codex runs with
// approval_policy = "never" and --sandbox danger-full-access, so that only
// the hook decides; any connection beyond 127.0.0.1 goes to a proxy that
// refuses it and fails the test.

// codexRequireTool ends the test when an external tool it needs is missing
// (testenv.Missing: skipped on a developer's machine, a failure in CI).
func codexRequireTool(tb testing.TB, path, install string) {
	tb.Helper()
	if _, err := os.Stat(path); err != nil {
		testenv.Missing(tb, "%s is missing (%s): %v", path, install, err)
	}
}

// codexBin is the Codex CLI that .ci/run installs.
func codexBin(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("SHELLGATE_AGENTS")
	if dir == "" {
		dir = "/opt/shellgate-agents"
	}
	p := filepath.Join(dir, "node_modules", ".bin", "codex")
	codexRequireTool(tb, p, `npm install --prefix "$SHELLGATE_AGENTS" @openai/codex`)
	if _, err := exec.LookPath("node"); err != nil {
		codexRequireTool(tb, "node", "the Codex CLI's launcher needs node")
	}
	return p
}

// codexModelServer is a Responses API server (wire_api = "responses", SSE) that
// answers a turn's first request with a call of exec_command for cmd, and
// the next with a final message.
type codexModelServer struct {
	srv *httptest.Server
	mu  sync.Mutex
	cmd string
	// bodies are the raw request bodies of this run; outputs the
	// function_call_output texts that came back.
	bodies     []string
	outputs    []string
	unexpected []string
}

func newCodexModelServer(tb testing.TB) *codexModelServer {
	m := &codexModelServer{}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	tb.Cleanup(m.srv.Close)
	return m
}

// reset starts a new run that will call cmd.
func (m *codexModelServer) reset(cmd string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cmd, m.bodies, m.outputs = cmd, nil, nil
}

func (m *codexModelServer) serve(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/responses" || err != nil || r.Header.Get("Content-Encoding") != "" && r.Header.Get("Content-Encoding") != "gzip" {
		m.unexpected = append(m.unexpected, fmt.Sprintf("%s %s (%s) %v", r.Method, r.URL.Path, r.Header.Get("Content-Encoding"), err))
		http.NotFound(w, r)
		return
	}
	m.bodies = append(m.bodies, string(data))
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(data, &req); err != nil {
		m.unexpected = append(m.unexpected, "request body is not JSON: "+err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	calls := 0
	for _, it := range req.Input {
		if it.Type == "function_call_output" {
			calls++
			var s string
			if json.Unmarshal(it.Output, &s) != nil {
				s = string(it.Output)
			}
			m.outputs = append(m.outputs, s)
		}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
	}
	id := fmt.Sprintf("resp_%d", len(m.bodies))
	event(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	if calls == 0 {
		args, _ := json.Marshal(map[string]any{"cmd": m.cmd})
		event(map[string]any{"type": "response.output_item.done", "item": map[string]any{
			"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "exec_command", "arguments": string(args),
		}})
	} else {
		event(map[string]any{"type": "response.output_item.done", "item": map[string]any{
			"type": "message", "role": "assistant", "id": "msg_1",
			"content": []any{map[string]any{"type": "output_text", "text": "done"}},
		}})
	}
	event(map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "usage": map[string]any{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
	}})
}

// result returns what came back to the model for the call, and every request
// body of the run.
func (m *codexModelServer) result() (output string, bodies string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.outputs) > 0 {
		output = m.outputs[len(m.outputs)-1]
	}
	return output, strings.Join(m.bodies, "\n")
}

// codexRefusingProxy stands in for the network: Codex's HTTP(S)_PROXY points at
// it, it records the first line of every connection (CONNECT host:443) and
// refuses it.
type codexRefusingProxy struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []string
}

func newCodexRefusingProxy(tb testing.TB) *codexRefusingProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &codexRefusingProxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			p.mu.Lock()
			p.seen = append(p.seen, strings.TrimSpace(line))
			p.mu.Unlock()
			io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			c.Close()
		}
	}()
	tb.Cleanup(func() { ln.Close() })
	return p
}

func (p *codexRefusingProxy) attempts() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// codexEnv is one Codex installation in a temporary home.
type codexEnv struct {
	codex, full, thin     string
	home, codexHome, proj string
	env                   []string
	model                 *codexModelServer
	proxy                 *codexRefusingProxy
	// hookRuns are the PreToolUse hook results Codex reported in the last
	// run ("Completed", "Blocked", "Failed").
	hookRuns []string
}

const codexDecoyKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nshellgate-decoy-3b1f9c0d7e\n-----END OPENSSH PRIVATE KEY-----\n"

func newCodexEnv(t *testing.T, codex, full, thin string) *codexEnv {
	t.Helper()
	s := newSandbox(t) // its engine socket, and the engine stopped at the end
	c := &codexEnv{codex: codex, full: full, thin: thin, proj: s.proj, home: filepath.Dir(s.proj)}
	c.codexHome = filepath.Join(c.home, ".codex")
	c.model = newCodexModelServer(t)
	c.proxy = newCodexRefusingProxy(t)
	for _, d := range []string{c.codexHome, filepath.Join(c.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(c.home, ".ssh", "id_rsa"):   codexDecoyKey,
		filepath.Join(c.proj, "notes.txt"):        "canary-notes-5e2a\n",
		filepath.Join(c.codexHome, "config.toml"): codexConfig(c.model.srv.URL),
	}
	for p, body := range files {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	proxy := "http://" + c.proxy.ln.Addr().String()
	c.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + c.home,
		"CODEX_HOME=" + c.codexHome,
		"USER=" + os.Getenv("USER"),
		"LANG=C.UTF-8",
		"SHELL=/bin/sh",
		"TMPDIR=" + os.TempDir(),
		"XDG_CONFIG_HOME=" + filepath.Join(c.home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(c.home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(c.home, ".cache"),
		"SHELLGATE_SOCKET=" + s.socket,
		"HTTPS_PROXY=" + proxy, "HTTP_PROXY=" + proxy, "ALL_PROXY=" + proxy,
		"https_proxy=" + proxy, "http_proxy=" + proxy, "all_proxy=" + proxy,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"NPM_CONFIG_OFFLINE=true",
	}
	t.Cleanup(func() {
		if a := c.proxy.attempts(); len(a) > 0 {
			t.Errorf("Codex tried to reach the network beyond 127.0.0.1: %q", a)
		}
		c.model.mu.Lock()
		defer c.model.mu.Unlock()
		if c.model.unexpected != nil {
			t.Errorf("unexpected requests to the model server: %q", c.model.unexpected)
		}
	})
	return c
}

// codexConfig points Codex at the test's model server and turns off what
// would go elsewhere: update checks, analytics, plugins, apps, web search.
func codexConfig(url string) string {
	return `model = "shellgate-test"
model_provider = "shellgate-test"
check_for_update_on_startup = false
web_search = "disabled"

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
enable_request_compression = false

[model_providers.shellgate-test]
name = "shellgate test server"
base_url = "` + url + `/v1"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`
}

// shellgate runs the built full binary in the environment.
func (c *codexEnv) shellgate(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(c.full, args...)
	cmd.Env, cmd.Dir = c.env, c.proj
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("shellgate %s: %v\n%s%s", strings.Join(args, " "), err, o.String(), e.String())
	}
	return o.String(), e.String()
}

// shellgateExit runs the built full binary in the environment and returns
// its exit code too.
func (c *codexEnv) shellgateExit(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(c.full, args...)
	cmd.Env, cmd.Dir = c.env, c.proj
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("shellgate %s: %v", strings.Join(args, " "), err)
	}
	return o.String(), e.String(), 0
}

// withoutEnv drops the variable k from the environment.
func (c *codexEnv) withoutEnv(k string) {
	var env []string
	for _, kv := range c.env {
		if !strings.HasPrefix(kv, k+"=") {
			env = append(env, kv)
		}
	}
	c.env = env
}

// exec runs `codex exec` with the model calling cmd once; it returns what
// came back to the model for the call and every request body.
func (c *codexEnv) exec(t *testing.T, cmd string) (output, bodies string) {
	t.Helper()
	return c.execIn(t, cmd, "never", "danger-full-access")
}

// execIn is exec under the approval policy and sandbox mode given.
func (c *codexEnv) execIn(t *testing.T, cmd, approval, sandbox string) (output, bodies string) {
	t.Helper()
	c.model.reset(cmd)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	x := exec.CommandContext(ctx, c.codex, "exec",
		"--skip-git-repo-check", "--ephemeral",
		"--sandbox", sandbox,
		"-c", `approval_policy="`+approval+`"`,
		"-C", c.proj,
		"run the command")
	x.Env, x.Dir = c.env, c.proj
	x.Stdin = strings.NewReader("")
	var o, e bytes.Buffer
	x.Stdout, x.Stderr = &o, &e
	start := time.Now()
	err := x.Run()
	t.Logf("codex exec (%s): %v", cmd, time.Since(start).Round(time.Millisecond))
	if err != nil {
		t.Fatalf("codex exec: %v\nstdout:\n%s\nstderr:\n%s", err, o.String(), e.String())
	}
	// Codex reports each hook run on stderr ("hook: PreToolUse Blocked").
	c.hookRuns = nil
	for _, l := range strings.Split(e.String(), "\n") {
		if strings.HasPrefix(l, "hook: PreToolUse ") {
			c.hookRuns = append(c.hookRuns, strings.TrimPrefix(l, "hook: PreToolUse "))
		}
	}
	t.Logf("codex hook runs: %q", c.hookRuns)
	output, bodies = c.model.result()
	if output == "" {
		t.Fatalf("no tool output reached the model server for %q\nstderr:\n%s", cmd, e.String())
	}
	return output, bodies
}

func codexFileExists(path string) bool { _, err := os.Stat(path); return err == nil }

// TestCodex drives the real Codex CLI; the binaries are built once.
func TestCodex(t *testing.T) {
	codex := codexBin(t)
	full, thin := binaries(t)
	t.Run("gate", func(t *testing.T) { testCodexGate(t, newCodexEnv(t, codex, full, thin)) })
	t.Run("fails open", func(t *testing.T) { testCodexFailsOpen(t, newCodexEnv(t, codex, full, thin)) })
	t.Run("trust", func(t *testing.T) { testCodexTrust(t, newCodexEnv(t, codex, full, thin)) })
	t.Run("ask as defer", func(t *testing.T) { testCodexDefer(t, newCodexEnv(t, codex, full, thin)) })
	t.Run("hooks feature off", func(t *testing.T) { testCodexFeatureOff(t, newCodexEnv(t, codex, full, thin)) })
	t.Run("hook protocol", func(t *testing.T) { testCodexProtocol(t, newCodexEnv(t, codex, full, thin)) })
	t.Run("modes", func(t *testing.T) { testCodexModes(t, newCodexEnv(t, codex, full, thin)) })
	t.Run("approvals stick", func(t *testing.T) { testCodexApprovals(t, newCodexEnv(t, codex, full, thin)) })
	t.Run("default install", func(t *testing.T) { testCodexDefaultInstall(t, newCodexEnv(t, codex, full, thin)) })
	t.Run("codex home", func(t *testing.T) { testCodexHome(t, newCodexEnv(t, codex, full, thin)) })
}

// testCodexModes: in every approval policy and sandbox mode, an asked
// command is blocked by the hook with shellgate's reason, never run.
func testCodexModes(t *testing.T, c *codexEnv) {
	c.shellgate(t, "install", "codex", "--user")
	for _, m := range []struct{ approval, sandbox string }{
		{"on-request", "read-only"},
		{"on-request", "workspace-write"},
		{"never", "workspace-write"},
		{"on-request", "danger-full-access"},
	} {
		output, _ := c.execIn(t, "touch modes.marker", m.approval, m.sandbox)
		if codexFileExists(filepath.Join(c.proj, "modes.marker")) {
			t.Errorf("%s/%s: the asked touch ran (%q)", m.approval, m.sandbox, output)
		}
		if !strings.Contains(output, "needs a person's approval") || len(c.hookRuns) != 1 || c.hookRuns[0] != "Blocked" {
			t.Errorf("%s/%s: the model got %q and Codex reports %q, want shellgate's reason, Blocked", m.approval, m.sandbox, output, c.hookRuns)
		}
	}
}

// testCodexApprovals: a prefix_rule the person keeps in
// $CODEX_HOME/rules/default.rules (where Codex's "don't ask again" saves
// it) makes shellgate allow that command, and only that one.
func testCodexApprovals(t *testing.T, c *codexEnv) {
	c.shellgate(t, "install", "codex", "--user")
	rules := filepath.Join(c.codexHome, "rules", "default.rules")
	if err := os.MkdirAll(filepath.Dir(rules), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rules, []byte(`prefix_rule(pattern=["touch", "approved.marker"], decision="allow")`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c.execIn(t, "touch approved.marker", "on-request", "workspace-write")
	if !codexFileExists(filepath.Join(c.proj, "approved.marker")) || len(c.hookRuns) != 1 || c.hookRuns[0] != "Completed" {
		t.Errorf("the command the person allowed in Codex's rules did not run (Codex reports %q)", c.hookRuns)
	}
	// A prefix rule, as Codex reads it: more words after the prefix match.
	c.execIn(t, "touch approved.marker other.marker", "on-request", "workspace-write")
	if !codexFileExists(filepath.Join(c.proj, "other.marker")) {
		t.Errorf("the prefix rule did not allow more words after its prefix (Codex reports %q)", c.hookRuns)
	}
	output, _ := c.execIn(t, "touch approved.marker; touch chained.marker", "never", "danger-full-access")
	if codexFileExists(filepath.Join(c.proj, "chained.marker")) || !strings.Contains(output, "needs a person's approval") {
		t.Errorf("a command chained to the allowed one was not blocked: %q", output)
	}
}

// testCodexDefaultInstall: `shellgate install codex` with no flag, in a
// home with no ~/.codex and no CODEX_HOME (a new user), installs a hook
// Codex runs: for the user, trusted, active, exit 0; and the real Codex
// then refuses the decoy key and runs an allowed read.
func testCodexDefaultInstall(t *testing.T, c *codexEnv) {
	if err := os.RemoveAll(c.codexHome); err != nil {
		t.Fatal(err)
	}
	c.withoutEnv("CODEX_HOME")
	out, stderr, code := c.shellgateExit(t, "install", "codex")
	if code != 0 || !strings.Contains(out, "active: Codex runs shellgate before every shell command") || stderr != "" {
		t.Fatalf("install codex: exit %d, not active:\n%s%s", code, out, stderr)
	}
	if codexFileExists(filepath.Join(c.proj, ".codex")) {
		t.Errorf("install codex with no flag wrote the project's .codex, which Codex ignores in an untrusted project")
	}
	// Point Codex at the test's model server, ahead of the tables install
	// wrote (the hook's trust is keyed by the hooks file, so the rest of
	// the config may change).
	cfg := filepath.Join(c.codexHome, "config.toml")
	written, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append([]byte(codexConfig(c.model.srv.URL)+"\n"), written...), 0o600); err != nil {
		t.Fatal(err)
	}
	output, bodies := c.exec(t, "cat ~/.ssh/id_rsa")
	if strings.Contains(bodies, "shellgate-decoy-3b1f9c0d7e") || !strings.Contains(output, "shellgate: denied") || len(c.hookRuns) != 1 || c.hookRuns[0] != "Blocked" {
		t.Errorf("after the default install the decoy key was not denied: %q, hook runs %q", output, c.hookRuns)
	}
	if output, _ := c.exec(t, "cat notes.txt"); !strings.Contains(output, "canary-notes-5e2a") {
		t.Errorf("after the default install an allowed read did not run: %q", output)
	}
}

// testCodexHome: Codex refuses to start when CODEX_HOME names a directory
// that does not exist, so install refuses too, plainly, exit 1, writing
// nothing; with CODEX_HOME unset and no ~/.codex Codex creates ~/.codex on
// its first run, so install may create it (testCodexDefaultInstall).
func testCodexHome(t *testing.T, c *codexEnv) {
	missing := filepath.Join(c.home, "no-such-codex-home")
	c.withoutEnv("CODEX_HOME")
	c.env = append(c.env, "CODEX_HOME="+missing)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	x := exec.CommandContext(ctx, c.codex, "exec", "--skip-git-repo-check", "--ephemeral", "-C", c.proj, "run the command")
	x.Env, x.Dir, x.Stdin = c.env, c.proj, strings.NewReader("")
	b, err := x.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "does not exist") {
		t.Errorf("codex with CODEX_HOME=%s: %v\n%s\nCodex no longer refuses a missing CODEX_HOME: update hook.CodexHomeFrom", missing, err, b)
	}
	out, stderr, code := c.shellgateExit(t, "install", "codex", "--user")
	if code != 1 || !strings.Contains(stderr, "CODEX_HOME points to") || strings.Contains(stderr, "lstat") || codexFileExists(missing) {
		t.Errorf("install with a missing CODEX_HOME: exit %d\n%s%s", code, out, stderr)
	}

	// No ~/.codex and no CODEX_HOME: Codex creates ~/.codex itself.
	home := t.TempDir()
	c.withoutEnv("CODEX_HOME")
	c.withoutEnv("HOME")
	c.env = append(c.env, "HOME="+home)
	c.model.reset("true")
	x = exec.CommandContext(ctx, c.codex, "exec", "--skip-git-repo-check", "--ephemeral",
		"--sandbox", "danger-full-access", "-c", `approval_policy="never"`,
		"-c", `model="shellgate-test"`, "-c", `model_provider="shellgate-test"`,
		"-c", "check_for_update_on_startup=false", "-c", `web_search="disabled"`, "-c", "analytics.enabled=false",
		"-c", "features.plugins=false", "-c", "features.remote_plugin=false", "-c", "features.apps=false",
		"-c", "features.enable_request_compression=false",
		"-c", `model_providers.shellgate-test.name="shellgate test server"`,
		"-c", `model_providers.shellgate-test.base_url="`+c.model.srv.URL+`/v1"`,
		"-c", `model_providers.shellgate-test.wire_api="responses"`,
		"-c", "model_providers.shellgate-test.request_max_retries=0",
		"-c", "model_providers.shellgate-test.stream_max_retries=0",
		"-C", c.proj, "run the command")
	x.Env, x.Dir, x.Stdin = c.env, c.proj, strings.NewReader("")
	if b, err := x.CombinedOutput(); err != nil {
		t.Fatalf("codex exec in a new home: %v\n%s", err, b)
	}
	if fi, err := os.Stat(filepath.Join(home, ".codex")); err != nil || !fi.IsDir() {
		t.Errorf("Codex did not create ~/.codex on its first run (%v): install must not create it either", err)
	}
}

// testCodexProtocol documents why shellgate answers Codex only with a deny
// or no decision: a hook that answers permissionDecision "allow" or "ask"
// fails in Codex 0.171 (and the command runs); "deny" blocks. If Codex
// learns "ask", shellgate's ask can map to it (as for Gemini CLI).
func testCodexProtocol(t *testing.T, c *codexEnv) {
	bin := filepath.Join(t.TempDir(), "shellgate-hook") // a name install would replace
	script := "#!/bin/sh\ncat >/dev/null\nprintf '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"%s\",\"permissionDecisionReason\":\"scripted %s\"}}\\n' \"$1\" \"$1\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	hooksFile := filepath.Join(c.codexHome, "hooks.json")
	for _, tc := range []struct {
		decision, run string
		ran           bool
	}{
		{"deny", "Blocked", false},
		{"allow", "Failed", true},
		{"ask", "Failed", true},
	} {
		b, _, err := hook.Merge(hook.Codex, nil, bin+" "+tc.decision)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(hooksFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := hook.TrustCodexHook(c.codexHome, hooksFile, false); err != nil {
			t.Fatal(err)
		}
		marker := "marker-" + tc.decision
		c.exec(t, "touch "+marker)
		if len(c.hookRuns) != 1 || c.hookRuns[0] != tc.run || codexFileExists(filepath.Join(c.proj, marker)) != tc.ran {
			t.Errorf("permissionDecision %q: Codex reports %q and the command ran: %v; want [%s] and %v",
				tc.decision, c.hookRuns, codexFileExists(filepath.Join(c.proj, marker)), tc.run, tc.ran)
		}
	}
}

// testCodexFeatureOff: [features] hooks = false turns every hook off;
// CodexHookTrust and install say so.
func testCodexFeatureOff(t *testing.T, c *codexEnv) {
	cfg := filepath.Join(c.codexHome, "config.toml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	off := strings.Replace(string(b), "[features]\n", "[features]\nhooks = false\n", 1)
	if err := os.WriteFile(cfg, []byte(off), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := c.shellgateExit(t, "install", "codex", "--user")
	if code != 1 || !strings.Contains(stderr, "NOT ACTIVE") || !strings.Contains(stderr, "[features] hooks = false") {
		t.Errorf("install does not fail saying that hooks are off: exit %d: %s", code, stderr)
	}
	if st, err := hook.CodexHookTrust(c.codexHome, filepath.Join(c.codexHome, "hooks.json")); err != nil || !st.HooksFeatureOff || st.Active {
		t.Errorf("state %+v, %v", st, err)
	}
	if _, bodies := c.exec(t, "cat ~/.ssh/id_rsa"); !strings.Contains(bodies, "shellgate-decoy-3b1f9c0d7e") {
		t.Errorf("with [features] hooks = false Codex still ran the hook: update CodexHookTrust and the README")
	}
}

// testCodexDefer documents --ask-as defer: shellgate gives no decision, and
// under approval_policy "never" (codex exec's default) Codex runs an asked
// command. The README says so.
func testCodexDefer(t *testing.T, c *codexEnv) {
	c.shellgate(t, "install", "codex", "--user", "--ask-as", "defer")
	output, _ := c.exec(t, "touch marker")
	if !codexFileExists(filepath.Join(c.proj, "marker")) {
		t.Errorf("with --ask-as defer and approval never, Codex did not run an asked command (%q): update the README", output)
	}
	// A deny is still a deny.
	if output, bodies := c.exec(t, "cat ~/.ssh/id_rsa"); strings.Contains(bodies, "shellgate-decoy-3b1f9c0d7e") || !strings.Contains(output, "shellgate: denied") {
		t.Errorf("with --ask-as defer the decoy key was not denied: %q", output)
	}
}

// testCodexGate: after `shellgate install codex --user`, Codex runs the
// hook: an allowed read runs and its output reaches the model, a read of
// the decoy key and asked commands do not run, and with the hook binary
// gone the command still does not run.
func testCodexGate(t *testing.T, c *codexEnv) {
	out, stderr := c.shellgate(t, "install", "codex", "--user")
	if !strings.Contains(out, "active: Codex runs shellgate before every shell command") || strings.Contains(stderr, "NOT ACTIVE") {
		t.Fatalf("install did not end active:\n%s%s", out, stderr)
	}
	st, err := hook.CodexHookTrust(c.codexHome, filepath.Join(c.codexHome, "hooks.json"))
	if err != nil || !st.Active || !st.FailClosed {
		t.Fatalf("CodexHookTrust after install: %+v, %v", st, err)
	}

	for _, tc := range []struct {
		name, cmd string
		// want is in the output that reaches the model; marker must not
		// exist afterwards ("" for none); hook is how Codex reports the
		// hook's run.
		want, marker, hook string
	}{
		{"allowed read", "cat notes.txt", "canary-notes-5e2a", "", "Completed"},
		{"allowed ls", "ls", "notes.txt", "", "Completed"},
		{"decoy key", "cat ~/.ssh/id_rsa", "Command blocked by PreToolUse hook: shellgate: denied", "", "Blocked"},
		{"asked write", "touch marker", "needs a person's approval", "marker", "Blocked"},
		{"asked install", "npm install left-pad", "needs a person's approval", "node_modules", "Blocked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			output, bodies := c.exec(t, tc.cmd)
			if !strings.Contains(output, tc.want) {
				t.Errorf("the model got %q, want it to contain %q", output, tc.want)
			}
			if len(c.hookRuns) != 1 || c.hookRuns[0] != tc.hook {
				t.Errorf("Codex reports the hook runs %q, want [%s]", c.hookRuns, tc.hook)
			}
			if strings.Contains(bodies, "shellgate-decoy-3b1f9c0d7e") {
				t.Errorf("the decoy key reached the model server")
			}
			if tc.marker != "" && codexFileExists(filepath.Join(c.proj, tc.marker)) {
				t.Errorf("%s ran: %s exists", tc.cmd, tc.marker)
			}
		})
	}

	// The hook binary is gone: the installed command's fallback denies.
	moved := c.thin + ".moved"
	if err := os.Rename(c.thin, moved); err != nil {
		t.Fatal(err)
	}
	defer os.Rename(moved, c.thin)
	output, _ := c.exec(t, "touch marker2")
	if codexFileExists(filepath.Join(c.proj, "marker2")) {
		t.Errorf("with shellgate-hook missing, touch marker2 ran")
	}
	if !strings.Contains(output, "shellgate-hook could not run") || len(c.hookRuns) != 1 || c.hookRuns[0] != "Blocked" {
		t.Errorf("the model got %q and Codex reports %q, want the fallback's reason, Blocked", output, c.hookRuns)
	}
}

// testCodexFailsOpen documents what Codex itself does with a hook that
// cannot run: it runs the command. This is why `install codex` writes a
// command with a fallback (testCodexGate checks that it blocks).
func testCodexFailsOpen(t *testing.T, c *codexEnv) {
	hooksFile := filepath.Join(c.codexHome, "hooks.json")
	bare := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"/nonexistent/shellgate-hook codex","timeout":30}]}]}}`
	if err := os.WriteFile(hooksFile, []byte(bare), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := hook.TrustCodexHook(c.codexHome, hooksFile, false); err != nil {
		t.Fatal(err)
	}
	if st, err := hook.CodexHookTrust(c.codexHome, hooksFile); err != nil || st.Status != hook.CodexTrusted || st.FailClosed {
		t.Fatalf("state %+v, %v", st, err)
	}
	c.exec(t, "touch marker")
	if len(c.hookRuns) != 1 || c.hookRuns[0] != "Failed" {
		t.Errorf("Codex reports %q for a hook that cannot start, want [Failed]", c.hookRuns)
	}
	if !codexFileExists(filepath.Join(c.proj, "marker")) {
		t.Errorf("Codex did not run the command when its hook could not run: it now fails closed; update the README and install output")
	}
}

// testCodexTrust: a hook Codex has not been told to trust does not run, so
// a hooks.json alone (what `install codex` wrote before) leaves every
// command unguarded; a project's hooks run only in a trusted project; and
// the trust state shellgate computes is the one Codex reports.
func testCodexTrust(t *testing.T, c *codexEnv) {
	hooksFile := filepath.Join(c.codexHome, "hooks.json")
	before, err := os.ReadFile(filepath.Join(c.codexHome, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	c.shellgate(t, "install", "codex", "--user")

	// The state Codex itself reports agrees with CodexHookTrust.
	st, err := hook.CodexHookTrust(c.codexHome, hooksFile)
	if err != nil {
		t.Fatal(err)
	}
	listed := codexHooksList(t, c)
	got, ok := listed[st.Key]
	if !ok {
		t.Fatalf("Codex does not list the hook %s: %v", st.Key, listed)
	}
	if got.CurrentHash != st.CurrentHash || got.TrustStatus != "trusted" || !got.Enabled {
		t.Errorf("Codex reports %+v; shellgate computed key %s hash %s status %s", got, st.Key, st.CurrentHash, st.Status)
	}

	// Without the trust entry (the config as it was), Codex ignores the
	// hook: the decoy key reaches the model.
	if err := os.WriteFile(filepath.Join(c.codexHome, "config.toml"), before, 0o600); err != nil {
		t.Fatal(err)
	}
	if st, _ := hook.CodexHookTrust(c.codexHome, hooksFile); st.Status != hook.CodexUntrusted || st.Active {
		t.Errorf("without the trust entry: %+v", st)
	}
	if _, bodies := c.exec(t, "cat ~/.ssh/id_rsa"); !strings.Contains(bodies, "shellgate-decoy-3b1f9c0d7e") {
		t.Errorf("an untrusted hook blocked the command: Codex now runs untrusted hooks; update CodexHookTrust")
	}
	if err := os.Remove(hooksFile); err != nil {
		t.Fatal(err)
	}

	// A project install: not active until the project is trusted, and
	// install fails.
	projHooks := filepath.Join(c.proj, ".codex", "hooks.json")
	out, stderr, code := c.shellgateExit(t, "install", "codex", "--project")
	if code != 1 || !strings.Contains(stderr, "NOT ACTIVE") || !strings.Contains(stderr, "trust_level = \"trusted\"") {
		t.Errorf("a project install in an untrusted project does not fail saying it is not active: exit %d\n%s%s", code, out, stderr)
	}
	if _, bodies := c.exec(t, "cat ~/.ssh/id_rsa"); !strings.Contains(bodies, "shellgate-decoy-3b1f9c0d7e") {
		t.Errorf("Codex ran a project hook in an untrusted project: update CodexHookTrust")
	}
	f, err := os.OpenFile(filepath.Join(c.codexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\n[projects.%q]\ntrust_level = \"trusted\"\n", c.proj)
	f.Close()
	out, stderr = c.shellgate(t, "install", "codex", "--project")
	if !strings.Contains(out, "active: Codex runs shellgate") || strings.Contains(stderr, "NOT ACTIVE") {
		t.Errorf("a project install in a trusted project is not active:\n%s%s", out, stderr)
	}
	if st, err := hook.CodexHookTrust(c.codexHome, projHooks); err != nil || !st.Active {
		t.Errorf("project state %+v, %v", st, err)
	}
	output, bodies := c.exec(t, "cat ~/.ssh/id_rsa")
	if strings.Contains(bodies, "shellgate-decoy-3b1f9c0d7e") || !strings.Contains(output, "shellgate: denied") {
		t.Errorf("the project hook did not block the decoy key: %q", output)
	}
}

type codexListedHook struct {
	Key         string `json:"key"`
	CurrentHash string `json:"currentHash"`
	TrustStatus string `json:"trustStatus"`
	Enabled     bool   `json:"enabled"`
}

// codexHooksList asks Codex's own app server (hooks/list) which hooks it
// sees for the project, by key.
func codexHooksList(t *testing.T, c *codexEnv) map[string]codexListedHook {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.codex, "app-server")
	cmd.Env, cmd.Dir = c.env, c.proj
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	send := func(v any) {
		b, _ := json.Marshal(v)
		stdin.Write(append(b, '\n'))
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 16<<20)
	wait := func(id int) json.RawMessage {
		for lines.Scan() {
			var msg struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(lines.Bytes(), &msg) != nil || msg.ID == nil || *msg.ID != id {
				continue
			}
			if msg.Error != nil {
				t.Fatalf("app-server request %d: %s", id, msg.Error)
			}
			return msg.Result
		}
		t.Fatalf("app-server closed before answering %d: %v\n%s", id, lines.Err(), stderr.String())
		return nil
	}
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"clientInfo": map[string]any{"name": "shellgate-test", "version": "1"}}})
	wait(1)
	send(map[string]any{"method": "initialized"})
	send(map[string]any{"id": 2, "method": "hooks/list", "params": map[string]any{"cwds": []string{c.proj}}})
	var res struct {
		Data []struct {
			Hooks []codexListedHook `json:"hooks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(wait(2), &res); err != nil {
		t.Fatal(err)
	}
	out := map[string]codexListedHook{}
	for _, d := range res.Data {
		for _, h := range d.Hooks {
			out[h.Key] = h
		}
	}
	return out
}
