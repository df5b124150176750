// Package render writes shellgate's answers for a person: a decision with
// each reason's span underlined under the line of the command it is in
// (Decision, Underline), and a classifier's report (Report). The shellgate
// CLI, its run prompt and the MCP server's approval question all show a
// decision this way, so a person sees the same text wherever they are
// asked.
//
// Columns are counted in runes: a tab or an invalid byte is one column,
// as a terminal that shows the command as written would place it.
package render
