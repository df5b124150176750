package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// MaxPayload is the largest hook payload read from an agent, in bytes. A
// larger payload is denied, not truncated.
const MaxPayload = 4 << 20

// Event is the kind of hook call a payload is.
type Event int

// Hook events.
const (
	// EventOther is a call shellgate has no opinion on (another tool,
	// another event): it answers with the agent's "no decision".
	EventOther Event = iota
	// EventPre is a shell command about to run: shellgate decides.
	EventPre
	// EventPost is a shell command that has run: shellgate may explain its
	// exit code.
	EventPost
)

// Payload is an agent's hook call, reduced to what shellgate needs.
type Payload struct {
	Agent Agent
	Event Event
	// EventName is the agent's own name of the event ("PreToolUse",
	// "PostToolUseFailure", "BeforeTool", "beforeShellExecution").
	EventName string
	// ToolName is the agent's tool name ("Bash", "run_shell_command"), if
	// the protocol has one.
	ToolName string
	Command  string
	// Cwd is the directory the command runs in, absolute when the agent
	// gave one.
	Cwd string
	// Mode is ModeReadonly when the agent is in a read-only mode (Claude
	// Code and Codex "plan"), else ModeDefault.
	Mode string
	// ExitCode is the command's exit code, for EventPost; HasExitCode says
	// whether it is known.
	ExitCode    int
	HasExitCode bool
	// Shell is the shell the payload says runs the command (a "shell"
	// field at the top level or in tool_input), or "".
	Shell string
	// NoPerson, when set, says why nobody will be asked in the agent's
	// permission mode (Claude Code's auto, dontAsk, bypassPermissions, or
	// a mode shellgate does not know): an ask is then rendered as a deny.
	NoPerson string
}

// Errors Parse returns; each becomes a deny.
var (
	ErrEmpty     = errors.New("empty hook payload")
	ErrTooLarge  = fmt.Errorf("hook payload larger than %d bytes", MaxPayload)
	ErrNoCommand = errors.New("hook payload has no command")
)

// rawPayload is the union of the fields the agents' protocols use.
type rawPayload struct {
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolResponse   json.RawMessage `json:"tool_response"`
	Cwd            *string         `json:"cwd"`
	PermissionMode string          `json:"permission_mode"`
	Command        json.RawMessage `json:"command"` // Cursor: top level
	Error          json.RawMessage `json:"error"`   // Claude PostToolUseFailure
	Shell          *string         `json:"shell"`
}

type rawToolInput struct {
	Command   json.RawMessage `json:"command"`
	Directory *string         `json:"directory"` // Gemini run_shell_command
	DirPath   *string         `json:"dir_path"`  // Gemini, newer spelling
	Shell     *string         `json:"shell"`
}

