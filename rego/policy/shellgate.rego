# The default shellgate policy.
#
# Rules add reason objects to three partial sets: deny, ask and allow
# (grants). Each reason is {"code", "message", "span", "segment", "rule"};
# a null span stands for the whole command.
# `decision` combines them: any deny wins; in readonly mode any ask is a
# deny; otherwise any ask asks; a command is allowed only when it is proven:
# it parsed and is reversible, or every segment is read-only or granted and
# every finding is covered by a grant. Anything else is asked (readonly:
# denied) with the code not-proven.
#
# Go precomputes facts (input.facts): the mode, the grant covering each
# segment, for each write its absolute path and whether it is outside the
# roots, critical, a device, or shellgate's own configuration, and an index
# (segments by "name:git", "subcommand:git:push" and "category:network",
# segments that update refs on a remote by "pushes",
# "unknown" segments the catalog does not know, findings by
# "code:fork-bomb", station reads by "verdict:denied", writes by
# "write:critical", "granted" segments) so rules look up instead of scan,
# and flags (input.facts.has) each rule tests first, so that a rule whose
# subject the command does not have stops at its first test (under topdown,
# OPA's rule index skips it).
# The rules map facts to reasons. What kind of program a segment runs
# comes from the catalog, never from a list of names here: seg.traits
# ("shell", "runs-script", "formatter", "stops-system", "deletes-matches",
# "signals") and the effects of its options (o.effects, "force").
package shellgate

# mode is the mode in effect, for user modules. The rules below read
# input.facts.mode itself: a reference to a rule costs OPA a rule-index
# lookup every time, a reference to the input does not (3% of an
# evaluation over the agent commands).
mode := input.facts.mode

segments := input.report.segments

# --- combination ---------------------------------------------------------

decision := {"action": "deny", "reasons": deny} if {
	some _ in deny
} else := {"action": "deny", "reasons": ask} if {
	input.facts.mode == "readonly"
	some _ in ask
} else := {"action": "ask", "reasons": ask, "grantable": grantable} if {
	some _ in ask
} else := {"action": "allow", "reasons": allow} if {
	proven
} else := {"action": unproven_action, "reasons": {{
	"code": "not-proven",
	"message": "the command is not proven read-only and no grant covers it",
	"span": null,
	"segment": -1,
	"rule": "not-proven",
}}}

unproven_action := "deny" if input.facts.mode == "readonly"

else := "ask"

# proven: nothing in the command is left unexplained.
proven if {
	input.report.parse.ok
	input.report.reversible
}

proven if {
	input.report.parse.ok
	count(segments) > 0
	every i, seg in segments {
		segment_ok(i, seg)
	}
	every f in input.report.findings {
		covered(f)
	}
}

segment_ok(_, seg) if seg.read_only

segment_ok(i, _) if granted(i)

# A wrapper (timeout, nice, env, xargs) with no finding of its own is ok:
# the command it runs is a segment of its own, judged on its own.
segment_ok(i, seg) if {
	"wrapper" in seg.categories
	not finding_segments[i]
}

finding_segments contains f.segment if some f in input.report.findings

# granted: a config grant covers the segment, or an allow reason names it
# (a user module's allow rule is a grant). Grants apply in default mode
# only: a readonly verifier runs reversible commands alone. The set is
# computed once per decision; granted(i) looks it up.
granted(i) if granted_segments[i]

granted_segments contains i if {
	input.facts.has.granted == true
	some i in input.facts.index.granted
	config_granted(i)
}

granted_segments contains r.segment if {
	input.facts.mode == "default"
	some r in allow
	r.segment >= 0
}

config_granted(i) if {
	input.facts.mode == "default"
	input.facts.segments[i].grant != ""
}

