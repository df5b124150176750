package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/shellgate/shellgate/trust"
)

// Gemini is Gemini CLI: BeforeTool for the tool "run_shell_command".
// A hook's "decision": "ask" makes it show its own confirmation.
const Gemini Agent = "gemini"

func init() {
	register(&AgentSpec{
		Name:          Gemini,
		Title:         "Gemini CLI",
		Order:         30,
		ShellTool:     "run_shell_command",
		PreEvents:     []string{"BeforeTool"},
		PostEvents:    []string{"AfterTool"},
		ToolInputDir:  true,
		CanAsk:        true,
		AskAsApplies:  true,
		Dir:           ".gemini",
		File:          "settings.json",
		Comments:      true,
		ProjectDirVar: "GEMINI_PROJECT_DIR",
		Program:       "gemini",
		Package:       "@google/gemini-cli@0.61.0",
		hooks: []hookSpec{
			{"BeforeTool", "run_shell_command", geminiEntry},
			{"AfterTool", "run_shell_command", geminiEntry},
		},
		render: func(_ Payload, action, reason string) Answer {
			o := map[string]any{"decision": action}
			switch action {
			case Deny:
				o["reason"] = reason
			case Ask:
				// Gemini CLI shows its own confirmation for "ask", with
				// the systemMessage in it.
				o["systemMessage"] = reason
			}
			return Answer{Stdout: marshal(o)}
		},
		renderPost: func(_ Payload, context string) Answer {
			return Answer{Stdout: marshal(map[string]any{"hookSpecificOutput": map[string]any{
				"additionalContext": context,
			}})}
		},
		shell: func(Flags) string {
			if runtime.GOOS != "windows" {
				// Gemini CLI runs every shell command as bash -c outside
				// Windows (getShellConfiguration in its core, 0.61.0).
				return "bash"
			}
			return ""
		},
		notes:  geminiNotes,
		doctor: geminiDoctor,
	})
}

func geminiEntry(c string) *object {
	return obj("name", "shellgate", "type", "command", "command", c, "timeout", json.Number(fmt.Sprint(GeminiTimeout)))
}

// geminiNotes: what Gemini CLI does when the hook cannot run, what an ask
// becomes, and whether it trusts the folder (it runs no hook elsewhere).
func geminiNotes(o InstallOptions) []Note {
	info := func(s string) Note { return Note{NoteInfo, s} }
	out := []Note{info("fail-closed: Gemini CLI blocks the command when the hook cannot start or fails (any exit code but 0 and 1); a hook that times out would let it run, so the timeout is 120 s, far above the hook's own 25 s limit")}
	switch o.AskAs {
	case "":
		out = append(out, info("ask: Gemini CLI shows its own confirmation with shellgate's reasons; a headless `gemini -p` that lets shell commands run (--yolo) waits for it for ever: install with --ask-as deny for unattended runs"))
	case AskDeny:
		out = append(out, info("ask: denied, with the reason a person must approve (--ask-as deny)"))
	case AskDefer:
		out = append(out, info("ask: no decision: Gemini CLI's own approval settings decide (--ask-as defer)"))
	}
	out = append(out, info("note: a command shellgate allows may still be confirmed by Gemini CLI's own policy (its approval mode and policy rules)"))
	if o.Home == "" {
		return out
	}
	if o.Scope == ScopeUser {
		return append(out, info(fmt.Sprintf("note: Gemini CLI runs no hooks in a folder it does not trust (%s); there it asks before shell commands itself", GeminiTrustedFoldersFile(o.Home))))
	}
	t, err := GeminiFolderTrust(o.Home, o.ProjectDir)
	switch {
	case err != nil:
		out = append(out, Note{NoteWarn, fmt.Sprintf("could not read Gemini CLI's folder trust: %v", err)})
	case t.Trusted:
		out = append(out, info(fmt.Sprintf("active: Gemini CLI trusts %s, so it runs the hook (%s)", o.ProjectDir, t.Why)))
	default:
		out = append(out, Note{NoteInactive, fmt.Sprintf("NOT ACTIVE YET: Gemini CLI runs no hooks in a folder it does not trust, and it does not trust %s (%s).\n"+
			"  Trust the folder when Gemini CLI asks on its first start there (or with its /permissions command); until then it asks before shell commands itself.", o.ProjectDir, t.Why)})
	}
	return out
}

