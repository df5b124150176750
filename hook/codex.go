package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shellgate/shellgate/trust"
)

// Codex is OpenAI Codex: PreToolUse (tool "Bash") in .codex/hooks.json.
// It cannot ask a person from a hook.
const Codex Agent = "codex"

func init() {
	register(&AgentSpec{
		Name:         Codex,
		Title:        "Codex",
		Order:        20,
		ShellTool:    "Bash",
		PreEvents:    []string{"PreToolUse"},
		AskAsApplies: true,
		Dir:          ".codex",
		File:         "hooks.json",
		// Codex reads a project's .codex/hooks.json only in a project the
		// user trusted: a project install is not active until then, so
		// install writes the user's hooks file unless told --project.
		DefaultUser: true,
		Program:     "codex",
		Package:     "@openai/codex@0.171",
		hooks:       []hookSpec{{"PreToolUse", "Bash", claudeEntry}},
		render: func(_ Payload, action, reason string) Answer {
			if action == Allow {
				// Codex rejects permissionDecision "allow" as
				// unsupported; an empty object lets its own approval
				// settings apply.
				return noOpinion(Codex)
			}
			return preToolUseAnswer(action, reason)
		},
		userDir: func(home string, getenv func(string) string) (string, error) {
			return CodexHomeFrom(getenv("CODEX_HOME"), home)
		},
		path:    codexPath,
		install: codexInstall,
		doctor:  codexDoctor,
	})
}

// codexPath is the hooks file install and uninstall edit: the user's in
// the Codex home Codex finds, or the project's under its real path (Codex
// keys its trust by the path it finds the file at from its working
// directory: the real one).
func codexPath(s *AgentSpec, o InstallOptions) (string, error) {
	if o.Scope == ScopeUser {
		codexHome, err := CodexHomeFrom(o.Getenv("CODEX_HOME"), o.Home)
		if err != nil {
			return "", err
		}
		return filepath.Join(codexHome, s.File), nil
	}
	if real, err := filepath.EvalSymlinks(o.ProjectDir); err == nil {
		if real, err = filepath.Abs(real); err == nil {
			return s.SettingsPath(o.Scope, real, o.Home, o.Getenv), nil
		}
	}
	return s.SettingsPath(o.Scope, o.ProjectDir, o.Home, o.Getenv), nil
}

// codexInstall writes the hook with a fallback that denies when
// shellgate-hook cannot run (Codex runs a hook command that cannot start
// as if there were no hook), then trusts it in the user's Codex config,
// the way Codex's own hook review does (Codex runs no hook it has not been
// told to trust), and says whether Codex will run it, and if not, exactly
// what is missing.
func codexInstall(s *AgentSpec, o InstallOptions) (Installation, error) {
	in := Installation{Command: CodexFailClosed(o.Command)}
	codexHome, err := CodexHomeFrom(o.Getenv("CODEX_HOME"), o.Home)
	if err != nil {
		return in, err
	}
	path, err := s.installPath(o)
	if err != nil {
		return in, err
	}
	in.InstallResult, err = Install(s.Name, path, in.Command, o.DryRun)
	if err != nil {
		return in, err
	}
	note := func(k NoteKind, format string, args ...any) {
		in.Notes = append(in.Notes, Note{k, fmt.Sprintf(format, args...)})
	}
	if o.DryRun {
		key, hash, err := CodexTrustEntry(path, in.Content)
		if err != nil {
			note(NoteFailed, "%v", err)
			return in, nil
		}
		note(NoteComment, "# and, in %s, the trust entry Codex needs to run it:", filepath.Join(codexHome, "config.toml"))
		for _, l := range strings.Split(strings.TrimSuffix(CodexTrustTOML(key, hash), "\n"), "\n") {
			note(NoteComment, "# %s", l)
		}
		return in, nil
	}
	t, err := TrustCodexHook(codexHome, path, false)
	if err != nil {
		note(NoteFailed, "NOT ACTIVE: Codex does not run a hook it has not been told to trust, and the trust entry could not be written: %v", err)
		return in, nil
	}
	switch {
	case !t.Changed:
		note(NoteInfo, "Codex already trusts the hook in %s", t.ConfigFile)
	case t.Backup != "":
		note(NoteInfo, "trusted the hook in %s (previous file saved as %s)", t.ConfigFile, t.Backup)
	default:
		note(NoteInfo, "trusted the hook in %s", t.ConfigFile)
	}
	st, err := CodexHookTrust(codexHome, path)
	if err != nil {
		note(NoteFailed, "NOT ACTIVE: the Codex hook state could not be read: %v", err)
		return in, nil
	}
	if !st.Active {
		note(NoteInactive, "%s", listProblems("NOT ACTIVE: Codex will run commands without shellgate until this is fixed:", st.Problems))
		return in, nil
	}
	note(NoteInfo, "active: Codex runs shellgate before every shell command (%s)", st.Key)
	if !st.FailClosed {
		note(NoteWarn, "%s", listProblems("WARNING: not fail-closed: Codex runs every command when its hook cannot run, and this hook command has no fallback:", st.Problems))
		return in, nil
	}
	note(NoteInfo, "fail-closed: when shellgate-hook cannot run, the hook command denies by itself (Codex would run the command)")
	return in, nil
}

