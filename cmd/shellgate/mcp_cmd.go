package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
)

func init() {
	register("mcp", "serve a gated shell to MCP clients over stdio (tools bash, bash_output, bash_kill, bash_readonly, check)", runMCP)
}

// mcpOptions configure the MCP server.
type mcpOptions struct {
	// approveAsks runs what the policy would ask about: the MCP client's
	// own per-call confirmation is then the person's approval.
	approveAsks bool
	// cwd is the directory relative cwds are resolved against.
	cwd   string
	gates *gateCache
	// confined is set when the server's gate confines the commands it
	// runs: the bash tool then takes the escalation fields.
	confined bool
	// jobs are the background jobs, by session.
	jobs *jobTable
}

func runMCP(e *env) int {
	fs := newFlags(e, "mcp", "[--approve-asks] [--cwd DIR] [--policy DIR]... [--config FILE] [--opa-config FILE]")
	opaConfig := fs.String("opa-config", os.Getenv(OPAConfigEnv), "OPA configuration `FILE` (default: $SHELLGATE_OPA_CONFIG): decide with the policy bundle it names (no --policy or --config then) and log decisions as it says")
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
	var fl *fleetState
	if *opaConfig != "" {
		if *config != "" || len(policies) > 0 {
			fmt.Fprintln(e.stderr, "shellgate mcp: --opa-config: the policy bundle carries the policy and config; give no --config or --policy")
			return exitUsage
		}
		var err error
		if fl, err = startFleet(*opaConfig, "", nil, false); err != nil {
			fmt.Fprintln(e.stderr, "shellgate mcp:", err)
			return exitUsage
		}
		defer fl.stop()
	}
	o, err := newMCPOptionsFleet(*approve, *cwd, policies, *config, fl)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate mcp:", err)
		return exitUsage
	}
	residentGC()
	srv := newMCPServer(o)
	t := &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	// SIGINT and SIGTERM end the server the way end of input does: every
	// background job is stopped first.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = srv.Run(ctx, t)
	o.jobs.closeAll() // no background job outlives the server
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) && ctx.Err() == nil {
		fmt.Fprintln(e.stderr, "shellgate mcp:", err)
		return exitInternal
	}
	return exitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func newMCPOptions(approve bool, cwd string, policies []string, config string) (mcpOptions, error) {
	return newMCPOptionsFleet(approve, cwd, policies, config, nil)
}

// newMCPOptionsFleet is newMCPOptions, deciding with the policy bundle of
// fl when it is not nil.
func newMCPOptionsFleet(approve bool, cwd string, policies []string, config string, fl *fleetState) (mcpOptions, error) {
	o := mcpOptions{approveAsks: approve, jobs: newJobTable()}
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
	o.gates.fleet = fl
	// Compile the policy now, so that a broken one is a startup error.
	g, err := o.gates.gateFor(abs)
	if err != nil {
		return o, err
	}
	o.confined = g.SandboxSupport().Err == nil
	return o, nil
}

// mcpRunArgs are the arguments of bash and bash_readonly.
type mcpRunArgs struct {
	Command   string `json:"command" jsonschema:"the bash command line to run"`
	Cwd       string `json:"cwd,omitempty" jsonschema:"the directory to run in: absolute, or relative to the server's directory (default)"`
	TimeoutMS int64  `json:"timeout_ms,omitempty" jsonschema:"stop the command and everything it started after this many milliseconds (default and ceiling: the server's limits)"`
}