# The person's own approvals: a rule of the agent's own settings (Claude
# Code's Bash(npm test), Codex's prefix_rule, Gemini CLI's tools.allowed)
# that Go matched against the segment as the agent matches it. It grants
# the segment as a config grant does, in default mode only; a deny still
# wins, and the shape around the segment is never covered.
granted_segments contains i if {
	input.facts.has.agent_approved == true
	input.facts.mode == "default"
	some i in input.facts.index.agent_approved
}

# covered: a finding a grant of its segment answers for. Findings about the
# shape around a segment (redirects, substitutions, assignments, background)
# are never covered.
covered(f) if {
	granted_segments[f.segment]
	coverable[f.code]
}

# A substitution that only reads is covered: $(git rev-parse HEAD) as an
# argument of echo, diff <(sort a) <(sort b). Every substitution the
# report lists at the finding's span must be read_substitution (a command
# read in bash and zsh has one per reading).
covered(f) if {
	substitution_codes[f.code]
	some s in input.report.substitutions
	s.span == f.span
	not unread_substitution_at(f.span)
}

unread_substitution_at(span) if {
	some t in input.report.substitutions
	t.span == span
	not read_substitution(t)
}

substitution_codes := {"command-substitution", "process-substitution"}

# read_substitution: the substitution's output becomes an argument, or a
# pipe the argument names (<(...)), of a read-only segment, in a role
# where it only names what to read, compare or print (the reads of a
# dynamic path are judged by the station, which asks about those it
# cannot establish); no field of it can become an option that writes,
# runs code, reads another file or widens the read (a hostile output
# "--pre=sh" or "-r"), unless the host has only harmless options there
# or it comes after "--"; and every segment it runs is read-only on its
# own (not merely granted), its reads judged by the station like any.
read_substitution(s) if {
	reading_substitution_kinds[s.kind]
	s.host >= 0
	segments[s.host].read_only
	substitution_roles[s.role]
	not hostile_option(s)
	not split_value(s)
	not shifts_elsewhere(s)
	not runs_unread(s)
}

# split_value: an option's value that the shell splits (head -n $(cat f)
# x): the fields after the first are operands the report never saw.
split_value(s) if {
	s.role == "option-value"
	s.split
}

# shifts_elsewhere: the output may be several words, and the later ones
# reach a role that is not one where the output may land, or a path the
# station never judged (grep -- $(cat list) b reads the files listed).
shifts_elsewhere(s) if {
	some role in object.get(s, "shift_roles", [])
	not shifted_roles[role]
	not produced_file(s, role)
}

# produced_file: the later words of a producer's output are files the
# station judged with the first.
produced_file(s, "file") if produced_substitution(s)

shifted_roles := {"text", "pattern", "number", "any", "name"}

# runs_unread: a segment the substitution runs is not read-only.
runs_unread(s) if {
	some seg in segments
	within_span(seg.span, s.span)
	not seg.read_only
}

reading_substitution_kinds := {"command", "process-in"}

substitution_roles := {
	"text", "pattern", "number", "any", "name", "file", "dir", "tree",
	"gitpath", "option-value",
}

# hostile_option: a field of the output could become an option of the
# host with an effect other than these.
hostile_option(s) if {
	s.option_like
	not produced_substitution(s)
	some e in object.get(s, "option_effects", [])
	not harmless_option_effects[e]
}

# produced_substitution: the output is the paths a trusted producer
# prints (wc -l $(git ls-files), cat $(find . -name '*.md')): classify
# bound the read to that producer (an unquoted $(...) alone, one
# produces_paths segment in it) and the station judged every path it
# could print as a read of the host, and found none that the shell would
# split or glob-expand, nor, where the host parses options, one starting
# with "-".
produced_substitution(s) if {
	s.kind == "command"
	some r in input.report.reads
	r.span == s.span
	r.dynamic == "command-substitution"
	r.producer >= 0
	object.get(r, "option_like", false) == object.get(s, "option_like", false)
	some q in input.station.reads
	q.span == s.span
	q.kind == "dynamic"
	q.verdict == "ok"
}

harmless_option_effects := {"pattern", "no-stdin", "git-names"}