// codexDoctor: Codex runs a hook only when the user's Codex config trusts
// that exact hook (pinned by its hash), hooks are on, and for a project's
// hooks file the project is trusted; and Codex runs the command when a hook
// cannot run, unless the hook command denies by itself (see
// CodexHookTrust, which reads that state as Codex does), or when it times
// out.
func codexDoctor(env DoctorEnv) []Check {
	ch, err := CodexHomeFrom(env.Getenv("CODEX_HOME"), env.Home)
	if err != nil {
		return []Check{{Name: "trust", Message: "Codex's config cannot be found: " + err.Error(), Fix: "shellgate install codex --user"}}
	}
	return append(codexChecks(ch, env.Settings, env.Install),
		timeoutCheck(env, "Codex", time.Second, 600*time.Second))
}

// codexChecks are the checks of the hook in hooksFile that CodexHookTrust
// reads.
func codexChecks(codexHome, hooksFile, install string) []Check {
	st, err := CodexHookTrust(codexHome, hooksFile)
	if err != nil {
		return []Check{{Name: "trust", Message: fmt.Sprintf("Codex's trust in the hook cannot be established: %v", err),
			Fix: "fix " + st.ConfigFile + " by hand, then run: " + install}}
	}
	var out []Check
	if st.FailClosed {
		out = append(out, Check{Name: "fail-closed", OK: true, Message: "the hook command denies by itself when shellgate-hook cannot run"})
	} else {
		out = append(out, Check{Name: "fail-closed", Message: "the hook command has no fallback: if shellgate-hook cannot run, Codex runs the command", Fix: install})
	}
	switch st.Status {
	case CodexTrusted:
		out = append(out, Check{Name: "trust", OK: true, Message: fmt.Sprintf("%s trusts the hook as installed", st.ConfigFile)})
	case CodexDisabled:
		out = append(out, Check{Name: "trust", Message: fmt.Sprintf("%s disables the hook (enabled = false under [hooks.state.%q])", st.ConfigFile, st.Key),
			Fix: fmt.Sprintf("delete the line enabled = false under [hooks.state.%q] in %s", st.Key, st.ConfigFile)})
	default:
		out = append(out, Check{Name: "trust", Message: fmt.Sprintf("Codex does not run the hook until you trust it (%s in %s)", st.Status, st.ConfigFile), Fix: install})
	}
	if st.ProjectDir != "" {
		if st.ProjectTrust == CodexProjectTrusted {
			out = append(out, Check{Name: "project", OK: true, Message: st.ProjectDir + " is a trusted Codex project"})
		} else {
			out = append(out, Check{Name: "project", Message: fmt.Sprintf("%s is not a trusted Codex project (%s), so Codex ignores its .codex folder", st.ProjectDir, st.ProjectTrust),
				Fix: fmt.Sprintf("codex   # in %s, and trust the folder when asked; or: shellgate install codex --user", st.ProjectDir)})
		}
	}
	if st.HooksFeatureOff {
		out = append(out, Check{Name: "enabled", Message: st.ConfigFile + " turns Codex hooks off ([features] hooks = false)",
			Fix: "delete hooks = false under [features] in " + st.ConfigFile})
	} else {
		out = append(out, Check{Name: "enabled", OK: true, Message: "Codex hooks are on"})
	}
	return out
}

