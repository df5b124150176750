package classify

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// This file holds the catalog's facts about a program that other packages
// read instead of keeping lists of program names: what its exit statuses
// mean (exit, exit_status; package exitmeaning), what kind of program it
// is for the policy (traits; the report's Segment.Traits), and which
// shells there are (dialect).

// ExitStatus values: whose status a program returns (catalog
// "exit_status").
const (
	// ExitStatusOwn is the default: the program's own status.
	ExitStatusOwn = ""
	// ExitStatusCommand: the status is that of the command the program
	// runs (timeout, env, sudo, exec), unless it is one of the program's
	// own exit codes (timeout's 124).
	ExitStatusCommand = "command"
	// ExitStatusZero: the program does not fail (echo, true): a status
	// from 1 to 125 came from another command of the list.
	ExitStatusZero = "zero"
)

// ExitMeaning is what one exit status (or a range of them) means for a
// program: catalog "exit", a mapping from the status ("1", "128", or a
// range "1-100") to a message, or to a mapping {message, error, when,
// command}. A plain message is an outcome, not an error: grep's 1 is "No
// matches found".
type ExitMeaning struct {
	// Message says what the status means. "{code}" in it is replaced by
	// the status (parallel's "{code} of the jobs failed").
	Message string `yaml:"message" json:"message"`
	// Error is set when the status is a failure with a meaning of its own
	// (git's 128); unset, it is an expected outcome (grep's 1).
	Error bool `yaml:"error,omitempty" json:"error,omitempty"`
	// When lists options (any spelling the program knows) of which one
	// must be given for the meaning to apply: jq's 1 means "false or null"
	// only with -e.
	When []string `yaml:"when,omitempty" json:"when,omitempty"`
	// Command, when set, is the message used when the program runs a
	// command the report names (xargs CMD): "{command}" in it is replaced
	// by that command's name, and what status 1 means for the command is
	// added.
	Command string `yaml:"command,omitempty" json:"command,omitempty"`
}

// exitMeaningKeys are the keys an exit meaning mapping may have.
var exitMeaningKeys = map[string]bool{"message": true, "error": true, "when": true, "command": true}

// UnmarshalYAML accepts a message (an outcome) or a mapping.
func (m *ExitMeaning) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*m = ExitMeaning{Message: n.Value}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: an exit meaning is a message or a mapping", n.Line)
	}
	if err := knownKeys(n, exitMeaningKeys, "exit meaning"); err != nil {
		return err
	}
	type plain ExitMeaning
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*m = ExitMeaning(p)
	return nil
}

// UnmarshalJSON accepts a message (an outcome) or an object.
func (m *ExitMeaning) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*m = ExitMeaning{Message: s}
		return nil
	}
	type plain ExitMeaning
	var p plain
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return err
	}
	*m = ExitMeaning(p)
	return nil
}

// exitRange is one parsed key of a program's exit mapping.
type exitRange struct {
	lo, hi int
	m      *ExitMeaning
}

// parseExitKey reads "N" or "N-M", 1 <= N <= M <= 255.
func parseExitKey(k string) (lo, hi int, err error) {
	a, b, isRange := strings.Cut(k, "-")
	lo, err = strconv.Atoi(a)
	if err != nil || a != strconv.Itoa(lo) {
		return 0, 0, fmt.Errorf("exit: %q is not a status or a range N-M", k)
	}
	hi = lo
	if isRange {
		hi, err = strconv.Atoi(b)
		if err != nil || b != strconv.Itoa(hi) {
			return 0, 0, fmt.Errorf("exit: %q is not a status or a range N-M", k)
		}
	}
	if lo < 1 || hi > 255 || lo > hi {
		return 0, 0, fmt.Errorf("exit: %q is not within 1-255 (0 is success)", k)
	}
	return lo, hi, nil
}

// Traits name what kind of program a catalog entry is, for the policy
// (catalog "traits", copied to Segment.Traits): the Rego tests these
// instead of keeping lists of program names.
const (
	// TraitShell: a shell, which runs the script it reads from stdin
	// when it is given none (bash, sh, zsh, ksh, fish).
	TraitShell = "shell"
	// TraitRunsScript: runs shell code given as an operand in the
	// current shell (eval, source).
	TraitRunsScript = "runs-script"
	// TraitFormatter: makes a file system or swap area on a device,
	// destroying what was there (mkfs, mkswap, wipefs).
	TraitFormatter = "formatter"
	// TraitStopsSystem: stops or restarts the machine (shutdown, reboot).
	TraitStopsSystem = "stops-system"
	// TraitDeletesMatches: deletes what its filters match under the
	// paths it is given, not the paths themselves (find -delete).
	TraitDeletesMatches = "deletes-matches"
	// TraitSignals: sends signals to the processes its operands name by
	// pid, where -1 means every process (kill).
	TraitSignals = "signals"
)

var knownTraits = map[string]bool{
	TraitShell: true, TraitRunsScript: true, TraitFormatter: true,
	TraitStopsSystem: true, TraitDeletesMatches: true, TraitSignals: true,
}

// exitPlaceholders removes the placeholders an exit message may have.
var exitPlaceholders = strings.NewReplacer("{code}", "", "{command}", "")

