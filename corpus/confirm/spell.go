package confirm

import (
	"regexp"
	"sort"
	"strings"

	"github.com/shellgate/shellgate/classify"
)

// Spelling is one generated command for a catalog entry.
type Spelling struct {
	// Entry is the catalog entry ("nm", "git log").
	Entry string
	// Program is the top-level program ("git").
	Program string
	// Command is the command line.
	Command string
}

// spelled is a Spelling with the decoy operand variant it ends with (one
// of fileVariants), or "" for the entry or option alone.
type spelled struct {
	Spelling
	operand string
}

// Decoy operands: a file, a directory, stdin, a response file, a remote
// file, a glob. Paths are relative to the decoy workspace.
var fileVariants = []string{"data/plain.txt", "src", "-", "@.env", "localhost:data/plain.txt", "*.md"}

// placeholder values tried, in order, for a role or an option value that
// must match a pattern; the first that matches is used.
var candidates = []string{
	"1", "data/plain.txt", "HEAD", "main", "origin", "show", "passwd", "x", "alpha", "auto", "json",
	"%s", ".", "10", "README.md", "src", "-", "name", "all", "always", "never", "short", "utf-8", "k",
}

func pick(re string, def string) (string, bool) {
	if re == "" {
		return def, true
	}
	m, err := regexp.Compile(re)
	if err != nil {
		return "", false
	}
	if m.MatchString(def) {
		return def, true
	}
	for _, c := range candidates {
		if m.MatchString(c) {
			return c, true
		}
	}
	return "", false
}

// roleValue is the decoy value of an operand role; file is the variant a
// path-like role takes.
func roleValue(r classify.OperandSpec, file string) (string, bool) {
	def := "x"
	switch r.Role {
	case classify.RoleFile, classify.RoleTree, classify.RoleAny, classify.RoleSource, "lists":
		def = file
	case classify.RoleDir:
		def = "src"
		if file != "data/plain.txt" {
			def = file
		}
	case classify.RoleGitpath:
		def = "HEAD"
		if file != "data/plain.txt" {
			def = file
		}
	case classify.RolePattern:
		def = "alpha"
	case classify.RoleNumber:
		def = "1"
	case classify.RoleName:
		def = "origin"
	case classify.RoleText:
		def = "x"
	case classify.RoleJq:
		def = "."
	case classify.RoleAwk:
		def = "{print}"
	case classify.RoleSed:
		def = "p"
	case classify.RoleCommand, classify.RoleScript:
		def = "true"
	case classify.RoleWrite, classify.RoleDelete, classify.RoleExec, classify.RoleURL, classify.RoleAssign:
		return "", false
	}
	return pick(r.Match, def)
}

// operandsFor fills the roles with decoy values, one word per role.
func operandsFor(roles []classify.OperandSpec, file string) ([]string, bool) {
	var out []string
	for _, r := range roles {
		if r.Effect != "" && r.Else == "" {
			return nil, false // an operand with an effect of its own is not a read-only spelling
		}
		v, ok := roleValue(r, file)
		if !ok {
			if r.Optional {
				continue
			}
			return nil, false
		}
		out = append(out, quote(v))
	}
	return out, true
}