// Codex (checked against @openai/codex 0.171) runs a hook from a hooks.json
// only when the user has trusted that exact hook: its config.toml
// ($CODEX_HOME/config.toml) holds, per hook,
//
//	[hooks.state."/abs/path/hooks.json:pre_tool_use:0:0"]
//	trusted_hash = "sha256:…"
//
// keyed by the hooks file, the event and the hook's position, and pinned to a
// hash of the hook's normalized entry. An entry without it is "untrusted"; one
// whose hash differs is "modified"; Codex lists both and runs neither. This is
// true of the user's own ~/.codex/hooks.json too. A project's
// .codex/hooks.json is read only in a project the user trusts
// ([projects."/abs/project"] trust_level = "trusted"). And a hook that cannot
// run (missing binary, crash, time-out) lets the command run: Codex has no
// fail-closed setting. This file reads and writes that state the way Codex
// does.

// CodexTrustStatus is how Codex treats the shellgate hook in a hooks file.
type CodexTrustStatus string

// Codex trust statuses (Codex's own names, plus two of shellgate's).
const (
	// CodexTrusted: the user's config trusts the hook as it is: Codex runs it.
	CodexTrusted CodexTrustStatus = "trusted"
	// CodexUntrusted: no trust entry: Codex lists the hook and does not run it.
	CodexUntrusted CodexTrustStatus = "untrusted"
	// CodexModified: the trust entry is for another version of the hook (the
	// command or its options changed): Codex does not run it.
	CodexModified CodexTrustStatus = "modified"
	// CodexDisabled: the user disabled the hook (enabled = false).
	CodexDisabled CodexTrustStatus = "disabled"
	// CodexNotInstalled: the hooks file is missing or has no shellgate
	// PreToolUse entry.
	CodexNotInstalled CodexTrustStatus = "not-installed"
)

// Project trust levels Codex records for a project.
const (
	CodexProjectTrusted   = "trusted"
	CodexProjectUntrusted = "untrusted"
	// CodexProjectUnset: no entry; Codex does not load the project's .codex
	// folder (the interactive codex asks once; codex exec does not).
	CodexProjectUnset = "unset"
)

// CodexHookState is what Codex will do with the shellgate hook in one hooks
// file. Active is the answer; the other fields say why.
type CodexHookState struct {
	// Status is the hook's trust status in the user's Codex config.
	Status CodexTrustStatus `json:"status"`
	// Active is true when Codex runs the hook before every shell command:
	// installed, trusted, enabled, the hooks feature on, and (for a
	// project's hooks file) the project trusted.
	Active bool `json:"active"`
	// HooksFile is the hooks.json examined; ConfigFile is the user's Codex
	// config that holds the trust.
	HooksFile  string `json:"hooks_file"`
	ConfigFile string `json:"config_file"`
	// Key is the hook's key in [hooks.state] ("<hooks file>:pre_tool_use:G:H").
	Key string `json:"key,omitempty"`
	// Command is the installed hook command.
	Command string `json:"command,omitempty"`
	// CurrentHash is the hash of the hook as installed; TrustedHash the one
	// the config trusts ("" for none).
	CurrentHash string `json:"current_hash,omitempty"`
	TrustedHash string `json:"trusted_hash,omitempty"`
	// HooksFeatureOff is set when the config turns Codex hooks off
	// ([features] hooks = false): no hook runs at all.
	HooksFeatureOff bool `json:"hooks_feature_off,omitempty"`
	// ProjectDir is the project of a project's hooks file (<dir>/.codex/
	// hooks.json), "" for the user's. ProjectTrust is its trust level:
	// CodexProjectTrusted, CodexProjectUntrusted or CodexProjectUnset.
	ProjectDir   string `json:"project_dir,omitempty"`
	ProjectTrust string `json:"project_trust,omitempty"`
	// FailClosed is set when the hook command denies by itself when
	// shellgate-hook cannot run (see CodexFailClosed); Codex itself lets the
	// command run when a hook fails.
	FailClosed bool `json:"fail_closed"`
	// Problems says what keeps the gate from being active (or fail-closed),
	// each with the exact step that fixes it.
	Problems []string `json:"problems,omitempty"`
}

