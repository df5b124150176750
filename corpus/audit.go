package corpus

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"go.yaml.in/yaml/v3"

	"github.com/shellgate/shellgate/classify"
)

// Command is one shell command found in a history or a transcript.
type Command struct {
	// Command is the shell command as the agent sent it.
	Command string `json:"command"`
	// Cwd is the directory the transcript recorded, if any.
	Cwd string `json:"cwd,omitempty"`
	// Line is the input line the command came from.
	Line int `json:"line"`
	// Source is the format it came from: lines, claude, codex or jsonl.
	Source string `json:"source"`
}

// maxLine is the longest input line Extract accepts.
const maxLine = 64 << 20

// Extract reads shell commands from r. The format is detected from the
// first non-blank line: a JSON object means JSON lines (a Claude Code
// transcript, a Codex rollout or `codex exec --json` log, or objects with a
// "command" field, mixed freely; lines that are not shell tool calls are
// skipped), anything else means one command per line. Lines that cannot be
// read are returned as problems, never dropped silently.
func Extract(r io.Reader) (cmds []Command, problems []string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxLine)
	n := 0
	jsonl, decided := false, false
	seen := map[string]bool{} // codex exec item ids
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		if !decided {
			decided = true
			jsonl = strings.HasPrefix(trimmed, "{") && json.Valid([]byte(trimmed))
		}
		if !jsonl {
			cmds = append(cmds, Command{Command: line, Line: n, Source: "lines"})
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(trimmed), &obj); err != nil {
			problems = append(problems, fmt.Sprintf("line %d: not a JSON object: %v", n, err))
			continue
		}
		found, perr := fromJSON(obj, seen)
		if perr != "" {
			problems = append(problems, fmt.Sprintf("line %d: %s", n, perr))
		}
		for _, c := range found {
			if strings.TrimSpace(c.Command) == "" {
				// Blank lines of a history are skipped; a blank command in
				// a transcript is a call that cannot be judged: say so.
				problems = append(problems, fmt.Sprintf("line %d: a blank %s command", n, c.Source))
				continue
			}
			c.Line = n
			cmds = append(cmds, c)
		}
	}
	if err := sc.Err(); err != nil {
		return cmds, problems, fmt.Errorf("line %d: %w", n+1, err)
	}
	return cmds, problems, nil
}

// str decodes a JSON string field, "" when absent or not a string.
func str(obj map[string]json.RawMessage, key string) string {
	var s string
	if raw, ok := obj[key]; ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

func sub(obj map[string]json.RawMessage, key string) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if raw, ok := obj[key]; ok {
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
	}
	return m
}

// shellTools are the tool names whose calls run a shell command.
var shellTools = map[string]bool{
	"Bash": true, "bash": true, // Claude Code
	"shell": true, "exec_command": true, "shell_command": true, "container.exec": true, "local_shell": true, // Codex
}

// fromJSON extracts the shell commands of one transcript line.
func fromJSON(obj map[string]json.RawMessage, seen map[string]bool) ([]Command, string) {
	cwd := str(obj, "cwd")
	// Claude Code: {"type":"assistant","message":{"content":[{"type":"tool_use","name":"Bash","input":{"command":…}}]}}
	if msg := sub(obj, "message"); msg != nil {
		var content []map[string]json.RawMessage
		if raw, ok := msg["content"]; ok && json.Unmarshal(raw, &content) == nil {
			var out []Command
			for _, item := range content {
				if str(item, "type") != "tool_use" || !shellTools[str(item, "name")] {
					continue
				}
				in := sub(item, "input")
				cmd := str(in, "command")
				if cmd == "" {
					return out, "a Bash tool call without a command string"
				}
				out = append(out, Command{Command: cmd, Cwd: cwd, Source: "claude"})
			}
			return out, ""
		}
		return nil, ""
	}
	// Codex rollout: {"type":"response_item","payload":{…}}; older rollouts
	// put the item at the top level.
	item := obj
	if p := sub(obj, "payload"); p != nil {
		item = p
	}
	switch str(item, "type") {
	case "function_call":
		if !shellTools[str(item, "name")] {
			return nil, ""
		}
		var args map[string]json.RawMessage
		if err := json.Unmarshal([]byte(str(item, "arguments")), &args); err != nil {
			return nil, "a shell function call whose arguments are not a JSON object"
		}
		cmd, ok := commandField(args, "command")
		if !ok {
			cmd, ok = commandField(args, "cmd")
		}
		if !ok {
			return nil, "a shell function call without a command"
		}
		return []Command{{Command: cmd, Cwd: str(args, "workdir"), Source: "codex"}}, ""
	case "local_shell_call":
		action := sub(item, "action")
		cmd, ok := commandField(action, "command")
		if !ok {
			return nil, "a local shell call without a command"
		}
		return []Command{{Command: cmd, Cwd: str(action, "working_directory"), Source: "codex"}}, ""
	}
	// codex exec --json: {"type":"item.started|item.completed","item":{"type":"command_execution","command":…}}
	if it := sub(obj, "item"); it != nil && str(it, "type") == "command_execution" {
		id := str(it, "id")
		if id != "" && seen[id] {
			return nil, ""
		}
		seen[id] = id != ""
		cmd, ok := commandField(it, "command")
		if !ok {
			return nil, "a command_execution item without a command"
		}
		return []Command{{Command: unwrapShell(cmd), Source: "codex"}}, ""
	}
	// shellgate's own batch input: {"command": "…"}
	if cmd, ok := commandField(obj, "command"); ok {
		return []Command{{Command: cmd, Cwd: cwd, Source: "jsonl"}}, ""
	}
	return nil, ""
}

