package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/render"
)

// approveAll is the approver of a server that approves asks.
type approveAll struct{}

func (approveAll) Approve(context.Context, *gate.Decision) (bool, error) { return true, nil }

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
	render.Decision(&b, d.Command, d.Decision, d.Station)
	return b.String()
}