// CodexHome is the directory of the user's Codex config, as Codex finds it:
// $CODEX_HOME with symlinks resolved (Codex requires it to exist), else
// home/.codex.
func CodexHome(home string) (string, error) {
	return CodexHomeFrom(os.Getenv("CODEX_HOME"), home)
}

// CodexHomeFrom is CodexHome with the value of $CODEX_HOME given (""
// when it is not set). A $CODEX_HOME that names no directory is an error
// wrapping ErrAgentHome: Codex refuses to start then (Codex 0.171:
// "CODEX_HOME points to …, but that path does not exist"), while a missing
// ~/.codex is one Codex creates on its first run, and so may install.
func CodexHomeFrom(codexHomeEnv, home string) (string, error) {
	if v := codexHomeEnv; v != "" {
		abs, err := filepath.Abs(v)
		if err != nil {
			return "", fmt.Errorf("CODEX_HOME %q: %v", v, err)
		}
		p, err := filepath.EvalSymlinks(abs)
		if errors.Is(err, os.ErrNotExist) {
			return "", agentHomeErrorf("CODEX_HOME points to %q, which does not exist, and Codex refuses to start then: create it (mkdir -p %s) or unset CODEX_HOME", v, shellWord(abs))
		}
		if err != nil {
			return "", fmt.Errorf("CODEX_HOME %q: %v", v, err)
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return "", agentHomeErrorf("CODEX_HOME points to %q, which is not a directory", v)
		}
		return p, nil
	}
	if home == "" {
		return "", agentHomeErrorf("no home directory for ~/.codex (set HOME, or CODEX_HOME)")
	}
	return filepath.Join(home, ".codex"), nil
}

// shellWord quotes s for a shell when it holds anything but plain
// characters.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// codexFallbackReason is what the model and the user see when the hook
// command's own fallback denies.
const codexFallbackReason = "shellgate: denied: shellgate-hook could not run (missing, not executable or crashed), so no command runs; run shellgate doctor, or shellgate install codex again"

// codexFallback is the shell tail that CodexFailClosed appends: awk reads
// the payload to its end (so that Codex's write of it cannot fail on a
// closed pipe, which Codex would take as a failed hook and let the command
// run), then prints the deny.
var codexFallback = ` || awk 'END{print "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(string(marshalDeny(codexFallbackReason))) + `"}'`

func marshalDeny(reason string) []byte {
	return bytes.TrimSpace(marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":            "PreToolUse",
		"permissionDecision":       Deny,
		"permissionDecisionReason": reason,
	}}))
}

// CodexFailClosed makes a Codex hook command deny when it cannot run.
// Codex runs a hook command with a shell (Codex 0.171 on Linux: the user's
// shell, "/bin/bash -c <command>") and lets the tool call through when the
// hook fails to start, crashes or exits non-zero; with the returned command
// a missing, non-executable or crashing shellgate-hook prints a deny instead
// (shellgate-hook itself always exits 0). The fallback is `a || awk '...'`,
// which sh, bash, zsh and fish all read the same way. It is idempotent.
func CodexFailClosed(command string) string {
	if strings.HasSuffix(command, codexFallback) {
		return command
	}
	return command + codexFallback
}

// IsCodexFailClosed reports whether command carries CodexFailClosed's
// fallback.
func IsCodexFailClosed(command string) bool { return strings.HasSuffix(command, codexFallback) }

// codexHandler is one command hook of a Codex hooks.json, as Codex
// normalizes it for its trust hash.
type codexHandler struct {
	command       string
	timeout       uint64 // seconds: absent is 600, at least 1
	async         bool
	statusMessage *string
}