// geminiDoctor: Gemini CLI 0.61 blocks the command when a hook exits with
// a code other than 0 and 1 (a missing binary: 127; a crash); exit 1, a
// signal and a time-out let it run (shellgate-hook never exits 1). In a
// folder it does not trust it runs no hook from its settings, the user's
// included; and hooks may be turned off.
func geminiDoctor(env DoctorEnv) []Check {
	return []Check{
		{Name: "fail-closed", OK: true,
			Message: "Gemini CLI blocks the command when the hook cannot start or fails (any exit code but 0 and 1); a time-out lets it run (see timeout)"},
		timeoutCheck(env, "Gemini CLI", time.Millisecond, 60*time.Second),
		geminiFolderTrustCheck(env),
		geminiEnabled(env),
	}
}

// geminiFolderTrustCheck: Gemini CLI runs hooks from its settings (the
// project's and the user's) only in a folder it trusts.
// GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder, =false (or
// GEMINI_RESTRICTED_MODE=true) none; else GeminiFolderTrust reads the
// user's settings and trusted folders as Gemini CLI 0.61 does
// (checkPathTrust, processHooksFromConfig).
func geminiFolderTrustCheck(env DoctorEnv) Check {
	fix := fmt.Sprintf("gemini   # in %s, and trust the folder when asked (or with /permissions)", env.Dir)
	if env.Getenv("GEMINI_RESTRICTED_MODE") == "true" || env.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "false" {
		return Check{Name: "trust", Message: "the environment makes no folder trusted (GEMINI_RESTRICTED_MODE or GEMINI_CLI_TRUST_WORKSPACE=false): Gemini CLI runs no hook", Fix: "unset GEMINI_RESTRICTED_MODE GEMINI_CLI_TRUST_WORKSPACE"}
	}
	if env.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true" {
		return Check{Name: "trust", OK: true, Message: "GEMINI_CLI_TRUST_WORKSPACE=true trusts every folder"}
	}
	if env.Home == "" {
		return Check{Name: "trust", Message: "no home directory: Gemini CLI's trusted folders cannot be read", Fix: "export HOME=..."}
	}
	t, err := GeminiFolderTrust(env.Home, env.Dir)
	if err != nil {
		return Check{Name: "trust", Message: fmt.Sprintf("Gemini CLI's trusted folders cannot be read (%v): Gemini CLI refuses to start on a file it cannot parse", err), Fix: "fix " + t.File + " by hand"}
	}
	if t.Trusted {
		return Check{Name: "trust", OK: true, Message: fmt.Sprintf("Gemini CLI trusts %s (%s)", env.Dir, t.Why)}
	}
	return Check{Name: "trust", Message: fmt.Sprintf("Gemini CLI does not trust %s (%s), so it runs no hook there", env.Dir, t.Why), Fix: fix}
}

// geminiEnabled: hooks are on (hooksConfig.enabled) and the shellgate hook
// is not listed in hooksConfig.disabled, in the user's or the project's
// settings.
func geminiEnabled(env DoctorEnv) Check {
	name, _ := env.Handler["name"].(string)
	if name == "" {
		name = env.Command
	}
	files := []string{filepath.Join(env.Dir, ".gemini", "settings.json")}
	if env.Home != "" {
		files = append(files, filepath.Join(env.Home, ".gemini", "settings.json"))
	}
	for _, f := range files {
		data, err := trust.ReadRegular(f, MaxSettingsBytes)
		if err != nil {
			continue
		}
		root, err := Gemini.Spec().DecodeSettings(data)
		if err != nil {
			continue
		}
		hc, _ := root["hooksConfig"].(map[string]any)
		if hc["enabled"] == false {
			return Check{Name: "enabled", Message: f + ` sets "hooksConfig": {"enabled": false}: Gemini CLI runs no hook at all`,
				Fix: `remove "enabled": false from "hooksConfig" in ` + f}
		}
		dis, _ := hc["disabled"].([]any)
		for _, d := range dis {
			if d == name {
				return Check{Name: "enabled", Message: fmt.Sprintf("%s lists the hook %q in hooksConfig.disabled: Gemini CLI does not run it", f, name),
					Fix: fmt.Sprintf("remove %q from \"hooksConfig\".\"disabled\" in %s", name, f)}
			}
		}
	}
	return Check{Name: "enabled", OK: true, Message: "hooks are enabled and shellgate's is not disabled"}
}

