package agentrules

import (
	"fmt"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// maxStarlarkSteps bounds the work one rules file may make the
// interpreter do: a loop that never ends is an error, not a hang.
const maxStarlarkSteps = 1 << 20

// parseCodex runs a Codex rules file (Starlark) with prefix_rule as its
// one builtin, as Codex's execpolicy does, and returns its rules: decision
// "allow" allows, "prompt" and "forbidden" block. A file that does not run
// (a syntax error, another function, a bad argument) is an error: none of
// its rules count.
func parseCodex(path string, data []byte) ([]Rule, error) {
	var out []Rule
	prefixRule := starlark.NewBuiltin("prefix_rule", func(_ *starlark.Thread, fn *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var pattern *starlark.List
		decision := "allow"
		var match, notMatch starlark.Value
		var justification string
		if err := starlark.UnpackArgs(fn.Name(), args, kwargs,
			"pattern", &pattern, "decision?", &decision, "match?", &match,
			"not_match?", &notMatch, "justification?", &justification); err != nil {
			return nil, err
		}
		r, err := codexRule(pattern, decision)
		if err != nil {
			return nil, fmt.Errorf("prefix_rule: %v", err)
		}
		out = append(out, r)
		return starlark.None, nil
	})
	thread := &starlark.Thread{Name: "codex-rules"}
	thread.SetMaxExecutionSteps(maxStarlarkSteps)
	_, err := starlark.ExecFileOptions(&syntax.FileOptions{}, thread, path, data, starlark.StringDict{"prefix_rule": prefixRule})
	if err != nil {
		return nil, fmt.Errorf("not a Codex rules file: %v", err)
	}
	return out, nil
}

// codexRule builds the rule of one prefix_rule call: pattern is a
// non-empty list whose items are a word or a non-empty list of words
// (alternatives).
func codexRule(pattern *starlark.List, decision string) (Rule, error) {
	r := Rule{Agent: Codex, kind: kindArgv}
	switch decision {
	case "allow":
		r.Action = ActionAllow
	case "prompt", "forbidden":
		r.Action = ActionBlock
	default:
		return r, fmt.Errorf("unknown decision %q", decision)
	}
	if pattern == nil || pattern.Len() == 0 {
		return r, fmt.Errorf("empty pattern")
	}
	var words []string
	for i := 0; i < pattern.Len(); i++ {
		switch v := pattern.Index(i).(type) {
		case starlark.String:
			r.argv = append(r.argv, []string{string(v)})
			words = append(words, strconv.Quote(string(v)))
		case *starlark.List:
			if v.Len() == 0 {
				return r, fmt.Errorf("pattern item %d: empty alternatives", i)
			}
			var alts, quoted []string
			for j := 0; j < v.Len(); j++ {
				s, ok := v.Index(j).(starlark.String)
				if !ok {
					return r, fmt.Errorf("pattern item %d: %s is not a string", i, v.Index(j).Type())
				}
				alts = append(alts, string(s))
				quoted = append(quoted, strconv.Quote(string(s)))
			}
			r.argv = append(r.argv, alts)
			words = append(words, "["+strings.Join(quoted, ", ")+"]")
		default:
			return r, fmt.Errorf("pattern item %d: %s is not a string or a list", i, v.Type())
		}
	}
	r.Text = fmt.Sprintf("prefix_rule(pattern=[%s], decision=%q)", strings.Join(words, ", "), decision)
	return r, nil
}
