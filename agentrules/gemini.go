package agentrules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/pelletier/go-toml/v2"
)

// geminiShellTools are Gemini CLI's names of its shell tool
// (SHELL_TOOL_NAMES, 0.61).
var geminiShellTools = map[string]bool{"run_shell_command": true, "ShellTool": true}

var geminiToolCall = regexp.MustCompile(`^([a-zA-Z0-9_-]+)\((.*)\)$`)

// parseGeminiSettings reads tools.allowed of a Gemini CLI settings.json:
// "run_shell_command(npm test)" allows commands that start with
// "npm test" (Gemini CLI's commandPrefix), a bare "run_shell_command"
// every command. tools.exclude entries for the shell tool block.
func parseGeminiSettings(_ string, data []byte) ([]Rule, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var s struct {
		Tools struct {
			Allowed []string `json:"allowed"`
			Exclude []string `json:"exclude"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("not Gemini CLI settings JSON: %v", err)
	}
	var out []Rule
	for _, l := range []struct {
		list   []string
		action string
	}{{s.Tools.Allowed, ActionAllow}, {s.Tools.Exclude, ActionBlock}} {
		for _, t := range l.list {
			r := Rule{Agent: Gemini, Text: t, Action: l.action}
			if m := geminiToolCall.FindStringSubmatch(t); m != nil {
				if !geminiShellTools[m[1]] {
					continue
				}
				r.kind, r.text = kindPrefix, m[2]
				if m[2] == "" {
					continue
				}
			} else if geminiShellTools[t] {
				r.kind = kindAll
			} else {
				continue
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// parseGeminiPolicy reads the run_shell_command rules of a Gemini CLI
// policy file ([[rule]] tables): an allow rule with a commandPrefix and no
// modes counts; any deny or ask_user rule of the shell tool blocks (a
// commandRegex or argsPattern one is read as matching everything). An
// allow rule with commandRegex, argsPattern or modes is not used.
func parseGeminiPolicy(_ string, data []byte) ([]Rule, error) {
	var p struct {
		Rule []struct {
			ToolName      any      `toml:"toolName"`
			CommandPrefix any      `toml:"commandPrefix"`
			CommandRegex  string   `toml:"commandRegex"`
			ArgsPattern   string   `toml:"argsPattern"`
			Decision      string   `toml:"decision"`
			Modes         []string `toml:"modes"`
		} `toml:"rule"`
	}
	if err := toml.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("not a Gemini CLI policy file: %v", err)
	}
	var out []Rule
	for i, r := range p.Rule {
		if !geminiShellTool(r.ToolName) {
			continue
		}
		prefixes, ok := stringsOf(r.CommandPrefix)
		if !ok {
			return nil, fmt.Errorf("rule %d: commandPrefix is not a string or a list of strings", i+1)
		}
		base := Rule{Agent: Gemini}
		switch r.Decision {
		case "allow":
			if r.CommandRegex != "" || r.ArgsPattern != "" || len(r.Modes) > 0 {
				continue
			}
			base.Action = ActionAllow
		case "deny", "ask_user":
			base.Action = ActionBlock
			if len(prefixes) == 0 {
				b := base
				b.kind, b.Text = kindAll, fmt.Sprintf("[[rule]] %d: %s", i+1, r.Decision)
				out = append(out, b)
				continue
			}
		default:
			continue
		}
		if len(prefixes) == 0 {
			if base.Action == ActionAllow {
				b := base
				b.kind, b.Text = kindAll, fmt.Sprintf(`[[rule]] toolName = "run_shell_command", decision = %q`, r.Decision)
				out = append(out, b)
			}
			continue
		}
		for _, pre := range prefixes {
			b := base
			b.kind, b.text = kindPrefix, pre
			b.Text = fmt.Sprintf(`[[rule]] toolName = "run_shell_command", commandPrefix = %q, decision = %q`, pre, r.Decision)
			out = append(out, b)
		}
	}
	return out, nil
}

// geminiShellTool reports whether a rule's toolName (a string or a list)
// names the shell tool.
func geminiShellTool(v any) bool {
	names, ok := stringsOf(v)
	if !ok {
		return false
	}
	for _, n := range names {
		if geminiShellTools[n] {
			return true
		}
	}
	return false
}

// stringsOf is v as a list of strings: nil for nil, one for a string.
func stringsOf(v any) ([]string, bool) {
	switch v := v.(type) {
	case nil:
		return nil, true
	case string:
		return []string{v}, true
	case []any:
		var out []string
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}
