package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/internal/mcptest"
)

// TestBadCommandsDeniedEverywhere gives every front end the same
// commands a shell cannot be given (null, a NUL byte, not UTF-8, empty,
// over the size limit) and wants each denied alike: nothing asks, nothing
// runs.
func TestBadCommandsDeniedEverywhere(t *testing.T) {
	dir := mcptest.Workspace(t)
	cs := inMemory(t, true, dir) // approving asks: only a deny stops a command
	big := strings.Repeat("a", gate.MaxCommandBytes+1)
	// A command is the JSON value of "command" (raw, so that null and a
	// string that is not UTF-8 can be given as such).
	bad := []struct {
		name string
		raw  string
		// argv: it can be given to check as an argument (no NUL, not
		// null).
		argv bool
		// notJSON: JSON cannot carry it (a decoder makes the invalid
		// byte U+FFFD, for the agent as for shellgate): only check and
		// a lines batch get it as is.
		notJSON bool
	}{
		{"null", `null`, false, false},
		{"NUL byte", `"touch made\u0000.txt"`, false, false},
		{"NUL byte alone", `"\u0000"`, false, false},
		{"not UTF-8", "\"touch made\xff.txt\"", true, true},
		{"empty", `""`, true, false},
		{"blank", `"  "`, true, false},
		{"over the limit", `"touch made.txt; ` + big + `"`, true, false},
	}
	for _, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			var command *string
			if b.raw != "null" {
				var s string
				// encoding/json would replace the invalid byte: keep it.
				if strings.Contains(b.raw, "\xff") {
					s = strings.Trim(b.raw, `"`)
				} else if err := json.Unmarshal([]byte(b.raw), &s); err != nil {
					t.Fatal(err)
				}
				command = &s
			}
			got := map[string]string{}
			want := map[string]string{}

			// The Claude Code hook.
			var out, errb bytes.Buffer
			if !b.notJSON {
				payload := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","cwd":` + jsonString(dir) +
					`,"tool_input":{"command":` + b.raw + `}}`
				code := run([]string{"hook", "claude"}, strings.NewReader(payload), &out, &errb)
				var hookAnswer struct {
					HookSpecificOutput struct {
						PermissionDecision string `json:"permissionDecision"`
					} `json:"hookSpecificOutput"`
				}
				_ = json.Unmarshal(out.Bytes(), &hookAnswer)
				got["hook claude"] = hookAnswer.HookSpecificOutput.PermissionDecision
				want["hook claude"] = "deny"
				if code != exitOK {
					t.Errorf("hook claude: exit %d (%s)", code, errb.String())
				}
			}

			// check --batch, both formats.
			for _, format := range []string{"jsonl", "lines"} {
				var in string
				switch {
				case format == "jsonl" && b.notJSON:
					continue
				case format == "jsonl":
					in = `{"command":` + b.raw + "}\n"
				case command == nil || strings.TrimSpace(*command) == "":
					continue // a blank line is no command in a lines batch
				default:
					in = *command + "\n"
				}
				out.Reset()
				errb.Reset()
				code := run([]string{"check", "--cwd", dir, "--batch", "--input", format}, strings.NewReader(in), &out, &errb)
				var ans struct {
					Action string `json:"action"`
				}
				if err := json.Unmarshal(out.Bytes(), &ans); err != nil || code != exitOK {
					t.Errorf("check --batch --input %s: exit %d, %v: %s %s", format, code, err, out.String(), errb.String())
				}
				got["check --batch "+format] = ans.Action
				want["check --batch "+format] = "deny"
			}

			// check COMMAND.
			if b.argv {
				out.Reset()
				code := run([]string{"check", "--cwd", dir, "--json", *command}, strings.NewReader(""), &out, &errb)
				var ans struct {
					Action string `json:"action"`
				}
				_ = json.Unmarshal(out.Bytes(), &ans)
				got["check"] = ans.Action + " " + exitName(code)
				want["check"] = "deny " + exitName(exitDeny)
			}

			// The MCP tools: a tool error, nothing run.
			for _, tool := range []string{"bash", "bash_readonly", "check"} {
				if b.notJSON {
					break
				}
				args := json.RawMessage(`{"command":` + b.raw + `}`)
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
				switch {
				case err != nil:
					got["mcp "+tool] = "protocol error: " + err.Error()
				case res.IsError:
					got["mcp "+tool] = "refused"
				default:
					text := ""
					if len(res.Content) > 0 {
						text = res.Content[0].(*mcp.TextContent).Text
					}
					got["mcp "+tool] = "answered: " + text
				}
				want["mcp "+tool] = "refused"
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("front ends (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := os.Lstat(filepath.Join(dir, "made.txt")); err == nil {
		t.Error("made.txt exists: a bad command ran")
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func exitName(code int) string {
	switch code {
	case exitOK:
		return "exit 0 (allow)"
	case exitAsk:
		return "exit 1 (ask)"
	case exitDeny:
		return "exit 2 (deny)"
	}
	return fmt.Sprintf("exit %d", code)
}
