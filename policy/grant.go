package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/shellgate/shellgate/classify"
)

// Grant is a per-segment permission in the config's grant syntax, as
// suggested for one segment of an asked command.
//
// The grant syntax is a line of words separated by spaces. The first word
// is the program name (as resolved: no path, no quotes). Each further word
// matches one argument literally, except "*", which matches any one
// argument, and "**", allowed only as the last word, which matches any
// number of further arguments (none included). Grants match only static
// words: a segment with a substitution, a parameter, a glob or a "~" in any
// argument is never granted, nor a path-prefixed or dynamic program.
// A grant covers its segment alone, never a redirect, another segment of a
// list or pipeline, nor a substitution inside it.
//
// Examples: "make lint", "go test ./...", "npm test **", "go test -run * **".
type Grant struct {
	// Pattern is the grant in the grant syntax.
	Pattern string `json:"grant"`
	// Segment is the index of the segment the grant is for.
	Segment int `json:"segment"`
	// Span covers the segment in the command.
	Span *classify.Span `json:"span,omitempty"`
}

// NoGrant says why a segment has no suggested grant.
type NoGrant struct {
	// Segment is the index of the segment.
	Segment int `json:"segment"`
	// Span covers the segment in the command.
	Span *classify.Span `json:"span,omitempty"`
	// Why is the reason, for a person.
	Why string `json:"why"`
}

// grantPattern is a parsed grant.
type grantPattern struct {
	src   string
	words []string
	rest  bool // ends in "**"
}

// ParseGrant checks a grant written in the grant syntax.
func ParseGrant(s string) (grantPattern, error) {
	words := strings.Fields(s)
	if len(words) == 0 {
		return grantPattern{}, errors.New("empty grant")
	}
	g := grantPattern{src: s}
	for i, w := range words {
		if strings.ContainsAny(w, "'\"\\$`;|&<>(){}") {
			return grantPattern{}, errors.New("grant words are literal: no quotes, escapes, substitutions, operators or redirects (" + w + ")")
		}
		switch {
		case i == 0 && (w == "*" || w == "**"):
			return grantPattern{}, errors.New("the first word must be a program name, not a wildcard")
		case i == 0 && strings.Contains(w, "/"):
			return grantPattern{}, errors.New("the program must be a name, not a path (" + w + ")")
		case w == "**" && i != len(words)-1:
			return grantPattern{}, errors.New(`"**" may only be the last word`)
		case w == "**":
			g.rest = true
			continue
		}
		g.words = append(g.words, w)
	}
	return g, nil
}

// String returns the grant as written.
func (g grantPattern) String() string { return g.src }

// matches reports whether the grant covers the segment's words.
func (g grantPattern) matches(seg *classify.Segment) bool {
	if !grantable(seg) || seg.Name != g.words[0] {
		return false
	}
	pat := g.words[1:]
	if len(seg.Args) < len(pat) || (!g.rest && len(seg.Args) != len(pat)) {
		return false
	}
	for i, w := range pat {
		if w != "*" && w != seg.Args[i].Value {
			return false
		}
	}
	return true
}

// grantable reports whether any grant could cover the segment: its program
// and every argument are static.
func grantable(seg *classify.Segment) bool {
	if seg.Name == "" || seg.DynamicProgram || seg.PathPrefixed {
		return false
	}
	for _, a := range seg.Args {
		if !a.Static() {
			return false
		}
	}
	return true
}

// MatchGrant reports whether the grant (in the grant syntax) covers seg.
// A grant that does not parse covers nothing.
func MatchGrant(grant string, seg *classify.Segment) bool {
	g, err := ParseGrant(grant)
	return err == nil && g.matches(seg)
}

// GrantFor returns the first of the config's grants that covers seg, or "".
// A project config's grant that covers seg only by a wildcard over an
// argument carrying code does not cover it (see Config.Source).
func (c *Config) GrantFor(seg *classify.Segment) string {
	g, _ := c.grantFor(seg)
	return g
}

// grantFor returns the grant that covers seg, and, when there is none, why
// a project grant that matches it was refused ("" when none was).
func (c *Config) grantFor(seg *classify.Segment) (grant, refused string) {
	for _, g := range c.grantPatterns() {
		if !g.matches(seg) {
			continue
		}
		if c.Source == SourceProject {
			if code, ok := g.overCode(seg); ok {
				if refused == "" {
					refused = fmt.Sprintf("the grant %q of the project config %s puts a wildcard over code here (%s), and a project's config cannot grant that: grant the exact command, or put the grant in your own config (%s)",
						g.src, c.where(), CodeWhat(seg, code), userConfigHint())
				}
				continue
			}
		}
		return g.src, ""
	}
	return "", refused
}

// userConfigHint names the user's config file.
func userConfigHint() string {
	if ucd, err := os.UserConfigDir(); err == nil {
		return filepath.Join(ucd, "shellgate", "config.yaml")
	}
	return "the user config directory's shellgate/config.yaml"
}

// SuggestGrant returns the narrowest grant that covers seg: the program,
// its subcommand words, each option as written with a separate value
// replaced by "*", and each operand as written. A segment with an argument
// that carries code or a command (the report's Segment.Code, from the
// catalog's carries: python -c CODE, git -c KEY=VALUE, make -f MAKEFILE,
// env CMD...) gets the exact segment, every word as written: a wildcard
// there could allow any code at all. It reports false when no
// grant can cover the segment; GrantOrWhy says why.
func SuggestGrant(seg *classify.Segment) (Grant, bool) {
	g, why := GrantOrWhy(seg)
	return g, why == ""
}

