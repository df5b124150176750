package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/hook"
)

// runArgs are the arguments of bash_readonly, and the first of bash's.
type runArgs struct {
	Command   string `json:"command" jsonschema:"the bash command line to run"`
	Cwd       string `json:"cwd,omitempty" jsonschema:"the directory to run in for this call: absolute, or relative to the session's working directory (default: the session's working directory)"`
	TimeoutMS int64  `json:"timeout_ms,omitempty" jsonschema:"stop the command and everything it started after this many milliseconds (default and ceiling: the server's limits)"`
}

// bashArgs are the arguments of bash when the server does not confine:
// runArgs and run_in_background. The SDK's schema inference promotes the
// fields of an embedded struct, as encoding/json does.
type bashArgs struct {
	runArgs
	RunInBackground bool `json:"run_in_background,omitempty" jsonschema:"start the command in the background and return its job id at once (no timeout; read its output with bash_output, stop it with bash_kill)"`
}

// confinedBashArgs are the arguments of bash when the server confines the
// commands it runs: bashArgs and the escalation fields.
type confinedBashArgs struct {
	bashArgs
	SandboxEscalation string `json:"sandbox_escalation,omitempty" jsonschema:"only after the sandbox refused this command (a [sandbox: ... denied ...] line): run it once in this wider mode, workspace-write or full-access; needs a justification; a person approves it, and a refusal is final for the command"`
	Justification     string `json:"justification,omitempty" jsonschema:"with sandbox_escalation: one sentence saying why this call needs the wider mode, shown to the person who approves it"`
}

// request is the gate request of a bash call.
func (a confinedBashArgs) request() gate.Request {
	return gate.Request{
		Command: a.Command, Cwd: a.Cwd, TimeoutMS: a.TimeoutMS,
		Escalate: execution.SandboxMode(a.SandboxEscalation), Justification: a.Justification,
	}
}

// jobArgs are the arguments of bash_output and bash_kill.
type jobArgs struct {
	JobID string `json:"job_id" jsonschema:"the job id bash returned for a command run in the background"`
}

// checkArgs are the arguments of check.
type checkArgs struct {
	Command string `json:"command" jsonschema:"the bash command line to decide on"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"the directory it would run in: absolute, or relative to the session's working directory (default: the session's working directory)"`
	Mode    string `json:"mode,omitempty" jsonschema:"default (ask a person for anything not proven safe) or readonly (deny it); default: the configured mode"`
	Shell   string `json:"shell,omitempty" jsonschema:"the shell that would run it: bash, zsh or sh; default: the configured shell, else it is judged as both bash and zsh"`
}

