package hook

import (
	"fmt"
	"path/filepath"

	"github.com/shellgate/shellgate/trust"
)

// Claude is Claude Code: PreToolUse (tool "Bash") and
// PostToolUse/PostToolUseFailure.
const Claude Agent = "claude"

func init() {
	register(&AgentSpec{
		Name:      Claude,
		Title:     "Claude Code",
		Order:     10,
		ShellTool: "Bash",
		PreEvents: []string{"PreToolUse"},
		// PostToolUse carries no exit code; PostToolUseFailure's error
		// text does.
		PostEvents: []string{"PostToolUse", "PostToolUseFailure"},
		// The permission modes in which a hook's ask reaches a person (""
		// when the payload names none; plan is readonly). In auto the call
		// proceeds regardless of a hook's ask (reported on Claude Code's
		// tracker), dontAsk refuses what is not pre-approved, and
		// bypassPermissions asks nobody; a mode not listed is not known to
		// ask.
		AskingModes:    []string{"", "default", "acceptEdits", "plan"},
		CanAsk:         true,
		EmptyNoOpinion: true, // exit 0 with no output continues normally
		Dir:            ".claude",
		File:           "settings.json",
		ProjectDirVar:  "CLAUDE_PROJECT_DIR",
		Program:        "claude",
		Package:        "@anthropic-ai/claude-code@2.1.332",
		hooks: []hookSpec{
			{"PreToolUse", "Bash", func(c string) *object {
				e := claudeEntry(c)
				e.set("onFailure", ClaudeOnFailure)
				return e
			}},
			{"PostToolUseFailure", "Bash", claudeEntry},
		},
		render: func(_ Payload, action, reason string) Answer {
			return preToolUseAnswer(action, reason)
		},
		renderPost: func(p Payload, context string) Answer {
			name := p.EventName
			if name == "" {
				name = "PostToolUse"
			}
			return Answer{Stdout: marshal(map[string]any{"hookSpecificOutput": map[string]any{
				"hookEventName":     name,
				"additionalContext": context,
			}})}
		},
		shell:  claudeShell,
		notes:  claudeNotes,
		doctor: claudeDoctor,
	})
}

// claudeShell: Claude Code runs commands in CLAUDE_CODE_SHELL, else in the
// login shell when that is bash or zsh.
func claudeShell(f Flags) string {
	if f.ClaudeShell != "" {
		return shellName(f.ClaudeShell)
	}
	if d := shellName(f.LoginShell); d == "bash" || d == "zsh" {
		return d
	}
	return ""
}

func claudeNotes(InstallOptions) []Note {
	return []Note{{NoteInfo, fmt.Sprintf("fail-closed: Claude Code blocks the command when the hook cannot run, times out or fails (\"onFailure\": %q; Claude Code 2.1.295 or later, older versions run the command)", ClaudeOnFailure)}}
}

// claudeDoctor: onFailure "block" on a hook Claude Code waits for, and no
// settings file Claude Code reads turns every hook off.
func claudeDoctor(env DoctorEnv) []Check {
	var out []Check
	of, _ := env.Handler["onFailure"].(string)
	async := env.Handler["async"] == true || env.Handler["asyncRewake"] == true
	switch {
	case async:
		out = append(out, Check{Name: "fail-closed", Message: "the hook runs async: Claude Code does not wait for it, and its answer blocks nothing", Fix: env.Install})
	case of == ClaudeOnFailure:
		out = append(out, Check{Name: "fail-closed", OK: true, Message: `"onFailure": "block": a hook that cannot run blocks the command`})
	default:
		out = append(out, Check{Name: "fail-closed", Message: `no "onFailure": "block" on the hook: if it cannot run (binary moved, crash, time-out), Claude Code runs the command anyway`, Fix: env.Install})
	}
	files := []string{env.Settings}
	if !env.User {
		files = append(files, filepath.Join(env.Dir, ".claude", "settings.local.json"))
	} else {
		files = append(files, filepath.Join(env.Dir, ".claude", "settings.json"), filepath.Join(env.Dir, ".claude", "settings.local.json"))
	}
	if env.Home != "" {
		files = append(files, filepath.Join(env.Home, ".claude", "settings.json"))
	}
	return append(out, claudeEnabled(files))
}

// claudeEnabled: no settings file Claude Code reads turns every hook off.
func claudeEnabled(files []string) Check {
	for _, f := range files {
		data, err := trust.ReadRegular(f, MaxSettingsBytes)
		if err != nil {
			continue
		}
		root, err := Claude.Spec().DecodeSettings(data)
		if err != nil {
			continue
		}
		if root["disableAllHooks"] == true {
			return Check{Name: "enabled", Message: f + ` sets "disableAllHooks": true: Claude Code runs no hook at all`,
				Fix: `remove "disableAllHooks" from ` + f}
		}
	}
	return Check{Name: "enabled", OK: true, Message: `no settings file sets "disableAllHooks"`}
}