// GrantOrWhy is SuggestGrant that says why there is no grant: a dynamic
// word, or a word the grant syntax cannot spell (one that carries code
// included, since it must be kept exactly as written). The reason is ""
// when a grant is returned.
func GrantOrWhy(seg *classify.Segment) (Grant, string) {
	if seg.Name == "" || seg.DynamicProgram {
		return Grant{}, "the program is only known at run time"
	}
	if seg.PathPrefixed {
		return Grant{}, "the program is run by path, and a grant names a program"
	}
	if !spellable(seg.Name) {
		return Grant{}, "the program name " + strconv.Quote(seg.Name) + " cannot be written in the grant syntax"
	}
	for _, a := range seg.Args {
		if !a.Static() {
			return Grant{}, "the argument " + strconv.Quote(a.Value) + " is only known at run time"
		}
	}
	values := map[classify.Span]bool{}
	for _, o := range seg.Options {
		if len(seg.Code) == 0 && o.Value != nil && o.Value.Span.Start >= o.Span.Start && o.Value.Span != o.Span {
			values[o.Value.Span] = true
		}
	}
	words := []string{seg.Name}
	for _, a := range seg.Args {
		w := a.Value
		code, isCode := codeAt(seg, a.Span)
		switch {
		case values[a.Span] && !isCode:
			w = "*"
		case !spellable(w):
			if isCode {
				return Grant{}, CodeWhat(seg, code) + ", which a grant keeps exactly as written, and " +
					strconv.Quote(w) + " cannot be written in the grant syntax (no spaces, quotes, $, ;, |, &, <, >, (, ), {, } or a bare * or **)"
			}
			return Grant{}, "the argument " + strconv.Quote(w) + " cannot be written in the grant syntax (no spaces, quotes, $, ;, |, &, <, >, (, ), {, } or a bare * or **)"
		}
		words = append(words, w)
	}
	sp := seg.Span
	return Grant{Pattern: strings.Join(words, " "), Segment: seg.Index, Span: &sp}, ""
}

// grantSpecial are the characters a grant word cannot hold.
const grantSpecial = "'\"\\$`;|&<>(){}"

// spellable reports whether a grant can hold w as a literal word: not
// empty, not a wildcard, no white space (as strings.Fields splits) and no
// grantSpecial character.
func spellable(w string) bool {
	if w == "" || w == "*" || w == "**" || strings.ContainsAny(w, grantSpecial) {
		return false
	}
	return !strings.ContainsFunc(w, unicode.IsSpace)
}

// codeAt returns the argument carrying code that overlaps sp.
func codeAt(seg *classify.Segment, sp classify.Span) (classify.CodeArg, bool) {
	for _, c := range seg.Code {
		if sp.Start < c.Span.End && c.Span.Start < sp.End {
			return c, true
		}
	}
	return classify.CodeArg{}, false
}

// carriesPhrase says what an argument that carries code holds.
var carriesPhrase = map[string]string{
	classify.CarriesCode:    "code",
	classify.CarriesCommand: "a command",
	classify.CarriesFile:    "the file whose code runs",
	classify.CarriesModule:  "the module or package that runs",
	classify.CarriesConfig:  "settings that can name a program to run",
}

// rolePhrase names an operand role that carries code, for a person.
var rolePhrase = map[string]string{
	string(classify.RoleScript): "the script", string(classify.RoleCommand): "the command",
	string(classify.RoleExec): "the script file", string(classify.RoleSource): "the script file",
	string(classify.RoleSed): "the sed program", string(classify.RoleAwk): "the awk program",
	string(classify.RoleJq): "the jq program",
}

// CodeWhat says, for a person, what the argument c of seg carries:
// "python3 -c takes code", "the command operand of xargs is a command",
// "an operand of make is code".
func CodeWhat(seg *classify.Segment, c classify.CodeArg) string {
	what := carriesPhrase[c.Carries]
	if what == "" {
		what = "code"
	}
	if strings.HasPrefix(c.Via, "-") {
		return seg.Name + " " + c.Via + " takes " + what
	}
	name := seg.Name
	if seg.Subcommand != "" {
		name += " " + seg.Subcommand
	}
	if p := rolePhrase[c.Via]; p != "" {
		return p + " operand of " + name + " is " + what
	}
	return "an operand of " + name + " is " + what
}

// WildcardOverCode reports the first argument carrying code (the report's
// Segment.Code) that a wildcard of the grant covers in seg, when the grant
// matches seg: "python3 -c *" on python3 -c 'print(1)', "env **" on env
// rm x. Such a grant allows any code at all there.
func WildcardOverCode(grant string, seg *classify.Segment) (classify.CodeArg, bool) {
	g, err := ParseGrant(grant)
	if err != nil || !g.matches(seg) {
		return classify.CodeArg{}, false
	}
	return g.overCode(seg)
}

// overCode is WildcardOverCode for a parsed grant that matches seg.
func (g grantPattern) overCode(seg *classify.Segment) (classify.CodeArg, bool) {
	if len(seg.Code) == 0 {
		return classify.CodeArg{}, false
	}
	pat := g.words[1:]
	for i, a := range seg.Args {
		if i < len(pat) && pat[i] != "*" {
			continue
		}
		if c, ok := codeAt(seg, a.Span); ok {
			return c, true
		}
	}
	return classify.CodeArg{}, false
}
