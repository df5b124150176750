package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shellgate/shellgate/trust"
)

// Scope says which settings file Install writes.
type Scope int

// Settings scopes.
const (
	// ScopeProject is the project's file (.claude/settings.json, ...),
	// shared with everyone who works on the project.
	ScopeProject Scope = iota
	// ScopeUser is the user's file (~/.claude/settings.json, ...), for
	// every project.
	ScopeUser
)

// SettingsPath is the settings file of agent in scope: under projectDir for
// ScopeProject, under home for ScopeUser. The user's Codex file is in
// $CODEX_HOME when that is set (see CodexHome). It is "" for an agent not
// registered.
func SettingsPath(agent Agent, scope Scope, projectDir, home string) string {
	s := agent.Spec()
	if s == nil {
		return ""
	}
	return s.SettingsPath(scope, projectDir, home, os.Getenv)
}

// SettingsPath is the agent's settings file in scope, with getenv reading
// the environment (the user's Codex directory is $CODEX_HOME when that
// names one).
func (s *AgentSpec) SettingsPath(scope Scope, projectDir, home string, getenv func(string) string) string {
	base := projectDir
	if scope == ScopeUser {
		base = home
		if s.userDir != nil {
			if d, err := s.userDir(home, getenv); err == nil {
				if s.UserFile != "" {
					return filepath.Join(d, s.UserFile)
				}
				return filepath.Join(d, s.File)
			}
		}
	}
	if scope == ScopeUser && s.UserFile != "" {
		return filepath.Join(base, s.Dir, s.UserFile)
	}
	return filepath.Join(base, s.Dir, s.File)
}

// hookSpec is one event entry that Install adds for an agent.
type hookSpec struct {
	event   string
	matcher string // "" for a Flat agent, whose entries have no matcher groups
	entry   func(command string) *object
}

// Hook timeouts as installed. An agent that kills a hook at its timeout
// lets the command run (Gemini CLI, and Claude Code without onFailure), so
// each is far above the thin client's own budget for a whole call (25 s,
// the one-shot fallback included).
const (
	// ClaudeTimeout is Claude Code's timeout, in seconds. With onFailure
	// "block" a hook that times out blocks the command.
	ClaudeTimeout = 30
	// GeminiTimeout is Gemini CLI's timeout, in milliseconds: a Gemini CLI
	// hook that times out fails open, so it is almost five times the
	// client's budget.
	GeminiTimeout = 120000
)

// ClaudeOnFailure is the value of Claude Code's per-hook "onFailure" that
// Install writes on the PreToolUse entry: a hook that cannot start (a
// missing binary), times out, exits with a code other than 0 or 2, or
// prints invalid JSON blocks the command instead of letting it run (Claude
// Code 2.1.295 and later; the default, "continue", lets it run).
const ClaudeOnFailure = "block"

// claudeEntry is a hook handler in Claude Code's format.
func claudeEntry(c string) *object {
	return obj("type", "command", "command", c, "timeout", json.Number(fmt.Sprint(ClaudeTimeout)))
}

// IsShellgateCommand reports whether a hook command runs shellgate as a hook
// (shellgate-hook AGENT, or shellgate hook AGENT), so that Install replaces
// an older entry instead of adding a second one.
func IsShellgateCommand(command string) bool {
	f := strings.Fields(command)
	if len(f) == 0 {
		return false
	}
	base := filepath.Base(strings.Trim(f[0], `"'`))
	return base == "shellgate-hook" || (base == "shellgate" && len(f) > 1 && f[1] == "hook")
}

// Merge adds the shellgate hook entries running command to the settings
// document existing (empty for a new file), keeping every other setting and
// hook, and the order of keys. It replaces an older shellgate entry, and
// reports changed=false when the entries are already there.
func Merge(agent Agent, existing []byte, command string) (out []byte, changed bool, err error) {
	spec := agent.Spec()
	if spec == nil {
		return nil, false, fmt.Errorf("unknown agent %q", agent)
	}
	sp := spec.hooks
	if strings.TrimSpace(command) == "" {
		return nil, false, errors.New("empty hook command")
	}
	root := obj()
	if len(bytes.TrimSpace(existing)) > 0 {
		v, err := decodeOrdered(existing)
		if err != nil {
			return nil, false, fmt.Errorf("not valid JSON (fix or move the file first): %v", err)
		}
		o, ok := v.(*object)
		if !ok {
			return nil, false, errors.New("the settings file is not a JSON object")
		}
		root = o
	}
	for i := 0; i+1 < len(spec.defaults); i += 2 {
		k := spec.defaults[i].(string)
		if _, ok := root.get(k); !ok {
			root.set(k, spec.defaults[i+1])
			changed = true
		}
	}
	hooksV, ok := root.get("hooks")
	if !ok {
		hooksV = obj()
		root.set("hooks", hooksV)
	}
	hooks, ok := hooksV.(*object)
	if !ok {
		return nil, false, errors.New(`"hooks" is not a JSON object`)
	}
	for _, s := range sp {
		listV, ok := hooks.get(s.event)
		if !ok {
			listV = []any{}
		}
		list, ok := listV.([]any)
		if !ok {
			return nil, false, fmt.Errorf("hooks.%s is not a JSON array", s.event)
		}
		nl, ch, err := mergeEvent(list, s, command, spec.HandlerCommandKey())
		if err != nil {
			return nil, false, fmt.Errorf("hooks.%s: %v", s.event, err)
		}
		if ch {
			hooks.set(s.event, nl)
			changed = true
		}
	}
	data, err := settingsJSON(root)
	return data, changed, err
}

