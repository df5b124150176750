// Package rego is the one shellgate package that imports OPA. It compiles
// the embedded default policy (policy/*.rego, Rego v1, package shellgate)
// and the user's modules once, evaluates one decision per request, and runs
// the Rego unit tests (*_test.rego) through OPA's tester.
//
// A policy adds reason objects ({"code", "message", "span", "segment",
// "rule"}) to the partial sets deny, ask and allow of package shellgate;
// the rule data.shellgate.decision combines them. The engine fails closed:
// an evaluation error, an undefined or malformed decision is a deny with
// code policy-error.
//
// Policies must be deterministic: the capabilities offered to them leave out
// every non-deterministic builtin (http.send, time.now_ns, rand.*,
// opa.runtime, net.*, uuid.*), so a decision depends on its input alone and
// the engine memoizes decisions by their canonical input.
package rego
