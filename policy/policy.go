package policy

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/readstation"
)

// Action is what happens to a command.
type Action string

// The actions, from most to least permissive.
const (
	// Allow runs the command.
	Allow Action = "allow"
	// Ask needs a person's approval first.
	Ask Action = "ask"
	// Deny refuses the command.
	Deny Action = "deny"
)

// Valid reports whether a is one of Allow, Ask and Deny.
func (a Action) Valid() bool { return a == Allow || a == Ask || a == Deny }

// MorePermissive reports whether a lets more through than b: allow over
// ask over deny (an unknown action counts as deny).
func (a Action) MorePermissive(b Action) bool { return a.rank() < b.rank() }

func (a Action) rank() int {
	switch a {
	case Allow:
		return 0
	case Ask:
		return 1
	}
	return 2
}

// Modes a decision is made in.
const (
	// ModeDefault asks a person for anything not proven safe.
	ModeDefault = "default"
	// ModeReadonly is for verifier agents: only reversible, station-clean
	// commands run, everything else is denied since nobody is there to ask.
	ModeReadonly = "readonly"
)

// ValidMode reports whether m names a mode.
func ValidMode(m string) bool { return m == ModeDefault || m == ModeReadonly }

// Reason is one reason for a decision.
type Reason struct {
	// Code is a stable lower-case code ("redirect-write", "rm-critical").
	Code string `json:"code"`
	// Message is a sentence for a person.
	Message string `json:"message"`
	// Span locates the reason in the command, when it has a place.
	Span *classify.Span `json:"span,omitempty"`
	// Rule names the rule that produced the reason and where it is
	// ("rm-critical (default.rego:120)").
	Rule string `json:"rule,omitempty"`
	// Segment is the index of the segment the reason is about, or -1.
	Segment int `json:"segment"`
}

// String formats the reason as "code: message".
func (r Reason) String() string { return r.Code + ": " + r.Message }

// Decision is the outcome of a policy evaluation.
type Decision struct {
	Action  Action   `json:"action"`
	Reasons []Reason `json:"reasons"`
	// SuggestedGrants holds, for an ask, one grant per segment that a
	// grant could have allowed: what "always allow this" would write.
	SuggestedGrants []Grant `json:"suggested_grants,omitempty"`
	// NoGrants says, for an ask, why a segment that a grant could have
	// allowed has no suggested grant: a word the grant syntax cannot
	// spell, such as code (python3 -c 'print(1)'), which a grant must keep
	// exactly as written.
	NoGrants []NoGrant `json:"no_grants,omitempty"`
	// Run is how the gate runs the command, as the policy decided it
	// (the default policy's decision.run); nil when the policy gave none,
	// and then Plan fails closed.
	Run *Runs `json:"run,omitempty"`
}

// Runs are the policy's run plans for a command: when no person approved
// it (an allow runs so) and when a person did (an approved ask or
// escalation).
type Runs struct {
	Unapproved RunPlan `json:"unapproved"`
	Approved   RunPlan `json:"approved"`
}

// RunPlan is how the gate runs a command.
type RunPlan struct {
	// Sandbox is the sandbox mode (read-only, workspace-write,
	// full-access) and Why says why the policy chose it.
	Sandbox string `json:"sandbox"`
	Why     string `json:"why"`
	// Network is whether the sandbox lets the command reach the network.
	Network bool `json:"network"`
	// Offline is whether the command's environment is made offline.
	Offline bool `json:"offline"`
	// StationReads is whether the reads the station established are
	// opened in the sandbox.
	StationReads bool `json:"station_reads"`
}

// NoRunPlan is the Why of the plan Plan gives when the policy gave none.
const NoRunPlan = "no-run-plan"

// Plan is the run plan for a command a person approved (approved) or not.
// Without a plan from the policy it fails closed: read-only, no network,
// no reads beyond the roots.
func (d Decision) Plan(approved bool) RunPlan {
	switch {
	case d.Run == nil:
		return RunPlan{Sandbox: "read-only", Why: NoRunPlan}
	case approved:
		return d.Run.Approved
	}
	return d.Run.Unapproved
}

