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
package mcpserver