// codexHookHash is Codex's trust hash of one command hook: sha256 over the
// compact JSON, keys sorted, of {event_name, matcher, hooks: [handler]} with
// the handler normalized (type, command, timeout, async, statusMessage when
// set). Codex 0.171: codex-rs/hooks/src/engine/discovery.rs command_hook_hash
// and codex-rs/config/src/fingerprint.rs version_for_toml.
func codexHookHash(event string, matcher *string, h codexHandler) string {
	var b strings.Builder
	b.WriteString(`{"event_name":`)
	writeSerdeString(&b, event)
	b.WriteString(`,"hooks":[{"async":`)
	b.WriteString(strconv.FormatBool(h.async))
	b.WriteString(`,"command":`)
	writeSerdeString(&b, h.command)
	if h.statusMessage != nil {
		b.WriteString(`,"statusMessage":`)
		writeSerdeString(&b, *h.statusMessage)
	}
	b.WriteString(`,"timeout":`)
	b.WriteString(strconv.FormatUint(h.timeout, 10))
	b.WriteString(`,"type":"command"}]`)
	if matcher != nil {
		b.WriteString(`,"matcher":`)
		writeSerdeString(&b, *matcher)
	}
	b.WriteString("}")
	sum := sha256.Sum256([]byte(b.String()))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// writeSerdeString writes s as serde_json does: only ", \ and control
// characters escaped; everything else, non-ASCII included, as it is.
func writeSerdeString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// codexEntry is the shellgate hook found in a hooks file.
type codexEntry struct {
	key     string
	hash    string
	command string
}

// findCodexEntry finds the first shellgate PreToolUse command hook in the
// hooks file at path (absolute), and its key and hash as Codex computes
// them. ok is false when there is none.
func findCodexEntry(path string, data []byte) (e codexEntry, ok bool, err error) {
	var file struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&file); err != nil {
		return e, false, fmt.Errorf("%s is not a valid hooks file: %v", path, err)
	}
	raw, found := file.Hooks["PreToolUse"]
	if !found {
		return e, false, nil
	}
	var groups []struct {
		Matcher *string                      `json:"matcher"`
		Hooks   []map[string]json.RawMessage `json:"hooks"`
	}
	dec = json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&groups); err != nil {
		return e, false, fmt.Errorf("%s: hooks.PreToolUse: %v", path, err)
	}
	for gi, g := range groups {
		for hi, fields := range g.Hooks {
			var typ, command string
			if json.Unmarshal(fields["type"], &typ) != nil || typ != "command" {
				continue
			}
			if json.Unmarshal(fields["command"], &command) != nil || !IsShellgateCommand(command) {
				continue
			}
			h := codexHandler{command: command, timeout: 600}
			if t, ok := fields["timeout"]; ok && string(t) != "null" {
				n, err := strconv.ParseUint(string(t), 10, 64)
				if err != nil {
					return e, false, fmt.Errorf("%s: hooks.PreToolUse[%d].hooks[%d].timeout %s is not a whole number of seconds", path, gi, hi, t)
				}
				h.timeout = max(n, 1)
			}
			if a, ok := fields["async"]; ok && string(a) != "null" {
				if err := json.Unmarshal(a, &h.async); err != nil {
					return e, false, fmt.Errorf("%s: hooks.PreToolUse[%d].hooks[%d].async is not a boolean", path, gi, hi)
				}
			}
			if m, ok := fields["statusMessage"]; ok && string(m) != "null" {
				var s string
				if err := json.Unmarshal(m, &s); err != nil {
					return e, false, fmt.Errorf("%s: hooks.PreToolUse[%d].hooks[%d].statusMessage is not a string", path, gi, hi)
				}
				h.statusMessage = &s
			}
			return codexEntry{
				key:     fmt.Sprintf("%s:pre_tool_use:%d:%d", path, gi, hi),
				hash:    codexHookHash("pre_tool_use", g.Matcher, h),
				command: command,
			}, true, nil
		}
	}
	return e, false, nil
}

// CodexTrustEntry returns the [hooks.state] key and the trusted_hash that
// Codex needs in the user's config to run the shellgate hook of a hooks file
// at hooksFile whose content is data (which need not be written yet).
func CodexTrustEntry(hooksFile string, data []byte) (key, hash string, err error) {
	hooksFile, err = filepath.Abs(hooksFile)
	if err != nil {
		return "", "", err
	}
	e, ok, err := findCodexEntry(hooksFile, data)
	if err != nil {
		return "", "", err
	}
	if !ok {
		return "", "", fmt.Errorf("%s has no shellgate PreToolUse hook", hooksFile)
	}
	return e.key, e.hash, nil
}

