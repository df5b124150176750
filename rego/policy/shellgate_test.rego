# Unit tests of the default policy: for every rule, named cases that fire
# it (positive) and that must not (negative). Each case is an input, the
# expected action, and codes the reasons must have ("has") or lack ("lacks")
# across deny, ask and allow.
package shellgate_test

import data.shellgate

# --- builders ------------------------------------------------------------

cmd := "0123456789012345678901234567890123456789012345678901234567890123456789"

seg(i, name, extra) := object.union(
	{
		"index": i, "program": name, "name": name, "known": true, "args": [],
		"parent": -1, "context": {"pipeline": 0, "pipeline_len": 1},
		"cwd": {"path": ".", "known": true}, "categories": ["read"],
		"read_only": true, "span": [0, 5],
	},
	extra,
)

writer(i, name) := seg(i, name, {"categories": ["write"], "read_only": false})

destroyer(i, name) := seg(i, name, {"categories": ["destructive", "write"], "read_only": false})

finding(code, i) := {"code": code, "message": concat("", ["finding ", code]), "span": [0, 5], "segment": i}

write(path, i) := {"path": path, "kind": "literal", "source": "operand", "segment": i, "cwd": {"path": ".", "known": true}, "producer": -1, "span": [6, 10]}

read(path, i) := {"path": path, "kind": "literal", "source": "operand", "segment": i, "cwd": {"path": ".", "known": true}, "producer": -1, "span": [6, 10]}

wfact(extra) := object.union(
	{"path": "/w/x", "real": "/w/x", "established": true, "glob": false, "outside_roots": false, "critical": false, "device": false, "shellgate_config": false},
	extra,
)

station_ok := {"reads": [], "repo_helpers": [], "established": true}

# mk builds an input: segments, then a patch over the defaults, then the
# index Go would compute.
mk(segs, patch) := with_index(object.union(
	{
		"command": cmd, "mode": "default", "cwd": "/w",
		"report": {
			"command": cmd, "parse": {"ok": true}, "segments": segs,
			"redirects": [], "reads": [], "writes": [], "cd": [],
			"reversible": every_read_only(segs), "findings": [],
		},
		"station": station_ok,
		"config": null,
		"facts": {
			"mode": "default", "home": "/h", "roots": ["/w"],
			"segments": [{"grant": ""} | some _ in segs], "writes": [],
		},
	},
	patch,
))

with_index(inp) := object.union(inp, {"facts": {"index": ix, "has": has_for(inp, ix)}}) if {
	ix := index_for(inp)
}

# has_for computes the flags as Go does (policy.Facts.setHas).
has_for(inp, ix) := {
	"parse_error": not_true(inp.report.parse.ok),
	"not_reversible": not_true(inp.report.reversible),
	"writes": count(inp.report.writes) > 0,
	"network": nonempty(ix, "category:network"),
	"shell": nonempty(ix, "category:shell"),
	"git": nonempty(ix, "name:git"),
	"pushes": nonempty(ix, "pushes"),
	"destructive_or_unknown": some_true([nonempty(ix, "category:destructive"), nonempty(ix, "unknown")]),
	"fork_bomb": nonempty(ix, "code:fork-bomb"),
	"granted": nonempty(ix, "granted"),
	"grant_refused": nonempty(ix, "grant_refused"),
	"agent_approved": nonempty(ix, "agent_approved"),
	"reads_unjudged": unjudged(inp),
	"station_reads": count(object.get(inp, ["station", "reads"], [])) > 0,
	"station_denied": nonempty(ix, "verdict:denied"),
	"station_unsure": some_true([nonempty(ix, "verdict:outside-roots"), nonempty(ix, "verdict:not-established")]),
	"station_unestablished": station_unestablished(inp),
	"station_unknown_verdict": unknown_verdict(inp),
	"repo_helpers": count(object.get(inp, ["station", "repo_helpers"], [])) > 0,
}

not_true(x) := x != true

nonempty(ix, k) := count(object.get(ix, k, [])) > 0

some_true(list) if true in list

else := false

unjudged(inp) if {
	not inp.station
	count(inp.report.reads) > 0
} else := false

unknown_verdict(inp) if {
	some r in object.get(inp, ["station", "reads"], [])
	not r.verdict in {"ok", "missing", "denied", "outside-roots", "not-established"}
} else := false

station_unestablished(inp) if {
	inp.station
	inp.station.established == false
} else := false

index_for(inp) := object.union_n([
	{concat("", ["name:", n]): [i | some i, s in segs; s.name == n] | some s in segs; n := s.name},
	{concat("", ["subcommand:", s.name, ":", s.subcommand]): [i | some i, t in segs; t.name == s.name; t.subcommand == s.subcommand] | some s in segs; s.subcommand},
	{concat("", ["category:", c]): [i | some i, s in segs; c in s.categories] | some s in segs; some c in s.categories},
	{concat("", ["code:", c]): [j | some j, f in fs; f.code == c] | some f in fs; c := f.code},
	{concat("", ["verdict:", v]): [j | some j, r in reads; r.verdict == v] | some r in reads; v := r.verdict},
	{"granted": [i | some i, g in inp.facts.segments; g.grant != ""]},
	{"grant_refused": [i | some i, g in inp.facts.segments; object.get(g, "grant_refused", "") != ""]},
	{"agent_approved": [i | some i, g in inp.facts.segments; object.get(g, "agent_rule", null) != null]},
	{"remote_read_allowed": [i | some i, g in inp.facts.segments; object.get(g, "remote_read", "") != ""]},
	{"unknown": [i | some i, s in segs; not s.known]},
	{"pushes": [i | some i, s in segs; count(object.get(s, "pushes", [])) > 0]},
	{concat("", ["write:", k]): [j | some j, w in fws; w[f] == true] | some k, f in write_flags},
]) if {
	fws := object.get(inp, ["facts", "writes"], [])
	segs := inp.report.segments
	fs := inp.report.findings
	reads := object.get(inp, ["station", "reads"], [])
}

write_flags := {"critical": "critical", "outside-roots": "outside_roots", "device": "device", "shellgate-config": "shellgate_config"}

every_read_only(segs) if {
	every s in segs {
		s.read_only
	}
}

else := false

readonly := {"mode": "readonly", "facts": {"mode": "readonly"}}

not_reversible(findings) := {"report": {"reversible": false, "findings": findings}}

granted(grants) := {"facts": {"segments": [{"grant": g} | some g in grants]}}

refused(why) := {"facts": {"segments": [{"grant": "", "grant_refused": why}]}}

# approved gives each segment the agent rule that allows it (null: none).
approved(rules) := {"facts": {"segments": [agent_fact(r) | some r in rules]}}

agent_fact(r) := {"grant": ""} if r == null

else := {"grant": "", "agent_rule": {"agent": "claude", "rule": r, "file": "/h/.claude/settings.json", "scope": "user"}}

# --- the checker ---------------------------------------------------------

codes(inp) := c if {
	d := shellgate.deny with input as inp
	a := shellgate.ask with input as inp
	l := shellgate.allow with input as inp
	c := {r.code | some r in ((d | a) | l)}
}

passes(c) if {
	dec := shellgate.decision with input as c.input
	dec.action == c.action
	got := codes(c.input)
	every code in object.get(c, "has", []) {
		code in got
	}
	every code in object.get(c, "lacks", []) {
		not code in got
	}
}

# Every reason in every decision is well formed.
well_formed(c) if {
	dec := shellgate.decision with input as c.input
	every r in dec.reasons {
		is_string(r.code)
		is_string(r.message)
		is_string(r.rule)
		is_number(r.segment)
	}
}

