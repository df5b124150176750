package hook

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/shellgate/shellgate/classify/agentenv"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/shellgate/shellgate/gitrepo"
)

// Realistic payloads, with the field names of each agent's documentation.
const (
	claudePre = `{"session_id":"abc123","transcript_path":"/home/u/.claude/projects/p/abc123.jsonl",` +
		`"cwd":"/home/u/proj","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash",` +
		`"tool_input":{"command":"%s","description":"List files"},"tool_use_id":"toolu_01"}`
	claudePlan = `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/proj","permission_mode":"plan",` +
		`"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"}}`
	claudeEdit = `{"session_id":"abc123","cwd":"/home/u/proj","hook_event_name":"PreToolUse","tool_name":"Edit",` +
		`"tool_input":{"file_path":"/home/u/proj/a.go","old_string":"a","new_string":"b"}}`
	claudePostFail = `{"session_id":"abc123","cwd":"/home/u/proj","hook_event_name":"PostToolUseFailure","tool_name":"Bash",` +
		`"tool_input":{"command":"%s"},"tool_use_id":"toolu_02","error":"Exit code 1\n","is_interrupt":false}`
	claudePostOK = `{"session_id":"abc123","cwd":"/home/u/proj","hook_event_name":"PostToolUse","tool_name":"Bash",` +
		`"tool_input":{"command":"%s"},"tool_response":{"stdout":"x\n","stderr":"","interrupted":false,"isImage":false}}`
	codexPre = `{"session_id":"s-1","turn_id":"t-1","transcript_path":null,"cwd":"/home/u/proj","hook_event_name":"PreToolUse",` +
		`"model":"gpt-5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"%s"},"tool_use_id":"call-1"}`
	geminiPre = `{"session_id":"g-1","transcript_path":"/t.json","cwd":"/home/u/proj","hook_event_name":"BeforeTool",` +
		`"timestamp":"2026-01-28T10:00:00Z","tool_name":"run_shell_command",` +
		`"tool_input":{"command":"%s","description":"run","directory":"sub"}}`
	geminiRead = `{"session_id":"g-1","cwd":"/home/u/proj","hook_event_name":"BeforeTool","tool_name":"read_file",` +
		`"tool_input":{"absolute_path":"/etc/passwd"}}`
	geminiPost = `{"session_id":"g-1","cwd":"/home/u/proj","hook_event_name":"AfterTool","timestamp":"2026-01-28T10:00:05Z",` +
		`"tool_name":"run_shell_command","tool_input":{"command":"%s"},` +
		`"tool_response":{"llmContent":"Command: grep foo x\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 1\nSignal: (none)","returnDisplay":""}}`
	cursorPre = `{"hook_event_name":"beforeShellExecution","conversation_id":"conv-123","generation_id":"gen-456",` +
		`"workspace_roots":["/home/u/proj"],"command":"%s","cwd":"/home/u/proj"}`
)

func payload(tmpl, cmd string) []byte {
	b, _ := json.Marshal(cmd)
	return []byte(strings.Replace(tmpl, "%s", string(b[1:len(b)-1]), 1))
}

// fixed answers by program name, recording each query it sees.
type fixed struct{ seen []Query }

func (f *fixed) Decide(_ context.Context, q Query) (Verdict, error) {
	f.seen = append(f.seen, q)
	switch {
	case strings.HasPrefix(q.Command, "ls"):
		return Verdict{Action: Allow}, nil
	case strings.HasPrefix(q.Command, "npm"):
		return Verdict{Action: Ask, Reasons: []Reason{{Code: "not-reversible", Message: "npm install is not read-only"}}}, nil
	case strings.HasPrefix(q.Command, "rm"):
		return Verdict{Action: Deny, Reasons: []Reason{{Code: "rm-recursive", Message: "deletes a tree", Span: &[2]int{0, 6}}}}, nil
	case strings.HasPrefix(q.Command, "boom"):
		panic("decider exploded")
	case strings.HasPrefix(q.Command, "fail"):
		return Verdict{}, errors.New("policy failed to compile")
	case strings.HasPrefix(q.Command, "weird"):
		return Verdict{Action: "maybe"}, nil
	}
	return Verdict{Action: Ask}, nil
}