// Input is the document the policy decides on.
type Input struct {
	// Command is the command exactly as given.
	Command string `json:"command"`
	// Mode is ModeDefault or ModeReadonly; empty means the config's mode.
	Mode string `json:"mode"`
	// Cwd is the absolute directory the command runs in.
	Cwd string `json:"cwd"`
	// Shell is the shell that runs the command ("bash", "zsh", "sh"), or
	// "" when it is not known: the report then holds both the bash and the
	// zsh reading (Report.Dialect "bash+zsh").
	Shell string `json:"shell,omitempty"`
	// Report is the classifier's report on Command.
	Report *classify.Report `json:"report"`
	// Station is the read station's verdict (readstation.Station), or nil
	// when the station did not run: the reads are then not established.
	Station any `json:"station,omitempty"`
	// Config is the configuration in effect; nil means the defaults.
	Config *Config `json:"config"`
	// Writes is where each of the report's writes lands
	// (readstation.JudgeWrites on the command's boundary), which the facts
	// carry to the policy. The engine refuses (deny, policy-error) an
	// input whose report writes when it is nil: policy does no file-system
	// I/O of its own.
	Writes *readstation.Writes `json:"-"`
	// Env is what was known of the environment the command runs in when
	// the station judged it (readstation.Boundary.Env), so that a second
	// reading of the same command (the whole, untrusted configuration's)
	// knows as much; not part of the policy's input document.
	Env readstation.Env `json:"-"`
	// AgentApprovals maps a segment's index to the rule of the agent's
	// own settings that allows it (package agentrules matched it as the
	// agent does), which the facts carry to the policy
	// (facts.segments[i].agent_rule). Nil: none.
	AgentApprovals map[int]AgentApproval `json:"-"`
	// Confinement is what the sandbox that will run the command can
	// enforce on this machine, when the command is to run (nil: not
	// known, as for a check): a rule may ask when a protection the
	// command relies on is missing here.
	Confinement *Confinement `json:"confinement,omitempty"`
}

// Confinement is what a runner's sandbox can enforce on this machine
// (execution.SandboxSupport, as facts for the policy).
type Confinement struct {
	// Mechanism is "landlock", "seatbelt", or "" (commands cannot be
	// confined here: Unavailable says why).
	Mechanism string `json:"mechanism"`
	// ABI is the Landlock ABI version (0 elsewhere).
	ABI int `json:"abi"`
	// NetworkGuard is how the network is denied: "netns",
	// "userns+netns", "landlock-tcp" (TCP only), "seatbelt" or "" (not).
	NetworkGuard string `json:"network_guard"`
	// Isolation is the process isolation every confined command gets:
	// "no-caps", "no_new_privs", "rlimits", "pidns", "seccomp",
	// "pids-cgroup" (workspace-write adds "mountns" where it can).
	Isolation []string `json:"isolation"`
	// Missing are the protections this machine cannot give a confined
	// command, each "name: why" (name "mountns": the protected paths are
	// only checked after the run; "pidns": the command sees and outlives
	// as the host's processes do; "pids-cgroup": processes are bounded
	// by RLIMIT_NPROC alone and not ended with the run; "netns": UDP and
	// DNS are not guarded).
	Missing []string `json:"missing"`
	// Unavailable says why commands cannot be confined ("" when they can).
	Unavailable string `json:"unavailable,omitempty"`
}

// AgentApproval is a rule of a coding agent's own settings that allows a
// segment: what the person already allowed the agent to run.
type AgentApproval struct {
	// Agent is the agent ("claude", "codex", "gemini").
	Agent string `json:"agent"`
	// Rule is the rule as the agent spells it ("Bash(npm test)").
	Rule string `json:"rule"`
	// File is the settings file it is in.
	File string `json:"file"`
	// Scope is "user", "managed" or "project" (a trusted project file).
	Scope string `json:"scope"`
}

// PolicyError is the reason code of a decision the policy could not make:
// an evaluation error, an undefined or malformed decision. It is a deny.
const PolicyError = "policy-error"

// InternalError is the reason code of a decision shellgate itself failed to
// make (a bug caught at run time: a panic while classifying, judging reads
// or deciding). It is a deny.
const InternalError = "internal-error"

// ErrorDecision is the fail-closed decision for a policy that could not
// decide: deny with code PolicyError.
func ErrorDecision(format string, args ...any) Decision {
	return Decision{Action: Deny, Reasons: []Reason{{
		Code: PolicyError, Message: fmt.Sprintf(format, args...), Segment: -1,
	}}}
}

// SortReasons orders reasons by span start, then code, then message;
// reasons without a span come first.
func SortReasons(rs []Reason) {
	slices.SortStableFunc(rs, func(a, b Reason) int {
		as, bs := -1, -1
		if a.Span != nil {
			as = a.Span.Start
		}
		if b.Span != nil {
			bs = b.Span.Start
		}
		if c := cmp.Compare(as, bs); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Code, b.Code); c != 0 {
			return c
		}
		return cmp.Compare(a.Message, b.Message)
	})
}

// Codes returns the reasons' codes in order.
func (d Decision) Codes() []string {
	out := make([]string, len(d.Reasons))
	for i, r := range d.Reasons {
		out[i] = r.Code
	}
	return out
}