# --- combination ---------------------------------------------------------

combination_cases := {
	"reversible and station-clean is allowed": {
		"input": mk([seg(0, "ls", {})], {}),
		"action": "allow",
	},
	"deny beats ask": {
		"input": mk([destroyer(0, "rm")], object.union(not_reversible([finding("not-read-only", 0)]), {
			"report": {"writes": [write("/", 0)]},
			"facts": {"writes": [wfact({"path": "/", "real": "/", "critical": true, "outside_roots": true})]},
		})),
		"action": "deny", "has": ["destructive-critical", "not-read-only"],
	},
	"deny beats a grant": {
		"input": mk([destroyer(0, "rm")], object.union(
			object.union(not_reversible([finding("not-read-only", 0)]), granted(["rm **"])),
			{
				"report": {"writes": [write("/", 0)]},
				"facts": {"writes": [wfact({"path": "/", "real": "/", "critical": true})]},
			},
		)),
		"action": "deny", "has": ["destructive-critical", "granted"],
	},
	"readonly turns ask into deny": {
		"input": mk([writer(0, "touch")], object.union(readonly, not_reversible([finding("not-read-only", 0)]))),
		"action": "deny", "has": ["not-read-only"],
	},
	"not reversible without findings is not proven": {
		"input": mk([writer(0, "touch")], {"report": {"reversible": false}}),
		"action": "ask", "lacks": ["granted"],
	},
	"not proven in readonly is deny": {
		"input": mk([writer(0, "touch")], object.union(readonly, {"report": {"reversible": false}})),
		"action": "deny",
	},
	"no segments and not reversible is not proven": {
		"input": mk([], {"report": {"reversible": false}}),
		"action": "ask",
	},
}

test_combination[name] if {
	some name, c in combination_cases
	passes(c)
	well_formed(c)
}

test_not_proven_reason if {
	dec := shellgate.decision with input as combination_cases["not reversible without findings is not proven"].input
	[r] := [r | some r in dec.reasons]
	r.code == "not-proven"
}

# --- grants --------------------------------------------------------------

grant_cases := {
	"a grant allows its segment": {
		"input": mk([writer(0, "npm")], object.union(not_reversible([finding("unknown-program", 0)]), granted(["npm test **"]))),
		"action": "allow", "has": ["granted"],
	},
	"a grant does not cover another segment": {
		"input": mk([writer(0, "npm"), writer(1, "make")], object.union(
			not_reversible([finding("unknown-program", 0), finding("unknown-program", 1)]),
			granted(["npm test **", ""]),
		)),
		"action": "ask", "has": ["unknown-program", "granted"],
	},
	"a grant does not cover a redirect": {
		"input": mk([writer(0, "npm")], object.union(
			not_reversible([finding("unknown-program", 0), finding("redirect-write", 0)]),
			granted(["npm test **"]),
		)),
		"action": "ask", "has": ["redirect-write"], "lacks": ["unknown-program"],
	},
	"a grant does not cover a substitution": {
		"input": mk([writer(0, "npm")], object.union(
			not_reversible([finding("unknown-program", 0), finding("command-substitution", -1)]),
			granted(["npm test **"]),
		)),
		"action": "ask", "has": ["command-substitution"],
	},
	"a granted segment under a clean wrapper is allowed": {
		"input": mk([seg(0, "timeout", {"categories": ["wrapper"], "read_only": false}), object.union(writer(1, "npm"), {"parent": 0})], object.union(not_reversible([finding("not-read-only", 1)]), granted(["", "npm test"]))),
		"action": "allow", "has": ["granted"],
	},
	"a wrapper with a finding of its own is not cleared": {
		"input": mk([seg(0, "sudo", {"categories": ["wrapper", "privilege"], "read_only": false}), object.union(writer(1, "npm"), {"parent": 0})], object.union(not_reversible([finding("privilege", 0), finding("not-read-only", 1)]), granted(["", "npm test"]))),
		"action": "ask", "has": ["privilege", "granted"],
	},
	"grants do not apply in readonly mode": {
		"input": mk([writer(0, "npm")], object.union(
			object.union(readonly, not_reversible([finding("unknown-program", 0)])),
			granted(["npm test **"]),
		)),
		"action": "deny", "has": ["unknown-program"], "lacks": ["granted"],
	},
	"a refused project grant says why": {
		"input": mk([writer(0, "python3")], object.union(
			not_reversible([finding("interpreter", 0)]),
			refused("the grant \"python3 -c *\" of the project config puts a wildcard over code here"),
		)),
		"action": "ask", "has": ["grant-wildcards-code", "interpreter"], "lacks": ["granted"],
	},
	"a refused project grant is not a reason in readonly mode": {
		"input": mk([writer(0, "python3")], object.union(
			object.union(readonly, not_reversible([finding("interpreter", 0)])),
			refused("the grant \"python3 -c *\" of the project config puts a wildcard over code here"),
		)),
		"action": "deny", "has": ["interpreter"], "lacks": ["grant-wildcards-code"],
	},
	"a grant covers its segment's network use": {
		"input": mk([seg(0, "npm", {"categories": ["network"], "read_only": false})], object.union(
			not_reversible([finding("unknown-program", 0)]),
			granted(["npm install"]),
		)),
		"action": "allow", "lacks": ["network"],
	},
}

test_grants[name] if {
	some name, c in grant_cases
	passes(c)
	well_formed(c)
}

# --- the person's own approvals in the agent's settings --------------------

agent_cases := {
	"an agent rule allows its segment": {
		"input": mk([writer(0, "npm")], object.union(not_reversible([finding("not-read-only", 0)]), approved(["Bash(npm test)"]))),
		"action": "allow", "has": ["agent-approved"], "lacks": ["not-read-only"],
	},
	"an agent rule does not cover another segment": {
		"input": mk([writer(0, "npm"), destroyer(1, "rm")], object.union(
			not_reversible([finding("not-read-only", 0), finding("destructive", 1)]),
			approved(["Bash(npm test)", null]),
		)),
		"action": "ask", "has": ["destructive", "agent-approved"], "lacks": ["not-read-only"],
	},
	"an agent rule does not apply in readonly mode": {
		"input": mk([writer(0, "npm")], object.union(
			object.union(readonly, not_reversible([finding("not-read-only", 0)])),
			approved(["Bash(npm test)"]),
		)),
		"action": "deny", "has": ["not-read-only"], "lacks": ["agent-approved"],
	},
	"an agent rule does not cover a redirect": {
		"input": mk([writer(0, "npm")], object.union(
			not_reversible([finding("not-read-only", 0), finding("redirect-write", 0)]),
			approved(["Bash(npm test:*)"]),
		)),
		"action": "ask", "has": ["redirect-write"], "lacks": ["not-read-only"],
	},
	"an agent rule does not lift a denied read": {
		"input": mk([seg(0, "cat", {"read_only": false})], object.union(
			object.union(not_reversible([finding("not-read-only", 0)]), approved(["Bash(cat:*)"])),
			with_reads([object.union(sread("denied"), {"row": "~/.ssh/**", "message": "reads ~/.ssh/id_rsa, which the deny row ~/.ssh/** covers"})]),
		)),
		"action": "deny", "has": ["read-denied"],
	},
	"an agent rule does not lift a write outside the roots": {
		"input": mk([writer(0, "tar")], object.union(
			object.union(not_reversible([finding("tar-extract", 0)]), approved(["Bash(tar:*)"])),
			wr([], {"path": "/srv", "outside_roots": true}),
		)),
		"action": "deny", "has": ["write-outside-roots"],
	},
	"an agent rule covers its segment's network use": {
		"input": mk([seg(0, "npm", {"categories": ["network"], "read_only": false})], object.union(
			not_reversible([finding("not-read-only", 0)]),
			approved(["Bash(npm install)"]),
		)),
		"action": "allow", "has": ["agent-approved"], "lacks": ["network"],
	},
	"a config grant names itself, not the agent rule": {
		"input": mk([writer(0, "npm")], object.union(
			not_reversible([finding("not-read-only", 0)]),
			{"facts": {"segments": [{"grant": "npm test", "agent_rule": {"agent": "claude", "rule": "Bash(npm test)", "file": "/h/.claude/settings.json", "scope": "user"}}]}},
		)),
		"action": "allow", "has": ["granted"], "lacks": ["agent-approved"],
	},
}