// mcpBashArgs are the arguments of bash when the server confines the
// commands it runs: mcpRunArgs and the escalation fields.
type mcpBashArgs struct {
	Command           string `json:"command" jsonschema:"the bash command line to run"`
	Cwd               string `json:"cwd,omitempty" jsonschema:"the directory to run in: absolute, or relative to the server's directory (default)"`
	TimeoutMS         int64  `json:"timeout_ms,omitempty" jsonschema:"stop the command and everything it started after this many milliseconds (default and ceiling: the server's limits)"`
	RunInBackground   bool   `json:"run_in_background,omitempty" jsonschema:"start the command in the background and return its job id at once (no timeout; read its output with bash_output, stop it with bash_kill)"`
	SandboxEscalation string `json:"sandbox_escalation,omitempty" jsonschema:"only after the sandbox refused this command (a [sandbox: ... denied ...] line): run it once in this wider mode, workspace-write or full-access; needs a justification; a person approves it, and a refusal is final for the command"`
	Justification     string `json:"justification,omitempty" jsonschema:"with sandbox_escalation: one sentence saying why this call needs the wider mode, shown to the person who approves it"`
}

// mcpBashPlainArgs are the arguments of bash when the server does not
// confine: mcpRunArgs and run_in_background.
type mcpBashPlainArgs struct {
	Command         string `json:"command" jsonschema:"the bash command line to run"`
	Cwd             string `json:"cwd,omitempty" jsonschema:"the directory to run in: absolute, or relative to the server's directory (default)"`
	TimeoutMS       int64  `json:"timeout_ms,omitempty" jsonschema:"stop the command and everything it started after this many milliseconds (default and ceiling: the server's limits)"`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"start the command in the background and return its job id at once (no timeout; read its output with bash_output, stop it with bash_kill)"`
}

// mcpJobArgs are the arguments of bash_output and bash_kill.
type mcpJobArgs struct {
	JobID string `json:"job_id" jsonschema:"the job id bash returned for a command run in the background"`
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
	bashTool := &mcp.Tool{
		Name: "bash",
		Description: "Run a bash command through shellgate. An allowed command runs (bash -c, closed stdin, own process group, timeout) " +
			"and the result starts with its exit code, then the bounded output. " + askNote + " A denied command is refused with the reasons.",
		OutputSchema: runOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "Gated bash"},
	}
	if o.confined {
		bashTool.Description += " The command runs confined by the kernel: read-only for a read-only command, writes only in the workspace for an approved one, no network unless approved. " +
			"An operation the sandbox refused shows as a line like [sandbox: write denied under read-only mode]; if the command really needs more, call bash again with the same command, " +
			"sandbox_escalation (workspace-write or full-access) and a one-sentence justification: a person decides, for that one call."
		mcp.AddTool(srv, bashTool, func(ctx context.Context, req *mcp.CallToolRequest, in mcpBashArgs) (*mcp.CallToolResult, any, error) {
			return o.bash(ctx, req, gate.Request{
				Command: in.Command, Cwd: in.Cwd, TimeoutMS: in.TimeoutMS,
				Escalate: gate.SandboxMode(in.SandboxEscalation), Justification: in.Justification,
			}, in.RunInBackground)
		})
	} else {
		mcp.AddTool(srv, bashTool, func(ctx context.Context, req *mcp.CallToolRequest, in mcpBashPlainArgs) (*mcp.CallToolResult, any, error) {
			return o.bash(ctx, req, gate.Request{Command: in.Command, Cwd: in.Cwd, TimeoutMS: in.TimeoutMS}, in.RunInBackground)
		})
	}
	mcp.AddTool(srv, &mcp.Tool{
		Name: "bash_output",
		Description: "Read the output a background job (bash with run_in_background) wrote since the last read, bounded to the newest bytes " +
			"(a note says how many were dropped and which file holds the whole output), and its result once it ended. Only the session that started a job can read it.",
		Annotations: &mcp.ToolAnnotations{Title: "Background job output", ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in mcpJobArgs) (*mcp.CallToolResult, any, error) {
		j, err := o.jobs.get(req.Session, in.JobID)
		if err != nil {
			return nil, nil, err
		}
		out := j.Read()
		return textResult(jobText(out), false), out, nil
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name:        "bash_kill",
		Description: "Stop a background job and everything it started, and return its result. Only the session that started a job can stop it.",
		Annotations: &mcp.ToolAnnotations{Title: "Stop a background job", DestructiveHint: ptrTo(false)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in mcpJobArgs) (*mcp.CallToolResult, any, error) {
		j, err := o.jobs.get(req.Session, in.JobID)
		if err != nil {
			return nil, nil, err
		}
		res := j.Kill()
		return textResult(res.Text(), false), res, nil
	})
	mcp.AddTool(srv, &mcp.Tool{
		Name: "bash_readonly",
		Description: "Run a read-only bash command through shellgate in readonly mode: only commands proven reversible " +
			"(read-only programs in safe spellings, reads inside the boundary) run; everything else is refused with the reasons and nothing runs.",
		OutputSchema: runOutputSchema,
		Annotations:  &mcp.ToolAnnotations{Title: "Read-only bash", ReadOnlyHint: true, IdempotentHint: true},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in mcpRunArgs) (*mcp.CallToolResult, any, error) {
		return o.run(ctx, gate.Request{
			Command: in.Command, Cwd: in.Cwd, TimeoutMS: in.TimeoutMS,
			Mode: hook.ModeReadonly, Sandbox: gate.SandboxReadOnly,
		}, nil)
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
func (o mcpOptions) run(ctx context.Context, req gate.Request, ap gate.Approver) (*mcp.CallToolResult, any, error) {
	req.Cwd = o.resolve(req.Cwd)
	g, err := o.gates.gateFor(req.Cwd)
	if err != nil {
		return nil, nil, fmt.Errorf("shellgate could not decide, so nothing ran: %v", err)
	}
	req.Approver = ap
	res := g.Run(ctx, req)
	o.gates.fleet.logGate(ctx, res.Decision)
	return textResult(res.Text(), !res.Ran()), res, nil
}

// bash runs a call of the bash tool. Who approves an ask or an
// escalation: the person behind the client, through MCP elicitation, when
// the client supports it; else, with --approve-asks, the client's
// confirmation of the call; else nobody (refused).
//
// Elicitation goes the way the protocol wants it: the tool returns an
// input request (the SDK sends it to an older client as
// elicitation/create) and the call comes again with the person's answer.
// The answer is keyed by a hash of exactly what the person was shown, so
// it applies only to that decision: if anything changed in between, the
// person is asked again.
func (o mcpOptions) bash(ctx context.Context, req *mcp.CallToolRequest, r gate.Request, background bool) (*mcp.CallToolResult, any, error) {
	run := o.run
	if background {
		run = func(ctx context.Context, r gate.Request, ap gate.Approver) (*mcp.CallToolResult, any, error) {
			return o.start(ctx, req.Session, r, ap)
		}
	}
	if !clientElicits(req) {
		var ap gate.Approver
		if o.approveAsks {
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
func (o mcpOptions) start(ctx context.Context, ss *mcp.ServerSession, r gate.Request, ap gate.Approver) (*mcp.CallToolResult, any, error) {
	if err := o.jobs.room(ss); err != nil {
		return nil, nil, err
	}
	r.Cwd = o.resolve(r.Cwd)
	g, err := o.gates.gateFor(r.Cwd)
	if err != nil {
		return nil, nil, fmt.Errorf("shellgate could not decide, so nothing ran: %v", err)
	}
	r.Approver = ap
	j, res := g.Start(ctx, r)
	if j == nil {
		return textResult(res.Text(), true), res, nil
	}
	if err := o.jobs.add(ss, j); err != nil {
		return nil, nil, err
	}
	text := res.StatusLine() + "\nRead its output with bash_output and job_id " + j.ID() + "; stop it with bash_kill.\n"
	return textResult(text, false), res, nil
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

func ptrTo[T any](v T) *T { return &v }

// maxJobsPerSession bounds the background jobs one session may hold.
const maxJobsPerSession = 64

// jobTable holds the background jobs by the session that started them.
// A session sees only its own jobs; when it ends, its jobs are stopped
// and their spill files removed; closeAll does the same for every
// session when the server ends.
type jobTable struct {
	mu     sync.Mutex
	closed bool
	jobs   map[*mcp.ServerSession]map[string]*gate.Job
}

func newJobTable() *jobTable {
	return &jobTable{jobs: map[*mcp.ServerSession]map[string]*gate.Job{}}
}

// errNoJob is the one answer for a job id that does not exist and one
// that another session started: nothing tells them apart.
func errNoJob(id string) error {
	return fmt.Errorf("job %q is not a job of this session (a job belongs to the session that started it)", id)
}

func (t *jobTable) room(ss *mcp.ServerSession) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return errors.New("the server is shutting down")
	}
	if len(t.jobs[ss]) >= maxJobsPerSession {
		return fmt.Errorf("this session already has %d background jobs, the most it may have", maxJobsPerSession)
	}
	return nil
}

func (t *jobTable) add(ss *mcp.ServerSession, j *gate.Job) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		j.Close()
		return errors.New("the server is shutting down; the job was stopped")
	}
	m := t.jobs[ss]
	first := m == nil
	if first {
		m = map[string]*gate.Job{}
		t.jobs[ss] = m
	}
	m[j.ID()] = j
	t.mu.Unlock()
	if first && ss != nil {
		go func() {
			_ = ss.Wait()
			t.endSession(ss)
		}()
	}
	return nil
}

func (t *jobTable) get(ss *mcp.ServerSession, id string) (*gate.Job, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if j, ok := t.jobs[ss][id]; ok {
		return j, nil
	}
	return nil, errNoJob(id)
}

// endSession stops every job of ss.
func (t *jobTable) endSession(ss *mcp.ServerSession) {
	t.mu.Lock()
	m := t.jobs[ss]
	delete(t.jobs, ss)
	t.mu.Unlock()
	closeJobs(m)
}

// closeAll stops every job; no job starts after.
func (t *jobTable) closeAll() {
	t.mu.Lock()
	t.closed = true
	all := t.jobs
	t.jobs = map[*mcp.ServerSession]map[string]*gate.Job{}
	t.mu.Unlock()
	for _, m := range all {
		closeJobs(m)
	}
}

func closeJobs(m map[string]*gate.Job) {
	var wg sync.WaitGroup
	for _, j := range m {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j.Close()
		}()
	}
	wg.Wait()
}

func clientElicits(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil || req.Params == nil {
		return false
	}
	p := req.Session.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// elicitApprover approves with the person's answer to the question it
// asked in an earlier round; without one it records the question and
// answers gate.ErrApprovalPending. Only an explicit accept with approve
// set approves; a decline, a cancel or anything else runs nothing.
type elicitApprover struct {
	answers mcp.InputResponseMap
	id      string
	ask     *mcp.ElicitParams
}

// elicitSchema is the one-question form the person answers.
var elicitSchema = json.RawMessage(`{"type":"object","properties":{"approve":{"type":"boolean","title":"Run this command?","description":"Yes runs it once; no runs nothing."}},"required":["approve"]}`)

func (a *elicitApprover) Approve(_ context.Context, d *gate.Decision) (bool, error) {
	msg := approvalMessage(d)
	sum := sha256.Sum256([]byte(msg))
	id := "shellgate-approval-" + hex.EncodeToString(sum[:12])
	if resp, ok := a.answers[id]; ok {
		er, _ := resp.(*mcp.ElicitResult)
		if er == nil || er.Action != "accept" {
			return false, nil
		}
		ok, _ := er.Content["approve"].(bool)
		return ok, nil
	}
	a.id, a.ask = id, &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: elicitSchema}
	return false, gate.ErrApprovalPending
}

// approvalMessage is what a person is asked: the command, the reasons
// with their spans underlined, and the escalation.
func approvalMessage(d *gate.Decision) string {
	var b strings.Builder
	b.WriteString("shellgate: may this command run?\n\n")
	if d.Escalation != nil {
		fmt.Fprintf(&b, "The agent asks to run it once in the sandbox mode %s instead of %s: %s\n\n", d.Escalation.To, d.Escalation.From, d.Escalation.Justification)
	}
	printDecision(&b, decisionResult(d))
	return b.String()
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
	o.gates.fleet.logGate(ctx, d)
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