// buildFacts validates and indexes the fields of this file (exit,
// exit_status, traits); build calls it once the program's options and
// subcommands are indexed.
func (p *Program) buildFacts(path string) []error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{path}, a...)...))
	}
	if p.LegacyExit1 != "" {
		bad("exit1 is replaced by exit: write exit: {\"1\": %q} (a meaning only an option gives is {message: ..., when: [OPTION]})", p.LegacyExit1)
	}
	switch p.ExitStatus {
	case ExitStatusOwn, ExitStatusZero:
	case ExitStatusCommand:
		if !p.cmdRole {
			bad("exit_status: command on a program that runs no command (no command or script operand)")
		}
	default:
		bad("unknown exit_status %q (want command or zero)", p.ExitStatus)
	}
	for _, t := range p.Traits {
		if !knownTraits[t] {
			bad("unknown trait %q", t)
		}
	}
	// A new slice, never the old one's array: Extend builds programs that
	// another catalog in use shares.
	var exits []exitRange
	keys := make([]string, 0, len(p.Exit))
	for k := range p.Exit {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m := p.Exit[k]
		lo, hi, err := parseExitKey(k)
		if err != nil {
			bad("%v", err)
			continue
		}
		if strings.TrimSpace(m.Message) == "" {
			bad("exit %s: no message", k)
		}
		if m.Command != "" && !strings.Contains(m.Command, "{command}") {
			bad("exit %s: command %q does not name the {command}", k, m.Command)
		}
		for _, s := range []string{m.Message, m.Command} {
			if rest := exitPlaceholders.Replace(s); strings.ContainsAny(rest, "{}") {
				bad("exit %s: %q: only {code} and {command} may be replaced", k, s)
			}
		}
		if strings.Contains(m.Message, "{command}") {
			bad("exit %s: {command} belongs in command, not in message", k)
		}
		for _, w := range m.When {
			if p.optionSpec(w) == nil {
				bad("exit %s: when: %q is not an option of the program or its parents", k, w)
			}
		}
		mm := m
		exits = append(exits, exitRange{lo: lo, hi: hi, m: &mm})
	}
	// A meaning with options comes before one without: it is the more
	// specific. Two of the same kind may not overlap.
	sort.SliceStable(exits, func(i, j int) bool {
		a, b := exits[i], exits[j]
		if a.lo != b.lo {
			return a.lo < b.lo
		}
		return len(a.m.When) > 0 && len(b.m.When) == 0
	})
	for i, a := range exits {
		for _, b := range exits[i+1:] {
			if b.lo <= a.hi && a.lo <= b.hi && (len(a.m.When) == 0) == (len(b.m.When) == 0) {
				bad("exit: statuses %d-%d and %d-%d overlap", a.lo, a.hi, b.lo, b.hi)
			}
		}
	}
	p.exits = exits
	return errs
}

// optionSpec finds the option spelled name in the program or its parents.
func (p *Program) optionSpec(name string) *OptSpec {
	for q := p; q != nil; q = q.parent {
		if o := q.optIndex[name]; o != nil {
			return o
		}
	}
	return nil
}

// ExitMeaningOf returns what status code means for the program run with opts (a
// segment's options, as the report gives them): the program's own
// meaning, else its parent program's (git's 128 holds for every git
// subcommand). A meaning whose options (when) are not among opts does not
// apply. The message is returned with {code} replaced.
func (p *Program) ExitMeaningOf(code int, opts []Opt) (ExitMeaning, bool) {
	for q := p.ready(); q != nil; q = q.parent {
		for _, r := range q.exits { // those with options first
			if code < r.lo || code > r.hi || !q.whenGiven(r.m.When, opts) {
				continue
			}
			m := *r.m
			m.Message = strings.ReplaceAll(m.Message, "{code}", strconv.Itoa(code))
			m.Command = strings.ReplaceAll(m.Command, "{code}", strconv.Itoa(code))
			return m, true
		}
	}
	return ExitMeaning{}, false
}

// whenGiven reports whether one of the options when names was given (or
// when is empty).
func (p *Program) whenGiven(when []string, opts []Opt) bool {
	if len(when) == 0 {
		return true
	}
	for _, w := range when {
		spec := p.optionSpec(w)
		for _, o := range opts {
			if o.Known && spec != nil && (o.Name == spec.Names[0] || o.Written == w) {
				return true
			}
		}
	}
	return false
}

// ProgramOf returns the catalog spec a segment ran: its program, down its
// subcommand path as far as the catalog knows it; nil for a program the
// catalog does not know (in dialect d).
func (c *Catalog) ProgramOf(seg *Segment, d Dialect) *Program {
	if seg.Name == "" {
		return nil
	}
	p := c.LookupIn(seg.Name, d)
	if p == nil {
		return nil
	}
	for _, s := range strings.Fields(seg.Subcommand) {
		q := p.Sub(s)
		if q == nil {
			break
		}
		p = q
	}
	return p
}

// ShellDialect returns the dialect shellgate reads the shell named name
// in (its catalog dialect: bash, zsh or sh), or DialectUnknown when the
// catalog knows no such shell or shellgate does not read its language
// (ksh, fish). A path is reduced to its base name, and a login shell's
// leading "-" dropped.
func (c *Catalog) ShellDialect(name string) Dialect {
	name = strings.TrimSpace(name)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	p := c.Lookup(strings.TrimPrefix(name, "-"))
	if p == nil {
		return DialectUnknown
	}
	switch d := Dialect(p.Dialect); d {
	case DialectBash, DialectZsh, DialectSh:
		return d
	}
	return DialectUnknown
}

// programTraits returns the traits a segment of program p carries.
func programTraits(p *Program) []string {
	if len(p.Traits) == 0 {
		return nil
	}
	return p.Traits
}