test_agent_approvals[name] if {
	some name, c in agent_cases
	passes(c)
	well_formed(c)
}

test_agent_approved_message if {
	d := shellgate.decision with input as agent_cases["an agent rule allows its segment"].input
	[r] := [r | some r in d.reasons]
	r.message == "npm is allowed by Claude Code's rule Bash(npm test) in /h/.claude/settings.json"
}

# An allow reason from another module grants its segment, as a config
# grant does, in default mode only.
team_allow := {{"code": "team-ok", "message": "make is fine here", "span": [0, 4], "segment": 0, "rule": "team"}}

test_allow_rule_grants if {
	inp := mk([writer(0, "make")], not_reversible([finding("not-read-only", 0)]))
	d := shellgate.decision with input as inp with shellgate.allow as team_allow
	d.action == "allow"
	d0 := shellgate.decision with input as inp
	d0.action == "ask"
}

test_allow_rule_does_not_grant_in_readonly if {
	inp := mk([writer(0, "make")], object.union(readonly, not_reversible([finding("not-read-only", 0)])))
	d := shellgate.decision with input as inp with shellgate.allow as team_allow
	d.action == "deny"
}

test_allow_rule_grants_its_segment_only if {
	inp := mk([writer(0, "make"), writer(1, "rm")], not_reversible([finding("not-read-only", 0), finding("not-read-only", 1)]))
	d := shellgate.decision with input as inp with shellgate.allow as team_allow
	d.action == "ask"
	[r] := [r | some r in d.reasons]
	r.segment == 1
}

# An allow reason about the whole command (segment -1) grants no segment,
# and so covers no finding about the whole command either.
test_allow_rule_for_the_whole_command_covers_nothing if {
	inp := mk([writer(0, "make")], not_reversible([finding("not-read-only", 0), finding("not-read-only", -1)]))
	whole := team_allow | {{"code": "team-ok", "message": "fine", "span": null, "segment": -1, "rule": "team"}}
	d := shellgate.decision with input as inp with shellgate.allow as whole
	d.action == "ask"
}

test_grantable_segments if {
	inp := grant_cases["a grant does not cover another segment"].input
	g := shellgate.grantable with input as inp
	g == {1}
}

test_no_grantable_in_readonly if {
	inp := grant_cases["grants do not apply in readonly mode"].input
	g := shellgate.grantable with input as inp
	count(g) == 0
}

# --- parse-error ---------------------------------------------------------

parse_cases := {
	"a parse error asks": {
		"input": mk([], {"report": {"parse": {"ok": false, "error": "1:4: oops", "span": [3, 4]}, "reversible": false, "findings": [finding("parse-error", -1)]}}),
		"action": "ask", "has": ["parse-error"],
	},
	"a parse error in readonly denies": {
		"input": mk([], object.union(readonly, {"report": {"parse": {"ok": false, "error": "1:4: oops"}, "reversible": false}})),
		"action": "deny", "has": ["parse-error"],
	},
	"a parsed command has no parse-error": {
		"input": mk([seg(0, "ls", {})], {}),
		"action": "allow", "lacks": ["parse-error"],
	},
}

test_parse_error[name] if {
	some name, c in parse_cases
	passes(c)
	well_formed(c)
}

test_parse_error_reported_once if {
	inp := parse_cases["a parse error asks"].input
	a := shellgate.ask with input as inp
	count([r | some r in a; r.code == "parse-error"]) == 1
}

# --- not-reversible ------------------------------------------------------

not_reversible_cases := {
	"every finding is named": {
		"input": mk([writer(0, "cp"), writer(1, "tee")], not_reversible([finding("not-read-only", 0), finding("stdin-read", 1), finding("background", -1)])),
		"action": "ask", "has": ["not-read-only", "stdin-read", "background"],
	},
	"a reversible command's notes are not asked": {
		"input": mk([seg(0, "ls", {})], {"report": {"findings": [finding("some-note", 0)]}}),
		"action": "allow", "lacks": ["some-note"],
	},
}

test_not_reversible[name] if {
	some name, c in not_reversible_cases
	passes(c)
	well_formed(c)
}

# --- network -------------------------------------------------------------

net(i, name) := seg(i, name, {"categories": ["network"], "read_only": false})