// commandOf is the command of the hook handler v, under key.
func commandOf(v any, key string) (string, bool) {
	o, ok := v.(*object)
	if !ok {
		return "", false
	}
	c, _ := o.get(key)
	s, ok := c.(string)
	return s, ok
}

// covers reports whether the hook entry v holds every field of want with
// the same value: an entry of an older install (without onFailure, or with
// another timeout) does not, and is replaced.
func covers(v any, want *object) bool {
	o, ok := v.(*object)
	if !ok {
		return false
	}
	for _, k := range want.keys {
		got, ok := o.get(k)
		if !ok {
			return false
		}
		var a, b bytes.Buffer
		if encodeOrdered(&a, got) != nil || encodeOrdered(&b, want.vals[k]) != nil || a.String() != b.String() {
			return false
		}
	}
	return true
}

func mergeEvent(list []any, s hookSpec, command, key string) ([]any, bool, error) {
	want := s.entry(command)
	if s.matcher == "" {
		// Flat (Cursor): a list of {"command": ...}.
		for _, e := range list {
			if covers(e, want) {
				return list, false, nil
			}
		}
		var out []any
		for _, e := range list {
			if c, ok := commandOf(e, key); ok && IsShellgateCommand(c) {
				continue
			}
			out = append(out, e)
		}
		return append(out, want), true, nil
	}
	// Matcher groups: [{"matcher": ..., "hooks": [{"type","command",...}]}].
	for _, g := range list {
		grp, ok := g.(*object)
		if !ok {
			continue
		}
		m, _ := grp.get("matcher")
		hs, _ := grp.get("hooks")
		if m != s.matcher {
			continue
		}
		arr, _ := hs.([]any)
		for _, h := range arr {
			if covers(h, want) {
				return list, false, nil
			}
		}
	}
	var out []any
	for _, g := range list {
		grp, ok := g.(*object)
		if !ok {
			out = append(out, g)
			continue
		}
		hs, _ := grp.get("hooks")
		arr, ok := hs.([]any)
		if !ok {
			out = append(out, g)
			continue
		}
		var kept []any
		for _, h := range arr {
			if c, ok := commandOf(h, key); ok && IsShellgateCommand(c) {
				continue
			}
			kept = append(kept, h)
		}
		if len(kept) == len(arr) {
			out = append(out, g)
			continue
		}
		if len(kept) == 0 {
			continue // the group held only shellgate: drop it
		}
		grp.set("hooks", kept)
		out = append(out, g)
	}
	group := obj("matcher", s.matcher, "hooks", []any{want})
	return append(out, group), true, nil
}

// InstallResult says what Install did.
type InstallResult struct {
	Path string
	// Backup is the copy of the previous file ("" when there was none or
	// nothing changed).
	Backup string
	// Changed is false when the hook was already installed.
	Changed bool
	// Content is the file's new content.
	Content []byte
}

// BackupSuffix is appended to a settings file's name for its backup.
const BackupSuffix = ".shellgate-backup"

// Install merges the shellgate hook entries into the settings file at path
// (see Merge). Before changing an existing file it copies it to
// path+BackupSuffix; it writes atomically (a temporary file renamed over
// the old one) and keeps the file's mode. With dryRun it only computes the
// result.
func Install(agent Agent, path, command string, dryRun bool) (InstallResult, error) {
	return editSettings(path, dryRun, func(old []byte) ([]byte, bool, error) {
		return Merge(agent, old, command)
	})
}

// Uninstall removes the shellgate hook entries from the settings file at
// path (see Unmerge), with a backup and an atomic write as Install. A file
// that does not exist holds no hook: nothing changes.
func Uninstall(agent Agent, path string, dryRun bool) (InstallResult, error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return InstallResult{Path: path}, nil
	}
	return editSettings(path, dryRun, func(old []byte) ([]byte, bool, error) {
		return Unmerge(agent, old)
	})
}

