package rego

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	opa "github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"

	"github.com/shellgate/shellgate/policy"
)

// FiredRule is a rule whose body succeeded while deciding.
type FiredRule struct {
	// Name is the rule's reference in its package ("deny", "proven").
	Name string `json:"name"`
	// Package is the rule's package ("shellgate").
	Package string `json:"package"`
	// Location is the rule's file:line.
	Location string `json:"location"`
	// Count is how many times the rule succeeded.
	Count int `json:"count"`
}

// Explanation is a decision with what produced it.
type Explanation struct {
	Decision policy.Decision `json:"decision"`
	// Facts are the facts Go computed for the rules.
	Facts *policy.Facts `json:"facts"`
	// Rules are the rules that fired, in file and line order.
	Rules []FiredRule `json:"rules"`
}

// Explain decides on in with tracing (and without the memo) and reports
// every rule that fired with its file:line. It is slower than Decide: use
// it to show a policy author why.
func (e *Engine) Explain(ctx context.Context, in policy.Input) (*Explanation, error) {
	buf := topdown.NewBufferTracer()
	d, f, err := e.decide(ctx, &in, []opa.EvalOption{opa.EvalQueryTracer(buf)})
	if err != nil {
		return nil, err
	}
	x := &Explanation{Decision: d, Facts: f}
	fired := map[string]*FiredRule{}
	for _, ev := range *buf {
		if ev.Op != topdown.ExitOp {
			continue
		}
		r, ok := ev.Node.(*ast.Rule)
		if !ok || r.Location == nil || r.Module == nil {
			continue
		}
		loc := fmt.Sprintf("%s:%d", r.Location.File, r.Location.Row)
		if fr := fired[loc]; fr != nil {
			fr.Count++
			continue
		}
		fired[loc] = &FiredRule{
			Name:     r.Head.Ref().String(),
			Package:  strings.TrimPrefix(r.Module.Package.Path.String(), "data."),
			Location: loc,
			Count:    1,
		}
	}
	for _, fr := range fired {
		x.Rules = append(x.Rules, *fr)
	}
	sort.Slice(x.Rules, func(i, j int) bool { return lessLoc(x.Rules[i].Location, x.Rules[j].Location) })
	return x, nil
}

// lessLoc orders "file:line" by file, then line number.
func lessLoc(a, b string) bool {
	fa, la := splitLoc(a)
	fb, lb := splitLoc(b)
	if fa != fb {
		return fa < fb
	}
	return la < lb
}

func splitLoc(s string) (string, int) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	n := 0
	fmt.Sscan(s[i+1:], &n)
	return s[:i], n
}
