// Package doctor answers one question for a user who ran `shellgate
// install`: is the gate really active? For each agent found (Claude Code,
// Codex, Gemini CLI, Cursor, Qwen Code, GitHub Copilot CLI; the project's
// settings for a directory and the user's), it checks what decides whether the agent runs shellgate before
// every shell command: the settings file is there and valid as the agent
// reads it, it holds a shellgate hook for the shell tool, the hook command
// resolves to an executable, the agent's fail-closed setting, the agent's
// own trust in the hook or the folder, and that hooks are not switched off.
// It also reports the engine (does it answer a ping) and the config and
// policy in force for the directory.
//
// Every check is a row {name, ok, message, fix}; a failed row carries the
// exact command that fixes it. An agent's gate is active when one of its
// scopes passes every check that is not advisory. Run reads files only: it
// never runs a hook command (a project's settings may come from anyone).
package doctor
