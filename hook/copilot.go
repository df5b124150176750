package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"
)

// Copilot is GitHub Copilot CLI: a preToolUse hook (toolName, toolArgs
// in; a flat permissionDecision out) in .github/hooks/shellgate.json or
// the "hooks" of ~/.copilot/settings.json. Its shell tool is "bash".
const Copilot Agent = "copilot"

// CopilotTimeout is the hook timeout Install writes for GitHub Copilot CLI
// (timeoutSec). Copilot CLI 1.0.102 lets the tool call proceed when a
// hook times out, so it is far above the thin client's 25 s budget.
const CopilotTimeout = 120

func init() {
	register(&AgentSpec{
		Name:      Copilot,
		Title:     "GitHub Copilot CLI",
		Order:     60,
		ShellTool: "bash",
		// The payload names no event; Install writes only preToolUse.
		PreEvents: []string{"preToolUse"},
		// Copilot CLI shows its own confirmation for "ask" in its terminal
		// UI; where nobody can answer (-p, autopilot) it denies the call
		// itself ("unable to ask user for confirmation"; confirmed
		// headless by e2e/agents).
		CanAsk: true,
		// Copilot CLI runs a repository's hooks only in a folder the
		// person trusted; the user's always.
		DefaultUser: true,
		Dir:         filepath.Join(".github", "hooks"),
		File:        "shellgate.json",
		UserFile:    "settings.json",
		CommandKey:  "bash",
		Flat:        true,
		// Copilot CLI writes its config files with // comments.
		Comments: true,
		Program:  "copilot",
		Package:  "@github/copilot@1.0.102",
		hooks: []hookSpec{{"preToolUse", "", func(c string) *object {
			return obj("type", "command", "bash", c, "timeoutSec", json.Number(strconv.Itoa(CopilotTimeout)))
		}}},
		payload: copilotPayload,
		render: func(_ Payload, action, reason string) Answer {
			// permissionDecision "allow" also spares the person Copilot
			// CLI's own approval prompt.
			return Answer{Stdout: marshal(map[string]any{
				"permissionDecision":       action,
				"permissionDecisionReason": reason,
			})}
		},
		shell: func(Flags) string {
			if runtime.GOOS != "windows" {
				return "bash"
			}
			return ""
		},
		userDir: func(home string, getenv func(string) string) (string, error) {
			return CopilotHome(home, getenv), nil
		},
		install: copilotInstall,
		doctor:  copilotDoctor,
	})
}

// CopilotHome is GitHub Copilot CLI's directory for a user whose home is
// home: $COPILOT_HOME, else ~/.copilot.
func CopilotHome(home string, getenv func(string) string) string {
	if getenv != nil {
		if d := getenv("COPILOT_HOME"); d != "" {
			return d
		}
	}
	return filepath.Join(home, ".copilot")
}