// Parse reads an agent's hook payload. An error means the payload could not
// be read as that agent's hook call; the caller must deny.
func Parse(agent Agent, data []byte) (Payload, error) {
	p := Payload{Agent: agent, Mode: ModeDefault}
	if len(data) > MaxPayload {
		return p, ErrTooLarge
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return p, ErrEmpty
	}
	if s := agent.Spec(); s != nil && s.payload != nil {
		var err error
		if data, err = s.payload(data); err != nil {
			return p, err
		}
	}
	var raw rawPayload
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return p, fmt.Errorf("hook payload is not a JSON object: %v", err)
	}
	if dec.More() {
		return p, errors.New("hook payload has data after the JSON object")
	}
	p.EventName = raw.HookEventName
	p.ToolName = raw.ToolName
	if raw.Cwd != nil {
		p.Cwd = *raw.Cwd
	}
	if raw.PermissionMode == "plan" {
		p.Mode = ModeReadonly
	}
	s := agent.Spec()
	if s != nil && s.AskingModes != nil && !slices.Contains(s.AskingModes, raw.PermissionMode) {
		p.NoPerson = fmt.Sprintf("%s's permission mode %q puts no question to a person", s.Title, raw.PermissionMode)
	}
	if s == nil {
		return p, fmt.Errorf("unknown agent %q", agent)
	}
	switch {
	case raw.HookEventName == "" || slices.Contains(s.PreEvents, raw.HookEventName):
		p.Event = EventPre
	case slices.Contains(s.PostEvents, raw.HookEventName):
		p.Event = EventPost
	}
	if s.ShellTool != "" && raw.ToolName != s.ShellTool && raw.ToolName != "" && !carriesCommand(raw.ToolInput) {
		// A hook installed with a wider matcher sees other tools; they
		// are not shellgate's to judge. A call that names no tool, or
		// whose input carries a command (another agent's shell tool
		// under this protocol: Qwen Code's run_shell_command, Factory
		// droid's Execute), is judged as a shell call: not proven
		// otherwise.
		p.Event = EventOther
	}
	if p.Event == EventOther {
		return p, nil
	}

	cmdRaw := raw.Command
	var in rawToolInput
	if !s.CommandAtTop {
		if len(raw.ToolInput) == 0 || string(raw.ToolInput) == "null" {
			return p, fmt.Errorf("%w: no tool_input", ErrNoCommand)
		}
		if err := json.Unmarshal(raw.ToolInput, &in); err != nil {
			return p, fmt.Errorf("tool_input is not an object: %v", err)
		}
		cmdRaw = in.Command
	}
	field := "tool_input.command"
	if s.CommandAtTop {
		field = "command"
	}
	if len(cmdRaw) == 0 || string(cmdRaw) == "null" {
		return p, fmt.Errorf("%w: no %s field", ErrNoCommand, field)
	}
	if err := json.Unmarshal(cmdRaw, &p.Command); err != nil {
		return p, fmt.Errorf("%s is not a string", field)
	}
	for _, s := range []*string{in.Shell, raw.Shell} {
		if s != nil && *s != "" {
			p.Shell = *s
			break
		}
	}
	if strings.TrimSpace(p.Command) == "" && p.Event == EventPre {
		return p, fmt.Errorf("%w: %s is empty", ErrNoCommand, field)
	}
	if s.ToolInputDir {
		dir := in.Directory
		if dir == nil {
			dir = in.DirPath
		}
		if dir != nil && *dir != "" {
			// Gemini's directory is relative to the project root, which
			// is the payload's cwd.
			if filepath.IsAbs(*dir) || p.Cwd == "" {
				p.Cwd = *dir
			} else {
				p.Cwd = filepath.Join(p.Cwd, *dir)
			}
		}
	}
	if p.Event == EventPost {
		p.ExitCode, p.HasExitCode = exitCodeOf(raw)
	}
	return p, nil
}

var exitCodeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bexit(?:ed with)? code:? (\d{1,3})\b`)
})

// exitCodeOf finds the exit code of a shell call that ran: a numeric field
// of tool_response when there is one, "Exit Code: N" in Gemini CLI's
// llmContent, else "Exit code N" in Claude Code's failure text. A Claude
// Code PostToolUse without either ran with exit 0.
func exitCodeOf(raw rawPayload) (int, bool) {
	text := ""
	if len(raw.ToolResponse) > 0 {
		var resp map[string]json.RawMessage
		if json.Unmarshal(raw.ToolResponse, &resp) == nil {
			for _, k := range []string{"exit_code", "exitCode", "returnCode", "return_code"} {
				var n int
				if v, ok := resp[k]; ok && json.Unmarshal(v, &n) == nil {
					return n, true
				}
			}
			// Gemini CLI: the result text for the model holds
			// "Exit Code: N" when the command failed.
			if v, ok := resp["llmContent"]; ok && json.Unmarshal(v, &text) == nil {
				if m := exitCodeRE().FindStringSubmatch(text); m != nil {
					if n, err := strconv.Atoi(m[1]); err == nil && n <= 255 {
						return n, true
					}
				}
				text = ""
			}
		}
	}
	if len(raw.Error) > 0 {
		if json.Unmarshal(raw.Error, &text) != nil {
			text = string(raw.Error)
		}
	} else if raw.HookEventName == "PostToolUse" {
		return 0, true
	}
	if m := exitCodeRE().FindStringSubmatch(text); m != nil {
		n, err := strconv.Atoi(m[1])
		if err == nil && n <= 255 {
			return n, true
		}
	}
	return 0, false
}

// carriesCommand reports whether a tool's input has a "command" member
// that is not null: whatever the tool is called, a call that carries a
// command is judged (or, when the command is not a string, denied), never
// passed.
func carriesCommand(toolInput json.RawMessage) bool {
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	if len(toolInput) == 0 || json.Unmarshal(toolInput, &in) != nil {
		return false
	}
	return len(in.Command) > 0 && string(in.Command) != "null"
}
