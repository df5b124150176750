// Package agentrules reads what a person has already allowed an agent to
// run, in the agent's own settings, and matches those rules against a
// command's segments as the agent itself matches them:
//
//   - Claude Code: the Bash permission rules of settings files
//     (permissions.allow, .deny, .ask): Bash(npm test) exact,
//     Bash(npm run:*) prefix, Bash(git * main) wildcard, bare Bash for the
//     whole tool. "Yes, and don't ask again" writes the project's
//     .claude/settings.local.json (Claude Code 2.1.332's localSettings).
//   - Codex: prefix_rule(pattern=[...], decision=...) in
//     $CODEX_HOME/rules/*.rules, read with a real Starlark interpreter
//     (go.starlark.net); Codex's "don't ask again" appends to
//     rules/default.rules.
//   - Gemini CLI: tools.allowed of settings.json
//     (run_shell_command(npm test)) and the run_shell_command rules of
//     its policy files (policies/*.toml, commandPrefix), where "Allow
//     always" saves auto-saved.toml.
//
// User-scope files always count. A project's files (which the repository
// may ship) count only once `shellgate trust` pinned their exact content,
// except a Claude Code settings.local.json that git is known not to track
// (the rule Claude Code itself applies: it is the person's own).
//
// A rule approves one segment of shellgate's report at a time (never a
// whole compound command): a rule for `npm test` does not approve
// `npm test; rm -rf ~`, whose second segment it does not match. Any deny or
// ask rule of the agent that matches the command or one of its segments
// withholds every approval. Approvals are facts for the policy
// (policy.AgentApproval); the policy decides, and a deny stays a deny.
//
// The package reads files (bounded, regular files only, opened without
// blocking) and does not import OPA.
package agentrules
