package hook

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/internal/testenv"
)

// The payloads as Qwen Code 0.24.4 and GitHub Copilot CLI 1.0.102 sent
// them to a hook (captured by driving the real clients headless against a
// model server on 127.0.0.1; see e2e/agents).
const (
	qwenSent    = `{"session_id":"979d3ae8","transcript_path":"/h/.qwen/projects/p/chats/979d3ae8.jsonl","cwd":"/h/proj","hook_event_name":"PreToolUse","timestamp":"2026-12-04T22:35:23.087Z","permission_mode":"yolo","prompt_id":"979d3ae8########0","tool_name":"run_shell_command","tool_input":{"command":"ls","description":"run it"},"tool_use_id":"toolu_1796423723072_a1jhoyc87","tool_call_id":"call_sg1"}`
	copilotSent = `{"sessionId":"566d663e-d1de-46be-9ae6-4697bcc1866c","timestamp":1796424675148,"cwd":"/h/proj","toolName":"bash","toolArgs":{"command":"touch marker","description":"run it"}}`
)

// TestNewAgentsParse reads the real payloads, and the shapes around them,
// as each agent's hook call.
func TestNewAgentsParse(t *testing.T) {
	type got struct {
		Event          Event
		Tool, Cmd, Cwd string
		Mode           string
		Err            string
	}
	tests := []struct {
		name  string
		agent Agent
		in    string
		want  got
	}{
		{"qwen, as sent", Qwen, qwenSent, got{Event: EventPre, Tool: "run_shell_command", Cmd: "ls", Cwd: "/h/proj", Mode: ModeDefault}},
		{"qwen plan is readonly", Qwen, `{"hook_event_name":"PreToolUse","permission_mode":"plan","cwd":"/p","tool_name":"run_shell_command","tool_input":{"command":"ls"}}`,
			got{Event: EventPre, Tool: "run_shell_command", Cmd: "ls", Cwd: "/p", Mode: ModeReadonly}},
		{"qwen directory", Qwen, `{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"run_shell_command","tool_input":{"command":"ls","directory":"/p/sub"}}`,
			got{Event: EventPre, Tool: "run_shell_command", Cmd: "ls", Cwd: "/p/sub", Mode: ModeDefault}},
		{"qwen monitor carries a command", Qwen, `{"hook_event_name":"PreToolUse","tool_name":"monitor","tool_input":{"command":"tail -f x"}}`,
			got{Event: EventPre, Tool: "monitor", Cmd: "tail -f x", Mode: ModeDefault}},
		{"qwen read_file is passed", Qwen, `{"hook_event_name":"PreToolUse","tool_name":"read_file","tool_input":{"absolute_path":"/etc/passwd"}}`,
			got{Event: EventOther, Tool: "read_file", Mode: ModeDefault}},
		{"qwen null command", Qwen, `{"hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":null}}`,
			got{Event: EventPre, Tool: "run_shell_command", Mode: ModeDefault, Err: "no tool_input.command"}},
		{"copilot, as sent", Copilot, copilotSent, got{Event: EventPre, Tool: "bash", Cmd: "touch marker", Cwd: "/h/proj", Mode: ModeDefault}},
		{"copilot toolArgs as a JSON string", Copilot, `{"cwd":"/p","toolName":"bash","toolArgs":"{\"command\":\"ls -la\"}"}`,
			got{Event: EventPre, Tool: "bash", Cmd: "ls -la", Cwd: "/p", Mode: ModeDefault}},
		{"copilot toolArgs a string, not JSON", Copilot, `{"toolName":"bash","toolArgs":"ls"}`,
			got{Event: EventPre, Tool: "bash", Mode: ModeDefault, Err: "tool_input is not an object"}},
		{"copilot view is passed", Copilot, `{"cwd":"/p","toolName":"view","toolArgs":{"path":"/p/x"}}`,
			got{Event: EventOther, Tool: "view", Cwd: "/p", Mode: ModeDefault}},
		{"copilot powershell carries a command", Copilot, `{"toolName":"powershell","toolArgs":{"command":"Remove-Item x"}}`,
			got{Event: EventPre, Tool: "powershell", Cmd: "Remove-Item x", Mode: ModeDefault}},
		{"copilot no toolName", Copilot, `{"cwd":"/p","toolArgs":{"path":"x"}}`,
			got{Event: EventPre, Cwd: "/p", Mode: ModeDefault, Err: "no tool_input.command"}},
		{"copilot no toolArgs", Copilot, `{"toolName":"bash"}`,
			got{Event: EventPre, Tool: "bash", Mode: ModeDefault, Err: "no tool_input"}},
		{"copilot not an object", Copilot, `["bash"]`, got{Mode: ModeDefault, Err: "not a JSON object"}},
		{"copilot trailing data", Copilot, copilotSent + `{}`, got{Mode: ModeDefault, Err: "data after the JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Parse(tt.agent, []byte(tt.in))
			g := got{Event: p.Event, Tool: p.ToolName, Cmd: p.Command, Cwd: p.Cwd, Mode: p.Mode}
			if err != nil {
				g.Err = err.Error()
				if strings.Contains(g.Err, tt.want.Err) && tt.want.Err != "" {
					g.Err = tt.want.Err
				}
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewAgentsRender: the answers each client honours (see e2e/agents):
// Qwen Code reads Claude's hookSpecificOutput, Copilot CLI a flat
// permissionDecision; "{}" is no opinion for both.
func TestNewAgentsRender(t *testing.T) {
	why := []Reason{{Code: "not-reversible", Message: "touch is not read-only"}}
	tests := []struct {
		agent  Agent
		action string
		want   string
	}{
		{Qwen, Allow, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"shellgate: allowed: not-reversible: touch is not read-only"}}`},
		{Qwen, Ask, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"shellgate: a person must approve this command: not-reversible: touch is not read-only"}}`},
		{Qwen, Deny, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: denied: not-reversible: touch is not read-only"}}`},
		{Copilot, Allow, `{"permissionDecision":"allow","permissionDecisionReason":"shellgate: allowed: not-reversible: touch is not read-only"}`},
		{Copilot, Ask, `{"permissionDecision":"ask","permissionDecisionReason":"shellgate: a person must approve this command: not-reversible: touch is not read-only"}`},
		{Copilot, Deny, `{"permissionDecision":"deny","permissionDecisionReason":"shellgate: denied: not-reversible: touch is not read-only"}`},
	}
	for _, tt := range tests {
		t.Run(string(tt.agent)+" "+tt.action, func(t *testing.T) {
			ans := Render(Payload{Agent: tt.agent, Event: EventPre}, Verdict{Action: tt.action, Reasons: why}, Options{})
			if diff := cmp.Diff(tt.want, strings.TrimSpace(string(ans.Stdout))); diff != "" || ans.Exit != 0 {
				t.Errorf("exit %d, answer (-want +got):\n%s", ans.Exit, diff)
			}
		})
	}
	for _, a := range []Agent{Qwen, Copilot} {
		if got := string(NoOpinion(a).Stdout); got != "{}\n" {
			t.Errorf("%s no opinion: %q", a, got)
		}
	}
	// A payload that cannot be read is denied in the agent's format.
	ans := Handle(context.Background(), Copilot, []byte(`{"toolName":"bash","toolArgs":{"command":null}}`), Flags{}, nil, nil)
	if !strings.HasPrefix(string(ans.Stdout), `{"permissionDecision":"deny"`) {
		t.Errorf("copilot null command: %s", ans.Stdout)
	}
}

// TestNewAgentsInstall: the settings as written, merged into a user's file,
// and written once.
func TestNewAgentsInstall(t *testing.T) {
	noenv := func(string) string { return "" }
	t.Run("qwen project", func(t *testing.T) {
		proj := t.TempDir()
		path := filepath.Join(proj, ".qwen", "settings.json")
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(`{"model":{"name":"x"},"hooks":{"PreToolUse":[{"matcher":"run_shell_command","hooks":[{"type":"command","command":"shellgate-hook claude"}]}]}}`), 0o644)
		in, err := Qwen.Spec().Install(InstallOptions{Scope: ScopeProject, ProjectDir: proj, Getenv: noenv, Command: "shellgate-hook qwen"})
		if err != nil {
			t.Fatal(err)
		}
		want := `{
  "model": {
    "name": "x"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "run_shell_command|monitor",
        "hooks": [
          {
            "type": "command",
            "command": "shellgate-hook qwen || awk 'END{print \"{\\\"hookSpecificOutput\\\":{\\\"hookEventName\\\":\\\"PreToolUse\\\",\\\"permissionDecision\\\":\\\"deny\\\",\\\"permissionDecisionReason\\\":\\\"shellgate: denied: shellgate-hook could not run (missing, not executable or crashed), so no command runs; run shellgate doctor, or shellgate install qwen again\\\"}}\"}'",
            "timeout": 120
          }
        ]
      }
    ]
  }
}
`
		if diff := cmp.Diff(want, string(in.Content)); diff != "" || in.Path != path {
			t.Errorf("%s (-want +got):\n%s", in.Path, diff)
		}
		if !IsQwenFailClosed(in.Command) || QwenFailClosed(in.Command) != in.Command {
			t.Errorf("the command is not fail-closed once: %s", in.Command)
		}
		again, err := Qwen.Spec().Install(InstallOptions{Scope: ScopeProject, ProjectDir: proj, Getenv: noenv, Command: "shellgate-hook qwen"})
		if err != nil || again.Changed {
			t.Errorf("a second install changed the file (%v)", err)
		}
	})
	t.Run("copilot user and project", func(t *testing.T) {
		home, proj := t.TempDir(), t.TempDir()
		in, err := Copilot.Spec().Install(InstallOptions{Scope: ScopeUser, ProjectDir: proj, Home: home, Getenv: noenv, Command: "shellgate-hook copilot"})
		if err != nil {
			t.Fatal(err)
		}
		want := "{\n  \"hooks\": {\n    \"preToolUse\": [\n      {\n        \"type\": \"command\",\n        \"bash\": \"shellgate-hook copilot\",\n        \"timeoutSec\": 120\n      }\n    ]\n  }\n}\n"
		if diff := cmp.Diff(want, string(in.Content)); diff != "" || in.Path != filepath.Join(home, ".copilot", "settings.json") {
			t.Errorf("%s (-want +got):\n%s", in.Path, diff)
		}
		chome := t.TempDir()
		in, err = Copilot.Spec().Install(InstallOptions{Scope: ScopeProject, ProjectDir: proj, Home: home,
			Getenv: func(k string) string {
				if k == "COPILOT_HOME" {
					return chome
				}
				return ""
			}, Command: "shellgate-hook copilot"})
		if err != nil {
			t.Fatal(err)
		}
		if in.Path != filepath.Join(proj, ".github", "hooks", "shellgate.json") {
			t.Errorf("project file %s", in.Path)
		}
		last := in.Notes[len(in.Notes)-1]
		if last.Kind != NoteInactive || !strings.Contains(last.Text, "NOT ACTIVE YET") {
			t.Errorf("an untrusted folder is not reported inactive: %+v", last)
		}
		os.WriteFile(filepath.Join(chome, "config.json"), []byte("// managed\n{\"trustedFolders\":[\""+filepath.Dir(proj)+"\"]}\n"), 0o600)
		tr, err := CopilotFolderTrust(chome, proj)
		if err != nil || !tr.Trusted {
			t.Errorf("a folder under a trusted one: %+v, %v", tr, err)
		}
	})
}

// TestQwenFallbackDenies runs the installed fallback in bash, as Qwen Code
// does, with a hook binary that is missing: it prints a deny.
func TestQwenFallbackDenies(t *testing.T) {
	bash := testenv.LookPath(t, "bash")
	cmd := exec.Command(bash, "-c", QwenFailClosed(filepath.Join(t.TempDir(), "shellgate-hook")+" qwen"))
	cmd.Stdin = strings.NewReader(qwenSent)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Parse(Qwen, []byte(qwenSent))
	want := string(DenyError(Qwen, p.EventName, os.ErrNotExist).Stdout)
	if !strings.Contains(string(out), `"permissionDecision":"deny"`) || !strings.HasPrefix(want, `{"hookSpecificOutput"`) {
		t.Errorf("fallback printed %q", out)
	}
}

// FuzzNewAgentsHandle: whatever Qwen Code or Copilot CLI sends, Handle
// answers one JSON object, exits 0, and allows only what the decider
// allowed.
func FuzzNewAgentsHandle(f *testing.F) {
	f.Add(true, qwenSent)
	f.Add(false, copilotSent)
	f.Add(false, `{"toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}`)
	f.Add(false, `{"toolName":"bash","toolArgs":"ls"}`)
	f.Add(false, `{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	f.Add(false, `{"toolName":"bash","toolArgs":{"command":null}}`)
	f.Add(true, `{"tool_name":"monitor","tool_input":{"command":["x"]}}`)
	f.Fuzz(func(t *testing.T, qwen bool, in string) {
		agent := Copilot
		if qwen {
			agent = Qwen
		}
		allowed := false
		d := DeciderFunc(func(_ context.Context, q Query) (Verdict, error) {
			if q.Command == "ls" {
				allowed = true
				return Verdict{Action: Allow}, nil
			}
			return Verdict{Action: Deny, Reasons: []Reason{{Code: "x", Message: q.Command}}}, nil
		})
		ans := Handle(context.Background(), agent, []byte(in), Flags{}, d, nil)
		if ans.Exit != 0 {
			t.Fatalf("exit %d", ans.Exit)
		}
		var o map[string]any
		if err := json.Unmarshal(ans.Stdout, &o); err != nil {
			t.Fatalf("not one JSON object: %q", ans.Stdout)
		}
		if !allowed && strings.Contains(string(ans.Stdout), `"permissionDecision":"allow"`) {
			t.Fatalf("allowed what the decider did not: %s", ans.Stdout)
		}
	})
}
