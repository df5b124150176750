package policy

import (
	"fmt"
	"strings"

	"github.com/shellgate/shellgate/classify"
)

// GrantProblem is a grant that puts a wildcard over an argument that
// carries code or a command: "python3 -c *", "bash -c **", "env **". Such
// a grant allows any code at all where the wildcard is.
type GrantProblem struct {
	// Grant is the grant as written.
	Grant string `json:"grant"`
	// Example is a command the grant allows in which a wildcard covers
	// code, the wildcard's word written ANY ("python3 -c ANY").
	Example string `json:"example"`
	// Carries is what the covered argument carries (classify.CarriesCode,
	// ...).
	Carries string `json:"carries"`
	// What says which argument carries code ("python3 -c takes code").
	What string `json:"what"`
}

// String is the problem for a person.
func (p GrantProblem) String() string {
	return fmt.Sprintf("grant %q puts a wildcard over code: %s (it allows %s); grant the exact command instead", p.Grant, p.What, p.Example)
}

// probeWord stands for what a wildcard matches in a probe command.
const probeWord = "ANY"

// LintGrant reports whether the grant can put a wildcard over an argument
// that carries code, judged on the catalog (nil: the embedded one): it
// classifies commands the grant matches, with each wildcard standing for a
// plain word, for each option of the program that carries code (separate
// and glued to its value), and, for "**", for a run of operands and for
// each subcommand with its options, and looks for a wildcard over an
// argument the report lists in Segment.Code. A grant that does not parse,
// has no wildcard, or names a program the catalog does not know reports
// nothing.
func LintGrant(grant string, cat *classify.Catalog) (GrantProblem, bool) {
	g, err := ParseGrant(grant)
	if err != nil {
		return GrantProblem{}, false
	}
	if cat == nil {
		cat = classify.DefaultCatalog()
	}
	prog := cat.Lookup(g.words[0])
	if prog == nil {
		return GrantProblem{}, false
	}
	opts := []classify.Option{classify.WithCatalog(cat)}
	if len(prog.Shells) > 0 {
		// A shell's own builtin (zsh's noglob) is read in that shell.
		opts = append(opts, classify.WithDialect(classify.Dialect(prog.Shells[0])))
	}
	try := func(words []string) (GrantProblem, bool) {
		r := classify.Classify(shellJoin(words), opts...)
		if len(r.Segments) == 0 {
			return GrantProblem{}, false
		}
		seg := &r.Segments[0]
		if !g.matches(seg) {
			return GrantProblem{}, false
		}
		c, ok := g.overCode(seg)
		if !ok {
			return GrantProblem{}, false
		}
		return GrantProblem{Grant: grant, Example: strings.Join(words, " "), Carries: c.Carries, What: CodeWhat(seg, c)}, true
	}
	// base: every "*" a plain word, "**" nothing.
	base := append([]string{}, g.words...)
	for i, w := range base {
		if w == "*" {
			base[i] = probeWord
		}
	}
	if p, ok := try(base); ok {
		return p, true
	}
	// The wildcards stand for what the program (or the subcommand the
	// grant names) takes: its options and subcommands, and the program's
	// own options.
	spec := prog
	if r := classify.Classify(shellJoin(base), opts...); len(r.Segments) > 0 && r.Segments[0].Subcommand != "" {
		for _, n := range strings.Fields(r.Segments[0].Subcommand) {
			if s := spec.Sub(n); s != nil {
				spec = s
			}
		}
	}
	single, runs := probes(spec)
	if spec != prog {
		s, r := probes(&classify.Program{Options: prog.Options})
		single, runs = append(single, s...), append(runs, r...)
	}
	for i, w := range g.words {
		if w != "*" {
			continue
		}
		for _, s := range single {
			words := append([]string{}, base...)
			words[i] = s
			if p, ok := try(words); ok {
				return p, true
			}
		}
	}
	if g.rest {
		for _, run := range runs {
			if p, ok := try(append(append([]string{}, base...), run...)); ok {
				return p, true
			}
		}
	}
	return GrantProblem{}, false
}

// probes returns what a wildcard may stand for in a command of prog:
// single words ("*": a plain word, a code option glued to its value, a
// code option whose value is the next word) and runs of words ("**":
// operands, code options with their values or commands, each subcommand
// followed by its own).
func probes(prog *classify.Program) (single []string, runs [][]string) {
	assign := probeWord + "=" + probeWord // an operand that must look like NAME=VALUE (alias, make)
	single = []string{probeWord, assign}
	runs = [][]string{{probeWord}, {probeWord, probeWord}, {probeWord, probeWord, probeWord}, {assign}}
	var walk func(p *classify.Program, prefix []string, depth int)
	walk = func(p *classify.Program, prefix []string, depth int) {
		with := func(ws ...string) []string { return append(append([]string{}, prefix...), ws...) }
		if len(prefix) > 0 {
			runs = append(runs, with(probeWord), with(probeWord, probeWord), with(probeWord, probeWord, probeWord))
		}
		for _, o := range p.Options {
			if o.CarriesWhat() == "" {
				continue
			}
			for _, n := range o.Names {
				switch {
				case o.Value != "":
					runs = append(runs, with(n, probeWord))
					single = append(single, n)
					glued := n + probeWord // -cCODE
					if len(n) > 2 {
						glued = n + "=" + probeWord // --eval=CODE, -toolexec=CMD
					}
					single = append(single, glued)
					runs = append(runs, with(glued))
				case len(o.Terminator) > 0:
					runs = append(runs, with(n, probeWord, probeWord, o.Terminator[0]), with(n, probeWord))
				default:
					runs = append(runs, with(n, probeWord), with(n))
					single = append(single, n)
				}
			}
		}
		if depth >= 3 {
			return
		}
		for _, s := range p.Subcommands {
			walk(s, append(append([]string{}, prefix...), s.Name), depth+1)
		}
	}
	walk(prog, nil, 0)
	return single, runs
}

// shellJoin quotes each word for bash.
func shellJoin(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(w, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}
