package agents

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// canary is a server on 127.0.0.1 that counts the requests a command that
// should not have run made to it.
type canary struct {
	url  string
	hits atomic.Int32
}

func newCanary(t *testing.T) *canary {
	c := &canary{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.hits.Add(1)
		w.Write([]byte("sg-canary-body"))
	}))
	t.Cleanup(srv.Close)
	c.url = srv.URL + "/sg-canary"
	return c
}

// clientRun runs one agent headless in mode against srv (an OpenAI
// chat-completions server) and returns what it did.
type clientRun func(t *testing.T, s *sandbox, srv *modelServer, mode string) agentRun

// gateCase is one row of the table every client is driven through: a
// command the model asks to run, and what must have happened.
type gateCase struct {
	name string
	// cmd is the command; {canary} is replaced by the canary's URL.
	cmd string
	// ran: the command's effect must (true) or must not (false) be seen.
	ran bool
	// noHook removes the hook's binaries first.
	noHook bool
	// reason, when set, must be in the tool result the model got.
	reason string
}

// gateCases are the rows every new client is driven through, in a mode
// that lets the client run shell commands on its own (so only shellgate
// stands in the way).
var gateCases = []gateCase{
	{name: "a read-only ls runs", cmd: "ls", ran: true},
	{name: "a write is asked, and headless nobody answers: it does not run", cmd: "touch asked.marker", reason: "a person must approve"},
	{name: "a secret read is denied and never reaches the model", cmd: "cat ~/.ssh/id_rsa", reason: "shellgate: denied"},
	{name: "a network command does not run", cmd: "curl -s {canary}"},
	{name: "a hook that cannot run blocks", cmd: "touch failclosed.marker", noHook: true},
}

// driveGateCases runs every gate case through run in mode, in its own
// sandbox with the hook installed by install.
func driveGateCases(t *testing.T, mode string, shellTools []string, install func(s *sandbox), run clientRun, cases []gateCase) {
	for _, c := range cases {
		t.Run(mode+": "+c.name, func(t *testing.T) {
			s := newSandbox(t)
			install(s)
			can := newCanary(t)
			cmd := strings.ReplaceAll(c.cmd, "{canary}", can.url)
			if c.noHook {
				s.removeBinaries()
			}
			srv := newOpenAIServer(t, cmd, shellTools...)
			r := run(t, s, srv, mode)
			got := srv.result(r)
			switch {
			case c.cmd == "ls":
				if !strings.Contains(got, s.token) && strings.Contains(got, "Output: (empty)") && strings.Contains(got, "Exit Code: 0") {
					// Qwen Code on a loaded machine has reported an ls that
					// exited 0 with no output (seen once in CI; the same run
					// alone lists the file): its output capture, after the
					// hook allowed the command. One more run must list it.
					t.Logf("the client reported an empty ls that exited 0; running it once more: %q", got)
					srv = newOpenAIServer(t, cmd, shellTools...)
					got = srv.result(run(t, s, srv, mode))
				}
				if !strings.Contains(got, s.token) {
					t.Errorf("the ls result the model got does not list %s: %q", s.token, got)
				}
			case strings.HasPrefix(c.cmd, "touch "):
				if m := strings.TrimPrefix(c.cmd, "touch "); s.exists(m) {
					t.Errorf("%s ran: %q", c.cmd, got)
				}
			case strings.Contains(c.cmd, "id_rsa"):
				if srv.saw(s.secret) {
					t.Errorf("the decoy key reached the model server; tool result %q", got)
				}
			case strings.Contains(c.cmd, "{canary}"):
				if n := can.hits.Load(); n != 0 {
					t.Errorf("the network command ran (%d requests to the canary): %q", n, got)
				}
				if strings.Contains(got, "sg-canary-body") {
					t.Errorf("the canary's answer reached the model: %q", got)
				}
			}
			if c.reason != "" && !strings.Contains(got, c.reason) {
				t.Errorf("the model was not told shellgate's reason (%q): %q", c.reason, got)
			}
		})
	}
}

// qwenUserSettings is the temporary HOME's ~/.qwen/settings.json: no
// telemetry, no usage statistics, no update checks, no memory agent (one
// model call less per run).
const qwenUserSettings = `{
  "telemetry": {"enabled": false},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
  "memory": {"enableManagedAutoMemory": false, "enableManagedAutoDream": false}
}
`

