package agents

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// geminiUserSettings is the temporary HOME's ~/.gemini/settings.json: API
// key auth (against the test's server), no telemetry, no usage statistics,
// no update checks.
const geminiUserSettings = `{
  "security": {"auth": {"selectedType": "gemini-api-key"}},
  "telemetry": {"enabled": false},
  "privacy": {"usageStatisticsEnabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
}
`

// geminiSandbox is a sandbox whose HOME has Gemini CLI's user settings and
// trusts the project folder: Gemini CLI runs a project's hooks only in a
// trusted folder.
func geminiSandbox(t *testing.T) *sandbox {
	t.Helper()
	s := newSandbox(t)
	s.write(filepath.Join(s.home, ".gemini", "settings.json"), geminiUserSettings)
	trust, _ := json.Marshal(map[string]string{s.proj: "TRUST_FOLDER"})
	s.write(filepath.Join(s.home, ".gemini", "trustedFolders.json"), string(trust))
	return s
}

func geminiEnv(srv *modelServer) []string {
	return []string{
		"GOOGLE_GEMINI_BASE_URL=" + srv.url,
		"GEMINI_API_KEY=shellgate-e2e-dummy",
		// One process: no relaunch with a larger heap.
		"GEMINI_CLI_NO_RELAUNCH=true",
	}
}

// runGemini runs `gemini -p` headless in yolo mode (Gemini CLI's own
// policy allows every tool call, so only the hook stands in the way),
// with a fixed model (no routing requests).
func runGemini(t *testing.T, s *sandbox, gemini string, srv *modelServer, stopWhen func(string) bool) agentRun {
	t.Helper()
	args := []string{"-p", "Run the shell command the tool call gives.", "--output-format", "json", "--approval-mode", "yolo", "-m", "gemini-2.5-flash"}
	run := s.runAgent(gemini, args, geminiEnv(srv), stopWhen)
	t.Logf("gemini -p took %v", run.took.Round(10e6))
	if stopWhen != nil {
		// A run the test may stop: the caller judges it.
		return run
	}
	if run.err != nil {
		t.Fatalf("gemini -p: %v\nstdout:\n%s\nstderr:\n%s", run.err, run.stdout, run.stderr)
	}
	var res struct {
		Response string `json:"response"`
		Error    any    `json:"error"`
	}
	if err := json.Unmarshal([]byte(run.stdout), &res); err != nil || res.Error != nil {
		t.Fatalf("gemini -p did not end with a response (%v)\nstdout:\n%s\nstderr:\n%s", err, run.stdout, run.stderr)
	}
	return run
}

