package doctor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/shellgate/shellgate/hook"
)

// shellTool is the tool (or event) whose hook gates shell commands, per
// agent: the event the entry must be under and the tool name its matcher
// must match ("" for Cursor, whose entries have no matcher).
var shellTool = map[hook.Agent]struct{ event, tool string }{
	hook.Claude: {"PreToolUse", "Bash"},
	hook.Codex:  {"PreToolUse", "Bash"},
	hook.Gemini: {"BeforeTool", "run_shell_command"},
	hook.Cursor: {"beforeShellExecution", ""},
}

// parseSettings decodes a settings file as the agent reads it: JSON, and
// for Gemini CLI JSON with comments (it strips // and /* */ comments
// first). The top level must be an object.
func parseSettings(agent hook.Agent, data []byte) (map[string]any, error) {
	if agent == hook.Gemini {
		data = stripJSONComments(data)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("not valid JSON: data after the top-level value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

// stripJSONComments blanks out // and /* */ comments outside strings, as
// Gemini CLI's strip-json-comments does (keeping offsets for errors).
func stripJSONComments(b []byte) []byte {
	out := append([]byte(nil), b...)
	inStr := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			j := bytes.Index(out[i+2:], []byte("*/"))
			end := len(out)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			for k := i; k < end; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
			i = end - 1
		}
	}
	return out
}

// entry is one shellgate hook handler found in a settings file.
type entry struct {
	event   string
	matcher string
	command string
	handler map[string]any
}

// findEntries returns the shellgate handlers under the agent's shell event
// whose matcher covers the shell tool, and, for the message when there is
// none, the shellgate handlers found elsewhere.
func findEntries(agent hook.Agent, root map[string]any) (found []entry, elsewhere []string, err error) {
	st := shellTool[agent]
	hooksV, ok := root["hooks"]
	if !ok {
		return nil, nil, nil
	}
	hooks, ok := hooksV.(map[string]any)
	if !ok {
		return nil, nil, errors.New(`"hooks" is not a JSON object`)
	}
	for event, listV := range hooks {
		list, ok := listV.([]any)
		if !ok {
			if event == st.event {
				return nil, nil, fmt.Errorf("hooks.%s is not a JSON array", event)
			}
			continue
		}
		for _, gV := range list {
			g, ok := gV.(map[string]any)
			if !ok {
				continue
			}
			if agent == hook.Cursor {
				if c, ok := g["command"].(string); ok && hook.IsShellgateCommand(c) {
					if event == st.event {
						found = append(found, entry{event: event, command: c, handler: g})
					} else {
						elsewhere = append(elsewhere, event)
					}
				}
				continue
			}
			matcher, _ := g["matcher"].(string)
			hs, _ := g["hooks"].([]any)
			for _, hV := range hs {
				h, ok := hV.(map[string]any)
				if !ok {
					continue
				}
				c, ok := h["command"].(string)
				if !ok || !hook.IsShellgateCommand(c) {
					continue
				}
				if t, _ := h["type"].(string); event == st.event && t == "command" && matcherCovers(matcher, st.tool) {
					found = append(found, entry{event: event, matcher: matcher, command: c, handler: h})
				} else {
					elsewhere = append(elsewhere, fmt.Sprintf("%s (matcher %q)", event, matcher))
				}
			}
		}
	}
	return found, elsewhere, nil
}

// matcherCovers reports whether a hook matcher selects tool: "" and "*"
// select every tool, a word or a|b list selects the names in it, anything
// else is a regular expression that must match the whole name.
func matcherCovers(matcher, tool string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	if regexp.MustCompile(`^[A-Za-z0-9_|]+$`).MatchString(matcher) {
		for _, m := range strings.Split(matcher, "|") {
			if m == tool {
				return true
			}
		}
		return false
	}
	re, err := regexp.Compile(`^(?:` + matcher + `)$`)
	return err == nil && re.MatchString(tool)
}
