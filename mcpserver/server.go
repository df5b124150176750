package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
)

// Gates gives the gate that decides a command run in cwd: a serve.Gates
// (one per config file, rebuilt when it changes) or a gate.Decider (a
// policy bundle's, whose pipelines log every decision).
type Gates interface {
	GateFor(cwd string) (*gate.Gate, error)
}

// Options configure New.
type Options struct {
	// Gates decides every command.
	Gates Gates
	// Cwd is the absolute directory a call's command runs in when it
	// gives none, and that a relative cwd starts from.
	Cwd string
	// ApproveAsks runs what the policy would ask about when the client
	// cannot elicit: the MCP client's own per-call confirmation is then
	// the person's approval.
	ApproveAsks bool
	// Version is the server's version in the MCP handshake.
	Version string
}

// Server is a gated shell for MCP clients. It is safe for concurrent use
// by any number of sessions.
type Server struct {
	o Options
	// confined is set when the gate of Cwd confines the commands it
	// runs: the bash tool then takes the escalation fields.
	confined bool
	jobs     *jobTable
	dirs     *sessionDirs
	mcp      *mcp.Server
}

// New builds the server and the gate of o.Cwd now, so that a broken
// config or policy is a startup error.
func New(o Options) (*Server, error) {
	if o.Gates == nil {
		return nil, errors.New("mcpserver: no gates")
	}
	if !filepath.IsAbs(o.Cwd) {
		return nil, fmt.Errorf("mcpserver: the cwd %q is not absolute", o.Cwd)
	}
	g, err := o.Gates.GateFor(o.Cwd)
	if err != nil {
		return nil, err
	}
	s := &Server{o: o, confined: g.SandboxSupport().Err == nil, jobs: newJobTable(), dirs: newSessionDirs()}
	s.mcp = s.newMCP()
	return s, nil
}

// MCP is the server's MCP server, to run on a transport or connect
// sessions to (Run does both and then stops the jobs).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Run serves the transport t until the client ends the session or ctx
// ends, then stops every background job: none outlives the server.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	s.Close()
	return err
}

// Close stops every background job of every session and starts no more.
func (s *Server) Close() { s.jobs.closeAll() }

func (s *Server) newMCP() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "shellgate", Version: s.o.Version}, &mcp.ServerOptions{
		Instructions: "A gated bash shell: every command is decided by shellgate's policy before it runs. " +
			"Use bash_readonly to look (only read-only commands run), bash to act, check to ask whether a command would run. " +
			"A refused command comes back with the reasons; change the command rather than retrying it.",
	})
	s.addBash(srv)
	s.addJobTools(srv)
	s.addReadonly(srv)
	s.addCheck(srv)
	return srv
}

func textResult(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}

// run runs one command through the gate, in the session's directory
// unless the call gives a cwd, and moves the session to the directory
// the shell ended in (see follow). The structured output is the gate's
// Result; the text is its Text (status line with the exit code first,
// then the output) and a last line when the session's directory moved or
// did not move where the shell ended. Anything that did not run is a tool
// error, so the model sees it was refused.
func (s *Server) run(ctx context.Context, ss *mcp.ServerSession, req gate.Request, ap gate.Approver) (*mcp.CallToolResult, any, error) {
	cwd, base, err := s.callDir(ss, req.Cwd)
	if err != nil {
		return nil, nil, err
	}
	req.Cwd = cwd
	g, err := s.o.Gates.GateFor(req.Cwd)
	if err != nil {
		return nil, nil, fmt.Errorf("shellgate could not decide, so nothing ran: %v", err)
	}
	req.Approver = ap
	req.ReportDir = true
	res := g.Run(ctx, req)
	text := res.Text()
	if line := s.follow(ctx, ss, g, res, req.Mode, base, req.Cwd); line != "" {
		text += line + "\n"
	}
	return textResult(text, !res.Ran()), res, nil
}