// copilotPayload rewrites Copilot CLI's payload ({"cwd", "toolName",
// "toolArgs"}, toolArgs an object or a JSON string) into the fields Parse
// reads. A payload that is not a JSON object is an error (a deny).
func copilotPayload(data []byte) ([]byte, error) {
	var in struct {
		Cwd      *string         `json:"cwd"`
		ToolName *string         `json:"toolName"`
		ToolArgs json.RawMessage `json:"toolArgs"`
		// Claude Code's spelling, which Copilot CLI sends to hooks in
		// Claude's format (plugins): passed on as it is.
		ClaudeToolName *string `json:"tool_name"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("hook payload is not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, errors.New("hook payload has data after the JSON object")
	}
	if in.ToolName == nil && in.ClaudeToolName != nil {
		return data, nil
	}
	args := in.ToolArgs
	var s string
	if len(args) > 0 && args[0] == '"' && json.Unmarshal(args, &s) == nil {
		// toolArgs as a JSON string: its content, when that is JSON;
		// else the string itself, which Parse refuses for a shell call.
		if json.Valid([]byte(s)) {
			args = json.RawMessage(s)
		}
	}
	out := map[string]any{}
	if in.Cwd != nil {
		out["cwd"] = *in.Cwd
	}
	if in.ToolName != nil {
		out["tool_name"] = *in.ToolName
	}
	if len(args) > 0 {
		out["tool_input"] = args
	}
	return json.Marshal(out)
}

// CopilotTrust says whether GitHub Copilot CLI trusts a folder: it runs a
// repository's hooks (.github/hooks) only in a folder it trusts.
type CopilotTrust struct {
	// Trusted is true when Copilot CLI runs the folder's hooks.
	Trusted bool
	// Why says which rule decided, for a person.
	Why string
	// File is the config file read.
	File string
}

// CopilotFolderTrust reads how Copilot CLI (1.0.102) treats dir: trusted
// when dir or a folder above it is listed in "trustedFolders" of
// config.json in copilotHome (a file with // comments, which Copilot CLI
// writes when the person trusts a folder). COPILOT_ALLOW_ALL=true in
// Copilot CLI's own environment trusts every folder too; that is not
// known here.
func CopilotFolderTrust(copilotHome, dir string) (CopilotTrust, error) {
	file := filepath.Join(copilotHome, "config.json")
	t := CopilotTrust{File: file}
	b, err := readSmallFile(file)
	if errors.Is(err, os.ErrNotExist) {
		t.Why = file + " does not exist: no folder is trusted yet"
		return t, nil
	}
	if err != nil {
		return t, err
	}
	var cfg struct {
		TrustedFolders []string `json:"trustedFolders"`
	}
	if err := json.Unmarshal(stripJSONComments(b), &cfg); err != nil {
		return t, fmt.Errorf("%s: %v", file, err)
	}
	real := realPath(dir)
	for _, f := range cfg.TrustedFolders {
		if f != "" && within(realPath(f), real) {
			t.Trusted = true
			t.Why = fmt.Sprintf("%s lists %q in trustedFolders", file, f)
			return t, nil
		}
	}
	t.Why = fmt.Sprintf("%s lists no folder that holds %s in trustedFolders", file, dir)
	return t, nil
}

// copilotInstall writes the hook and says whether Copilot CLI runs it: a
// user's hook always, a repository's only in a trusted folder.
func copilotInstall(s *AgentSpec, o InstallOptions) (Installation, error) {
	in := Installation{Command: o.Command}
	path := s.SettingsPath(o.Scope, o.ProjectDir, o.Home, o.Getenv)
	r, err := Install(s.Name, path, in.Command, o.DryRun)
	in.InstallResult = r
	if err != nil || o.DryRun {
		return in, err
	}
	info := func(s string) Note { return Note{NoteInfo, s} }
	in.Notes = []Note{
		info(fmt.Sprintf("fail-closed: Copilot CLI denies the call when the hook cannot start or exits non-zero; a hook that times out would let it run, so timeoutSec is %d, far above the hook's own 25 s limit", CopilotTimeout)),
		info("ask: Copilot CLI asks in its terminal UI; where nobody can answer (copilot -p, autopilot) it denies the call with shellgate's reason"),
		info("note: what shellgate allows runs without Copilot CLI's own approval prompt (permissionDecision allow), in every mode"),
	}
	if o.Scope == ScopeUser {
		return in, nil
	}
	t, err := CopilotFolderTrust(CopilotHome(o.Home, o.Getenv), o.ProjectDir)
	switch {
	case err != nil:
		in.Notes = append(in.Notes, Note{NoteFailed, fmt.Sprintf("could not read Copilot CLI's folder trust: %v", err)})
	case t.Trusted:
		in.Notes = append(in.Notes, info(fmt.Sprintf("active: Copilot CLI trusts %s, so it runs the hook (%s)", o.ProjectDir, t.Why)))
	default:
		in.Notes = append(in.Notes, Note{NoteInactive, fmt.Sprintf("NOT ACTIVE YET: Copilot CLI runs a repository's hooks only in a folder it trusts, and it does not trust %s (%s).\n"+
			"  Trust the folder when Copilot CLI asks on its first start there; or run: shellgate install copilot --user", o.ProjectDir, t.Why)})
	}
	return in, nil
}

// copilotDoctor: Copilot CLI denies when the hook fails, but runs the
// command when it times out; it runs a repository's hooks only in a
// trusted folder, and none when disableAllHooks is set.
func copilotDoctor(env DoctorEnv) []Check {
	out := []Check{{Name: "fail-closed", OK: true,
		Message: "Copilot CLI denies the call when the hook cannot start or exits non-zero; a time-out lets it run (see timeout)"}}
	out = append(out, copilotTimeoutCheck(env))
	home := CopilotHome(env.Home, env.Getenv)
	if !env.User {
		switch t, err := CopilotFolderTrust(home, env.Dir); {
		case env.Getenv("COPILOT_ALLOW_ALL") == "true":
			out = append(out, Check{Name: "trust", OK: true, Message: "COPILOT_ALLOW_ALL=true trusts every folder"})
		case err != nil:
			out = append(out, Check{Name: "trust", Message: fmt.Sprintf("Copilot CLI's trusted folders cannot be read: %v", err), Fix: "fix " + t.File + " by hand"})
		case t.Trusted:
			out = append(out, Check{Name: "trust", OK: true, Message: fmt.Sprintf("Copilot CLI trusts %s (%s)", env.Dir, t.Why)})
		default:
			out = append(out, Check{Name: "trust", Message: fmt.Sprintf("Copilot CLI does not trust %s (%s), so it runs no hook of the repository", env.Dir, t.Why),
				Fix: fmt.Sprintf("copilot   # in %s, and trust the folder when asked; or: shellgate install copilot --user", env.Dir)})
		}
	}
	return append(out, disableAllHooksCheck(Copilot.Spec(), []string{filepath.Join(home, "settings.json")}))
}

// copilotTimeoutCheck reads timeoutSec (or its alias timeout), in seconds.
func copilotTimeoutCheck(env DoctorEnv) Check {
	v, ok := env.Handler["timeoutSec"]
	if !ok {
		v, ok = env.Handler["timeout"]
	}
	if !ok {
		return Check{Name: "timeout", Message: "the hook sets no timeoutSec: Copilot CLI runs the command when a hook times out, and shellgate-hook may take up to 25s", Fix: env.Install}
	}
	e := env
	e.Handler = map[string]any{"timeout": v}
	return timeoutCheck(e, "Copilot CLI", time.Second, 0)
}