// editSettings rewrites the settings file at path with edit's result.
func editSettings(path string, dryRun bool, edit func(old []byte) ([]byte, bool, error)) (InstallResult, error) {
	r := InstallResult{Path: path}
	old, err := trust.ReadRegular(path, MaxSettingsBytes)
	exists := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return r, err
	}
	out, changed, err := edit(old)
	if err != nil {
		return r, fmt.Errorf("%s: %v", path, err)
	}
	r.Content, r.Changed = out, changed
	if !changed || dryRun {
		return r, nil
	}
	mode := os.FileMode(0o644)
	if exists {
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
		r.Backup = path + BackupSuffix
		if err := writeAtomic(r.Backup, old, mode); err != nil {
			return r, fmt.Errorf("writing the backup: %v", err)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return r, err
	}
	if err := writeAtomic(path, out, mode); err != nil {
		return r, err
	}
	return r, nil
}

// Unmerge removes every shellgate hook entry (IsShellgateCommand) from the
// settings document existing, under any event, keeping every other
// setting and hook and the order of keys: a matcher group or an event left
// empty by the removal goes too, and "hooks" when nothing is left in it.
// changed is false when there was none; the document is then returned as
// it is.
func Unmerge(agent Agent, existing []byte) (out []byte, changed bool, err error) {
	spec := agent.Spec()
	if spec == nil {
		return nil, false, fmt.Errorf("unknown agent %q", agent)
	}
	if len(bytes.TrimSpace(existing)) == 0 {
		return existing, false, nil
	}
	v, err := decodeOrdered(existing)
	if err != nil {
		return nil, false, fmt.Errorf("not valid JSON (fix or move the file first): %v", err)
	}
	root, ok := v.(*object)
	if !ok {
		return nil, false, errors.New("the settings file is not a JSON object")
	}
	hooksV, ok := root.get("hooks")
	if !ok {
		return existing, false, nil
	}
	hooks, ok := hooksV.(*object)
	if !ok {
		return nil, false, errors.New(`"hooks" is not a JSON object`)
	}
	for _, event := range slices.Clone(hooks.keys) {
		list, ok := hooks.vals[event].([]any)
		if !ok {
			continue
		}
		nl, ch := removeShellgate(list, spec.Flat, spec.HandlerCommandKey())
		if !ch {
			continue
		}
		changed = true
		if len(nl) == 0 {
			hooks.del(event)
		} else {
			hooks.set(event, nl)
		}
	}
	if !changed {
		return existing, false, nil
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	}
	data, err := settingsJSON(root)
	return data, true, err
}

// removeShellgate drops the shellgate entries of one event's list: flat
// entries, or handlers of matcher groups (a group left empty goes too).
func removeShellgate(list []any, flat bool, key string) ([]any, bool) {
	changed := false
	out := []any{}
	for _, e := range list {
		if c, ok := commandOf(e, key); ok && IsShellgateCommand(c) && flat {
			changed = true
			continue
		}
		grp, ok := e.(*object)
		if flat || !ok {
			out = append(out, e)
			continue
		}
		hs, _ := grp.get("hooks")
		arr, ok := hs.([]any)
		if !ok {
			out = append(out, e)
			continue
		}
		kept := []any{}
		for _, h := range arr {
			if c, ok := commandOf(h, key); ok && IsShellgateCommand(c) {
				continue
			}
			kept = append(kept, h)
		}
		if len(kept) == len(arr) {
			out = append(out, e)
			continue
		}
		changed = true
		if len(kept) == 0 {
			continue
		}
		grp.set("hooks", kept)
		out = append(out, e)
	}
	return out, changed
}

func writeAtomic(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(mode)
	}
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}

// object is a JSON object that keeps its keys in order, so that a merged
// settings file reads like the user's own.
type object struct {
	keys []string
	vals map[string]any
}

func obj(kv ...any) *object {
	o := &object{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

func (o *object) get(k string) (any, bool) { v, ok := o.vals[k]; return v, ok }

func (o *object) del(k string) {
	if _, ok := o.vals[k]; ok {
		delete(o.vals, k)
		o.keys = slices.DeleteFunc(o.keys, func(x string) bool { return x == k })
	}
}

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the top-level value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := obj()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil
	}
}

// settingsJSON writes a settings document in its keys' order, indented
// by two spaces, with a final newline.
func settingsJSON(root any) ([]byte, error) {
	var buf bytes.Buffer
	if err := encodeOrdered(&buf, root); err != nil {
		return nil, err
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, buf.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	ind.WriteByte('\n')
	return ind.Bytes(), nil
}

func encodeOrdered(w *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case *object:
		w.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := encodeOrdered(w, k); err != nil {
				return err
			}
			w.WriteByte(':')
			if err := encodeOrdered(w, t.vals[k]); err != nil {
				return err
			}
		}
		w.WriteByte('}')
	case []any:
		w.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				w.WriteByte(',')
			}
			if err := encodeOrdered(w, e); err != nil {
				return err
			}
		}
		w.WriteByte(']')
	default:
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(t); err != nil {
			return err
		}
		w.Truncate(w.Len() - 1) // Encode's newline
	}
	return nil
}
