# Unit tests of the engine's own rules (engine.rego): run plans and the
# combinations of decisions.
package shellgate.engine_test

import data.shellgate
import data.shellgate.engine
import data.shellgate_test as t

reason(code) := {"code": code, "message": code, "span": [0, 3], "segment": -1}

dec(action, codes) := {"action": action, "reasons": [reason(c) | some c in codes]}

tighten_cases := {
	"whole allows": {"trusted": dec("ask", ["x"]), "whole": dec("allow", ["granted"]), "want": dec("ask", ["x"]), "keep_grants": true},
	"whole not proven": {"trusted": dec("allow", []), "whole": dec("ask", ["not-proven"]), "want": dec("allow", []), "keep_grants": true},
	"whole asks": {"trusted": dec("allow", []), "whole": dec("ask", ["y"]), "want": dec("ask", ["y"]), "keep_grants": false},
	"whole denies": {"trusted": dec("ask", ["x"]), "whole": dec("deny", ["z"]), "want": dec("deny", ["z"]), "keep_grants": false},
	"same action: union": {"trusted": dec("ask", ["x"]), "whole": dec("ask", ["x", "y"]), "want": dec("ask", ["x", "y"]), "keep_grants": true},
	"trusted denies": {"trusted": dec("deny", ["x"]), "whole": dec("ask", ["y"]), "want": dec("deny", ["x"]), "keep_grants": true},
	"policy error": {"trusted": dec("allow", []), "whole": dec("deny", ["policy-error"]), "want": dec("deny", ["policy-error"]), "keep_grants": false},
	"whole not proven among others": {"trusted": dec("allow", []), "whole": dec("ask", ["not-proven", "y"]), "want": dec("ask", ["y"]), "keep_grants": false},
}

test_tighten[name] if {
	some name, c in tighten_cases
	r := engine.result with input as {"kind": "untrusted-modules", "trusted": c.trusted, "whole": c.whole}
	r.action == c.want.action
	r.reasons == c.want.reasons
	r.keep_grants == c.keep_grants
}

untrusted_config_cases := {
	"whole allows what is asked": {"decision": dec("ask", ["x"]), "whole": dec("allow", []), "adds": true},
	"whole asks what is denied": {"decision": dec("deny", ["x"]), "whole": dec("ask", ["x"]), "adds": true},
	"whole asks too": {"decision": dec("ask", ["x"]), "whole": dec("ask", ["y"]), "adds": false},
	"whole denies": {"decision": dec("ask", ["x"]), "whole": dec("deny", ["y"]), "adds": false},
}

test_untrusted_config[name] if {
	some name, c in untrusted_config_cases
	r := engine.result with input as {"kind": "untrusted-config", "decision": c.decision, "whole": c.whole, "message": "m", "command_length": 7}
	r.action == c.decision.action
	added := [x | some x in r.reasons; x.code == "project-config-untrusted"]
	(count(added) == 1) == c.adds
	every x in added {
		x == {"code": "project-config-untrusted", "message": "m", "span": [0, 7], "segment": -1, "rule": "project-config-untrusted"}
	}
	r.keep_grants == true
}

test_unknown_kind_is_undefined if {
	not engine.result with input as {"kind": "other"}
}

# --- run plans -----------------------------------------------------------

net_writer(i, name) := t.seg(i, name, {"categories": ["network", "write"], "read_only": false})

# run_cases: the decision's run plan (unapproved, approved) for each way a
# command can be allowed or asked.
run_cases := {
	"reversible: read-only, offline, no network": {
		"input": t.mk([t.seg(0, "ls", {})], {}),
		"action": "allow",
		"unapproved": {"sandbox": "read-only", "why": "reversible", "network": false, "offline": true, "station_reads": false},
		"approved": {"sandbox": "workspace-write", "why": "approved-write", "network": false, "offline": true, "station_reads": true},
	},
	"granted network: workspace-write with the network": {
		"input": t.mk([net_writer(0, "curl")], object.union(t.not_reversible([t.finding("network", 0)]), t.granted(["curl **"]))),
		"action": "allow",
		"unapproved": {"sandbox": "workspace-write", "why": "granted", "network": true, "offline": false, "station_reads": true},
		"approved": {"sandbox": "workspace-write", "why": "approved-write", "network": true, "offline": false, "station_reads": true},
	},
	"asked network: the network only once approved": {
		"input": t.mk([net_writer(0, "curl")], t.not_reversible([t.finding("network", 0)])),
		"action": "ask",
		"unapproved": {"sandbox": "workspace-write", "why": "granted", "network": false, "offline": false, "station_reads": false},
		"approved": {"sandbox": "workspace-write", "why": "approved-write", "network": true, "offline": false, "station_reads": true},
	},
	"granted writer without network": {
		"input": t.mk([t.writer(0, "npm")], object.union(t.not_reversible([t.finding("unknown-program", 0)]), t.granted(["npm test **"]))),
		"action": "allow",
		"unapproved": {"sandbox": "workspace-write", "why": "granted", "network": false, "offline": false, "station_reads": true},
		"approved": {"sandbox": "workspace-write", "why": "approved-write", "network": false, "offline": false, "station_reads": true},
	},
	"readonly mode reads only": {
		"input": t.mk([t.seg(0, "ls", {})], t.readonly),
		"action": "allow",
		"unapproved": {"sandbox": "read-only", "why": "readonly-mode", "network": false, "offline": true, "station_reads": false},
		"approved": {"sandbox": "read-only", "why": "readonly-mode", "network": false, "offline": true, "station_reads": true},
	},
	"the config's sandbox mode": {
		"input": t.mk([t.seg(0, "ls", {})], {"config": {"sandbox": "full-access"}}),
		"action": "allow",
		"unapproved": {"sandbox": "full-access", "why": "config", "network": false, "offline": true, "station_reads": false},
		"approved": {"sandbox": "full-access", "why": "config", "network": false, "offline": true, "station_reads": true},
	},
	"the config's auto is no mode": {
		"input": t.mk([t.seg(0, "ls", {})], {"config": {"sandbox": "auto"}}),
		"action": "allow",
		"unapproved": {"sandbox": "read-only", "why": "reversible", "network": false, "offline": true, "station_reads": false},
		"approved": {"sandbox": "workspace-write", "why": "approved-write", "network": false, "offline": true, "station_reads": true},
	},
}

test_run_plans[name] if {
	some name, c in run_cases
	dec := shellgate.decision with input as c.input
	dec.action == c.action
	d := engine.run with input as object.union(c.input, {"action": dec.action})
	d.unapproved == c.unapproved
	d.approved == c.approved
}

# An allow reason of another module with a code other than "granted" lets
# its segment run, but not reach the network.
test_team_allow_gives_no_network if {
	inp := t.mk([net_writer(0, "make")], t.not_reversible([t.finding("not-read-only", 0)]))
	dec := shellgate.decision with input as inp with shellgate.allow as t.team_allow
	dec.action == "allow"
	r := engine.run with input as object.union(inp, {"action": "allow"}) with shellgate.allow as t.team_allow
	r.unapproved.network == false
	r.approved.network == true
}