// CodexTrustTOML is the config.toml table that trusts the hook key with
// hash, as Codex writes it.
func CodexTrustTOML(key, hash string) string {
	return fmt.Sprintf("[hooks.state.%s]\ntrusted_hash = %s\n", tomlQuote(key), tomlQuote(hash))
}

// readCodexConfig reads the user's Codex config; a missing file is empty.
func readCodexConfig(path string) (string, *tomlDoc, error) {
	data, err := trust.ReadRegular(path, MaxSettingsBytes)
	if errors.Is(err, os.ErrNotExist) {
		doc, _ := parseTOML("")
		return "", doc, nil
	}
	if err != nil {
		return "", nil, err
	}
	doc, err := parseTOML(string(data))
	if err != nil {
		return "", nil, fmt.Errorf("%s is not valid TOML: %v", path, err)
	}
	return string(data), doc, nil
}

// CodexHookTrust reports how Codex treats the shellgate hook in hooksFile
// (the user's $CODEX_HOME/hooks.json or a project's .codex/hooks.json),
// given the user's Codex config in codexHome (see CodexHome). An error means
// the state could not be established (unreadable or invalid files); the
// gate must then be taken as not active.
func CodexHookTrust(codexHome, hooksFile string) (CodexHookState, error) {
	hooksFile, err := filepath.Abs(hooksFile)
	if err != nil {
		return CodexHookState{}, err
	}
	st := CodexHookState{
		Status:     CodexNotInstalled,
		HooksFile:  hooksFile,
		ConfigFile: filepath.Join(codexHome, "config.toml"),
	}
	_, doc, err := readCodexConfig(st.ConfigFile)
	if err != nil {
		return st, err
	}
	for _, name := range []string{"hooks", "codex_hooks"} {
		if v, ok := doc.lookup("features", name); ok && v == false {
			st.HooksFeatureOff = true
			st.Problems = append(st.Problems, fmt.Sprintf("%s turns Codex hooks off ([features] %s = false): delete that line", st.ConfigFile, name))
		}
	}
	if dir := filepath.Dir(hooksFile); filepath.Base(dir) == ".codex" && !sameDir(dir, codexHome) {
		st.ProjectDir = filepath.Dir(dir)
		st.ProjectTrust = codexProjectTrust(doc, st.ProjectDir)
		if st.ProjectTrust != CodexProjectTrusted {
			st.Problems = append(st.Problems, codexProjectFix(st.ConfigFile, st.ProjectDir, st.ProjectTrust))
		}
	}
	data, err := trust.ReadRegular(hooksFile, MaxSettingsBytes)
	if errors.Is(err, os.ErrNotExist) {
		st.Problems = append(st.Problems, fmt.Sprintf("%s does not exist: run %s", hooksFile, installCodexCommand(st.ProjectDir)))
		return st, nil
	}
	if err != nil {
		return st, err
	}
	e, ok, err := findCodexEntry(hooksFile, data)
	if err != nil {
		return st, err
	}
	if !ok {
		st.Problems = append(st.Problems, fmt.Sprintf("%s has no shellgate PreToolUse hook: run %s", hooksFile, installCodexCommand(st.ProjectDir)))
		return st, nil
	}
	st.Key, st.CurrentHash, st.Command = e.key, e.hash, e.command
	st.FailClosed = IsCodexFailClosed(e.command)
	if !st.FailClosed {
		st.Problems = append(st.Problems, fmt.Sprintf("the hook command has no fail-closed fallback, and Codex runs every command when the hook cannot run: run %s", installCodexCommand(st.ProjectDir)))
	}
	st.Status = CodexUntrusted
	if v, ok := doc.lookup("hooks", "state", e.key, "trusted_hash"); ok {
		s, isString := v.(string)
		if !isString {
			return st, fmt.Errorf("%s: hooks.state.%q.trusted_hash is not a string", st.ConfigFile, e.key)
		}
		st.TrustedHash = s
		st.Status = CodexModified
		if s == e.hash {
			st.Status = CodexTrusted
		}
	}
	if v, ok := doc.lookup("hooks", "state", e.key, "enabled"); ok && v == false {
		st.Status = CodexDisabled
		st.Problems = append(st.Problems, fmt.Sprintf("%s disables the hook ([hooks.state.%s] enabled = false): delete that line", st.ConfigFile, tomlQuote(e.key)))
	}
	switch st.Status {
	case CodexUntrusted, CodexModified:
		st.Problems = append(st.Problems, fmt.Sprintf("Codex does not run the hook until you trust it (%s): run %s, or trust it in codex's /hooks", st.Status, installCodexCommand(st.ProjectDir)))
	}
	st.Active = st.Status == CodexTrusted && !st.HooksFeatureOff && (st.ProjectDir == "" || st.ProjectTrust == CodexProjectTrusted)
	return st, nil
}