// commandField reads a command given as a string or as an argv array.
func commandField(obj map[string]json.RawMessage, key string) (string, bool) {
	raw, ok := obj[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var argv []string
	if json.Unmarshal(raw, &argv) == nil && len(argv) > 0 {
		return argvCommand(argv), true
	}
	return "", false
}

// argvCommand turns an argv into the command a shell would run: the
// script of ["bash", "-lc", script] (any shell the catalog names with a
// dialect), else the words shell-quoted.
func argvCommand(argv []string) string {
	if len(argv) == 3 && isShell(argv[0]) && (argv[1] == "-c" || argv[1] == "-lc") {
		return argv[2]
	}
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// unwrapShell returns the script of "bash -lc 'script'" as codex exec logs
// it (any shell the catalog names with a dialect, by name or path, with -c
// or -lc), when the script is one single-quoted word; otherwise the command
// as is.
func unwrapShell(cmd string) string {
	prog, rest, ok := strings.Cut(cmd, " ")
	if !ok || !isShell(prog) {
		return cmd
	}
	for _, flag := range []string{"-lc ", "-c "} {
		if script, ok := strings.CutPrefix(rest, flag); ok {
			if s, ok := singleQuoted(script); ok {
				return s
			}
		}
	}
	return cmd
}

// isShell reports whether prog (a name or a path) is a shell the catalog
// names with a dialect shellgate reads.
func isShell(prog string) bool {
	return !strings.HasPrefix(prog, "-") && classify.DefaultCatalog().ShellDialect(prog) != classify.DialectUnknown
}

// singleQuoted parses one shell word made of single-quoted parts with
// backslash-escaped quotes between them, the way codex exec quotes a script.
func singleQuoted(w string) (string, bool) {
	var b strings.Builder
	for len(w) > 0 {
		switch {
		case strings.HasPrefix(w, `\'`):
			b.WriteByte('\'')
			w = w[2:]
		case w[0] == '\'':
			end := strings.IndexByte(w[1:], '\'')
			if end < 0 {
				return "", false
			}
			b.WriteString(w[1 : 1+end])
			w = w[end+2:]
		default:
			return "", false
		}
	}
	return b.String(), true
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// AuditEntry is the decision on one audited command.
type AuditEntry struct {
	Command
	// Outcome is the decision; nil when the command could not be judged.
	Outcome *Outcome `json:"decision,omitempty"`
	// Err says why the command could not be judged.
	Err string `json:"error,omitempty"`
}

// AuditResult is the decision on every command of a history.
type AuditResult struct {
	// Entries are in input order.
	Entries []AuditEntry `json:"entries"`
	// Problems are input lines that could not be read.
	Problems []string `json:"problems,omitempty"`
}

// Audit judges each command in mode, in the directory its transcript
// recorded when that exists here, else in cwd, with the host's home.
func Audit(ctx context.Context, cmds []Command, chk Checker, mode, cwd string, opt Options) (AuditResult, error) {
	cases := make([]Case, len(cmds))
	for i, c := range cmds {
		dir := cwd
		if c.Cwd != "" && filepath.IsAbs(c.Cwd) {
			if st, err := os.Stat(c.Cwd); err == nil && st.IsDir() {
				dir = c.Cwd
			}
		}
		cases[i] = Case{Name: fmt.Sprintf("line %d", c.Line), Command: c.Command, Mode: mode, Cwd: dir}
	}
	res := AuditResult{Entries: make([]AuditEntry, len(cmds))}
	err := each(ctx, cases, opt, func(i int, in Input) {
		e := AuditEntry{Command: cmds[i]}
		o, err := chk.Check(ctx, in)
		if err != nil {
			e.Err = err.Error()
		} else {
			e.Outcome = &o
		}
		res.Entries[i] = e
	})
	return res, err
}

// Tally counts commands by action ("error" for commands that could not be
// judged) and by reason code (each command counted once per code).
func (a AuditResult) Tally() (byAction, byCode map[string]int) {
	byAction, byCode = map[string]int{}, map[string]int{}
	for _, e := range a.Entries {
		if e.Outcome == nil {
			byAction["error"]++
			continue
		}
		byAction[e.Outcome.Action]++
		for _, c := range e.Outcome.Codes() {
			byCode[c]++
		}
	}
	return byAction, byCode
}

// WriteAuditText prints the summary table by action and by reason code,
// then every command that would have been asked or denied, with reasons.
func WriteAuditText(w io.Writer, a AuditResult) error {
	byAction, byCode := a.Tally()
	total := len(a.Entries)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "action\tcommands\tshare")
	for _, act := range []string{Allow, Ask, Deny, "error"} {
		if n := byAction[act]; n > 0 || act != "error" {
			fmt.Fprintf(tw, "%s\t%d\t%s\n", act, n, percent(n, total))
		}
	}
	tw.Flush()
	if len(byCode) > 0 {
		fmt.Fprintln(w)
		codes := make([]string, 0, len(byCode))
		for c := range byCode {
			codes = append(codes, c)
		}
		sort.Slice(codes, func(i, j int) bool {
			if byCode[codes[i]] != byCode[codes[j]] {
				return byCode[codes[i]] > byCode[codes[j]]
			}
			return codes[i] < codes[j]
		})
		tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "reason code\tcommands")
		for _, c := range codes {
			fmt.Fprintf(tw, "%s\t%d\n", c, byCode[c])
		}
		tw.Flush()
	}
	for _, act := range []string{Deny, Ask} {
		var list []AuditEntry
		for _, e := range a.Entries {
			if e.Outcome != nil && e.Outcome.Action == act {
				list = append(list, e)
			}
		}
		if len(list) == 0 {
			continue
		}
		title := map[string]string{Deny: "denied", Ask: "would ask"}[act]
		fmt.Fprintf(w, "\n%s (%d):\n", title, len(list))
		for _, e := range list {
			fmt.Fprintf(w, "  line %d: %s\n", e.Line, oneLine(e.Command.Command))
			for _, r := range e.Outcome.Reasons {
				fmt.Fprintf(w, "    %s: %s\n", r.Code, oneLine(r.Message))
			}
		}
	}
	for _, e := range a.Entries {
		if e.Err != "" {
			fmt.Fprintf(w, "error: line %d: %s: %s\n", e.Line, oneLine(e.Command.Command), e.Err)
		}
	}
	for _, p := range a.Problems {
		fmt.Fprintf(w, "unreadable: %s\n", p)
	}
	_, err := fmt.Fprintf(w, "%d commands: %d allow, %d ask, %d deny\n", total, byAction[Allow], byAction[Ask], byAction[Deny])
	return err
}

func percent(n, total int) string {
	if total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}

// WriteCorpus writes the audited commands as a YAML corpus file, each
// distinct command once with the action it got as its expectation, so that
// a history can be reviewed, corrected by hand and kept as cases. Commands
// that could not be judged are left out.
func (a AuditResult) WriteCorpus(w io.Writer, mode string) error {
	type expect struct {
		Action  string   `yaml:"action"`
		Reasons []string `yaml:"reasons,omitempty,flow"`
	}
	type entry struct {
		Command string `yaml:"command"`
		Mode    string `yaml:"mode,omitempty"`
		Expect  expect `yaml:"expect"`
	}
	var out []entry
	seen := map[string]bool{}
	for _, e := range a.Entries {
		if e.Outcome == nil || seen[e.Command.Command] {
			continue
		}
		seen[e.Command.Command] = true
		en := entry{Command: e.Command.Command, Expect: expect{Action: e.Outcome.Action, Reasons: e.Outcome.Codes()}}
		if mode != ModeDefault {
			en.Mode = mode
		}
		out = append(out, en)
	}
	if _, err := fmt.Fprintf(w, "# Written by shellgate audit: each command with the decision it got.\n# Review every expectation before keeping this file as a corpus.\n"); err != nil {
		return err
	}
	if len(out) == 0 {
		_, err := fmt.Fprintln(w, "[]")
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(out); err != nil {
		return err
	}
	return enc.Close()
}
