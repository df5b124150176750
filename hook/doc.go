// Package hook makes shellgate the permission hook of coding agents (Claude
// Code, Codex, Gemini CLI, Cursor): it parses each agent's hook payload into
// a [Query], asks a [Decider] for a [Verdict], and renders the answer in the
// exact JSON the agent reads.
//
// Each agent is a value, an [AgentSpec], declared in one file of this
// package (claude.go, codex.go, gemini.go, cursor.go) and registered from
// its init function: its payload (shell tool, events, where the command
// is), its answer format and what an ask becomes, its settings file and
// hook entries, what install says after writing them ([AgentSpec.Install]),
// and its own doctor checks ([AgentSpec.Doctor]). [Validate] checks the
// registry the way go/analysis checks its analyzers, and a test runs it.
// Adding an agent is one file and its tests. It also writes the hook entry into an agent's
// settings file ([Install]) and carries the small protocol between the thin
// hook client (cmd/shellgate-hook) and the resident engine (shellgate serve):
// a user-only unix socket, one JSON request and one JSON response per
// connection (an acknowledgement first, when asked: [AskEngineAcked]), with
// a version handshake. One engine serves a socket ([Listen]); a new engine
// takes the socket over from one that holds it without answering, a
// stopped or hung process ([TakeOver]), and the old one finds its socket
// [Listener.Lost] and leaves.
//
// Codex runs a hook only once the user trusts it, and runs the command when
// its hook cannot run: [CodexHookTrust] reports whether Codex will run the
// installed hook (and what keeps it off), [TrustCodexHook] records the trust
// the way Codex does, and [CodexFailClosed] makes the hook command deny by
// itself when shellgate-hook cannot run. Claude Code blocks the command when
// a hook with onFailure "block" cannot run ([ClaudeOnFailure]); Gemini CLI
// runs hooks only in a folder it trusts ([GeminiFolderTrust]).
//
// The package must stay free of OPA and of the policy pipeline, so that the
// thin client that links it starts in a few milliseconds; the decision comes
// in through the Decider interface.
//
// Every path fails closed: a payload that cannot be read, a missing command,
// a Decider error or panic, all become a deny in the agent's own format (exit
// 0 with JSON), never an allow and never a crash that the agent would treat
// as "no opinion".
package hook
