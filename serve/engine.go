package serve

import (
	"context"
	"strings"
	"sync"

	"github.com/shellgate/shellgate/hook"
)

// Engine answers hook calls with warm gates: one Gates per set of policy
// and config flags. It is safe for concurrent use; its Handle is a
// hook.Server's.
type Engine struct {
	// Decider, when set, decides every call in place of the gates: a
	// policy bundle's (shellgate serve --opa-config), given the call's
	// flags.
	Decider func(hook.Flags) hook.Decider

	mu     sync.Mutex
	caches map[string]*Gates
}

// NewEngine returns an engine with no gates yet.
func NewEngine() *Engine { return &Engine{caches: map[string]*Gates{}} }

// Handle answers one hook call: the agent's payload decided by the gates
// of the call's flags (built at the first call that names them), in the
// agent's own format.
func (en *Engine) Handle(ctx context.Context, req hook.Request) hook.Answer {
	if req.Flags.Env == nil {
		// The engine's own environment is not the agent's: a variable
		// the client did not send is not known (and an empty map is
		// omitted on the wire).
		req.Flags.Env = map[string]string{}
	}
	if en.Decider != nil {
		d := en.Decider(req.Flags)
		return hook.Handle(ctx, req.Agent, []byte(req.Payload), req.Flags, d, Explainer(d))
	}
	key := strings.Join(req.Flags.Policy, "\x00") + "\x01" + req.Flags.Config
	en.mu.Lock()
	c, ok := en.caches[key]
	if !ok {
		c = NewGates(req.Flags)
		en.caches[key] = c
	}
	en.mu.Unlock()
	return hook.Handle(ctx, req.Agent, []byte(req.Payload), req.Flags, c, c.ExplainExit)
}