func installCodexCommand(projectDir string) string {
	if projectDir == "" {
		return "shellgate install codex --user"
	}
	return "shellgate install codex --project --dir " + strconv.Quote(projectDir)
}

func codexProjectFix(configFile, projectDir, trust string) string {
	what := "is not a trusted Codex project"
	if trust == CodexProjectUntrusted {
		what = "is marked untrusted"
	}
	return fmt.Sprintf("%s %s, so Codex ignores its .codex folder and the hook does not run: add\n\n[projects.%s]\ntrust_level = \"trusted\"\n\nto %s (or answer yes when codex asks to trust the folder), or install the hook for your user instead: shellgate install codex --user",
		projectDir, what, tomlQuote(projectDir), configFile)
}

func sameDir(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// codexProjectTrust is the trust level Codex gives the .codex folder of dir:
// an entry for dir itself, else for the project root (the nearest directory
// at or above dir holding .git), each by its real path or as written.
// (Codex also looks up the main checkout of a linked git worktree; that case
// reads as unset here, which is the safe side.)
func codexProjectTrust(doc *tomlDoc, dir string) string {
	projects, _ := doc.lookup("projects")
	pt, ok := projects.(*tomlTable)
	if !ok {
		return CodexProjectUnset
	}
	level := func(d string) (string, bool) {
		keys := []string{d}
		if real, err := filepath.EvalSymlinks(d); err == nil && real != d {
			keys = []string{real, d}
		}
		for _, k := range keys {
			t, ok := pt.vals[k].(*tomlTable)
			if !ok {
				continue
			}
			if l, ok := t.vals["trust_level"].(string); ok {
				return l, true
			}
		}
		return "", false
	}
	if l, ok := level(dir); ok {
		return trustName(l)
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if l, ok := level(d); ok {
				return trustName(l)
			}
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return CodexProjectUnset
}

func trustName(level string) string {
	switch level {
	case CodexProjectTrusted, CodexProjectUntrusted:
		return level
	}
	return CodexProjectUnset
}

// CodexTrustResult says what TrustCodexHook did.
type CodexTrustResult struct {
	// ConfigFile is the user's Codex config (the real file when it is a
	// symlink); Backup the copy of its previous content ("" when nothing
	// changed or the file is new).
	ConfigFile string
	Backup     string
	// Key and Hash are the trust entry.
	Key, Hash string
	// Changed is false when the config already trusted the hook.
	Changed bool
	// Content is the config's new content.
	Content []byte
}

// TrustCodexHook records in the user's Codex config (codexHome/config.toml)
// that the shellgate hook now in hooksFile is trusted, exactly as Codex's
// own "trust" does: [hooks.state."<key>"] trusted_hash = "<hash>". Every
// other byte of the config is kept; the previous file is saved with
// BackupSuffix; the write is atomic. It refuses (and changes nothing) when
// the config is not valid TOML or holds the hook's state in a form it cannot
// edit safely (an inline table), and says what to add by hand. With dryRun
// it only computes the result.
func TrustCodexHook(codexHome, hooksFile string, dryRun bool) (CodexTrustResult, error) {
	r := CodexTrustResult{ConfigFile: filepath.Join(codexHome, "config.toml")}
	hooksFile, err := filepath.Abs(hooksFile)
	if err != nil {
		return r, err
	}
	data, err := trust.ReadRegular(hooksFile, MaxSettingsBytes)
	if err != nil {
		return r, err
	}
	e, ok, err := findCodexEntry(hooksFile, data)
	if err != nil {
		return r, err
	}
	if !ok {
		return r, fmt.Errorf("%s has no shellgate PreToolUse hook to trust", hooksFile)
	}
	r.Key, r.Hash = e.key, e.hash
	if real, err := filepath.EvalSymlinks(r.ConfigFile); err == nil {
		r.ConfigFile = real
	}
	manual := fmt.Sprintf("add this to %s by hand:\n\n%s", r.ConfigFile, CodexTrustTOML(e.key, e.hash))
	old, doc, err := readCodexConfig(r.ConfigFile)
	if err != nil {
		return r, fmt.Errorf("%v; fix it, or %s", err, manual)
	}
	out, err := setTrustedHash(old, doc, e.key, e.hash)
	if err != nil {
		return r, fmt.Errorf("%s: %v; %s", r.ConfigFile, err, manual)
	}
	if out == old {
		r.Content = []byte(out)
		return r, nil
	}
	// Check the result the way it will be read.
	check, err := parseTOML(out)
	if err == nil {
		if v, _ := check.lookup("hooks", "state", e.key, "trusted_hash"); v != e.hash {
			err = errors.New("the edit did not take")
		}
	}
	if err != nil {
		return r, fmt.Errorf("%s: could not add the trust entry safely (%v); %s", r.ConfigFile, err, manual)
	}
	r.Content, r.Changed = []byte(out), true
	if dryRun {
		return r, nil
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(r.ConfigFile); err == nil {
		mode = fi.Mode().Perm()
		r.Backup = r.ConfigFile + BackupSuffix
		if err := writeAtomic(r.Backup, []byte(old), mode); err != nil {
			return r, fmt.Errorf("writing the backup: %v", err)
		}
	} else if err := os.MkdirAll(filepath.Dir(r.ConfigFile), 0o700); err != nil {
		return r, err
	}
	if err := writeAtomic(r.ConfigFile, r.Content, mode); err != nil {
		return r, err
	}
	return r, nil
}

// setTrustedHash returns src with hooks.state.<key>.trusted_hash = hash.
func setTrustedHash(src string, doc *tomlDoc, key, hash string) (string, error) {
	for _, p := range [][]string{{"hooks"}, {"hooks", "state"}} {
		v, ok := doc.lookup(p...)
		if !ok {
			break
		}
		t, isTable := v.(*tomlTable)
		if !isTable {
			return "", fmt.Errorf("%s is not a table", strings.Join(p, "."))
		}
		if t.kind == tableInline {
			return "", fmt.Errorf("%s is an inline table", strings.Join(p, "."))
		}
	}
	v, ok := doc.lookup("hooks", "state", key)
	if !ok {
		block := CodexTrustTOML(key, hash)
		switch {
		case src == "":
			return block, nil
		case strings.HasSuffix(src, "\n"):
			return src + "\n" + block, nil
		default:
			return src + "\n\n" + block, nil
		}
	}
	t, isTable := v.(*tomlTable)
	if !isTable {
		return "", fmt.Errorf("hooks.state.%s is not a table", tomlQuote(key))
	}
	if cur, ok := t.vals["trusted_hash"]; ok {
		if cur == hash {
			return src, nil
		}
		if _, isString := cur.(string); !isString {
			return "", fmt.Errorf("hooks.state.%s.trusted_hash is not a string", tomlQuote(key))
		}
		sp, ok := doc.span("hooks", "state", key, "trusted_hash")
		if !ok {
			return "", fmt.Errorf("hooks.state.%s.trusted_hash is written inside an inline table", tomlQuote(key))
		}
		return src[:sp.start] + tomlQuote(hash) + src[sp.end:], nil
	}
	if t.kind != tableHeader {
		return "", fmt.Errorf("hooks.state.%s is not written as a [table]", tomlQuote(key))
	}
	line := "trusted_hash = " + tomlQuote(hash) + "\n"
	at := t.end
	if at > 0 && src[at-1] != '\n' {
		line = "\n" + line
	}
	return src[:at] + line + src[at:], nil
}
