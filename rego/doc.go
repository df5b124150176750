// Package rego is the one shellgate package that imports OPA. It compiles
// the embedded default policy (policy/*.rego, Rego v1, package shellgate)
// and the user's modules once, evaluates one decision per request, explains
// a decision rule by rule, formats modules, and runs the Rego unit tests
// (*_test.rego) through OPA's tester.
//
// # Evaluation
//
// Every decision is evaluated by OPA's own evaluator (topdown), on a
// query prepared once per engine (PrepareForEval), with the input handed
// over as an ast.Value (no JSON round trip). Explain runs the same
// prepared query with a tracer, and `shellgate test` runs the Rego unit
// tests through OPA's tester, on the same evaluator: a decision, its
// explanation and the policy's tests cannot disagree. The input document
// is described once, by code generated from the Go types of the input
// (input_gen.go, `go generate ./rego`; value.go has the few parts written
// by hand): the value the policy sees and the memo key are both written
// from that one description. The embedded default policy is compiled once
// per process, and engines that decide with it alone share it.
//
// # Writing rules
//
// A module is in package shellgate (helpers may live below it, in
// shellgate.x). Rules add reason objects to the partial sets deny, ask and
// allow:
//
//	deny contains {"code": "no-make-clean", "message": "make clean wipes the cache",
//		"span": seg.span, "segment": i, "rule": "no-make-clean"} if {
//		some i in input.facts.index["name:make"]
//		seg := input.report.segments[i]
//		seg.args[0].value == "clean"
//	}
//
// code and message are required strings; span is [start, end) in bytes of
// the command (the whole command when left out); segment is the segment's
// index (-1 or left out for the whole command); rule names the rule (left
// out, it is the module's file:line). The rule data.shellgate.decision of the
// default policy combines the sets: any deny wins; in readonly mode any ask
// is a deny; any ask asks; the command is allowed only when it is proven
// (reversible, or every segment read-only or granted and every finding
// covered by a grant). User modules may not define decision.
//
// # The input
//
//	input.command, input.mode ("default" or "readonly"), input.cwd
//	input.report   the classifier's report (classify.Report as JSON)
//	input.station  the read station's judgment (readstation.Station as JSON);
//	               absent when it did not run: reads are then not established
//	input.config   the configuration (policy.Config as JSON)
//	input.facts    what Go established (policy.Facts): the mode, the roots,
//	               the grant covering each segment (and grant_refused: why
//	               a project config's grant with a wildcard over code does
//	               not), where each write lands
//	               (outside_roots, critical, device, shellgate_config), flags
//	               (has.writes, has.git, has.station_denied, ...), and an
//	               index of segments by "name:X", "subcommand:X:Y",
//	               "category:X", "unknown", "granted" and "grant_refused", findings by
//	               "code:X", station reads by "verdict:X", and writes by
//	               "write:critical", "write:outside-roots", "write:device"
//	               and "write:shellgate-config"
//
// Rules look facts up through input.facts.index rather than scan, test a
// has flag first (a rule whose subject the command does not have then
// stops at its first statement), and leave path matching to Go: the
// evaluation cost then stays proportional to what the command does. Each
// evaluation has a fixed cost of its own (BenchmarkDecideFloor measures
// it), so a policy that does nothing is not free. `shellgate explain` prints every rule that fired
// with its file:line, and the input; `shellgate policy lint` compiles a
// directory and checks its formatting.
//
// # Failing closed
//
// A module that does not parse or compile, is outside package shellgate,
// or yields something that is not a reason object is refused at load with
// its file, line and column. At evaluation, an error, an undefined or
// malformed decision, a missing report or an unknown mode is a deny with
// code policy-error.
//
// # Determinism
//
// The capabilities offered to policies leave out every non-deterministic
// builtin (http.send, time.now_ns, rand.*, opa.runtime, net.*, uuid.*, and
// the JWT and X.509 verifiers that read the clock), so a decision depends on
// its input alone and the engine memoizes decisions by canonical input
// (WithMemo).
package rego