func explain(q Query, code int) string {
	if strings.HasPrefix(q.Command, "grep") && code == 1 {
		return "exit 1 from grep means no matches, not an error"
	}
	return ""
}

func TestHandle(t *testing.T) {
	tests := []struct {
		name  string
		agent Agent
		in    []byte
		flags Flags
		want  string // stdout, "" for none
		query *Query
	}{
		{"claude allow", Claude, payload(claudePre, "ls -la"), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"shellgate: allowed"}}`,
			&Query{Command: "ls -la", Cwd: "/home/u/proj", Mode: ModeDefault}},
		{"claude ask", Claude, payload(claudePre, "npm install"), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"shellgate: a person must approve this command: not-reversible: npm install is not read-only"}}`, nil},
		{"claude deny", Claude, payload(claudePre, "rm -rf /"), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: denied: rm-recursive: deletes a tree"}}`, nil},
		{"claude plan is readonly", Claude, payload(claudePlan, "ls"), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"shellgate: allowed"}}`,
			&Query{Command: "ls", Cwd: "/home/u/proj", Mode: ModeReadonly}},
		{"flag readonly wins", Claude, payload(claudePre, "ls"), Flags{Mode: ModeReadonly},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"shellgate: allowed"}}`,
			&Query{Command: "ls", Cwd: "/home/u/proj", Mode: ModeReadonly}},
		{"claude other tool", Claude, []byte(claudeEdit), Flags{}, "", nil},
		{"claude auto mode: an ask is a deny", Claude, []byte(`{"cwd":"/p","permission_mode":"auto","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm install"}}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: denied: no-person: Claude Code's permission mode \"auto\" puts no question to a person, so what shellgate would ask is denied; not-reversible: npm install is not read-only"}}`, nil},
		{"claude dontAsk mode: an ask is a deny", Claude, []byte(`{"permission_mode":"dontAsk","tool_name":"Bash","tool_input":{"command":"npm install"}}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: denied: no-person: Claude Code's permission mode \"dontAsk\" puts no question to a person, so what shellgate would ask is denied; not-reversible: npm install is not read-only"}}`, nil},
		{"claude bypassPermissions: an allow stays", Claude, []byte(`{"permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"ls -la"}}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"shellgate: allowed"}}`, nil},
		{"claude unknown mode: an ask is a deny", Claude, []byte(`{"permission_mode":"yolo2","tool_name":"Bash","tool_input":{"command":"npm install"}}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: denied: no-person: Claude Code's permission mode \"yolo2\" puts no question to a person, so what shellgate would ask is denied; not-reversible: npm install is not read-only"}}`, nil},
		{"claude acceptEdits still asks", Claude, []byte(`{"permission_mode":"acceptEdits","tool_name":"Bash","tool_input":{"command":"npm install"}}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"shellgate: a person must approve this command: not-reversible: npm install is not read-only"}}`, nil},
		{"another tool that carries a command is judged (Qwen Code)", Claude, []byte(`{"cwd":"/p","hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: denied: rm-recursive: deletes a tree"}}`, nil},
		{"another tool that carries a command is judged (droid)", Claude, []byte(`{"cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Execute","tool_input":{"command":"ls -la"}}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"shellgate: allowed"}}`,
			&Query{Command: "ls -la", Cwd: "/p", Mode: ModeDefault}},
		{"another tool whose command is not a string is denied", Claude, []byte(`{"hook_event_name":"PreToolUse","tool_name":"Execute","tool_input":{"command":["rm","-rf","/"]}}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate could not decide, so the command is denied: tool_input.command is not a string"}}`, nil},
		{"gemini: another tool that carries a command is judged", Gemini, []byte(`{"cwd":"/p","hook_event_name":"BeforeTool","tool_name":"shell","tool_input":{"command":"rm -rf /"}}`), Flags{},
			`{"decision":"deny","reason":"shellgate: denied: rm-recursive: deletes a tree"}`, nil},
		{"claude malformed", Claude, []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate could not decide, so the command is denied: hook payload is not a JSON object: unexpected EOF"}}`, nil},
		{"claude no tool name is judged", Claude, []byte(`{"hook_event_name":"PreToolUse","tool_input":{"command":"rm -rf /"}}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: denied: rm-recursive: deletes a tree"}}`, nil},
		{"claude missing command", Claude, []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{}}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate could not decide, so the command is denied: hook payload has no command: no tool_input.command field"}}`, nil},
		{"claude command not a string", Claude, []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["rm"]}}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate could not decide, so the command is denied: tool_input.command is not a string"}}`, nil},
		{"claude empty stdin", Claude, nil, Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate could not decide, so the command is denied: empty hook payload"}}`, nil},
		{"claude two objects", Claude, []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}} {}`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate could not decide, so the command is denied: hook payload has data after the JSON object"}}`, nil},
		{"decider error", Claude, payload(claudePre, "fail now"), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate could not decide, so the command is denied: policy failed to compile"}}`, nil},
		{"decider panic", Claude, payload(claudePre, "boom"), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate could not decide, so the command is denied: internal error: decider exploded"}}`, nil},
		{"unknown action", Claude, payload(claudePre, "weird"), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: denied: bad-decision: the decider returned the action \"maybe\""}}`, nil},
		{"claude post failure grep", Claude, payload(claudePostFail, "grep -rn foo ."), Flags{},
			`{"hookSpecificOutput":{"additionalContext":"shellgate: exit 1 from grep means no matches, not an error","hookEventName":"PostToolUseFailure"}}`, nil},
		{"claude post failure other", Claude, payload(claudePostFail, "make"), Flags{}, "", nil},
		{"claude post ok", Claude, payload(claudePostOK, "grep foo x"), Flags{}, "", nil},
		{"claude post malformed", Claude, []byte(`{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":1}}`), Flags{}, "", nil},

		{"codex allow defers to codex", Codex, payload(codexPre, "ls"), Flags{}, `{}`, nil},
		{"codex ask", Codex, payload(codexPre, "npm install"), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: this command needs a person's approval, which Codex hooks cannot ask for; ask the user to approve or run it: not-reversible: npm install is not read-only"}}`, nil},
		{"codex ask as deny", Codex, payload(codexPre, "npm install"), Flags{AskAs: AskDeny},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: this command needs a person's approval, which Codex hooks cannot ask for; ask the user to approve or run it: not-reversible: npm install is not read-only"}}`, nil},
		{"codex ask as defer", Codex, payload(codexPre, "npm install"), Flags{AskAs: AskDefer}, `{}`, nil},
		{"codex deny", Codex, payload(codexPre, "rm -rf x"), Flags{AskAs: AskDefer},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate: denied: rm-recursive: deletes a tree"}}`, nil},
		{"codex malformed", Codex, []byte(`not json`), Flags{},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"shellgate could not decide, so the command is denied: hook payload is not a JSON object: invalid character 'o' in literal null (expecting 'u')"}}`, nil},

		{"gemini allow with directory", Gemini, payload(geminiPre, "ls"), Flags{}, `{"decision":"allow"}`,
			&Query{Command: "ls", Cwd: "/home/u/proj/sub", Mode: ModeDefault, Shell: "bash"}},
		{"gemini ask", Gemini, payload(geminiPre, "npm test"), Flags{},
			`{"decision":"ask","systemMessage":"shellgate: a person must approve this command: not-reversible: npm install is not read-only"}`, nil},
		{"gemini ask as deny", Gemini, payload(geminiPre, "npm test"), Flags{AskAs: AskDeny},
			`{"decision":"deny","reason":"shellgate: this command needs a person's approval, which this Gemini CLI hook is set not to ask for (--ask-as deny); ask the user to approve or run it: not-reversible: npm install is not read-only"}`, nil},
		{"gemini ask as defer", Gemini, payload(geminiPre, "npm test"), Flags{AskAs: AskDefer}, `{}`, nil},
		{"gemini deny", Gemini, payload(geminiPre, "rm x"), Flags{}, `{"decision":"deny","reason":"shellgate: denied: rm-recursive: deletes a tree"}`, nil},
		{"gemini after grep", Gemini, payload(geminiPost, "grep foo x"), Flags{},
			`{"hookSpecificOutput":{"additionalContext":"shellgate: exit 1 from grep means no matches, not an error"}}`, nil},
		{"gemini after other", Gemini, payload(geminiPost, "make"), Flags{}, `{}`, nil},
		{"gemini after malformed", Gemini, []byte(`{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{}}`), Flags{}, `{}`, nil},
		{"gemini other tool", Gemini, []byte(geminiRead), Flags{}, `{}`, nil},
		{"gemini missing command", Gemini, []byte(`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"directory":"x"}}`), Flags{},
			`{"decision":"deny","reason":"shellgate could not decide, so the command is denied: hook payload has no command: no tool_input.command field"}`, nil},

		{"cursor allow", Cursor, payload(cursorPre, "ls"), Flags{}, `{"permission":"allow"}`,
			&Query{Command: "ls", Cwd: "/home/u/proj", Mode: ModeDefault}},
		{"claude ignores ask-as", Claude, payload(claudePre, "npm i"), Flags{AskAs: AskDeny},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"shellgate: a person must approve this command: not-reversible: npm install is not read-only"}}`, nil},
		{"cursor ask", Cursor, payload(cursorPre, "npm i"), Flags{},
			`{"agent_message":"shellgate: a person must approve this command: not-reversible: npm install is not read-only","permission":"ask","user_message":"shellgate: a person must approve this command: not-reversible: npm install is not read-only"}`, nil},
		{"cursor deny", Cursor, payload(cursorPre, "rm x"), Flags{},
			`{"agent_message":"shellgate: denied: rm-recursive: deletes a tree","permission":"deny","user_message":"shellgate: denied: rm-recursive: deletes a tree"}`, nil},
		{"cwd from the hook process", Cursor, []byte(`{"hook_event_name":"beforeShellExecution","command":"ls"}`), Flags{Cwd: "/proc/dir"},
			`{"permission":"allow"}`, &Query{Command: "ls", Cwd: "/proc/dir", Mode: ModeDefault}},
		{"relative cwd joins the hook process's", Gemini, []byte(`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"ls","directory":"sub"}}`), Flags{Cwd: "/proc/dir"},
			`{"decision":"allow"}`, &Query{Command: "ls", Cwd: "/proc/dir/sub", Mode: ModeDefault, Shell: "bash"}},
		{"cursor missing command", Cursor, []byte(`{"hook_event_name":"beforeShellExecution","cwd":"/x"}`), Flags{},
			`{"agent_message":"shellgate could not decide, so the command is denied: hook payload has no command: no command field","permission":"deny","user_message":"shellgate could not decide, so the command is denied: hook payload has no command: no command field"}`, nil},
		{"cursor empty command", Cursor, payload(cursorPre, "  "), Flags{},
			`{"agent_message":"shellgate could not decide, so the command is denied: hook payload has no command: command is empty","permission":"deny","user_message":"shellgate could not decide, so the command is denied: hook payload has no command: command is empty"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &fixed{}
			ans := Handle(context.Background(), tt.agent, tt.in, tt.flags, d, explain)
			if ans.Exit != 0 {
				t.Errorf("exit %d, want 0", ans.Exit)
			}
			got := strings.TrimSuffix(string(ans.Stdout), "\n")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if tt.query != nil {
				if diff := cmp.Diff([]Query{*tt.query}, d.seen, cmpopts.IgnoreFields(Query{}, "Agent", "AgentEnv")); diff != "" {
					t.Errorf("queries (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestHandleTooLarge(t *testing.T) {
	big := payload(claudePre, strings.Repeat("x", MaxPayload))
	d := &fixed{}
	ans := Handle(context.Background(), Claude, big, Flags{}, d, nil)
	if !strings.Contains(string(ans.Stdout), `"permissionDecision":"deny"`) || !strings.Contains(string(ans.Stdout), "larger than") {
		t.Errorf("got %s", ans.Stdout)
	}
	if len(d.seen) != 0 {
		t.Errorf("decider was asked about a too-large payload")
	}
}

func TestReasonClipped(t *testing.T) {
	long := strings.Repeat("é", 3000)
	p := Payload{Agent: Cursor, Event: EventPre}
	ans := Render(p, Verdict{Action: Deny, Reasons: []Reason{{Code: "x", Message: long}}}, Options{})
	var out struct {
		UserMessage string `json:"user_message"`
	}
	if err := json.Unmarshal(ans.Stdout, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.UserMessage) > maxReasonText || !strings.HasSuffix(out.UserMessage, "…") {
		t.Errorf("len %d, suffix %q", len(out.UserMessage), out.UserMessage[len(out.UserMessage)-8:])
	}
}

func TestParseFlags(t *testing.T) {
	// Every variable the client sends starts unset (CI sets GOFLAGS and
	// GOPROXY), then the ones this test is about are set.
	for _, n := range append(append([]string{}, agentenv.Names...), gitrepo.EnvNames...) {
		t.Setenv(n, "")
	}
	t.Setenv("SHELL", "/bin/zsh")
	t.Setenv("CLAUDE_CODE_SHELL", "")
	t.Setenv("RIPGREP_CONFIG_PATH", "/home/u/.ripgreprc")
	t.Setenv("PATH", "/usr/bin:/bin")
	agentEnv := map[string]string{}
	for _, n := range AgentEnvNames {
		t.Setenv(n, "")
		agentEnv[n] = ""
	}
	t.Setenv("HOME", "/home/u")
	t.Setenv("CLAUDE_CONFIG_DIR", "/home/u/.claude-work")
	agentEnv["HOME"], agentEnv["CLAUDE_CONFIG_DIR"] = "/home/u", "/home/u/.claude-work"
	f, ops, err := ParseFlags([]string{"claude", "--ask-as", "defer", "--policy", "/p1", "--policy", "/p2", "--mode", "readonly", "--shell", "/usr/bin/bash"}, new(strings.Builder))
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	// The agent's values, for the engine: the catalog's variables and
	// those git reads its configuration from (GIT_CONFIG_COUNT counts
	// GIT_CONFIG_KEY_0 and GIT_CONFIG_VALUE_0).
	env := map[string]string{}
	for _, n := range append(append([]string{}, agentenv.Names...), gitrepo.EnvNames...) {
		env[n] = ""
	}
	env["PATH"], env["RIPGREP_CONFIG_PATH"] = "/usr/bin:/bin", "/home/u/.ripgreprc"
	want := Flags{AskAs: AskDefer, Mode: ModeReadonly, Policy: []string{"/p1", "/p2"}, Cwd: wd, Shell: "bash", LoginShell: "/bin/zsh",
		Env: env, AgentEnv: agentEnv}
	if diff := cmp.Diff(want, f); diff != "" {
		t.Errorf("flags (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"claude"}, ops); diff != "" {
		t.Errorf("operands (-want +got):\n%s", diff)
	}
	back, _, err := ParseFlags(f.Args(), new(strings.Builder))
	if err != nil || !cmp.Equal(back, f) {
		t.Errorf("Args round trip: %v %+v", err, back)
	}
	for _, bad := range [][]string{{"--ask-as", "allow"}, {"--mode", "yolo"}, {"--nope"}, {"--shell", "fish"}} {
		if _, _, err := ParseFlags(bad, new(strings.Builder)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestShellFor: the shell a hook judges a command for comes from the
// payload, then --shell, then (Claude Code only) CLAUDE_CODE_SHELL and a
// bash or zsh login shell; anything else is not known.
func TestShellFor(t *testing.T) {
	for _, tc := range []struct {
		name    string
		agent   Agent
		payload string
		f       Flags
		want    string
	}{
		{"claude login zsh", Claude, "", Flags{LoginShell: "/bin/zsh"}, "zsh"},
		{"claude login bash", Claude, "", Flags{LoginShell: "/usr/local/bin/bash"}, "bash"},
		{"claude login fish", Claude, "", Flags{LoginShell: "/usr/bin/fish"}, ""},
		{"claude CLAUDE_CODE_SHELL wins", Claude, "", Flags{ClaudeShell: "/bin/bash", LoginShell: "/bin/zsh"}, "bash"},
		{"claude CLAUDE_CODE_SHELL unknown", Claude, "", Flags{ClaudeShell: "/opt/fish", LoginShell: "/bin/zsh"}, ""},
		{"claude --shell wins", Claude, "", Flags{Shell: "sh", LoginShell: "/bin/zsh"}, "sh"},
		{"payload wins", Claude, "zsh", Flags{Shell: "bash"}, "zsh"},
		{"codex login shell is not trusted", Codex, "", Flags{LoginShell: "/bin/zsh"}, ""},
		{"cursor --shell", Cursor, "", Flags{Shell: "zsh"}, "zsh"},
		{"none", Cursor, "", Flags{}, ""},
		{"gemini runs bash -c", Gemini, "", Flags{LoginShell: "/bin/zsh"}, "bash"},
		{"gemini --shell wins", Gemini, "", Flags{Shell: "zsh"}, "zsh"},
		{"claude login shell -zsh", Claude, "", Flags{LoginShell: "-zsh"}, "zsh"},
		{"claude login dash is not bash or zsh", Claude, "", Flags{LoginShell: "/bin/dash"}, ""},
		{"claude CLAUDE_CODE_SHELL dash is sh", Claude, "", Flags{ClaudeShell: "/usr/bin/dash", LoginShell: "/bin/zsh"}, "sh"},
		{"claude CLAUDE_CODE_SHELL ksh is not read", Claude, "", Flags{ClaudeShell: "/bin/ksh", LoginShell: "/bin/zsh"}, ""},
	} {
		got := ShellFor(tc.agent, Payload{Shell: tc.payload}, tc.f)
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestParsePayloadShell: a shell field in the payload (top level or in
// tool_input) is read.
func TestParsePayloadShell(t *testing.T) {
	for in, want := range map[string]string{
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls","shell":"zsh"}}`:  "zsh",
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","shell":"bash","tool_input":{"command":"ls"}}`: "bash",
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`:                "",
	} {
		p, err := Parse(Claude, []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if p.Shell != want {
			t.Errorf("%s: shell %q, want %q", in, p.Shell, want)
		}
	}
}

// TestExplainerQuery: after a command ran, the explainer is asked about it
// as the decider was before: its cwd and the shell the agent ran it in, so
// that it reads the command with the catalog of the cwd's gate and in
// that shell's language.
func TestExplainerQuery(t *testing.T) {
	tests := []struct {
		name  string
		agent Agent
		in    []byte
		flags Flags
		want  Query
	}{
		{"claude in zsh", Claude, payload(claudePostFail, "noglob grep x f"), Flags{ClaudeShell: "/bin/zsh", Env: map[string]string{"RIPGREP_CONFIG_PATH": ""}},
			Query{Command: "noglob grep x f", Cwd: "/home/u/proj", Mode: ModeDefault, Shell: "zsh", Env: map[string]string{"RIPGREP_CONFIG_PATH": ""}}},
		{"gemini runs bash", Gemini, payload(geminiPost, "grep foo x"), Flags{Mode: ModeReadonly},
			Query{Command: "grep foo x", Cwd: "/home/u/proj", Mode: ModeReadonly, Shell: "bash"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var seen []Query
			Handle(context.Background(), tc.agent, tc.in, tc.flags, &fixed{}, func(q Query, code int) string {
				seen = append(seen, q)
				return ""
			})
			if diff := cmp.Diff([]Query{tc.want}, seen); diff != "" {
				t.Errorf("explainer queries (-want +got):\n%s", diff)
			}
		})
	}
}

// The Decider learns which agent asks and where it keeps its settings,
// for the person's own approvals (package agentrules).
func TestHandleQueryAgent(t *testing.T) {
	d := &fixed{}
	f := Flags{Cwd: "/w", AgentEnv: map[string]string{"HOME": "/home/u"}}
	Handle(context.Background(), Claude, payload(claudePre, "npm test"), f, d, nil)
	if len(d.seen) != 1 {
		t.Fatalf("decider asked %d times", len(d.seen))
	}
	got := d.seen[0]
	if diff := cmp.Diff(Query{Agent: "claude", AgentEnv: map[string]string{"HOME": "/home/u"}}, Query{Agent: got.Agent, AgentEnv: got.AgentEnv}); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
}