within_span(inner, outer) if {
	outer[0] <= inner[0]
	inner[1] <= outer[1]
}

# coverable lists the finding codes that describe a segment itself.
coverable := {
	"not-read-only", "unknown-program", "unknown-subcommand", "unknown-option",
	"unexpected-operand", "write-option", "write-operand", "exec-option",
	"follow-option", "network", "interactive", "stdin-read", "destructive",
	"find-delete", "find-exec", "find-write", "git-branch-write", "git-tag-write",
	"git-remote-write", "git-config-write", "git-output", "sed-in-place",
	"sort-output", "awk-exec", "interpreter", "source",
}

# grantable: segments whose ask a grant would answer (for suggestions).
grantable contains r.segment if {
	input.facts.mode == "default"
	some r in ask
	r.segment >= 0
	coverable[r.code]
}

# --- allow: grants -------------------------------------------------------

allow contains {
	"code": "granted",
	"message": concat("", [label(seg), " is granted by the config grant \"", input.facts.segments[i].grant, "\""]),
	"span": seg.span,
	"segment": i,
	"rule": "granted",
} if {
	input.facts.has.granted == true
	some i in input.facts.index.granted
	seg := segments[i]
	not seg.read_only
	config_granted(i)
}

# agent-approved: the person allowed the segment in the agent's own
# settings (see granted_segments), named with the rule and its file.
allow contains {
	"code": "agent-approved",
	"message": concat("", [label(seg), " is allowed by ", agent_label(a.agent), "'s rule ", a.rule, " in ", a.file]),
	"span": seg.span,
	"segment": i,
	"rule": "agent-approved",
} if {
	input.facts.has.agent_approved == true
	input.facts.mode == "default"
	some i in input.facts.index.agent_approved
	seg := segments[i]
	not seg.read_only
	not config_granted(i)
	a := input.facts.segments[i].agent_rule
}

