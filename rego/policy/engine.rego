# The engine's own rules, which every engine compiles, with or without the
# default policy: the run plans of a decision (how the gate runs the
# command) and the combinations of two decisions on one command.
package shellgate.engine

import data.shellgate

# run are the run plans of a command the policy decided input.action on
# (the engine adds it to the input): the gate evaluates them only for a
# command it is to run.
run := {
	"unapproved": run_plan(input.action, false),
	"approved": run_plan(input.action, true),
}

# run_plan(action, approved): how the gate runs a command the policy
# decided action on, when no person approved it (approved false: an allow
# runs so) and when a person approved it (an ask, or an escalation):
#   sandbox, why   the sandbox mode and why: readonly mode reads only; the
#                  config's sandbox mode; a write a person approved, and a
#                  granted one, may write the workspace; a command allowed
#                  as reversible reads only
#   network        whether the sandbox lets it reach the network: only a
#                  segment of category network that a person approved, or
#                  that a config grant allowed ("granted")
#   offline        whether its environment is made offline (a command
#                  allowed as reversible has no reason to reach the network)
#   station_reads  whether the reads the station established are opened in
#                  the sandbox (an approved command, or one a grant allowed)
# A caller's explicit sandbox mode (run --sandbox) and an approved
# escalation replace the sandbox mode only.
run_plan(action, approved) := {
	"sandbox": mode_why[0],
	"why": mode_why[1],
	"network": egress(action, approved),
	"offline": offline(action),
	"station_reads": station_reads(action, approved),
} if {
	mode_why := sandbox_mode(action, approved)
}

# sandbox_modes are the config's sandbox values that name a mode.
sandbox_modes := {"read-only", "workspace-write", "full-access"}

sandbox_mode(action, approved) := ["read-only", "readonly-mode"] if {
	input.facts.mode == "readonly"
} else := [input.config.sandbox, "config"] if {
	input.config.sandbox in sandbox_modes
} else := ["workspace-write", "approved-write"] if {
	approved
} else := ["read-only", "reversible"] if {
	action == "allow"
	input.report.reversible
} else := ["workspace-write", "granted"]

egress(_, approved) if {
	approved
	some _ in input.facts.index["category:network"]
}

egress(action, false) if {
	action == "allow"
	some i in input.facts.index["category:network"]
	some r in shellgate.allow
	r.code == "granted"
	r.segment == i
}

default egress(_, _) := false

offline(action) if {
	action == "allow"
	input.report.reversible
}

default offline(_) := false

station_reads(_, true)

station_reads("allow", false) if not input.report.reversible

default station_reads(_, _) := false

# --- combinations ----------------------------------------------------------

# result combines two decisions on one command, which the engine asks for
# when a project the user has not trusted brings policy modules or
# configuration: input.kind says which.

rank := {"allow": 0, "ask": 1, "deny": 2}

# untrusted-modules: input.trusted is the decision of the trusted modules,
# input.whole the decision with the untrusted modules too. The result is
# never more permissive than trusted: whole's deny and ask reasons are
# added, and what whole allows (its allow reasons, or an allow its helper
# rules made) is ignored. whole's not-proven reason is not a rule's: it
# only says whole did not prove the command, which trusted decides.
# keep_grants says whether trusted's suggested grants stand.
result := tightened if input.kind == "untrusted-modules"

whole_reasons := [r | some r in input.whole.reasons; r.code != "not-proven"]

trusted := object.union(input.trusted, {"keep_grants": true})

tightened := trusted if {
	input.whole.action == "allow"
} else := trusted if {
	count(whole_reasons) == 0
} else := {
	"action": input.whole.action,
	"reasons": whole_reasons,
	"keep_grants": false,
} if {
	rank[input.trusted.action] < rank[input.whole.action]
} else := trusted if {
	rank[input.whole.action] < rank[input.trusted.action]
} else := object.union(trusted, {"reasons": array.concat(
	input.trusted.reasons,
	[r | some r in whole_reasons; not r in input.trusted.reasons],
)})

# untrusted-config: input.decision is the decision under the trusted part
# of the config, input.whole the decision had the user trusted the
# project's configuration file. When that would have been more permissive
# the decision says so, with project-config-untrusted: input.message says
# which file, what was ignored and how to trust it.
result := with_untrusted_config if input.kind == "untrusted-config"

with_untrusted_config := object.union(input.decision, {
	"reasons": array.concat(input.decision.reasons, [{
		"code": "project-config-untrusted",
		"message": input.message,
		"span": [0, input.command_length],
		"segment": -1,
		"rule": "project-config-untrusted",
	}]),
	"keep_grants": true,
}) if {
	rank[input.whole.action] < rank[input.decision.action]
} else := object.union(input.decision, {"keep_grants": true})
