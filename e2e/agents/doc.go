// Package agents drives the real coding agents end to end with shellgate
// installed as their shell-command hook: Claude Code and Gemini CLI, as
// installed from npm under $SHELLGATE_AGENTS (.ci/run does that), run
// headless against a scripted model server on 127.0.0.1, in a temporary
// HOME, with the hook installed by the real `shellgate install` and the
// real shellgate and shellgate-hook binaries built by the tests. The tests
// assert on what really ran: marker files, and the tool results the agent
// sent back to the model server.
//
// The package holds tests only.
package agents
