package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Options change how a verdict is rendered.
type Options struct {
	// AskAs says what an ask becomes for Codex and Gemini CLI (see
	// Agent.AskAsApplies): "" (the default: Gemini CLI's own confirmation,
	// a deny for Codex, which cannot ask from a hook), AskDeny (deny, with
	// a reason that says a person must approve) or AskDefer (no decision:
	// the agent's own approval flow decides).
	AskAs string
}

// Values of Options.AskAs.
const (
	AskDeny  = "deny"
	AskDefer = "defer"
)

// ParseAskAs checks a --ask-as value: "" (the agent's default), deny or
// defer.
func ParseAskAs(s string) (string, error) {
	switch s {
	case "", AskDeny, AskDefer:
		return s, nil
	}
	return "", fmt.Errorf("--ask-as %q: want deny or defer", s)
}

// Answer is what a hook process writes and how it exits.
type Answer struct {
	// Stdout is the JSON the agent reads (empty for "no opinion" where the
	// agent accepts an empty output).
	Stdout []byte `json:"stdout"`
	// Exit is the process exit code. Always 0: every agent reads the JSON
	// answer on exit 0, and any other code but 2 lets the command run.
	Exit int `json:"exit"`
}

// maxReasonText bounds the reason text shown to the agent and the person.
const maxReasonText = 2000

// Render turns a verdict on p into the agent's answer. An action other than
// allow, ask or deny is rendered as deny.
func Render(p Payload, v Verdict, o Options) Answer {
	action := v.Action
	switch action {
	case Allow, Ask, Deny:
	default:
		v = Verdict{Action: Deny, Reasons: append([]Reason{{
			Code:    "bad-decision",
			Message: fmt.Sprintf("the decider returned the action %q", v.Action),
		}}, v.Reasons...)}
		action = Deny
	}
	if action == Ask && p.NoPerson != "" {
		return renderDecision(p, Deny, reasonText(p.Agent, Deny, append([]Reason{{
			Code:    "no-person",
			Message: p.NoPerson + ", so what shellgate would ask is denied",
		}}, v.Reasons...)))
	}
	if action == Ask && p.Agent.AskAsApplies() {
		askAs := o.AskAs
		if askAs == "" && !p.Agent.CanAsk() {
			askAs = AskDeny
		}
		switch askAs {
		case AskDefer:
			return noOpinion(p.Agent)
		case AskDeny:
			return renderDecision(p, Deny, reasonText(p.Agent, "ask-as-deny", v.Reasons))
		}
	}
	return renderDecision(p, action, reasonText(p.Agent, action, v.Reasons))
}

// DenyError renders a deny for an internal failure: a payload that could not
// be read, a decider that failed. The agent sees why.
func DenyError(agent Agent, eventName string, err error) Answer {
	p := Payload{Agent: agent, EventName: eventName, Event: EventPre}
	msg := "shellgate could not decide, so the command is denied: " + err.Error()
	return renderDecision(p, Deny, clip(msg))
}

// NoOpinion is the agent's "no decision" answer, for a call shellgate does
// not judge (another tool, another event).
func NoOpinion(agent Agent) Answer { return noOpinion(agent) }

func noOpinion(agent Agent) Answer {
	if s := agent.Spec(); s != nil && s.EmptyNoOpinion {
		return Answer{}
	}
	// The others parse stdout as JSON: an empty object carries no
	// decision.
	return Answer{Stdout: []byte("{}\n")}
}

func renderDecision(p Payload, action, reason string) Answer {
	if s := p.Agent.Spec(); s != nil {
		return s.render(p, action, reason)
	}
	// Unknown agent: a Claude-shaped deny is the best guess, and the exit
	// code blocks in every agent that reads exit codes.
	return preToolUseAnswer(Deny, reason)
}

// preToolUseAnswer is the answer to a PreToolUse hook in the format
// Claude Code defined and other agents took over.
func preToolUseAnswer(action, reason string) Answer {
	return Answer{Stdout: marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName":            "PreToolUse",
		"permissionDecision":       action,
		"permissionDecisionReason": reason,
	}})}
}

// RenderPost renders the answer to a post-run hook (Claude Code's
// PostToolUse and PostToolUseFailure, Gemini CLI's AfterTool): the exit
// meaning as additional context for the model, or the agent's "no opinion"
// when there is none.
func RenderPost(p Payload, meaning string) Answer {
	s := p.Agent.Spec()
	if meaning == "" || s == nil || s.renderPost == nil {
		return noOpinion(p.Agent)
	}
	return s.renderPost(p, clip("shellgate: "+meaning))
}

func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only maps of strings reach here; this cannot fail.
		panic(err)
	}
	return buf.Bytes()
}

// reasonText is the one line an agent shows: what shellgate decided and why.
func reasonText(agent Agent, action string, reasons []Reason) string {
	var head string
	switch action {
	case Allow:
		head = "shellgate: allowed"
	case Ask:
		head = "shellgate: a person must approve this command"
	case "ask-as-deny":
		if agent.CanAsk() {
			head = "shellgate: this command needs a person's approval, which this " +
				agentTitle(agent) + " hook is set not to ask for (--ask-as deny); ask the user to approve or run it"
		} else {
			head = "shellgate: this command needs a person's approval, which " +
				agentTitle(agent) + " hooks cannot ask for; ask the user to approve or run it"
		}
	default:
		head = "shellgate: denied"
	}
	if len(reasons) == 0 {
		return head
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString(": ")
	for i, r := range reasons {
		if i > 0 {
			b.WriteString("; ")
		}
		if r.Code != "" {
			b.WriteString(r.Code)
			if r.Message != "" {
				b.WriteString(": ")
			}
		}
		b.WriteString(r.Message)
	}
	return clip(b.String())
}

// agentTitle is the agent's name for a person.
func agentTitle(a Agent) string {
	if s := a.Spec(); s != nil {
		return s.Title
	}
	return "Claude Code"
}

// clip bounds s to maxReasonText bytes without splitting a UTF-8 sequence.
func clip(s string) string {
	if len(s) <= maxReasonText {
		return s
	}
	cut := maxReasonText - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