// TestGeminiCLI drives the real Gemini CLI with shellgate installed by
// `shellgate install gemini`.
func TestGeminiCLI(t *testing.T) {
	gemini := agentBin(t, "gemini", "@google/gemini-cli")
	_, err := exec.LookPath("node")
	requireTool(t, err == nil, "node (Gemini CLI runs on it) not found on PATH")
	t.Logf("Gemini CLI %s", newSandbox(t).agentVersion(gemini))

	t.Run("an allowed ls runs", func(t *testing.T) {
		s := geminiSandbox(t)
		out := s.install("gemini")
		for _, want := range []string{"\nfail-closed: Gemini CLI blocks", "\nactive: Gemini CLI trusts " + s.proj} {
			if !strings.Contains(out, want) {
				t.Errorf("install does not say %q:\n%s", want, out)
			}
		}
		srv := newGeminiServer(t, "ls")
		run := runGemini(t, s, gemini, srv, nil)
		if got := srv.result(run); !strings.Contains(got, s.token) {
			t.Errorf("the ls result the model got does not list %s: %q", s.token, got)
		}
	})

	t.Run("the command runs in bash, the dialect the hook judges", func(t *testing.T) {
		// The hook reads Gemini CLI's commands as bash only (hook.ShellFor):
		// the shell Gemini CLI really runs them in must be bash.
		s := geminiSandbox(t)
		s.install("gemini")
		srv := newGeminiServer(t, `echo "shell=bash:$BASH_VERSION"`)
		run := runGemini(t, s, gemini, srv, nil)
		if got := srv.result(run); !regexp.MustCompile(`shell=bash:\d`).MatchString(got) {
			t.Errorf("the command did not run in bash (BASH_VERSION is empty): %q", got)
		}
	})

	t.Run("a denied read never reaches the model", func(t *testing.T) {
		s := geminiSandbox(t)
		s.install("gemini")
		srv := newGeminiServer(t, "cat ~/.ssh/id_rsa")
		run := runGemini(t, s, gemini, srv, nil)
		got := srv.result(run)
		if srv.saw(s.secret) {
			t.Errorf("the decoy key reached the model server; tool result %q", got)
		}
		if !strings.Contains(got, "shellgate: denied") || !strings.Contains(got, "read-denied") {
			t.Errorf("the model was not told shellgate's reason: %q", got)
		}
	})

	t.Run("an ask is Gemini CLI's own confirmation, and nothing runs", func(t *testing.T) {
		s := geminiSandbox(t)
		out := s.install("gemini")
		if !strings.Contains(out, "\nask: ") {
			t.Errorf("install does not say what an ask becomes:\n%s", out)
		}
		srv := newGeminiServer(t, "touch asked.marker")
		const shown = "shellgate: a person must approve this command"
		// Headless, Gemini CLI 0.61 cannot show the confirmation: it waits
		// for ever (or, in one process, ends with no answer and exit 0).
		// The test ends the run once it has shown shellgate's reason.
		run := runGemini(t, s, gemini, srv, func(stderr string) bool { return strings.Contains(stderr, shown) })
		t.Logf("stopped by the test: %v, exit: %v, stdout %q", run.stopped, run.err, run.stdout)
		if !strings.Contains(run.stderr, shown) {
			t.Errorf("Gemini CLI did not show shellgate's reason (stopped=%v, err=%v)\nstdout:\n%s\nstderr:\n%s", run.stopped, run.err, run.stdout, run.stderr)
		}
		if s.exists("asked.marker") {
			t.Errorf("the asked touch ran headless")
		}
		if n := srv.toolResultCount(); n != 0 {
			t.Errorf("the model got %d results for the asked command; it never ran, so there is nothing to report", n)
		}
	})

	t.Run("a command the person allowed in tools.allowed runs", func(t *testing.T) {
		// The person's own rule in Gemini CLI's user settings: shellgate's
		// ask becomes an allow, for that command only.
		s := geminiSandbox(t)
		s.write(filepath.Join(s.home, ".gemini", "settings.json"), strings.Replace(geminiUserSettings, "{\n", "{\n  \"tools\": {\"allowed\": [\"run_shell_command(touch allowed.marker)\"]},\n", 1))
		s.install("gemini", "--ask-as", "deny")
		srv := newGeminiServer(t, "touch allowed.marker")
		run := runGemini(t, s, gemini, srv, nil)
		if !s.exists("allowed.marker") {
			t.Errorf("the allowed touch did not run; the model got %q", srv.result(run))
		}
		srv = newGeminiServer(t, "touch allowed.marker; touch chained.marker")
		run = runGemini(t, s, gemini, srv, nil)
		if got := srv.result(run); s.exists("chained.marker") || !strings.Contains(got, "--ask-as deny") {
			t.Errorf("a command chained to the allowed one was not refused: %q", got)
		}
	})

	t.Run("--ask-as deny blocks an asked command headless", func(t *testing.T) {
		s := geminiSandbox(t)
		s.install("gemini", "--ask-as", "deny")
		srv := newGeminiServer(t, "touch asked.marker")
		run := runGemini(t, s, gemini, srv, nil)
		got := srv.result(run)
		if s.exists("asked.marker") {
			t.Errorf("the asked touch ran headless: %q", got)
		}
		if !strings.Contains(got, "--ask-as deny") {
			t.Errorf("the model was not told shellgate's reason: %q", got)
		}
	})

	t.Run("a hook that cannot run blocks", func(t *testing.T) {
		s := geminiSandbox(t)
		s.install("gemini")
		s.removeBinaries()
		srv := newGeminiServer(t, "touch failclosed.marker")
		run := runGemini(t, s, gemini, srv, nil)
		got := srv.result(run)
		if s.exists("failclosed.marker") {
			t.Errorf("the command ran although the hook could not: %q", got)
		}
		if !strings.Contains(got, "shellgate-hook") {
			t.Errorf("the block does not name the missing hook: %q", got)
		}
	})
}