// quote leaves globs and @file unquoted and quotes anything else that the
// shell would split.
func quote(s string) string {
	if s == "*.md" || !strings.ContainsAny(s, " \t'\"$`\\|&;<>()*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// safeOption reports whether an option may belong to a read-only spelling:
// none of its effects is one the catalog calls dangerous.
var unsafeEffects = map[classify.Effect]bool{
	classify.EffectWrite: true, classify.EffectExec: true, classify.EffectFollow: true,
	classify.EffectDevice: true, classify.EffectNetwork: true, classify.EffectWritesFile: true,
	classify.EffectScript: true, classify.EffectCommand: true, classify.EffectInteract: true,
	classify.EffectPrivilege: true, classify.EffectDestroy: true, classify.EffectEnvPrint: true,
	classify.EffectStdin: true,
}

func safeOption(o *classify.OptSpec) bool {
	for _, e := range o.Effects {
		if unsafeEffects[e] {
			return false
		}
	}
	return true
}

// optionWords spells an option with a value when it needs one.
func optionWords(p *classify.Program, o *classify.OptSpec) ([]string, bool) {
	name := o.Names[0]
	for _, n := range o.Names {
		if strings.HasPrefix(n, "--") || p.Syntax == "long" {
			name = n
			break
		}
	}
	if o.Value == "" {
		return []string{name}, true
	}
	def := "1"
	for _, e := range o.Effects {
		if e == classify.EffectReadsFile || e == classify.EffectFilesFrom {
			def = "data/plain.txt"
		}
		if e == classify.EffectCwd {
			def = "src"
		}
	}
	v, ok := pick(o.Match, def)
	if !ok {
		return nil, false
	}
	if o.Value == "optional" {
		if strings.HasPrefix(name, "--") {
			return []string{name + "=" + quote(v)}, true
		}
		return []string{name}, true
	}
	if p.Syntax == "keyvalue" {
		return []string{name + "=" + quote(v)}, true
	}
	return []string{name, quote(v)}, true
}

// Spellings generates, for every read-only entry of the catalog (programs
// and subcommands): the entry alone, with each decoy operand, and each
// option the catalog calls safe alone, with a file and with "@.env"; and
// for every program with help: true, --help and --version alone. The gate
// decides which of them are allowed; only those are run.
func Spellings(cat *classify.Catalog) []Spelling {
	sp := spellings(cat)
	out := make([]Spelling, len(sp))
	for i, s := range sp {
		out[i] = s.Spelling
	}
	return out
}

// spellings is Spellings with each spelling's operand variant.
func spellings(cat *classify.Catalog) []spelled {
	var out []spelled
	seen := map[string]bool{}
	add := func(entry, prog, operand string, words []string) {
		c := strings.Join(words, " ")
		if seen[c] {
			return
		}
		seen[c] = true
		out = append(out, spelled{Spelling{Entry: entry, Program: prog, Command: c}, operand})
	}
	var walk func(p *classify.Program, prefix []string, top string)
	walk = func(p *classify.Program, prefix []string, top string) {
		words := append(append([]string{}, prefix...), p.Name)
		entry := strings.Join(words, " ")
		if p.ReadOnly {
			add(entry, top, "", words)
			for _, f := range fileVariants {
				if ops, ok := operandsFor(p.Operands, f); ok && len(ops) > 0 {
					add(entry, top, f, append(append([]string{}, words...), ops...))
				}
			}
			for _, o := range p.Options {
				if !safeOption(o) {
					continue
				}
				ow, ok := optionWords(p, o)
				if !ok {
					continue
				}
				base := append(append([]string{}, words...), ow...)
				add(entry, top, "", base)
				roles := p.Operands
				if o.Operands != nil {
					roles = o.Operands
				}
				for _, f := range []string{"data/plain.txt", "@.env"} {
					if ops, ok := operandsFor(roles, f); ok && len(ops) > 0 {
						add(entry, top, f, append(append([]string{}, base...), ops...))
					}
				}
			}
		}
		for _, s := range p.Subcommands {
			walk(s, words, top)
		}
	}
	for _, p := range cat.Programs {
		walk(p, nil, p.Name)
		if p.Help {
			// help: true claims --help and --version alone print and exit.
			add(p.Name, p.Name, "", []string{p.Name, "--help"})
			add(p.Name, p.Name, "", []string{p.Name, "--version"})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Program < out[j].Program })
	return out
}

// ReadOnlyPrograms are the top-level programs the catalog claims anything
// read-only of: read_only itself or in a subcommand.
func ReadOnlyPrograms(cat *classify.Catalog) []*classify.Program {
	var out []*classify.Program
	var any func(p *classify.Program) bool
	any = func(p *classify.Program) bool {
		if p.ReadOnly {
			return true
		}
		for _, s := range p.Subcommands {
			if any(s) {
				return true
			}
		}
		return false
	}
	for _, p := range cat.Programs {
		if any(p) {
			out = append(out, p)
		}
	}
	return out
}
