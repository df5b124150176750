package hook

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Qwen is Qwen Code: Claude Code's hook format (PreToolUse, tool_name,
// tool_input, hookSpecificOutput.permissionDecision) with the shell tool
// "run_shell_command", in .qwen/settings.json.
const Qwen Agent = "qwen"

// QwenTimeout is the hook timeout Install writes for Qwen Code, in seconds
// (Qwen Code reads a value of 1000 or more as milliseconds). Qwen Code
// 0.24.4 runs the command when a hook times out, so it is far above the
// thin client's 25 s budget for a whole call.
const QwenTimeout = 120

func init() {
	register(&AgentSpec{
		Name:      Qwen,
		Title:     "Qwen Code",
		Order:     50,
		ShellTool: "run_shell_command",
		// monitor (a deferred tool the model reaches through tool_search
		// and tool_call, which fire the hooks under its own name) runs a
		// command in the background.
		CommandTools: []string{"monitor"},
		PreEvents:    []string{"PreToolUse"},
		// tool_input.directory is the command's directory (absolute in
		// Qwen Code 0.24.4's schema).
		ToolInputDir: true,
		// Qwen Code puts a hook's ask to a person in its terminal UI in
		// every approval mode, yolo included; where it cannot (a headless
		// -p run, a background agent) it refuses the call itself with the
		// hook's reason (canPromptForAskBounce in its core; confirmed
		// headless by e2e/agents). An ask never runs the command.
		CanAsk:        true,
		Dir:           ".qwen",
		File:          "settings.json",
		ProjectDirVar: "QWEN_PROJECT_DIR",
		Program:       "qwen",
		Package:       "@qwen-code/qwen-code@0.24.4",
		hooks: []hookSpec{{"PreToolUse", "run_shell_command|monitor", func(c string) *object {
			return obj("type", "command", "command", c, "timeout", json.Number(fmt.Sprint(QwenTimeout)))
		}}},
		render: func(_ Payload, action, reason string) Answer {
			return preToolUseAnswer(action, reason)
		},
		shell: func(Flags) string {
			if runtime.GOOS != "windows" {
				// Qwen Code runs shell commands as bash -c outside
				// Windows (getShellConfiguration, 0.24.4).
				return "bash"
			}
			return ""
		},
		install: qwenInstall,
		doctor:  qwenDoctor,
	})
}

// qwenFallbackReason is what the model and the user see when the hook
// command's own fallback denies.
const qwenFallbackReason = "shellgate: denied: shellgate-hook could not run (missing, not executable or crashed), so no command runs; run shellgate doctor, or shellgate install qwen again"

// QwenFailClosed makes a Qwen Code hook command deny when it cannot run.
// Qwen Code 0.24.4 runs the command when its hook exits with any code but
// 2 (a missing binary's 127 included), prints what is not JSON, or prints
// nothing on exit 2; with the returned command a missing, non-executable
// or crashing shellgate-hook prints a deny instead (shellgate-hook itself
// always exits 0). The fallback, `a || awk '...'`, reads the payload to
// its end first and is read alike by sh, bash and zsh. It is idempotent.
func QwenFailClosed(command string) string {
	fb := denyFallback(qwenFallbackReason)
	if strings.HasSuffix(command, fb) {
		return command
	}
	return command + fb
}

// IsQwenFailClosed reports whether command carries QwenFailClosed's
// fallback.
func IsQwenFailClosed(command string) bool {
	return strings.HasSuffix(command, denyFallback(qwenFallbackReason))
}

// denyFallback is the shell tail ` || awk 'END{print "<deny>"}'` that
// prints a PreToolUse deny with reason once the payload is read.
func denyFallback(reason string) string {
	return ` || awk 'END{print "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(string(marshalDeny(reason))) + `"}'`
}

// qwenInstall writes the hook command with its fail-closed fallback.
func qwenInstall(s *AgentSpec, o InstallOptions) (Installation, error) {
	in := Installation{Command: QwenFailClosed(o.Command)}
	path := s.SettingsPath(o.Scope, o.ProjectDir, o.Home, o.Getenv)
	r, err := Install(s.Name, path, in.Command, o.DryRun)
	in.InstallResult = r
	if err != nil || o.DryRun {
		return in, err
	}
	in.Notes = []Note{
		{NoteInfo, "fail-closed: when shellgate-hook cannot run, the hook command denies by itself (Qwen Code runs the command when a hook fails, exits with any code but 2, or prints what is not JSON); a hook that times out would let it run, so the timeout is 120 s, far above the hook's own 25 s limit"},
		{NoteInfo, "ask: Qwen Code asks in its terminal UI, in every approval mode; a headless run (qwen -p) refuses an asked command with shellgate's reason"},
		{NoteInfo, "note: a headless qwen -p offers the model the shell tool only in yolo mode (or with --allowed-tools run_shell_command); in the others nothing runs"},
	}
	return in, nil
}

// qwenDoctor: the hook command denies by itself when shellgate-hook cannot
// run, its timeout leaves shellgate-hook its budget, and no settings file
// turns hooks off.
func qwenDoctor(env DoctorEnv) []Check {
	var out []Check
	if IsQwenFailClosed(env.Command) {
		out = append(out, Check{Name: "fail-closed", OK: true, Message: "the hook command denies by itself when shellgate-hook cannot run"})
	} else {
		out = append(out, Check{Name: "fail-closed", Message: "the hook command has no fallback: if shellgate-hook cannot run (or exits with any code but 2), Qwen Code runs the command", Fix: env.Install})
	}
	out = append(out, qwenTimeoutCheck(env))
	files := []string{filepath.Join(env.Dir, ".qwen", "settings.json")}
	if env.Home != "" {
		files = append(files, filepath.Join(env.Home, ".qwen", "settings.json"))
	}
	out = append(out, disableAllHooksCheck(Qwen.Spec(), files))
	return out
}

// qwenTimeoutCheck reads Qwen Code's timeout: seconds, except that 1000
// or more is milliseconds; 60 s when absent.
func qwenTimeoutCheck(env DoctorEnv) Check {
	unit := time.Second
	if v, ok := env.Handler["timeout"]; ok {
		var n float64
		if _, err := fmt.Sscan(fmt.Sprint(v), &n); err == nil && n >= 1000 {
			unit = time.Millisecond
		}
	}
	return timeoutCheck(env, "Qwen Code", unit, 60*time.Second)
}

// disableAllHooksCheck: no settings file the agent reads sets
// "disableAllHooks": true (Qwen Code and GitHub Copilot CLI read it as
// Claude Code does). A file that cannot be read or parsed is skipped: the
// settings check reports the one that holds the hook.
func disableAllHooksCheck(s *AgentSpec, files []string) Check {
	for _, f := range files {
		data, err := readSmallFile(f)
		if err != nil {
			continue
		}
		root, err := s.DecodeSettings(data)
		if err != nil {
			continue
		}
		if root["disableAllHooks"] == true {
			return Check{Name: "enabled", Message: f + ` sets "disableAllHooks": true: ` + s.Title + ` runs no hook at all`,
				Fix: `remove "disableAllHooks" from ` + f}
		}
	}
	return Check{Name: "enabled", OK: true, Message: `no settings file sets "disableAllHooks"`}
}

// maxSettingsFile bounds a settings file doctor reads.
const maxSettingsFile = 4 << 20

// readSmallFile reads a regular file of at most maxSettingsFile bytes,
// opened without blocking (a FIFO or device put in its place is refused,
// not waited on).
func readSmallFile(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSettingsFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSettingsFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, maxSettingsFile)
	}
	return b, nil
}