var runOutputSchema = json.RawMessage(`{
  "type": "object",
  "required": ["status", "command"],
  "properties": {
    "status": {"type": "string", "enum": ["ok", "failed", "timeout", "error", "running"]},
    "code": {"type": "string"},
    "message": {"type": "string"},
    "command": {"type": "string"},
    "decision": {"type": "object"},
    "approved": {"type": "boolean"},
    "run": {"type": "object"},
    "output": {"type": "object"},
    "notes": {"type": "array", "items": {"type": "string"}},
    "meaning": {"type": "object"},
    "sandbox": {"type": "object"},
    "job_id": {"type": "string"}
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

// cwdNote is what bash and bash_readonly say of the session's working
// directory.
const cwdNote = "The session keeps a working directory, which starts at the server's: a command that ends in another directory (cd sub) " +
	"moves the next call there, bash and bash_readonly alike, when the policy allows a cd to that directory; the result's last line then says so " +
	"([cwd: the next call runs in DIR]). A directory outside the roots or a denied one is not taken, and the result's last line says why and where the next call runs. " +
	"A background command does not move it; if the directory disappears, the next call is refused and the session goes back to the server's directory."

// addBash adds the bash tool: with the escalation fields when the server
// confines.
func (s *Server) addBash(srv *mcp.Server) {
	askNote := "A command the policy would ask a person about is refused with the reasons."
	if s.o.ApproveAsks {
		askNote = "A command the policy would ask a person about runs: your confirmation of this call is the approval."
	}
	tool := &mcp.Tool{
		Name: "bash",
		Description: "Run a bash command through shellgate. An allowed command runs (bash -c, closed stdin, own process group, timeout) " +
			"and the result starts with its exit code, then the bounded output. " + askNote + " A denied command is refused with the reasons. " + cwdNote,
		OutputSchema: runOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "Gated bash"},
	}
	if !s.confined {
		mcp.AddTool(srv, tool, func(ctx context.Context, req *mcp.CallToolRequest, in bashArgs) (*mcp.CallToolResult, any, error) {
			return s.bash(ctx, req, confinedBashArgs{bashArgs: in}.request(), in.RunInBackground)
		})
		return
	}
	tool.Description += " The command runs confined by the kernel: read-only for a read-only command, writes only in the workspace for an approved one, no network unless approved. " +
		"An operation the sandbox refused shows as a line like [sandbox: write denied under read-only mode]; if the command really needs more, call bash again with the same command, " +
		"sandbox_escalation (workspace-write or full-access) and a one-sentence justification: a person decides, for that one call."
	mcp.AddTool(srv, tool, func(ctx context.Context, req *mcp.CallToolRequest, in confinedBashArgs) (*mcp.CallToolResult, any, error) {
		return s.bash(ctx, req, in.request(), in.RunInBackground)
	})
}

// addJobTools adds bash_output and bash_kill.
func (s *Server) addJobTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name: "bash_output",
		Description: "Read the output a background job (bash with run_in_background) wrote since the last read, bounded to the newest bytes " +
			"(a note says how many were dropped and which file holds the whole output), and its result once it ended. Only the session that started a job can read it.",
		Annotations: &mcp.ToolAnnotations{Title: "Background job output", ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in jobArgs) (*mcp.CallToolResult, any, error) {
		j, err := s.jobs.get(req.Session, in.JobID)
		if err != nil {
			return nil, nil, err
		}
		out := j.Read()
		return textResult(jobText(out), false), out, nil
	})
	no := false
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "bash_kill",
		Description: "Stop a background job and everything it started, and return its result. Only the session that started a job can stop it.",
		Annotations: &mcp.ToolAnnotations{Title: "Stop a background job", DestructiveHint: &no},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in jobArgs) (*mcp.CallToolResult, any, error) {
		j, err := s.jobs.get(req.Session, in.JobID)
		if err != nil {
			return nil, nil, err
		}
		res := j.Kill()
		return textResult(res.Text(), false), res, nil
	})
}

// addReadonly adds bash_readonly: readonly mode in the read-only sandbox,
// nobody to ask.
func (s *Server) addReadonly(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name: "bash_readonly",
		Description: "Run a read-only bash command through shellgate in readonly mode: only commands proven reversible " +
			"(read-only programs in safe spellings, reads inside the boundary) run; everything else is refused with the reasons and nothing runs. " + cwdNote,
		OutputSchema: runOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "Read-only bash", ReadOnlyHint: true, IdempotentHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in runArgs) (*mcp.CallToolResult, any, error) {
		return s.run(ctx, req.Session, gate.Request{
			Command: in.Command, Cwd: in.Cwd, TimeoutMS: in.TimeoutMS,
			Mode: hook.ModeReadonly, Sandbox: execution.SandboxReadOnly,
		}, nil)
	})
}

// addCheck adds check: a decision without a run.
func (s *Server) addCheck(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:         "check",
		Description:  "Decide whether a bash command would run (allow, ask or deny) and why, without running it.",
		OutputSchema: checkOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "Check a command", ReadOnlyHint: true, IdempotentHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in checkArgs) (*mcp.CallToolResult, any, error) {
		return s.check(ctx, req.Session, in)
	})
}
