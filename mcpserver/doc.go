// Package mcpserver serves a gated shell to MCP clients (package
// github.com/modelcontextprotocol/go-sdk/mcp): every command a tool runs
// is decided by a gate (package gate) first.
//
// The tools: bash runs a command (in the background with
// run_in_background; with a one-call sandbox escalation when the server
// confines), bash_output and bash_kill read and stop a background job,
// bash_readonly runs only what readonly mode allows, and check decides
// without running. An ask is approved by the person behind the client
// through MCP elicitation when the client supports it, else by the
// client's own confirmation of the call when the server approves asks,
// else refused with the reasons. A background job belongs to the session
// that started it and ends with it.
//
// A session keeps a working directory, as Claude Code's Bash tool does: it
// starts at the server's directory (Options.Cwd), and after a bash or
// bash_readonly call the shell's final directory (reported by an EXIT
// trap on a descriptor of its own, see gate.Request.ReportDir) becomes
// the next call's, once the policy allows `cd DIR` from where the call
// ran, in the call's mode: a directory outside the roots or a denied one
// is not taken, and the result says so. A session directory that no
// longer exists, or is no longer the same physical directory, refuses
// the next call and puts the session back in the server's directory.
package mcpserver