network_cases := {
	"a network segment asks": {
		"input": mk([net(0, "git")], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "has": ["network"],
	},
	"a network finding is not doubled": {
		"input": mk([net(0, "curl")], not_reversible([finding("network", 0)])),
		"action": "ask", "has": ["network"],
	},
	"no network, no network reason": {
		"input": mk([writer(0, "touch")], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["network"],
	},
	"network in readonly denies": {
		"input": mk([net(0, "git")], object.union(readonly, not_reversible([finding("not-read-only", 0)]))),
		"action": "deny", "has": ["network"],
	},
}

test_network[name] if {
	some name, c in network_cases
	passes(c)
	well_formed(c)
}

# --- remote reads --------------------------------------------------------

remote(i, name) := seg(i, name, {"categories": ["network", "remote-read"], "subcommand": "list"})

remote_allowed := {"facts": {"segments": [{"grant": "", "remote_read": "remote_reads in /h/.config/shellgate/config.yaml"}]}}

remote_cases := {
	"a remote read asks, saying how to allow it": {
		"input": mk([remote(0, "gh")], {}),
		"action": "ask", "has": ["remote-read"], "lacks": ["network"],
	},
	"a remote read in readonly mode denies": {
		"input": mk([remote(0, "gh")], readonly),
		"action": "deny", "has": ["remote-read"],
	},
	"remote_reads allows it": {
		"input": mk([remote(0, "gh")], remote_allowed),
		"action": "allow", "has": ["granted"], "lacks": ["remote-read", "network"],
	},
	"remote_reads allows it in readonly mode": {
		"input": mk([remote(0, "gh")], object.union(readonly, remote_allowed)),
		"action": "allow", "has": ["granted"],
	},
	"a finding of the segment still asks": {
		"input": mk([remote(0, "gh")], object.union(remote_allowed, not_reversible([finding("remote-write", 0)]))),
		"action": "ask", "has": ["remote-write"], "lacks": ["granted"],
	},
	"another segment is judged on its own": {
		"input": mk([remote(0, "gh"), writer(1, "touch")], object.union(
			{"facts": {"segments": [{"grant": "", "remote_read": "remote_reads in c"}, {"grant": ""}]}},
			not_reversible([finding("not-read-only", 1)]),
		)),
		"action": "ask", "has": ["not-read-only"], "lacks": ["remote-read"],
	},
}

test_remote[name] if {
	some name, c in remote_cases
	passes(c)
	well_formed(c)
}

test_network_once if {
	inp := network_cases["a network finding is not doubled"].input
	a := shellgate.ask with input as inp
	count([r | some r in a; r.code == "network"]) == 1
}

# --- shell-stdin and pipe-to-shell ---------------------------------------

stdin_sh(i) := seg(i, "bash", {"categories": ["shell"], "traits": ["shell"], "context": {"pipeline": 1, "pipeline_len": 2, "stdin_fed": true}})

shell_cases := {
	"a shell reading its script from a pipe asks": {
		"input": mk([seg(0, "echo", {}), stdin_sh(1)], {}),
		"action": "ask", "has": ["shell-stdin"], "lacks": ["pipe-to-shell"],
	},
	"a shell with -c does not read stdin": {
		"input": mk([seg(0, "echo", {}), object.union(stdin_sh(1), {"options": [{"name": "-c", "written": "-c", "known": true, "span": [0, 1]}]})], {}),
		"action": "allow", "lacks": ["shell-stdin"],
	},
	"a shell running a script file does not read stdin": {
		"input": mk([seg(0, "echo", {}), object.union(stdin_sh(1), {"operands": [{"value": "x.sh", "role": "source", "span": [0, 1]}]})], {}),
		"action": "allow", "lacks": ["shell-stdin"],
	},
	"curl piped into sh is denied": {
		"input": mk([net(0, "curl"), stdin_sh(1)], not_reversible([finding("network", 0)])),
		"action": "deny", "has": ["pipe-to-shell"],
	},
	"a download in a substitution is not a pipe": {
		"input": mk([seg(0, "curl", {"categories": ["network"], "read_only": false, "context": {"pipeline": 0, "pipeline_len": 1, "substitution": true}}), stdin_sh(1)], not_reversible([finding("network", 0)])),
		"action": "ask", "lacks": ["pipe-to-shell"],
	},
	"bash <(curl ...) is denied": {
		"input": mk(
			[
				seg(0, "curl", {"categories": ["network"], "read_only": false, "span": [7, 20], "context": {"pipeline": 0, "pipeline_len": 1, "substitution": true}}),
				seg(1, "bash", {"categories": ["shell"], "traits": ["shell"], "read_only": false, "span": [0, 21], "operands": [{"value": "<(curl x)", "dynamic": "process-substitution", "role": "source", "span": [5, 21]}]}),
			],
			not_reversible([finding("network", 0), finding("process-substitution", -1)]),
		),
		"action": "deny", "has": ["pipe-to-shell"],
	},
	"bash <(cat x) is not a download": {
		"input": mk(
			[
				seg(0, "cat", {"span": [7, 12], "context": {"pipeline": 0, "pipeline_len": 1, "substitution": true}}),
				seg(1, "bash", {"categories": ["shell"], "traits": ["shell"], "read_only": false, "span": [0, 13], "operands": [{"value": "<(cat x)", "dynamic": "process-substitution", "role": "source", "span": [5, 13]}]}),
			],
			not_reversible([finding("process-substitution", -1)]),
		),
		"action": "ask", "lacks": ["pipe-to-shell"],
	},
	"a download outside the script operand is not run": {
		"input": mk(
			[
				seg(0, "curl", {"categories": ["network"], "read_only": false, "span": [30, 40], "context": {"pipeline": 0, "pipeline_len": 1, "substitution": true}}),
				seg(1, "bash", {"categories": ["shell"], "traits": ["shell"], "read_only": false, "span": [0, 21], "operands": [{"value": "<(cat x)", "dynamic": "process-substitution", "role": "source", "span": [5, 21]}]}),
			],
			not_reversible([finding("network", 0)]),
		),
		"action": "ask", "lacks": ["pipe-to-shell"],
	},
	"curl piped into python3 is denied": {
		"input": mk(
			[net(0, "curl"), seg(1, "python3", {"categories": ["exec"], "read_only": false, "context": {"pipeline": 1, "pipeline_len": 2, "stdin_fed": true}})],
			not_reversible([finding("network", 0), finding("stdin-script", 1)]),
		),
		"action": "deny", "has": ["pipe-to-shell"],
	},
	"cat piped into python3 asks": {
		"input": mk(
			[seg(0, "cat", {}), seg(1, "python3", {"categories": ["exec"], "read_only": false, "context": {"pipeline": 1, "pipeline_len": 2, "stdin_fed": true}})],
			not_reversible([finding("stdin-script", 1)]),
		),
		"action": "ask", "lacks": ["pipe-to-shell"],
	},
	"reboot is denied": {
		"input": mk([seg(0, "reboot", {"categories": ["destructive"], "traits": ["stops-system"], "read_only": false})], not_reversible([finding("not-read-only", 0)])),
		"action": "deny", "has": ["system-stop"],
	},
	"the trait stops the system, not the name": {
		"input": mk([seg(0, "reboot", {"categories": ["destructive"], "read_only": false})], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["system-stop"],
	},
	"a program the catalog does not know is no system stop": {
		"input": mk([seg(0, "telinit", {"known": false, "categories": [], "read_only": false})], not_reversible([finding("unknown-program", 0)])),
		"action": "ask", "lacks": ["system-stop"],
	},
	"a shell by its trait, whatever its name, reads stdin": {
		"input": mk([seg(0, "echo", {}), seg(1, "myshell", {"categories": ["shell"], "traits": ["shell"], "context": {"pipeline": 1, "pipeline_len": 2, "stdin_fed": true}})], {}),
		"action": "ask", "has": ["shell-stdin"],
	},
	"bash without the shell trait is not judged a shell": {
		"input": mk([seg(0, "echo", {}), seg(1, "bash", {"categories": ["shell"], "context": {"pipeline": 1, "pipeline_len": 2, "stdin_fed": true}})], {}),
		"action": "allow", "lacks": ["shell-stdin"],
	},
	"eval \"$(curl ...)\" is denied": {
		"input": mk(
			[
				seg(0, "curl", {"categories": ["network"], "read_only": false, "span": [7, 20], "context": {"pipeline": 0, "pipeline_len": 1, "substitution": true}}),
				seg(1, "eval", {"categories": ["shell", "exec"], "traits": ["runs-script"], "read_only": false, "span": [0, 21], "operands": [{"value": "$(curl x)", "dynamic": "command-substitution", "role": "script", "span": [5, 21]}]}),
			],
			not_reversible([finding("network", 0), finding("command-substitution", -1)]),
		),
		"action": "deny", "has": ["pipe-to-shell"],
	},
	"a program that runs no script is not fed a download": {
		"input": mk(
			[
				seg(0, "curl", {"categories": ["network"], "read_only": false, "span": [7, 20], "context": {"pipeline": 0, "pipeline_len": 1, "substitution": true}}),
				seg(1, "alias", {"categories": ["shell"], "read_only": false, "span": [0, 21], "operands": [{"value": "$(curl x)", "dynamic": "command-substitution", "role": "script", "span": [5, 21]}]}),
			],
			not_reversible([finding("network", 0), finding("command-substitution", -1)]),
		),
		"action": "ask", "lacks": ["pipe-to-shell"],
	},
	"a shell fed a download is named by the shell rule, not the interpreter rule": {
		"input": mk([net(0, "curl"), object.union(stdin_sh(1), {"read_only": false})], not_reversible([finding("network", 0), finding("stdin-script", 1)])),
		"action": "deny", "has": ["pipe-to-shell"],
	},
	"a destructive rm inside the roots is not a system stop": {
		"input": mk([seg(0, "rm", {"categories": ["destructive", "write"], "read_only": false})], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["system-stop"],
	},
	"a shell before the download is not fed by it": {
		"input": mk([stdin_sh(0), net(1, "curl")], not_reversible([finding("network", 1)])),
		"action": "ask", "lacks": ["pipe-to-shell"],
	},
}

test_shell[name] if {
	some name, c in shell_cases
	passes(c)
	well_formed(c)
}

# --- write-outside-roots messages -----------------------------------------

outside_write(glob) := mk([writer(0, "tar")], object.union(not_reversible([finding("tar-extract", 0)]), wr([], {"path": "/srv", "outside_roots": true, "glob": glob})))

test_write_message_entries if {
	some r in shellgate.deny with input as outside_write(true)
	r.code == "write-outside-roots"
	startswith(r.message, "writes entries of /srv, outside the roots")
}

test_write_message_path if {
	some r in shellgate.deny with input as outside_write(false)
	r.code == "write-outside-roots"
	startswith(r.message, "writes /srv, outside the roots")
}

# --- kill-all, partition-table --------------------------------------------

stop_cases := {
	"kill -9 -1 is denied": {
		"input": mk([seg(0, "kill", {"categories": ["destructive"], "traits": ["signals"], "read_only": false, "args": [{"value": "-9", "span": [5, 7]}, {"value": "-1", "span": [8, 10]}]})], not_reversible([finding("not-read-only", 0)])),
		"action": "deny", "has": ["kill-all"],
	},
	"kill -- -1 is denied": {
		"input": mk([seg(0, "kill", {"categories": ["destructive"], "traits": ["signals"], "read_only": false, "args": [{"value": "--", "span": [5, 7]}, {"value": "-1", "span": [8, 10]}]})], not_reversible([finding("not-read-only", 0)])),
		"action": "deny", "has": ["kill-all"],
	},
	"kill -1 PID sends signal 1 to one process": {
		"input": mk([seg(0, "kill", {"categories": ["destructive"], "traits": ["signals"], "read_only": false, "args": [{"value": "-1", "span": [5, 7]}, {"value": "1234", "span": [8, 12]}]})], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["kill-all"],
	},
	"kill -s -1 is a signal value": {
		"input": mk([seg(0, "kill", {"categories": ["destructive"], "traits": ["signals"], "read_only": false, "args": [{"value": "-s", "span": [5, 7]}, {"value": "-1", "span": [8, 10]}], "options": [{"name": "-s", "written": "-s", "known": true, "value": {"value": "-1", "span": [8, 10]}, "span": [5, 10]}]})], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["kill-all"],
	},
	"kill --signal -1 is a signal value": {
		"input": mk([seg(0, "kill", {"categories": ["destructive"], "traits": ["signals"], "read_only": false, "args": [{"value": "--signal", "span": [5, 13]}, {"value": "-1", "span": [14, 16]}, {"value": "-1", "span": [17, 19]}], "options": [{"name": "-s", "written": "--signal", "known": true, "value": {"value": "-1", "span": [14, 16]}, "span": [5, 16]}]})], not_reversible([finding("not-read-only", 0)])),
		"action": "deny", "has": ["kill-all"],
	},
	"kill -9 -1 glued to an option is still pid -1": {
		"input": mk([seg(0, "kill", {"categories": ["destructive"], "traits": ["signals"], "read_only": false, "args": [{"value": "-9", "span": [5, 7]}, {"value": "-1", "span": [8, 10]}], "options": [{"name": "-s", "written": "-9", "known": true, "value": {"value": "9", "span": [6, 7]}, "span": [5, 7]}, {"name": "-s", "written": "-1", "known": true, "value": {"value": "1", "span": [9, 10]}, "span": [8, 10]}]})], not_reversible([finding("not-read-only", 0)])),
		"action": "deny", "has": ["kill-all"],
	},
	"a program without the signals trait is not kill": {
		"input": mk([seg(0, "kill", {"categories": ["destructive"], "read_only": false, "args": [{"value": "-9", "span": [5, 7]}, {"value": "-1", "span": [8, 10]}]})], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["kill-all"],
	},
	"a partition-table finding is denied": {
		"input": mk([destroyer(0, "parted")], not_reversible([finding("not-read-only", 0), finding("partition-table", 0)])),
		"action": "deny", "has": ["partition-table"],
	},
	"parted without one asks": {
		"input": mk([destroyer(0, "parted")], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["partition-table"],
	},
	"any program with the finding, by its code, not its name": {
		"input": mk([destroyer(0, "diskpart-x")], not_reversible([finding("partition-table", 0)])),
		"action": "deny", "has": ["partition-table"],
	},
}

test_stop[name] if {
	some name, c in stop_cases
	passes(c)
	well_formed(c)
}

# --- writes: destructive-critical, write-outside-roots, device-write -----

wr(segs, fact) := {"report": {"writes": [write("/x", 0)]}, "facts": {"writes": [wfact(fact)]}}

write_cases := {
	"rm -rf / is denied": {
		"input": mk([destroyer(0, "rm")], object.union(not_reversible([finding("not-read-only", 0)]), wr([], {"path": "/", "critical": true, "outside_roots": true}))),
		"action": "deny", "has": ["destructive-critical", "write-outside-roots"],
	},
	"rm -rf of the home directory inside the roots is denied": {
		"input": mk([destroyer(0, "rm")], object.union(not_reversible([finding("not-read-only", 0)]), wr([], {"path": "/h", "critical": true}))),
		"action": "deny", "has": ["destructive-critical"], "lacks": ["write-outside-roots"],
	},
	"rm -rf inside the roots asks": {
		"input": mk([destroyer(0, "rm")], object.union(not_reversible([finding("not-read-only", 0)]), wr([], {}))),
		"action": "ask", "lacks": ["destructive-critical", "write-outside-roots"],
	},
	"find -delete under a root is asked, not denied": {
		"input": mk([object.union(destroyer(0, "find"), {"traits": ["deletes-matches"]})], object.union(not_reversible([finding("find-delete", 0)]), wr([], {"path": "/w", "critical": true}))),
		"action": "ask", "has": ["find-delete"], "lacks": ["destructive-critical"],
	},
	"a critical write by a non-destructive program is not destructive-critical": {
		"input": mk([writer(0, "touch")], object.union(not_reversible([finding("not-read-only", 0)]), wr([], {"path": "/w", "critical": true}))),
		"action": "ask", "lacks": ["destructive-critical"],
	},
	"a write outside the roots is denied": {
		"input": mk([writer(0, "tee")], object.union(not_reversible([finding("not-read-only", 0)]), wr([], {"path": "/etc/x", "outside_roots": true}))),
		"action": "deny", "has": ["write-outside-roots"],
	},
	"an unestablished write is not judged outside": {
		"input": mk([writer(0, "tee")], object.union(not_reversible([finding("not-read-only", 0)]), wr([], {"established": false, "outside_roots": true}))),
		"action": "ask", "lacks": ["write-outside-roots"],
	},
	"a device write is denied": {
		"input": mk([writer(0, "dd")], object.union(not_reversible([finding("write-option", 0)]), wr([], {"path": "/dev/sda", "device": true}))),
		"action": "deny", "has": ["device-write"],
	},
	"a file write is not a device write": {
		"input": mk([writer(0, "dd")], object.union(not_reversible([finding("write-option", 0)]), wr([], {}))),
		"action": "ask", "lacks": ["device-write"],
	},
	"a write to shellgate's config is asked, whatever grants it": {
		"input": mk([writer(0, "cp")], object.union(
			object.union(not_reversible([finding("not-read-only", 0)]), granted(["cp **"])),
			wr([], {"path": "/w/.shellgate.yaml", "shellgate_config": true}),
		)),
		"action": "ask", "has": ["write-shellgate-config"],
	},
	"a granted write elsewhere is allowed": {
		"input": mk([writer(0, "cp")], object.union(
			object.union(not_reversible([finding("not-read-only", 0)]), granted(["cp **"])),
			wr([], {"path": "/w/notes.txt"}),
		)),
		"action": "allow", "lacks": ["write-shellgate-config"],
	},
}

test_writes[name] if {
	some name, c in write_cases
	passes(c)
	well_formed(c)
}

# --- mkfs, fork-bomb, force-push-protected ------------------------------

opt(name) := {"name": name, "written": name, "known": true, "span": [0, 1]}

# force(name) is an option the catalog gives the effect force.
force(name) := object.union(opt(name), {"effects": ["force"]})

formatter(i, name) := object.union(destroyer(i, name), {"traits": ["formatter"]})

operand(v) := {"value": v, "role": "any", "span": [0, 1]}

# push(pushes) is git push with the refs it updates on the remote, as the
# classifier lists them (operands in the catalog role refspec).
push(pushes) := seg(0, "git", {"subcommand": "push", "categories": ["network", "write"], "read_only": false, "pushes": pushes})

pushed(branch, forced) := {"branch": branch, "force": forced, "span": [0, 1]}

destructive_cases := {
	"mkfs.ext4 is denied": {
		"input": mk([formatter(0, "mkfs.ext4")], not_reversible([finding("not-read-only", 0)])),
		"action": "deny", "has": ["mkfs"],
	},
	"wipefs is denied": {
		"input": mk([formatter(0, "wipefs")], not_reversible([finding("not-read-only", 0)])),
		"action": "deny", "has": ["mkfs"],
	},
	"a formatter by its trait, whatever its name, is denied": {
		"input": mk([formatter(0, "newfs_exotic")], not_reversible([finding("not-read-only", 0)])),
		"action": "deny", "has": ["mkfs"],
	},
	"the trait formats, not the name": {
		"input": mk([destroyer(0, "mkfs.ext4")], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["mkfs"],
	},
	"a program the catalog does not know is no formatter": {
		"input": mk([seg(0, "mkswap", {"known": false, "categories": [], "read_only": false})], not_reversible([finding("unknown-program", 0)])),
		"action": "ask", "lacks": ["mkfs"],
	},
	"mkdir is not mkfs": {
		"input": mk([writer(0, "mkdir")], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["mkfs"],
	},
	"a fork bomb is denied": {
		"input": mk([seg(0, ":", {})], not_reversible([finding("fork-bomb", 0), finding("function-definition", -1)])),
		"action": "deny", "has": ["fork-bomb"],
	},
	"a function is not a fork bomb": {
		"input": mk([seg(0, "f", {})], not_reversible([finding("function-definition", -1)])),
		"action": "ask", "lacks": ["fork-bomb"],
	},
	"a forced push to main is denied": {
		"input": mk([push([pushed("main", true)])], not_reversible([finding("not-read-only", 0)])),
		"action": "deny", "has": ["force-push-protected"],
	},
	"a forced push to master is denied": {
		"input": mk([push([pushed("feature", true), pushed("master", true)])], not_reversible([finding("not-read-only", 0)])),
		"action": "deny", "has": ["force-push-protected"],
	},
	"a push to main without force asks": {
		"input": mk([push([pushed("main", false)])], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["force-push-protected"],
	},
	"a forced push to a feature branch asks": {
		"input": mk([push([pushed("feature", true)])], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["force-push-protected"],
	},
	"a force option with no ref pushed asks": {
		"input": mk([seg(0, "git", {"subcommand": "push", "categories": ["network", "write"], "read_only": false, "options": [force("--force")], "operands": [operand("main")]})], not_reversible([finding("not-read-only", 0)])),
		"action": "ask", "lacks": ["force-push-protected"],
	},
	"any program that pushes, by its facts, not its name": {
		"input": mk([seg(0, "hg-sync", {"categories": ["network"], "read_only": false, "pushes": [pushed("main", true)]})], not_reversible([finding("not-read-only", 0)])),
		"action": "deny", "has": ["force-push-protected"],
	},
}

test_destructive[name] if {
	some name, c in destructive_cases
	passes(c)
	well_formed(c)
}

# --- the read station ----------------------------------------------------

sread(verdict) := {"path": "x", "resolved": "/w/x", "real": "/w/x", "verdict": verdict, "row": "", "message": "", "span": [6, 10], "segment": 0, "recursive": false}

with_reads(reads) := {"report": {"reads": [read("x", 0)]}, "station": {"reads": reads}}

station_cases := {
	"no station with reads asks": {
		"input": with_index(object.remove(mk([seg(0, "cat", {})], {"report": {"reads": [read("x", 0)]}}), ["station"])),
		"action": "ask", "has": ["reads-not-established"],
	},
	"no station with reads in readonly denies": {
		"input": with_index(object.remove(mk([seg(0, "cat", {})], object.union(readonly, {"report": {"reads": [read("x", 0)]}})), ["station"])),
		"action": "deny", "has": ["reads-not-established"],
	},
	"no station and no reads is fine": {
		"input": with_index(object.remove(mk([seg(0, "echo", {})], {}), ["station"])),
		"action": "allow", "lacks": ["reads-not-established"],
	},
	"an ok read is allowed": {
		"input": mk([seg(0, "cat", {})], with_reads([sread("ok")])),
		"action": "allow",
	},
	"a missing file is fine to read": {
		"input": mk([seg(0, "cat", {})], with_reads([sread("missing")])),
		"action": "allow",
	},
	"a denied read is denied": {
		"input": mk([seg(0, "cat", {})], with_reads([object.union(sread("denied"), {"row": "~/.ssh/**", "message": "reads ~/.ssh/id_rsa, which the deny row ~/.ssh/** covers"})])),
		"action": "deny", "has": ["read-denied"],
	},
	"a tree holding a denied path asks": {
		"input": mk([seg(0, "grep", {})], with_reads([object.union(sread("denied"), {"recursive": true, "in_tree": true, "row": "**/.env"})])),
		"action": "ask", "has": ["read-denied-in-tree"], "lacks": ["read-denied"],
	},
	"a tree holding a denied path in readonly denies": {
		"input": mk([seg(0, "grep", {})], object.union(readonly, with_reads([object.union(sread("denied"), {"recursive": true, "in_tree": true, "row": "**/.env"})]))),
		"action": "deny", "has": ["read-denied-in-tree"],
	},
	"xargs input bounded by a tree holding a denied path asks": {
		"input": mk([seg(0, "grep", {})], with_reads([object.union(sread("denied"), {"source": "xargs-input", "kind": "dynamic", "in_tree": true})])),
		"action": "ask", "has": ["read-denied-in-tree"], "lacks": ["read-denied"],
	},
	"find -exec input bounded by a tree holding a denied path asks": {
		"input": mk([seg(0, "ls", {})], with_reads([object.union(sread("denied"), {"source": "operand", "kind": "dynamic", "in_tree": true})])),
		"action": "ask", "has": ["read-denied-in-tree"], "lacks": ["read-denied"],
	},
	"a recursive read of a denied tree itself is denied": {
		"input": mk([seg(0, "grep", {})], with_reads([object.union(sread("denied"), {"recursive": true, "row": "~/.ssh/**"})])),
		"action": "deny", "has": ["read-denied"], "lacks": ["read-denied-in-tree"],
	},
	"a glob matching a denied file is denied": {
		"input": mk([seg(0, "cat", {})], with_reads([object.union(sread("denied"), {"kind": "glob", "matches": ["/w/.env"]})])),
		"action": "deny", "has": ["read-denied"], "lacks": ["read-denied-in-tree"],
	},
	"a read outside the roots asks": {
		"input": mk([seg(0, "cat", {})], with_reads([sread("outside-roots")])),
		"action": "ask", "has": ["read-outside-roots"],
	},
	"a read outside the roots in readonly denies": {
		"input": mk([seg(0, "cat", {})], object.union(readonly, with_reads([sread("outside-roots")]))),
		"action": "deny", "has": ["read-outside-roots"],
	},
	"a read not established asks": {
		"input": mk([seg(0, "cat", {})], with_reads([sread("not-established")])),
		"action": "ask", "has": ["read-not-established"],
	},
	"an unknown verdict asks": {
		"input": mk([seg(0, "cat", {})], with_reads([sread("maybe")])),
		"action": "ask", "has": ["read-unknown-verdict"],
	},
	"a station not established asks": {
		"input": mk([seg(0, "cat", {})], {"station": {"established": false}}),
		"action": "ask", "has": ["reads-not-established"],
	},
	"a station not established with a read that says why adds nothing": {
		"input": mk([seg(0, "cat", {})], object.union(with_reads([sread("outside-roots")]), {"station": {"established": false}})),
		"action": "ask", "has": ["read-outside-roots"], "lacks": ["reads-not-established"],
	},
	"a repository helper asks": {
		"input": mk([seg(0, "git", {"subcommand": "status"})], {"station": {"repo_helpers": [{"key": "core.fsmonitor", "file": ".git/config", "value": "x", "segment": 0, "span": [0, 3]}]}}),
		"action": "ask", "has": ["repo-helper"],
	},
	"a repository helper in readonly denies": {
		"input": mk([seg(0, "git", {"subcommand": "status"})], object.union(readonly, {"station": {"repo_helpers": [{"key": "core.fsmonitor", "file": ".git/config", "value": "x", "segment": 0, "span": [0, 3]}]}})),
		"action": "deny", "has": ["repo-helper"],
	},
}

test_station[name] if {
	some name, c in station_cases
	passes(c)
	well_formed(c)
}

# A helper names its setting; a project file whose existence runs code
# (catalog hidden_inputs, key "") names the file; a hidden input that says
# what it does names the file, what it says and what would happen.
test_repo_helper_messages if {
	helper := {"key": "core.fsmonitor", "file": ".git/config", "value": "x", "segment": 0, "span": [0, 3]}
	a := shellgate.ask with input as mk([seg(0, "git", {"subcommand": "status"})], {"station": {"repo_helpers": [helper]}})
	some r in a
	r.code == "repo-helper"
	r.message == "the repository sets core.fsmonitor in .git/config, so git status would run a program the repository chose"
	file := {"key": "", "file": "/w/.pnpmfile.cjs", "value": "", "segment": 0, "span": [0, 9]}
	b := shellgate.ask with input as mk([seg(0, "pnpm", {"subcommand": "list"})], {"station": {"repo_helpers": [file]}})
	some q in b
	q.code == "repo-helper"
	q.message == "the repository has /w/.pnpmfile.cjs, so pnpm list would run code the repository chose"
	pin := {"key": "toolchain", "file": "/w/go.mod", "value": "toolchain go1.99.0", "why": "says \"toolchain go1.99.0\", newer than the local go1.26.8", "does": "download and run the Go toolchain go1.99.0", "segment": 0, "span": [0, 10]}
	c := shellgate.ask with input as mk([seg(0, "go", {"subcommand": "version"})], {"station": {"repo_helpers": [pin]}})
	some x in c
	x.code == "repo-helper"
	x.message == "/w/go.mod says \"toolchain go1.99.0\", newer than the local go1.26.8, so go version would download and run the Go toolchain go1.99.0"
}

# A hook git runs, and a partial clone's promisor remote, say so.
test_repo_helper_hook_and_promisor_messages if {
	hook := {"key": "", "file": "/w/.git/hooks/post-index-change", "value": "", "segment": 0, "span": [0, 10], "kind": "hook"}
	a := shellgate.ask with input as mk([seg(0, "git", {"subcommand": "status"})], {"station": {"repo_helpers": [hook]}})
	some r in a
	r.message == "the repository has /w/.git/hooks/post-index-change, so git status would run it"
	remote := {"key": "remote.origin.promisor", "file": "/w/.git/config", "value": "https://example.com/x.git", "segment": 0, "span": [0, 10], "kind": "promisor"}
	b := shellgate.ask with input as mk([seg(0, "git", {"subcommand": "log"})], {"station": {"repo_helpers": [remote]}})
	some q in b
	q.message == "the repository is a partial clone (remote.origin.promisor in /w/.git/config), so git log may fetch missing objects from https://example.com/x.git over the network"
	pack := {"key": "", "file": "/w/.git/objects/pack/p.promisor", "value": "", "segment": 0, "span": [0, 10], "kind": "promisor"}
	c := shellgate.decision with input as mk([seg(0, "git", {"subcommand": "log"})], object.union(readonly, {"station": {"repo_helpers": [pack]}}))
	c.action == "deny"
	some d in c.reasons
	d.message == "the repository is a partial clone (it has /w/.git/objects/pack/p.promisor), so git log may fetch missing objects from its promisor remote over the network"
}

# A setting of git's configuration outside the repository (~/.gitconfig,
# the environment) says where it is, and a program file the shell finds
# through PATH says which entry found it.
test_repo_helper_user_config_and_path_messages if {
	user := {"key": "core.fsmonitor", "file": "/h/.gitconfig", "value": "x", "segment": 0, "span": [0, 10], "kind": "user-config"}
	a := shellgate.ask with input as mk([seg(0, "git", {"subcommand": "status"})], {"station": {"repo_helpers": [user]}})
	some r in a
	r.message == "git's configuration outside the repository sets core.fsmonitor in /h/.gitconfig, so git status would run the program it names"
	path := {"key": "PATH", "file": "/w/bin/git", "value": "PATH entry \"bin\"", "segment": 0, "span": [0, 10]}
	b := shellgate.ask with input as mk([seg(0, "git", {"subcommand": "status"})], {"station": {"repo_helpers": [path]}})
	some q in b
	q.message == "git status would run /w/bin/git, a program file of the workspace (found through the PATH entry \"bin\")"
}

# A helper whose segment index names no segment still asks.
test_repo_helper_without_its_segment_asks if {
	h := {"key": "core.fsmonitor", "file": ".git/config", "value": "x", "segment": 7, "span": [0, 3]}
	a := shellgate.ask with input as mk([seg(0, "git", {"subcommand": "status"})], {"station": {"repo_helpers": [h]}})
	some r in a
	r.code == "repo-helper"
	r.message == "the repository sets core.fsmonitor in .git/config, so the command would run a program the repository chose"
}

test_denied_read_message_from_station if {
	d := shellgate.deny with input as station_cases["a denied read is denied"].input
	some r in d
	r.code == "read-denied"
	contains(r.message, "~/.ssh/**")
}

# --- config-unreadable ---------------------------------------------------

test_config_unreadable_denies_in_every_mode if {
	some m in ["default", "readonly"]
	inp := mk([seg(0, "ls", {})], {"mode": m, "facts": {"mode": m}, "config": {"problem": "the shellgate config /w/.shellgate.yaml exists but cannot be used (a directory)"}})
	dec := shellgate.decision with input as inp
	dec.action == "deny"
	[r] := [r | some r in dec.reasons]
	r.code == "config-unreadable"
	contains(r.message, "/w/.shellgate.yaml")
}

test_config_without_problem_allows if {
	inp := mk([seg(0, "ls", {})], {"config": {"mode": "default"}})
	dec := shellgate.decision with input as inp
	dec.action == "allow"
}

# A cwd that is not absolute asks, whatever the command: its reads cannot
# be judged.
test_cwd_unknown if {
	d := shellgate.decision with input as mk([seg(0, "ls", {})], {"cwd": "ws"})
	d.action == "ask"
	"cwd-unknown" in {r.code | some r in d.reasons}
	d0 := shellgate.decision with input as mk([seg(0, "ls", {})], {})
	d0.action == "allow"
}

# --- substitutions -------------------------------------------------------

# subst_input: echo (segment 1) prints the output of cat (segment 0, at
# [6, 12] inside the substitution at [5, 13]); sub patches the
# substitution's facts, inner the inner segment.
subst_input(sub, inner) := mk(
	[
		object.union(seg(0, "cat", {"span": [6, 12], "context": {"pipeline": 0, "pipeline_len": 1, "substitution": true}}), inner),
		seg(1, "echo", {"span": [0, 14]}),
	],
	object.union(
		not_reversible([{"code": "command-substitution", "message": "runs a command substitution", "span": [5, 13], "segment": -1}]),
		{"report": {"substitutions": [object.union({"kind": "command", "span": [5, 13], "host": 1, "role": "text"}, sub)]}},
	),
)

substitution_cases := {
	"a read-only substitution as text is allowed": {
		"input": subst_input({}, {}),
		"action": "allow", "lacks": ["command-substitution"],
	},
	"and in readonly mode": {
		"input": object.union(subst_input({}, {}), readonly),
		"action": "allow",
	},
	"a pipe from <(...) is allowed": {
		"input": subst_input({"kind": "process-in", "role": "file"}, {}),
		"action": "allow",
	},
	"a command inside that is not read-only asks": {
		"input": subst_input({}, {"read_only": false, "categories": ["write"]}),
		"action": "ask", "has": ["command-substitution"],
	},
	"a substitution with no host asks": {
		"input": subst_input({"host": -1}, {}),
		"action": "ask", "has": ["command-substitution"],
	},
	"a host that is not read-only asks": {
		"input": object.union(subst_input({}, {}), {"report": {"segments": [
			seg(0, "cat", {"span": [6, 12]}),
			seg(1, "rm", {"span": [0, 14], "read_only": false, "categories": ["write"]}),
		]}}),
		"action": "ask", "has": ["command-substitution"],
	},
	"a role that runs or writes asks": {
		"input": subst_input({"role": "write"}, {}),
		"action": "ask", "has": ["command-substitution"],
	},
	">(...) asks": {
		"input": subst_input({"kind": "process-out"}, {}),
		"action": "ask", "has": ["command-substitution"],
	},
	"an output that could be an option that reads a file asks": {
		"input": subst_input({"option_like": true, "option_effects": ["pattern", "reads-file"]}, {}),
		"action": "ask", "has": ["command-substitution"],
	},
	"an output that could only be a harmless option is allowed": {
		"input": subst_input({"option_like": true, "option_effects": ["pattern"]}, {}),
		"action": "allow",
	},
	"a split option value asks": {
		"input": subst_input({"role": "option-value", "split": true}, {}),
		"action": "ask", "has": ["command-substitution"],
	},
	"later words that reach a file operand ask": {
		"input": subst_input({"split": true, "shift_roles": ["file"]}, {}),
		"action": "ask", "has": ["command-substitution"],
	},
	"later words that stay text are allowed": {
		"input": subst_input({"split": true, "shift_roles": ["text"]}, {}),
		"action": "allow",
	},
	"every reading's facts must pass": {
		"input": object.union(subst_input({}, {}), {"report": {"substitutions": [
			{"kind": "command", "span": [5, 13], "host": 1, "role": "text"},
			{"kind": "command", "span": [5, 13], "host": -1},
		]}}),
		"action": "ask", "has": ["command-substitution"],
	},
	"a finding with no substitution facts asks": {
		"input": object.union(subst_input({}, {}), {"report": {"substitutions": [
			{"kind": "command", "span": [0, 3], "host": 1, "role": "text"},
		]}}),
		"action": "ask", "has": ["command-substitution"],
	},
}

test_substitution[name] if {
	some name, c in substitution_cases
	passes(c)
	well_formed(c)
}

# --- a trusted producer's paths as file operands -------------------------

# produced_input: cat (segment 1) reads the paths find (segment 0, at
# [6, 12]) prints, through an unquoted $(...) at [5, 13] the station
# judged with the verdict given (produced_inner: inner patches find);
# rd patches the report's read, sub the
# substitution's facts (option_like with wc's files-from: a hostile
# output could be --files0-from=F).
produced_input(sub, rd, verdict) := produced_inner(sub, rd, verdict, {})

produced_inner(sub, rd, verdict, inner) := mk(
	[
		object.union(seg(0, "find", {"span": [6, 12], "context": {"pipeline": 0, "pipeline_len": 1, "substitution": true}}), inner),
		seg(1, "cat", {"span": [0, 14]}),
	],
	object.union(
		not_reversible([{"code": "command-substitution", "message": "runs a command substitution", "span": [5, 13], "segment": -1}]),
		{
			"report": {
				"substitutions": [object.union({"kind": "command", "span": [5, 13], "host": 1, "role": "file", "split": true, "shift_roles": ["file"], "option_like": true, "option_effects": ["files-from"]}, sub)],
				"reads": [object.union({"path": "$(find .)", "kind": "dynamic", "dynamic": "command-substitution", "source": "operand", "segment": 1, "cwd": {"path": ".", "known": true}, "producer": 0, "span": [5, 13], "option_like": true}, rd)],
			},
			"station": {"reads": [{"path": "$(find .)", "kind": "dynamic", "source": "operand", "resolved": "", "real": "", "verdict": verdict, "row": "", "message": "m", "span": [5, 13], "segment": 1, "recursive": false, "matches": ["/w"]}], "repo_helpers": [], "established": true},
		},
	),
)

produced_cases := {
	"a producer's paths the station judged are read as files": {
		"input": produced_input({}, {}, "ok"),
		"action": "allow", "lacks": ["command-substitution"],
	},
	"and in readonly mode": {
		"input": object.union(produced_input({}, {}, "ok"), readonly),
		"action": "allow",
	},
	"a path the station could not establish asks": {
		"input": produced_input({}, {}, "not-established"),
		"action": "ask", "has": ["read-not-established"],
	},
	"a denied path denies": {
		"input": produced_input({}, {}, "denied"),
		"action": "deny",
	},
	"no producer: the output could be an option": {
		"input": produced_input({}, {"producer": -1}, "ok"),
		"action": "ask", "has": ["command-substitution"],
	},
	"the station did not check for a leading -": {
		"input": produced_input({}, {"option_like": false}, "ok"),
		"action": "ask", "has": ["command-substitution"],
	},
	"later words reaching a role other than file ask": {
		"input": produced_input({"shift_roles": ["file", ""]}, {}, "ok"),
		"action": "ask", "has": ["command-substitution"],
	},
	"a producer that is not read-only asks": {
		"input": produced_inner({}, {}, "ok", {"read_only": false, "categories": ["write"]}),
		"action": "ask", "has": ["command-substitution"],
	},
}

test_produced[name] if {
	some name, c in produced_cases
	passes(c)
	well_formed(c)
}

# The reason says which condition failed.
test_substitution_reason_says_why if {
	dec := shellgate.decision with input as produced_input({}, {"producer": -1}, "ok")
	some r in dec.reasons
	r.code == "command-substitution"
	contains(r.message, "could begin with \"-\"")
	contains(r.message, "files-from")
}

test_substitution_reason_runs_unread if {
	dec := shellgate.decision with input as subst_input({}, {"read_only": false, "categories": ["write"]})
	some r in dec.reasons
	r.code == "command-substitution"
	endswith(r.message, "a command it runs is not read-only")
}
