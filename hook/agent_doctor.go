package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// Check is one finding of an agent's doctor checks; package doctor reports
// it as its own Check, field for field.
type Check struct {
	// Name is the check's stable name (fail-closed, trust, enabled, ...).
	Name string `json:"name"`
	// OK is true when the check passed.
	OK bool `json:"ok"`
	// Message says what was found.
	Message string `json:"message"`
	// Fix is the exact command (or edit) that makes a failed check pass.
	Fix string `json:"fix,omitempty"`
	// Advisory is set on a check whose failure does not make the gate
	// inactive.
	Advisory bool `json:"advisory,omitempty"`
}

// DoctorEnv is what an agent's doctor checks look at: the shellgate hook
// found in one settings file, and where the agent reads the rest.
type DoctorEnv struct {
	// Dir is the project directory; Home the user's home ("" when not
	// known).
	Dir, Home string
	// User is set when Settings is the user's file, not the project's.
	User bool
	// Settings is the settings file the hook was found in.
	Settings string
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string
	// Install is the command that installs the hook again: the fix of
	// most failed checks.
	Install string
	// Handler is the shellgate hook handler as it is in the settings file
	// (its "command", "timeout", ...).
	Handler map[string]any
	// Command is the handler's command.
	Command string
}

// Doctor runs the agent's own checks of the hook in env: what makes the
// agent block a command when the hook cannot run, trust the hook, and not
// turn hooks off.
func (s *AgentSpec) Doctor(env DoctorEnv) []Check {
	if env.Getenv == nil {
		env.Getenv = os.Getenv
	}
	return s.doctor(env)
}

// DecodeSettings decodes a settings file as the agent reads it: JSON, with
// comments when the agent takes them (Comments). The top level must be an
// object. A nil AgentSpec reads plain JSON.
func (s *AgentSpec) DecodeSettings(data []byte) (map[string]any, error) {
	if s != nil && s.Comments {
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

// minHookTimeout is the least hook timeout that lets shellgate-hook answer
// (its whole budget is 25 s) before an agent that fails open kills it.
const minHookTimeout = 30 * time.Second

// timeoutCheck: an agent that kills a hook at its timeout lets the command
// run, so the timeout must leave shellgate-hook its whole budget. unit is
// what the "timeout" field counts; def is the agent's default.
func timeoutCheck(env DoctorEnv, title string, unit, def time.Duration) Check {
	d := def
	if v, ok := env.Handler["timeout"]; ok {
		n, err := strconv.ParseFloat(fmt.Sprint(v), 64)
		if err != nil || n <= 0 {
			return Check{Name: "timeout", Message: fmt.Sprintf("the hook's timeout %v is not a positive number", v), Fix: env.Install}
		}
		d = time.Duration(n * float64(unit))
	}
	if d < minHookTimeout {
		return Check{Name: "timeout", Message: fmt.Sprintf("the hook's timeout is %s: %s runs the command when a hook times out, and shellgate-hook may take up to 25s", d, title), Fix: env.Install}
	}
	return Check{Name: "timeout", OK: true, Message: fmt.Sprintf("the hook's timeout is %s, above shellgate-hook's 25s budget", d)}
}