// runQwen runs `qwen -p` headless in an approval mode against srv.
func runQwen(qwen string, extra ...string) clientRun {
	return func(t *testing.T, s *sandbox, srv *modelServer, mode string) agentRun {
		t.Helper()
		args := append([]string{"-p", "Run the shell command the tool call gives.", "--auth-type", "openai", "--approval-mode", mode, "-o", "text"}, extra...)
		env := []string{
			"OPENAI_API_KEY=shellgate-e2e-dummy",
			"OPENAI_BASE_URL=" + srv.url + "/v1",
			"OPENAI_MODEL=test-model",
			"QWEN_CODE_SUPPRESS_YOLO_WARNING=1",
		}
		r := s.runAgent(qwen, args, env, nil)
		t.Logf("qwen -p --approval-mode %s took %v", mode, r.took.Round(10e6))
		if r.err != nil {
			t.Fatalf("qwen -p: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, r.stderr)
		}
		return r
	}
}

// TestQwenCode drives the real Qwen Code with shellgate installed by
// `shellgate install qwen`.
func TestQwenCode(t *testing.T) {
	qwen := agentBin(t, "qwen", "@qwen-code/qwen-code")
	_, err := exec.LookPath("node")
	requireTool(t, err == nil, "node (Qwen Code runs on it) not found on PATH")
	t.Logf("Qwen Code %s", newSandbox(t).agentVersion(qwen))
	install := func(s *sandbox) {
		s.write(filepath.Join(s.home, ".qwen", "settings.json"), qwenUserSettings)
		out := s.install("qwen")
		if !strings.Contains(out, "\nfail-closed: ") {
			t.Errorf("install does not say how the hook fails closed:\n%s", out)
		}
	}
	tools := []string{"run_shell_command"}
	// yolo: Qwen Code runs every tool call on its own; only the hook
	// stands in the way. A hook's ask headless is refused by Qwen Code.
	driveGateCases(t, "yolo", tools, install, runQwen(qwen), gateCases)
	// default (and auto-edit, auto, plan) headless: Qwen Code does not
	// offer the model its shell tool at all unless it is allowed by name;
	// allowed by name, Qwen Code runs it without asking, and the hook
	// decides.
	// Qwen Code's own rules refuse the write first there (headless, its
	// ask cannot be answered): the reason is Qwen Code's.
	write := gateCases[1]
	write.reason = ""
	driveGateCases(t, "default", tools, install, runQwen(qwen, "--allowed-tools", "run_shell_command"), []gateCase{gateCases[0], write})
	t.Run("default: without --allowed-tools the shell tool is not offered headless", func(t *testing.T) {
		s := newSandbox(t)
		install(s)
		srv := newOpenAIServer(t, "touch offered.marker", "run_shell_command")
		r := runQwen(qwen)(t, s, srv, "default")
		if s.exists("offered.marker") {
			t.Errorf("the command ran: %s", r.stdout)
		}
	})
}

// copilotCache is shared by the Copilot CLI runs: its binary unpacks its
// package (about 235 MB) into $XDG_CACHE_HOME on first start.
var (
	copilotCacheOnce sync.Once
	copilotCacheDir  string
)

// runCopilot runs `copilot -p` headless against srv, offline; mode
// "allow-all-tools" adds --allow-all-tools, "default" adds nothing.
func runCopilot(copilot string) clientRun {
	return func(t *testing.T, s *sandbox, srv *modelServer, mode string) agentRun {
		t.Helper()
		copilotCacheOnce.Do(func() { copilotCacheDir = filepath.Join(binaries(t), "copilot-cache") })
		args := []string{"-p", "Run the shell command the tool call gives.", "--no-auto-update", "--disable-client-telemetry"}
		if mode != "default" {
			args = append(args, "--"+mode)
		}
		env := []string{
			"COPILOT_OFFLINE=true",
			"COPILOT_PROVIDER_BASE_URL=" + srv.url + "/v1",
			"COPILOT_PROVIDER_API_KEY=shellgate-e2e-dummy",
			"COPILOT_MODEL=test-model",
			"COPILOT_AUTO_UPDATE=false",
			"XDG_CACHE_HOME=" + copilotCacheDir,
		}
		r := s.runAgent(copilot, args, env, nil)
		t.Logf("copilot -p (%s) took %v", mode, r.took.Round(10e6))
		if r.err != nil {
			t.Fatalf("copilot -p: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, r.stderr)
		}
		return r
	}
}

// TestCopilotCLI drives the real GitHub Copilot CLI with shellgate
// installed by `shellgate install copilot --project` in a project the
// person has trusted (Copilot CLI runs a repository's hooks only then),
// and by `shellgate install copilot` for the user.
func TestCopilotCLI(t *testing.T) {
	copilot := agentBin(t, "copilot", "@github/copilot")
	t.Logf("%s", newSandbox(t).agentVersion(copilot))
	install := func(s *sandbox) {
		trust, _ := json.Marshal(map[string]any{"trustedFolders": []string{s.proj}})
		s.write(filepath.Join(s.home, ".copilot", "config.json"), "// written by the test, as Copilot CLI does when a folder is trusted\n"+string(trust)+"\n")
		out := s.install("copilot", "--project")
		for _, want := range []string{"\nfail-closed: ", "\nactive: Copilot CLI trusts " + s.proj} {
			if !strings.Contains(out, want) {
				t.Errorf("install does not say %q:\n%s", want, out)
			}
		}
	}
	tools := []string{"bash"}
	driveGateCases(t, "allow-all-tools", tools, install, runCopilot(copilot), gateCases)
	// Without --allow-all-tools, headless: Copilot CLI would refuse every
	// command nobody approved; shellgate's allow spares the read-only one
	// that refusal, and its ask is refused.
	driveGateCases(t, "default", tools, install, runCopilot(copilot), []gateCase{gateCases[0], gateCases[1], gateCases[4]})
	t.Run("user scope (install's default): the hook runs without folder trust", func(t *testing.T) {
		s := newSandbox(t)
		s.install("copilot")
		srv := newOpenAIServer(t, "touch user.marker", "bash")
		r := runCopilot(copilot)(t, s, srv, "allow-all-tools")
		got := srv.result(r)
		if s.exists("user.marker") || !strings.Contains(got, "a person must approve") {
			t.Errorf("the user-scope hook did not stop the asked command: %q", got)
		}
	})
}

// TestQwenCodeAskInTerminal drives Qwen Code's terminal UI in yolo mode:
// an ask from shellgate is Qwen Code's confirmation, with shellgate's
// reasons in it; nothing runs until the person approves, and the command
// runs once they do.
func TestQwenCodeAskInTerminal(t *testing.T) {
	qwen := agentBin(t, "qwen", "@qwen-code/qwen-code")
	_, err := exec.LookPath("node")
	requireTool(t, err == nil, "node (Qwen Code runs on it) not found on PATH")
	tmux, err := exec.LookPath("tmux")
	requireTool(t, err == nil, "tmux (drives Qwen Code's terminal) not found on PATH")

	s := newSandbox(t)
	s.write(filepath.Join(s.home, ".qwen", "settings.json"), qwenUserSettings)
	s.install("qwen")
	srv := newOpenAIServer(t, "touch approved.marker", "run_shell_command")
	env := append(append([]string{}, s.env...), "OPENAI_API_KEY=shellgate-e2e-dummy", "OPENAI_BASE_URL="+srv.url+"/v1", "OPENAI_MODEL=test-model")
	m := startTerminal(t, s, tmux, 200, env, qwen, "--auth-type", "openai", "--approval-mode", "yolo", "-i", "Run the shell command the tool call gives.")

	sc := m.waitFor("Qwen Code's confirmation", agentRunTimeout, func(sc string) bool { return strings.Contains(sc, "Do you want to proceed?") })
	if !strings.Contains(sc, "shellgate: a person must approve this command") {
		t.Errorf("the confirmation does not show shellgate's reason:\n%s", sc)
	}
	if s.exists("approved.marker") {
		t.Fatalf("the command ran before anyone approved it:\n%s", sc)
	}
	// The person approves ("Yes, allow once", the first choice).
	m.run("send-keys", "-t", "agent", "C-m")
	waitRan(t, s, m, "approved.marker", nil)
}

// TestCopilotCLIAskInTerminal drives Copilot CLI's terminal UI with
// --allow-all-tools: an ask from shellgate is Copilot CLI's "Hook
// permission request", with shellgate's reasons in it; nothing runs until
// the person approves, and the command runs once they do.
func TestCopilotCLIAskInTerminal(t *testing.T) {
	copilot := agentBin(t, "copilot", "@github/copilot")
	tmux, err := exec.LookPath("tmux")
	requireTool(t, err == nil, "tmux (drives Copilot CLI's terminal) not found on PATH")
	copilotCacheOnce.Do(func() { copilotCacheDir = filepath.Join(binaries(t), "copilot-cache") })

	s := newSandbox(t)
	trust, _ := json.Marshal(map[string]any{"trustedFolders": []string{s.proj}})
	s.write(filepath.Join(s.home, ".copilot", "config.json"), string(trust)+"\n")
	s.install("copilot", "--project")
	srv := newOpenAIServer(t, "touch approved.marker", "bash")
	env := append(append([]string{}, s.env...), "COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL="+srv.url+"/v1",
		"COPILOT_PROVIDER_API_KEY=shellgate-e2e-dummy", "COPILOT_MODEL=test-model", "COPILOT_AUTO_UPDATE=false", "XDG_CACHE_HOME="+copilotCacheDir)
	m := startTerminal(t, s, tmux, 200, env, copilot, "--allow-all-tools", "--no-auto-update", "-i", "Run the shell command the tool call gives.")

	sc := m.waitFor("Copilot CLI's confirmation", agentRunTimeout, func(sc string) bool { return strings.Contains(sc, "Do you want to allow this tool call?") })
	if !strings.Contains(sc, "shellgate: a person must approve this command") {
		t.Errorf("the confirmation does not show shellgate's reason:\n%s", sc)
	}
	if s.exists("approved.marker") {
		t.Fatalf("the command ran before anyone approved it:\n%s", sc)
	}
	// The person approves ("Yes", the first choice).
	m.run("send-keys", "-t", "agent", "C-m")
	waitRan(t, s, m, "approved.marker", nil)
}
