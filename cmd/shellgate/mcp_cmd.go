package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
)

func init() {
	register("mcp", "serve a gated shell to MCP clients over stdio (tools bash, bash_readonly, check)", runMCP)
}

// mcpOptions configure the MCP server.
type mcpOptions struct {
	// approveAsks runs what the policy would ask about: the MCP client's
	// own per-call confirmation is then the person's approval.
	approveAsks bool
	// cwd is the directory relative cwds are resolved against.
	cwd   string
	gates *gateCache
}

func runMCP(e *env) int {
	fs := newFlags(e, "mcp", "[--approve-asks] [--cwd DIR] [--policy DIR]... [--config FILE]")
	approve := fs.Bool("approve-asks", false, "run commands the policy would ask about (the MCP client's confirmation of each call is the approval); without it they are refused with the reasons")
	cwd := fs.String("cwd", "", "the `DIR` commands run in when a call gives none (default: the current directory)")
	var policies repeated
	fs.Var(&policies, "policy", "add the Rego modules in `DIR` to the default policy (repeatable)")
	config := fs.String("config", "", "config `FILE` (default: .shellgate.yaml from the command's cwd upward, else the user config)")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	if len(ops) > 0 {
		fs.Usage()
		return exitUsage
	}
	o, err := newMCPOptions(*approve, *cwd, policies, *config)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate mcp:", err)
		return exitUsage
	}
	residentGC()
	srv := newMCPServer(o)
	t := &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	if err := srv.Run(context.Background(), t); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintln(e.stderr, "shellgate mcp:", err)
		return exitInternal
	}
	return exitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func newMCPOptions(approve bool, cwd string, policies []string, config string) (mcpOptions, error) {
	o := mcpOptions{approveAsks: approve}
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, err
		}
		cwd = wd
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return o, err
	}
	if fi, err := os.Stat(abs); err != nil {
		return o, fmt.Errorf("--cwd: %w", err)
	} else if !fi.IsDir() {
		return o, fmt.Errorf("--cwd %s: not a directory", abs)
	}
	o.cwd = abs
	f := hook.Flags{Policy: absAll(policies), Cwd: abs}
	if config != "" {
		f.Config, _ = filepath.Abs(config)
	}
	o.gates = newGateCache(f)
	// Compile the policy now, so that a broken one is a startup error.
	if _, err := o.gates.gateFor(abs); err != nil {
		return o, err
	}
	return o, nil
}

// mcpRunArgs are the arguments of bash and bash_readonly.
type mcpRunArgs struct {
	Command   string `json:"command" jsonschema:"the bash command line to run"`
	Cwd       string `json:"cwd,omitempty" jsonschema:"the directory to run in: absolute, or relative to the server's directory (default)"`
	TimeoutMS int64  `json:"timeout_ms,omitempty" jsonschema:"stop the command and everything it started after this many milliseconds (default and ceiling: the server's limits)"`
}

// mcpCheckArgs are the arguments of check.
type mcpCheckArgs struct {
	Command string `json:"command" jsonschema:"the bash command line to decide on"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"the directory it would run in: absolute, or relative to the server's directory (default)"`
	Mode    string `json:"mode,omitempty" jsonschema:"default (ask a person for anything not proven safe) or readonly (deny it); default: the configured mode"`
	Shell   string `json:"shell,omitempty" jsonschema:"the shell that would run it: bash, zsh or sh; default: the configured shell, else it is judged as both bash and zsh"`
}

// approveAll is the approver of a server started with --approve-asks.
type approveAll struct{}

func (approveAll) Approve(context.Context, *gate.Decision) (bool, error) { return true, nil }

var runOutputSchema = json.RawMessage(`{
  "type": "object",
  "required": ["status", "command"],
  "properties": {
    "status": {"type": "string", "enum": ["ok", "failed", "timeout", "error"]},
    "code": {"type": "string"},
    "message": {"type": "string"},
    "command": {"type": "string"},
    "decision": {"type": "object"},
    "approved": {"type": "boolean"},
    "run": {"type": "object"},
    "output": {"type": "object"},
    "notes": {"type": "array", "items": {"type": "string"}},
    "meaning": {"type": "object"}
  }
}`)