// bash runs a call of the bash tool. Who approves an ask or an
// escalation: the person behind the client, through MCP elicitation, when
// the client supports it; else, with ApproveAsks, the client's
// confirmation of the call; else nobody (refused).
//
// Elicitation goes the way the protocol wants it: the tool returns an
// input request (the SDK sends it to an older client as
// elicitation/create) and the call comes again with the person's answer.
// The answer is keyed by a hash of exactly what the person was shown, so
// it applies only to that decision: if anything changed in between, the
// person is asked again.
func (s *Server) bash(ctx context.Context, req *mcp.CallToolRequest, r gate.Request, background bool) (*mcp.CallToolResult, any, error) {
	run := func(ctx context.Context, r gate.Request, ap gate.Approver) (*mcp.CallToolResult, any, error) {
		return s.run(ctx, req.Session, r, ap)
	}
	if background {
		run = func(ctx context.Context, r gate.Request, ap gate.Approver) (*mcp.CallToolResult, any, error) {
			return s.start(ctx, req.Session, r, ap)
		}
	}
	if !clientElicits(req) {
		var ap gate.Approver
		if s.o.ApproveAsks {
			ap = approveAll{}
		}
		return run(ctx, r, ap)
	}
	ap := &elicitApprover{answers: req.Params.InputResponses}
	res, out, err := run(ctx, r, ap)
	if err == nil && ap.ask != nil {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{ap.id: ap.ask}}, nil, nil
	}
	return res, out, err
}

// start starts a command in the background for the session ss.
func (s *Server) start(ctx context.Context, ss *mcp.ServerSession, r gate.Request, ap gate.Approver) (*mcp.CallToolResult, any, error) {
	if err := s.jobs.room(ss); err != nil {
		return nil, nil, err
	}
	cwd, _, err := s.callDir(ss, r.Cwd)
	if err != nil {
		return nil, nil, err
	}
	r.Cwd = cwd
	g, err := s.o.Gates.GateFor(r.Cwd)
	if err != nil {
		return nil, nil, fmt.Errorf("shellgate could not decide, so nothing ran: %v", err)
	}
	r.Approver = ap
	j, res := g.Start(ctx, r)
	if j == nil {
		return textResult(res.Text(), true), res, nil
	}
	if err := s.jobs.add(ss, j); err != nil {
		return nil, nil, err
	}
	text := res.StatusLine() + "\nRead its output with bash_output and job_id " + j.ID() + "; stop it with bash_kill.\n"
	return textResult(text, false), res, nil
}

// check answers a call of the check tool: the decision, and a text of
// the action and each reason on one line with its span.
func (s *Server) check(ctx context.Context, ss *mcp.ServerSession, in checkArgs) (*mcp.CallToolResult, any, error) {
	if in.Mode != "" && !policy.ValidMode(in.Mode) {
		return nil, nil, fmt.Errorf("mode %q: want default or readonly", in.Mode)
	}
	cwd, _, err := s.callDir(ss, in.Cwd)
	if err != nil {
		return nil, nil, err
	}
	g, err := s.o.Gates.GateFor(cwd)
	if err != nil {
		return nil, nil, fmt.Errorf("shellgate could not decide: %v", err)
	}
	d, err := g.Decide(ctx, gate.Request{Command: in.Command, Cwd: cwd, Mode: in.Mode, Shell: in.Shell})
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
			fmt.Fprintf(&b, "- %s: %s", r.Code, strings.Join(strings.Fields(r.Message), " "))
			if r.Span != nil {
				fmt.Fprintf(&b, " [%d-%d]", r.Span.Start, r.Span.End)
			}
			b.WriteByte('\n')
		}
	}
	return textResult(b.String(), false), d, nil
}

// jobText is a job read for a model: a note when bytes were dropped, the
// output, and the result's status line once the job ended.
func jobText(out gate.JobOutput) string {
	var b strings.Builder
	if out.DroppedBytes > 0 {
		fmt.Fprintf(&b, "[... %d bytes dropped since the last read", out.DroppedBytes)
		if out.SpillPath != "" {
			b.WriteString("; the whole output: " + out.SpillPath)
		}
		b.WriteString(" ...]\n")
	}
	b.WriteString(out.Output)
	if out.Output != "" && !strings.HasSuffix(out.Output, "\n") {
		b.WriteByte('\n')
	}
	if out.Result != nil {
		b.WriteString("[job ended] " + out.Result.StatusLine() + "\n")
	} else if out.Output == "" && out.DroppedBytes == 0 {
		b.WriteString("[no new output; the job is still running]\n")
	}
	return b.String()
}