// GeminiTrust says whether Gemini CLI trusts a folder. Gemini CLI runs no
// hooks from settings (the user's or the project's) in a folder it does not
// trust: there it ignores the project's settings and asks before shell
// commands itself (its approval mode is forced to the default).
type GeminiTrust struct {
	// Trusted is true when Gemini CLI runs hooks in the folder.
	Trusted bool
	// Why says which rule decided, for a person.
	Why string
	// File is the trusted-folders file read ("" when folder trust is off).
	File string
}

// GeminiTrustedFoldersFile is Gemini CLI's trusted-folders file for a user
// whose home is home: $GEMINI_CLI_TRUSTED_FOLDERS_PATH, else
// ~/.gemini/trustedFolders.json.
func GeminiTrustedFoldersFile(home string) string {
	if p := os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(home, ".gemini", "trustedFolders.json")
}

// GeminiFolderTrust reads how Gemini CLI (0.61) treats dir: folder trust
// turned off in the user's settings (security.folderTrust.enabled: false)
// trusts every folder; else the longest rule of the trusted-folders file
// whose folder holds dir decides (TRUST_FOLDER: that folder, TRUST_PARENT:
// its parent, DO_NOT_TRUST), and a folder no rule covers is not trusted
// (Gemini CLI asks about it on its first start there). A file that cannot
// be read or parsed is an error (shellgate reads plain JSON; Gemini CLI also
// takes comments, and refuses to start on a file it cannot parse).
func GeminiFolderTrust(home, dir string) (GeminiTrust, error) {
	if b, err := trust.ReadRegular(filepath.Join(home, ".gemini", "settings.json"), MaxSettingsBytes); err == nil {
		var st struct {
			Security struct {
				FolderTrust struct {
					Enabled *bool `json:"enabled"`
				} `json:"folderTrust"`
			} `json:"security"`
		}
		if json.Unmarshal(b, &st) == nil && st.Security.FolderTrust.Enabled != nil && !*st.Security.FolderTrust.Enabled {
			return GeminiTrust{Trusted: true, Why: "folder trust is turned off in " + filepath.Join(home, ".gemini", "settings.json")}, nil
		}
	}
	file := GeminiTrustedFoldersFile(home)
	t := GeminiTrust{File: file}
	b, err := trust.ReadRegular(file, MaxSettingsBytes)
	if errors.Is(err, os.ErrNotExist) {
		t.Why = file + " does not exist: no folder is trusted yet"
		return t, nil
	}
	if err != nil {
		return t, err
	}
	var rules map[string]string
	if err := json.Unmarshal(b, &rules); err != nil {
		return t, fmt.Errorf("%s: %v", file, err)
	}
	real := realPath(dir)
	best, level := -1, ""
	for path, lv := range rules {
		eff := path
		if lv == "TRUST_PARENT" {
			eff = filepath.Dir(path)
		}
		if !within(realPath(eff), real) || len(path) <= best {
			continue
		}
		best, level = len(path), lv
		t.Why = fmt.Sprintf("%s: %q is %s", file, path, lv)
	}
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		t.Trusted = true
	case "":
		t.Why = fmt.Sprintf("%s has no rule for %s", file, dir)
	}
	return t, nil
}

func realPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// within reports whether p is dir or inside it.
func within(dir, p string) bool {
	if dir == p {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