var checkOutputSchema = json.RawMessage(`{
  "type": "object",
  "required": ["action", "reasons", "command", "cwd", "mode"],
  "properties": {
    "action": {"type": "string", "enum": ["allow", "ask", "deny"]},
    "reasons": {"type": "array", "items": {"type": "object", "required": ["code", "message"]}},
    "command": {"type": "string"},
    "cwd": {"type": "string"},
    "mode": {"type": "string"},
    "reversible": {"type": "boolean"}
  }
}`)

func newMCPServer(o mcpOptions) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "shellgate", Version: version}, &mcp.ServerOptions{
		Instructions: "A gated bash shell: every command is decided by shellgate's policy before it runs. " +
			"Use bash_readonly to look (only read-only commands run), bash to act, check to ask whether a command would run. " +
			"A refused command comes back with the reasons; change the command rather than retrying it.",
	})
	askNote := "A command the policy would ask a person about is refused with the reasons."
	if o.approveAsks {
		askNote = "A command the policy would ask a person about runs: your confirmation of this call is the approval."
	}
	mcp.AddTool(srv, &mcp.Tool{
		Name: "bash",
		Description: "Run a bash command through shellgate. An allowed command runs (bash -c, closed stdin, own process group, timeout) " +
			"and the result starts with its exit code, then the bounded output. " + askNote + " A denied command is refused with the reasons.",
		OutputSchema: runOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "Gated bash"},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in mcpRunArgs) (*mcp.CallToolResult, any, error) {
		var ap gate.Approver
		if o.approveAsks {
			ap = approveAll{}
		}
		return o.run(ctx, in, "", ap)
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name: "bash_readonly",
		Description: "Run a read-only bash command through shellgate in readonly mode: only commands proven reversible " +
			"(read-only programs in safe spellings, reads inside the boundary) run; everything else is refused with the reasons and nothing runs.",
		OutputSchema: runOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "Read-only bash", ReadOnlyHint: true, IdempotentHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in mcpRunArgs) (*mcp.CallToolResult, any, error) {
		return o.run(ctx, in, hook.ModeReadonly, nil)
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:         "check",
		Description:  "Decide whether a bash command would run (allow, ask or deny) and why, without running it.",
		OutputSchema: checkOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "Check a command", ReadOnlyHint: true, IdempotentHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in mcpCheckArgs) (*mcp.CallToolResult, any, error) {
		return o.check(ctx, in)
	})
	return srv
}

func (o mcpOptions) resolve(cwd string) string {
	if cwd == "" {
		return o.cwd
	}
	if filepath.IsAbs(cwd) {
		return filepath.Clean(cwd)
	}
	return filepath.Join(o.cwd, cwd)
}

func textResult(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}

// run runs one command through the gate. The structured output is the
// gate's Result; the text is its Text (status line with the exit code
// first, then the output). Anything that did not run is a tool error, so
// the model sees it was refused.
func (o mcpOptions) run(ctx context.Context, in mcpRunArgs, mode string, ap gate.Approver) (*mcp.CallToolResult, any, error) {
	cwd := o.resolve(in.Cwd)
	g, err := o.gates.gateFor(cwd)
	if err != nil {
		return nil, nil, fmt.Errorf("shellgate could not decide, so nothing ran: %v", err)
	}
	res := g.Run(ctx, gate.Request{Command: in.Command, Cwd: cwd, Mode: mode, TimeoutMS: in.TimeoutMS, Approver: ap})
	return textResult(res.Text(), !res.Ran()), res, nil
}

func (o mcpOptions) check(ctx context.Context, in mcpCheckArgs) (*mcp.CallToolResult, any, error) {
	if in.Mode != "" && !policy.ValidMode(in.Mode) {
		return nil, nil, fmt.Errorf("mode %q: want default or readonly", in.Mode)
	}
	cwd := o.resolve(in.Cwd)
	g, err := o.gates.gateFor(cwd)
	if err != nil {
		return nil, nil, fmt.Errorf("shellgate could not decide: %v", err)
	}
	d, err := g.Check(ctx, gate.Request{Command: in.Command, Cwd: cwd, Mode: in.Mode, Shell: in.Shell})
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s", d.Action)
	if len(d.Reasons) == 0 {
		b.WriteString("\n")
	} else {
		b.WriteString(":\n")
		for _, r := range d.Reasons {
			fmt.Fprintf(&b, "- %s: %s", r.Code, oneLineText(r.Message))
			if r.Span != nil {
				fmt.Fprintf(&b, " [%d-%d]", r.Span.Start, r.Span.End)
			}
			b.WriteByte('\n')
		}
	}
	return textResult(b.String(), false), d, nil
}
