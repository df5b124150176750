package policy

import (
	"errors"
	"strings"

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
func (c *Config) GrantFor(seg *classify.Segment) string {
	for _, g := range c.grantPatterns() {
		if g.matches(seg) {
			return g.src
		}
	}
	return ""
}

// SuggestGrant returns the narrowest grant that covers seg: the program,
// its subcommand words, each option as written with a separate value
// replaced by "*", and each operand as written. It reports false when no
// grant can cover the segment (a dynamic word, or a word the grant syntax
// cannot spell).
func SuggestGrant(seg *classify.Segment) (Grant, bool) {
	if !grantable(seg) || strings.ContainsAny(seg.Name, "'\"\\$`;|&<>(){}") {
		return Grant{}, false
	}
	values := map[classify.Span]bool{}
	for _, o := range seg.Options {
		if o.Value != nil && o.Value.Span.Start >= o.Span.Start && o.Value.Span != o.Span {
			values[o.Value.Span] = true
		}
	}
	words := []string{seg.Name}
	for _, a := range seg.Args {
		w := a.Value
		switch {
		case values[a.Span]:
			w = "*"
		case w == "" || w == "*" || w == "**" || strings.ContainsAny(w, " \t\n'\"\\$`;|&<>(){}"):
			return Grant{}, false
		}
		words = append(words, w)
	}
	sp := seg.Span
	return Grant{Pattern: strings.Join(words, " "), Segment: seg.Index, Span: &sp}, true
}