agent_label(a) := object.get({"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}, a, a)

# --- ask -----------------------------------------------------------------

# cwd-unknown: the agent did not say in which directory the command runs
# (the cwd is not absolute), so its reads cannot be judged.
ask contains {
	"code": "cwd-unknown",
	"message": "the agent did not say in which directory the command runs, so its reads cannot be judged",
	"span": null,
	"segment": -1,
	"rule": "cwd-unknown",
} if {
	not startswith(input.cwd, "/")
}

# grant-wildcards-code: a project config's grant matches the segment only
# through a wildcard over an argument that carries code (python3 -c * on
# python3 -c CODE); it does not apply, and this says why.
ask contains {
	"code": "grant-wildcards-code",
	"message": input.facts.segments[i].grant_refused,
	"span": segments[i].span,
	"segment": i,
	"rule": "grant-wildcards-code",
} if {
	input.facts.has.grant_refused == true
	input.facts.mode == "default"
	some i in input.facts.index.grant_refused
}

# parse-error: bash cannot parse the command.
ask contains {
	"code": "parse-error",
	"message": concat("", ["bash cannot parse this: ", object.get(input.report.parse, "error", "unknown error")]),
	"span": object.get(input.report.parse, "span", null),
	"segment": -1,
	"rule": "parse-error",
} if {
	input.facts.has.parse_error == true
	not input.report.parse.ok
}

# not-reversible: every finding that no grant covers, under its own code.
ask contains {
	"code": f.code,
	"message": finding_message(f),
	"span": f.span,
	"segment": f.segment,
	"rule": "not-reversible",
} if {
	input.facts.has.not_reversible == true
	not input.report.reversible
	some f in input.report.findings
	not top_parse_error(f)
	not covered(f)
}

# finding_message: a substitution finding says why the substitution is
# not a read (each reading's reason, when the dialects differ).
finding_message(f) := concat("", [f.message, ": ", concat("; ", whys)]) if {
	substitution_codes[f.code]
	whys := {w |
		some t in input.report.substitutions
		t.span == f.span
		not read_substitution(t)
		w := substitution_why(t)
	}
	count(whys) > 0
} else := f.message

# substitution_why: the first condition of read_substitution that t fails.
substitution_why(t) := "its output is not an argument of a command (it is a program word, an assignment, a redirect target, a loop's words, a test or inside a script string)" if {
	t.host < 0
} else := "only the output of $(...) and <(...) is read as arguments" if {
	not reading_substitution_kinds[t.kind]
} else := "a command it runs is not read-only" if {
	runs_unread(t)
} else := concat("", [segments[t.host].name, " is not read-only here (its other findings say why)"]) if {
	not segments[t.host].read_only
} else := concat("", ["its output lands where ", segments[t.host].name, " takes a ", t.role, ", not something it only reads or prints"]) if {
	not substitution_roles[t.role]
} else := concat("", ["its output could begin with \"-\" and become an option of ", segments[t.host].name, " that ", concat(", ", sort([e | some e in object.get(t, "option_effects", []); not harmless_option_effects[e]])), " (put -- before it, or let a trusted producer such as find, git ls-files or rg --files print it)"]) if {
	hostile_option(t)
} else := "the shell splits it into several words where one option value is expected" if {
	split_value(t)
} else := "its later words reach operands the station never judged" if {
	shifts_elsewhere(t)
}

top_parse_error(f) if {
	f.code == "parse-error"
	f.segment == -1
}

# network: a segment talks to the network (when no finding said so).
ask contains {
	"code": "network",
	"message": concat("", [label(seg), " talks to the network"]),
	"span": seg.span,
	"segment": i,
	"rule": "network",
} if {
	input.facts.has.network == true
	some i in input.facts.index["category:network"]
	not network_finding[i]
	not granted(i)
	not remote_read_segments[i]
	seg := segments[i]
}

# remote-read: a segment reads a remote account over the network with the
# user's credentials (catalog category remote-read: gh pr list, kubectl
# get) and changes nothing there. It asks, saying how to allow such reads,
# unless the config's remote_reads lists its program (in any mode: they
# only read); then an allow reason says where, when nothing else about the
# segment is found (its findings ask on their own).
remote_read_segments contains i if {
	input.facts.has.network == true
	some i in input.facts.index["category:remote-read"]
}

ask contains {
	"code": "remote-read",
	"message": concat("", [
		label(seg), " reads a remote account over the network with your credentials (", seg.name,
		"'s login); a shellgate config line remote_reads: [", seg.name, "] allows ", seg.name,
		"'s remote reads (its writes still ask)",
	]),
	"span": seg.span,
	"segment": i,
	"rule": "remote-read",
} if {
	some i in remote_read_segments
	not remote_read_allowed[i]
	not granted(i)
	seg := segments[i]
}

remote_read_allowed contains i if {
	input.facts.has.network == true
	some i in input.facts.index.remote_read_allowed
}

allow contains {
	"code": "granted",
	"message": concat("", [label(seg), " reads a remote account over the network, allowed by ", input.facts.segments[i].remote_read]),
	"span": seg.span,
	"segment": i,
	"rule": "remote-reads",
} if {
	some i in remote_read_allowed
	seg := segments[i]
	seg.read_only
	not finding_segments[i]
}

network_finding contains input.report.findings[j].segment if {
	some j in input.facts.index["code:network"]
}

# shell-stdin: a shell runs whatever its stdin says.
ask contains {
	"code": "shell-stdin",
	"message": concat("", [seg.name, " runs the script it reads from stdin, which the command produces at run time"]),
	"span": seg.span,
	"segment": i,
	"rule": "shell-stdin",
} if {
	input.facts.has.shell == true
	some i in input.facts.index["category:shell"]
	seg := segments[i]
	stdin_shell(seg)
}

# reads-not-established: the read station did not run.
ask contains {
	"code": "reads-not-established",
	"message": concat("", ["reads ", r.path, "; the read station did not run, so where it reads is not established"]),
	"span": r.span,
	"segment": r.segment,
	"rule": "reads-not-established",
} if {
	input.facts.has.reads_unjudged == true
	not input.station
	some r in input.report.reads
}

# read-outside-roots, read-not-established: the station could not clear a read.
ask contains {
	"code": station_ask_codes[r.verdict],
	"message": read_message(r),
	"span": r.span,
	"segment": r.segment,
	"rule": "station-read",
} if {
	input.facts.has.station_unsure == true
	some k in ["verdict:outside-roots", "verdict:not-established"]
	some j in input.facts.index[k]
	r := input.station.reads[j]
	station_ask_codes[r.verdict]
}

station_ask_codes := {
	"outside-roots": "read-outside-roots",
	"not-established": "read-not-established",
}

# read-unknown-verdict: a verdict this policy does not know is not ok.
ask contains {
	"code": "read-unknown-verdict",
	"message": concat("", ["the read station judged a read \"", r.verdict, "\", which this policy does not know"]),
	"span": r.span,
	"segment": r.segment,
	"rule": "station-read",
} if {
	input.facts.has.station_unknown_verdict == true
	some r in input.station.reads
	not known_verdicts[r.verdict]
}

known_verdicts := {"ok", "missing", "denied", "outside-roots", "not-established"}

# reads-not-established: the station says not every read was established,
# yet no read says why (a station that contradicts itself is not trusted).
ask contains {
	"code": "reads-not-established",
	"message": "the read station could not establish every read",
	"span": null,
	"segment": -1,
	"rule": "station-established",
} if {
	input.facts.has.station_unestablished == true
	input.station
	not input.station.established
	every r in object.get(input.station, "reads", []) {
		known_verdicts[r.verdict]
		not station_ask_codes[r.verdict]
		r.verdict != "denied"
	}
}

# repo-helper: the repository configures a program git would run.
ask contains {
	"code": "repo-helper",
	"message": repo_helper_message(h),
	"span": h.span,
	"segment": h.segment,
	"rule": "repo-helper",
} if {
	input.facts.has.repo_helpers == true
	some h in input.station.repo_helpers
}

# repo_helper_message: a hook file git runs, a partial clone's promisor
# remote (git fetches missing objects from it), a program file of the
# workspace found through PATH, a hidden input that says what it does (a
# file, what it says, what the program would do), a setting that names a
# program, or a project file whose existence makes the program run it
# (.pnpmfile.cjs).
repo_helper_message(h) := concat("", ["the repository has ", h.file, ", so ", segment_label(h.segment), " would run it"]) if {
	object.get(h, "kind", "") == "hook"
} else := concat("", ["the repository is a partial clone (", promisor_source(h), "), so ", segment_label(h.segment), " may fetch missing objects from ", promisor_url(h), " over the network"]) if {
	object.get(h, "kind", "") == "promisor"
} else := concat("", ["git's configuration outside the repository sets ", h.key, " in ", h.file, ", so ", segment_label(h.segment), " would run the program it names"]) if {
	object.get(h, "kind", "") == "user-config"
} else := concat("", [segment_label(h.segment), " would run ", h.file, ", a program file of the workspace (found through the ", h.value, ")"]) if {
	h.key == "PATH"
} else := concat("", [h.file, " ", h.why, ", so ", segment_label(h.segment), " would ", h.does]) if {
	h.does != ""
} else := concat("", ["the repository sets ", h.key, " in ", h.file, ", so ", segment_label(h.segment), " would run a program the repository chose"]) if {
	h.key != ""
} else := concat("", ["the repository has ", h.file, ", so ", segment_label(h.segment), " would run code the repository chose"])

# promisor_source: the setting, or the pack file, that makes a repository
# a partial clone.
promisor_source(h) := concat("", [h.key, " in ", h.file]) if {
	h.key != ""
} else := concat("", ["it has ", h.file])

# promisor_url: the promisor remote's URL, when it is set.
promisor_url(h) := h.value if {
	h.value != ""
} else := "its promisor remote"

# segment_label: the segment's label, or "the command" when the index
# names no segment (a message must never leave a reason undefined).
segment_label(i) := l if {
	l := label(segments[i])
} else := "the command"

# --- deny ----------------------------------------------------------------

# config-unreadable: a shellgate config file that applies (the project's
# .shellgate.yaml in any form: a directory, a dangling symlink, a FIFO, a
# file that does not parse; a policy directory or module it names; the
# user's config) exists but cannot be used, so the rules it holds are not
# known. Go sets input.config.problem (which file, and why). It is denied,
# as a config that does not parse always was.
deny contains {
	"code": "config-unreadable",
	"message": input.config.problem,
	"span": null,
	"segment": -1,
	"rule": "config-unreadable",
} if {
	is_string(input.config.problem)
	input.config.problem != ""
}

# read-denied: a read the station's deny rows cover.
deny contains {
	"code": "read-denied",
	"message": read_message(r),
	"span": r.span,
	"segment": r.segment,
	"rule": "read-denied",
} if {
	input.facts.has.station_denied == true
	some j in input.facts.index["verdict:denied"]
	r := input.station.reads[j]
	not denied_in_tree(r)
}

# read-denied-in-tree: a tree read (grep -r, find, find -exec's {}, xargs
# fed by a producer) whose tree holds a denied path. The command may never open it, so it is
# asked (readonly: denied); the station's message says how to exclude it.
ask contains {
	"code": "read-denied-in-tree",
	"message": read_message(r),
	"span": r.span,
	"segment": r.segment,
	"rule": "read-denied-in-tree",
} if {
	input.facts.has.station_denied == true
	some j in input.facts.index["verdict:denied"]
	r := input.station.reads[j]
	denied_in_tree(r)
}

# The station sets in_tree when the denied path is below a tree the command
# reads whole (or below a producer's roots), not the path as written.
denied_in_tree(r) if r.in_tree

# destructive-critical: a destructive segment (rm, chmod -R, ...) whose
# target is /, a top-level directory, the home directory, a root, or an
# ancestor of one of those, or every entry of one.
deny contains {
	"code": "destructive-critical",
	"message": concat("", [label(seg), " would destroy ", critical_what(fw), " ", fw.path]),
	"span": w.span,
	"segment": w.segment,
	"rule": "destructive-critical",
} if {
	input.facts.has.writes == true
	some j in input.facts.index["write:critical"]
	w := input.report.writes[j]
	fw := input.facts.writes[j]
	seg := segments[w.segment]
	"destructive" in seg.categories
	not deletes_matches(seg)
}

# deletes_matches: a program that deletes what its filters match under the
# path, not the path itself (find . -name '*.tmp' -delete; catalog trait
# deletes-matches) is asked about, with its own finding, not denied
# outright.
deletes_matches(seg) if "deletes-matches" in seg.traits

critical_what(fw) := "every entry of" if fw.glob

else := "the whole tree"

# write-outside-roots: a write lands outside every root.
deny contains {
	"code": "write-outside-roots",
	"message": concat("", ["writes ", write_what(fw), ", outside the roots (", concat(", ", input.facts.roots), ")"]),
	"span": w.span,
	"segment": w.segment,
	"rule": "write-outside-roots",
} if {
	input.facts.has.writes == true
	some j in input.facts.index["write:outside-roots"]
	w := input.report.writes[j]
	fw := input.facts.writes[j]
	fw.established
}

# write-shellgate-config: a write to shellgate's own configuration (any
# .shellgate.yaml, the config file in effect, or a policy dir it names, or a
# file in one; Go sets facts.writes[j].shellgate_config) is asked about
# whatever grant covers the program: a granted command ("cp **") must not
# rewrite what grants it.
ask contains {
	"code": "write-shellgate-config",
	"message": concat("", ["writes ", write_what(fw), ", shellgate's own configuration"]),
	"span": w.span,
	"segment": w.segment,
	"rule": "write-shellgate-config",
} if {
	input.facts.has.writes == true
	some j in input.facts.index["write:shellgate-config"]
	w := input.report.writes[j]
	fw := input.facts.writes[j]
}

# write_what: a glob-like write (rm dir/*, find dir -exec rm {} +, tar -x
# -C dir) writes entries of its path, not the path itself.
write_what(fw) := concat("", ["entries of ", fw.path]) if fw.glob

else := fw.path

# device-write: writing a raw device (dd of=/dev/sda).
deny contains {
	"code": "device-write",
	"message": concat("", ["writes the device ", fw.path, ", destroying what is on it"]),
	"span": w.span,
	"segment": w.segment,
	"rule": "device-write",
} if {
	input.facts.has.writes == true
	some j in input.facts.index["write:device"]
	w := input.report.writes[j]
	fw := input.facts.writes[j]
}

# mkfs: making a file system destroys the one there.
deny contains {
	"code": "mkfs",
	"message": concat("", [seg.name, " formats a device, destroying its data"]),
	"span": seg.span,
	"segment": i,
	"rule": "mkfs",
} if {
	input.facts.has.destructive_or_unknown == true

	# Formatters (catalog trait formatter) are destructive in the catalog.
	some i in input.facts.index["category:destructive"]
	seg := segments[i]
	"formatter" in seg.traits
}

# fork-bomb: a function that calls itself in a pipeline or background.
deny contains {
	"code": "fork-bomb",
	"message": f.message,
	"span": f.span,
	"segment": f.segment,
	"rule": "fork-bomb",
} if {
	input.facts.has.fork_bomb == true
	some j in input.facts.index["code:fork-bomb"]
	f := input.report.findings[j]
}

# force-push-protected: a forced update of a protected branch on a remote
# (git push --force origin main, git push origin +main). The classifier
# lists the refs a segment pushes (seg.pushes, from operands in the catalog
# role refspec), each with the branch and whether an option of effect
# force or a leading "+" forces it.
deny contains {
	"code": "force-push-protected",
	"message": concat("", ["force-pushes to ", p.branch, ", rewriting the history others build on"]),
	"span": seg.span,
	"segment": i,
	"rule": "force-push-protected",
} if {
	input.facts.has.pushes == true
	some i in input.facts.index.pushes
	seg := segments[i]
	some p in seg.pushes
	p.force
	protected_branches[p.branch]
}

protected_branches := {"main", "master"}

# pipe-to-shell: something downloaded is piped into a shell.
deny contains {
	"code": "pipe-to-shell",
	"message": concat("", [label(net), " downloads what ", seg.name, " then runs as a script"]),
	"span": [net.span[0], seg.span[1]],
	"segment": i,
	"rule": "pipe-to-shell",
} if {
	input.facts.has.shell == true
	input.facts.has.network == true
	some i in input.facts.index["category:shell"]
	seg := segments[i]
	stdin_shell(seg)
	some j in input.facts.index["category:network"]
	j < i
	net := segments[j]
	not net.context.substitution
}

# pipe-to-shell: a download substituted in as the script a shell, eval or
# source runs (bash <(curl ...), bash -c "$(curl ...)", source <(wget ...)).
deny contains {
	"code": "pipe-to-shell",
	"message": concat("", [label(net), " downloads what ", seg.name, " then runs as a script"]),
	"span": seg.span,
	"segment": i,
	"rule": "substituted-script",
} if {
	input.facts.has.shell == true
	input.facts.has.network == true
	some i in input.facts.index["category:shell"]
	seg := segments[i]
	script_runner(seg)
	some op in seg.operands
	script_roles[op.role]
	substitutions[op.dynamic]
	some j in input.facts.index["category:network"]
	net := segments[j]
	net.span[0] >= op.span[0]
	net.span[1] <= op.span[1]
}

# pipe-to-shell: a download piped into an interpreter that runs its stdin
# (curl ... | python3), which the classifier marks stdin-script.
deny contains {
	"code": "pipe-to-shell",
	"message": concat("", [label(net), " downloads what ", label(seg), " then runs as a script"]),
	"span": [net.span[0], seg.span[1]],
	"segment": f.segment,
	"rule": "pipe-to-interpreter",
} if {
	input.facts.has.network == true
	some k in input.facts.index["code:stdin-script"]
	f := input.report.findings[k]
	seg := segments[f.segment]
	not shell(seg) # the shell rule above names those
	some j in input.facts.index["category:network"]
	j < f.segment
	net := segments[j]
	not net.context.substitution
}

# system-stop: stopping or rebooting the machine ends everyone's work.
deny contains {
	"code": "system-stop",
	"message": concat("", [seg.name, " stops or restarts the machine"]),
	"span": seg.span,
	"segment": i,
	"rule": "system-stop",
} if {
	input.facts.has.destructive_or_unknown == true

	# Programs with the catalog trait stops-system are destructive in it.
	some i in input.facts.index["category:destructive"]
	seg := segments[i]
	"stops-system" in seg.traits
}

# kill-all: kill with pid -1 (kill -9 -1, kill -- -1) signals every process
# the user may signal: the agent's host, its editor, everyone's work. A
# leading -1 alone (kill -1 PID) is a signal number, not a pid, and so is
# the value of an option (kill -s -1). kill has the catalog trait signals.
deny contains {
	"code": "kill-all",
	"message": concat("", [seg.name, " ", a.value, " signals every process it may, not one"]),
	"span": a.span,
	"segment": i,
	"rule": "kill-all",
} if {
	input.facts.has.destructive_or_unknown == true
	some i in input.facts.index["category:destructive"]
	seg := segments[i]
	"signals" in seg.traits
	some k, a in seg.args
	k >= 1
	a.value == "-1"
	not a.dynamic
	not option_value(seg, a)
}

# option_value: the word is the value of an option, as the catalog parses
# the program's options (kill -s -1).
option_value(seg, a) if {
	some o in seg.options
	o.value.span == a.span
}

# partition-table: a word that rewrites a partition table (parted rm,
# mklabel or any beginning of one parted takes; sfdisk --delete), which
# destroys the data of the partitions it removes or moves. The catalog
# names the words (keywords with the effect partition-table), and the
# classifier reports each with a finding of that code.
deny contains {
	"code": "partition-table",
	"message": f.message,
	"span": f.span,
	"segment": f.segment,
	"rule": "partition-table",
} if {
	input.facts.has.destructive_or_unknown == true # the effect makes the segment destructive
	some j in input.facts.index["code:partition-table"]
	f := input.report.findings[j]
}

# script_runner: a program that runs a script operand: a shell (bash
# <(curl ...)) or one that runs shell code in the current shell (eval,
# source; catalog trait runs-script).
script_runner(seg) if shell(seg)

script_runner(seg) if "runs-script" in seg.traits

script_roles := {"script", "source"}

substitutions := {"process-substitution", "command-substitution"}

# --- helpers -------------------------------------------------------------

# shell: a shell, which runs the script it reads from stdin when it is
# given none (catalog trait shell).
shell(seg) if "shell" in seg.traits

# stdin_shell: a shell in a later pipeline stage with no script argument
# reads its script from stdin.
stdin_shell(seg) if {
	shell(seg)
	seg.context.stdin_fed
	not shell_has_script(seg)
}

shell_has_script(seg) if {
	some o in seg.options
	o.name == "-c"
}

shell_has_script(seg) if {
	some op in seg.operands
	not startswith(op.value, "-")
}

label(seg) := concat(" ", [seg.name, seg.subcommand]) if {
	seg.subcommand
	seg.name != ""
} else := seg.name if {
	seg.name != ""
} else := seg.program

read_message(r) := r.message if {
	r.message != ""
} else := concat("", ["reads ", r.path, " (", r.verdict, ")"])
