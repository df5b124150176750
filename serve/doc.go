// Package serve is shellgate's resident engine: the process that answers
// the thin hook client (cmd/shellgate-hook) over a user-only unix socket,
// so that an agent's hook call costs a few milliseconds and not a policy
// compile. It holds warm gates and never answers from stale rules.
//
// [Gates] is a [hook.Decider] over gates (package gate): one gate per
// config file that applies to a command's cwd, built once and rebuilt
// before the next decision when the config, a policy directory or the
// trust store changed. The one-shot `shellgate hook` and the MCP server
// (package mcpserver) decide through a Gates too. [Engine] answers hook
// calls with one Gates per set of hook flags. [Listen] takes the socket
// (from an engine that holds it without answering) and [Serve] serves it
// until the context ends, the engine is idle, the socket is lost or the
// binary is replaced.
package serve
