package corpus

import (
	"fmt"
	"sort"
	"strings"

	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/readstation"
)

// Actions a decision can take: the policy's, as the strings a case file
// holds.
const (
	Allow = string(policy.Allow)
	Ask   = string(policy.Ask)
	Deny  = string(policy.Deny)
)

// Modes a case is judged in: the policy's.
const (
	ModeDefault  = policy.ModeDefault
	ModeReadonly = policy.ModeReadonly
)

// Case is one command with the decision it must get.
type Case struct {
	// Name identifies the case: "file:line", followed by the name given in
	// YAML, and by " [readonly]" for a case derived for readonly mode.
	Name string `json:"name"`
	// File and Line locate the case in its source.
	File string `json:"file"`
	Line int    `json:"line"`
	// Command is the command to judge, exactly as the agent would send it.
	Command string `json:"command"`
	// Mode is ModeDefault or ModeReadonly.
	Mode string `json:"mode"`
	// Shell is the shell that runs the command ("bash", "zsh", "sh"), or
	// "" when it is not known (judged as both bash and zsh).
	Shell string `json:"shell,omitempty"`
	// Cwd is the directory the command runs in, relative to the workspace
	// ("" is the workspace), or "~/…" relative to the home directory.
	Cwd string `json:"cwd,omitempty"`
	// Fixture is the tree laid out before the case is judged.
	Fixture Fixture `json:"-"`
	// Config, when not nil, is the configuration the case is judged
	// under (a YAML file's config key) instead of the run's; ConfigKey is
	// its canonical YAML text.
	Config    *policy.Config `json:"-"`
	ConfigKey string         `json:"-"`
	// Expect is the decision the case must get.
	Expect Expect `json:"expect"`
	// Derived is set when the case was derived from another mode's case.
	Derived bool `json:"derived,omitempty"`
}

// Expect is what a case's decision must be. Only Action is required; every
// other field is checked only when given.
type Expect struct {
	// Action is allow, ask or deny.
	Action string `json:"action"`
	// Reasons are reason codes that must all be among the decision's
	// reasons (others may appear too).
	Reasons []string `json:"reasons,omitempty"`
	// Reversible, when set, is the classifier's reversible verdict.
	Reversible *bool `json:"reversible,omitempty"`
	// Reads maps a read as written in the command ("~/.ssh/id_rsa") to the
	// read station's verdict for it (ok, denied, outside-roots,
	// not-established, missing).
	Reads map[string]string `json:"reads,omitempty"`
	// ExitMeaning, when set, is what an exit code of the command means.
	ExitMeaning *ExitMeaning `json:"exit_meaning,omitempty"`
}

// ExitMeaning is the expected meaning of one exit code.
type ExitMeaning struct {
	Code int `json:"code"`
	// Error, when set, is whether the code is a real error.
	Error *bool `json:"error,omitempty"`
	// Message, when not empty, must equal the meaning's message.
	Message string `json:"message,omitempty"`
}

// validActions, validModes and validShells are the accepted spellings.
var (
	validActions = map[string]bool{Allow: true, Ask: true, Deny: true}
	validModes   = map[string]bool{ModeDefault: true, ModeReadonly: true}
	validShells  = map[string]bool{"bash": true, "zsh": true, "sh": true, "unknown": true}
	validVerdict = map[string]bool{
		string(readstation.VerdictOK): true, string(readstation.VerdictDenied): true,
		string(readstation.VerdictOutsideRoots): true, string(readstation.VerdictNotEstablished): true,
		string(readstation.VerdictMissing): true, "repo-helper": true,
	}
)

// Derive returns the case a default-mode case implies in readonly mode, as
// the design states it: a read-only verifier runs only what default mode
// allows outright (reversible and station-clean); everything default mode
// would ask a person about or deny is denied, since there is nobody to ask.
// Reason codes carry over: the same findings make the command unsafe. The
// reversible verdict and read verdicts do not depend on the mode and carry
// over too; the exit meaning is not re-checked.
func Derive(c Case, mode string) (Case, error) {
	if c.Mode != ModeDefault {
		return Case{}, fmt.Errorf("%s: can only derive from a default-mode case", c.Name)
	}
	if mode != ModeReadonly {
		return Case{}, fmt.Errorf("%s: cannot derive a case for mode %q", c.Name, mode)
	}
	d := c
	d.Mode = mode
	d.Derived = true
	d.Name = c.Name + " [" + mode + "]"
	d.Expect.ExitMeaning = nil
	if c.Expect.Action != Allow {
		d.Expect.Action = Deny
	}
	return d, nil
}

// String renders the expectation compactly: "ask [redirect-write]".
func (e Expect) String() string {
	var b strings.Builder
	b.WriteString(e.Action)
	if len(e.Reasons) > 0 {
		b.WriteString(" [" + strings.Join(e.Reasons, " ") + "]")
	}
	if e.Reversible != nil {
		fmt.Fprintf(&b, " reversible=%t", *e.Reversible)
	}
	if len(e.Reads) > 0 {
		keys := make([]string, 0, len(e.Reads))
		for k := range e.Reads {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " read %s=%s", k, e.Reads[k])
		}
	}
	if e.ExitMeaning != nil {
		fmt.Fprintf(&b, " exit %d", e.ExitMeaning.Code)
		if e.ExitMeaning.Error != nil {
			fmt.Fprintf(&b, " error=%t", *e.ExitMeaning.Error)
		}
		if e.ExitMeaning.Message != "" {
			fmt.Fprintf(&b, " %q", e.ExitMeaning.Message)
		}
	}
	return b.String()
}
