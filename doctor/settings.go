package doctor

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/shellgate/shellgate/hook"
)

// shellTool is the event a shell-command hook must be under and the tool
// name its matcher must match ("" for an agent whose entries have no
// matcher).
type shellTool struct{ event, tool string }

func shellToolOf(agent hook.Agent) shellTool {
	s := agent.Spec()
	if s == nil {
		return shellTool{}
	}
	return shellTool{s.HookEvent(), s.ShellTool}
}

// parseSettings decodes a settings file as the agent reads it: JSON, and
// for Gemini CLI JSON with comments (it strips // and /* */ comments
// first). The top level must be an object.
func parseSettings(agent hook.Agent, data []byte) (map[string]any, error) {
	return agent.Spec().DecodeSettings(data)
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
	st := shellToolOf(agent)
	flat := agent.Spec() != nil && agent.Spec().Flat
	key := agent.Spec().HandlerCommandKey()
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
			if flat {
				if c, ok := g[key].(string); ok && hook.IsShellgateCommand(c) {
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
				c, ok := h[key].(string)
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
