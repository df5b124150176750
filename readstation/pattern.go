package readstation

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/pattern"
)

// This file is the one place that decides what a shell pattern matches.
// The patterns are read by mvdan.cc/sh/v3/pattern, the library whose
// parser classify uses, so bracket expressions ([!x], [^x], [[:alpha:]],
// ranges), escapes and an unmatched "[" mean what they mean to the shell.
// The station keeps its own directory walk, caps and caches: this file
// only answers "does this name match this pattern", in each dialect.

// patternSyntax says whose rules a pattern follows.
type patternSyntax uint8

const (
	// synBash is one component of a pathname expansion in bash or POSIX
	// sh: "*" and "?" never match "/", and a name that begins with "."
	// matches only a pattern that begins with a literal "." (or dots).
	synBash patternSyntax = iota
	// synZsh is one component of a pathname expansion when zsh may run the
	// command: bash's reading, except that a component with a character
	// zsh's options can make an operator (extendedglob's ^ # ~, the
	// grouping ( | ), <n-m> ranges) cannot be matched with certainty.
	synZsh
	// synFnmatch is fnmatch(3) without flags, as grep --exclude and find
	// -name use it: "*", "?" and brackets match a leading "." too.
	synFnmatch
)

// errUncertain marks a pattern the station cannot match with certainty; a
// read that depends on it is not established.
var errUncertain = errors.New("cannot be matched with certainty")

// compiledPattern is a pattern read once, matched many times.
type compiledPattern struct {
	syn patternSyntax
	// dotLit: the pattern begins with a literal "." (bash and zsh match a
	// leading dot only then).
	dotLit bool
	// Exactly one of these is used: lit (no metacharacter), stars (only
	// "*" between literal parts: parts[0]*parts[1]*...), re.
	lit     string
	isLit   bool
	stars   []string
	re      *regexp.Regexp
	bracket bool // a bracket expression or "?": the locale may matter
	err     error
}

// patternCache holds compiled patterns; a pattern is compiled once per
// process (bounded: cleared when full).
var patternCache struct {
	sync.RWMutex
	m map[patternKey]*compiledPattern
}

type patternKey struct {
	pat string
	syn patternSyntax
}

const maxPatternCache = 4096

// compilePattern reads pat in syntax syn (cached).
func compilePattern(pat string, syn patternSyntax) *compiledPattern {
	k := patternKey{pat, syn}
	patternCache.RLock()
	c, ok := patternCache.m[k]
	patternCache.RUnlock()
	if ok {
		return c
	}
	c = newPattern(pat, syn)
	patternCache.Lock()
	if patternCache.m == nil || len(patternCache.m) >= maxPatternCache {
		patternCache.m = map[patternKey]*compiledPattern{}
	}
	patternCache.m[k] = c
	patternCache.Unlock()
	return c
}

func newPattern(pat string, syn patternSyntax) *compiledPattern {
	c := &compiledPattern{syn: syn}
	c.dotLit = strings.HasPrefix(pat, ".") || strings.HasPrefix(pat, `\.`)
	if strings.IndexByte(pat, 0) >= 0 {
		// No shell word holds a NUL; the library reads one as the end.
		c.err = fmt.Errorf("%q holds a NUL byte (%w)", pat, errUncertain)
		return c
	}
	if syn == synZsh {
		if op := zshOperator(pat); op != 0 {
			c.err = fmt.Errorf("%q: zsh may read %q as a glob operator (%w)", pat, op, errUncertain)
			return c
		}
	}
	if extglobOperator(pat) && syn != synFnmatch {
		// classify gives extended patterns as dynamic words; one that
		// reaches the station is not matched on a guess.
		c.err = fmt.Errorf("%q: an extended pattern (%w)", pat, errUncertain)
		return c
	}
	if !strings.ContainsAny(pat, `?[\`) {
		if !strings.Contains(pat, "*") {
			c.lit, c.isLit = pat, true
		} else {
			c.stars = strings.Split(pat, "*")
		}
		return c
	}
	if trailingBackslash(pat) {
		c.err = fmt.Errorf("%q ends in a lone backslash (%w)", pat, errUncertain)
		return c
	}
	if !pattern.HasMeta(pat, 0) {
		// Escapes only, or an unmatched "[" (literal, as in bash).
		c.lit, c.isLit = unescape(pat), true
		return c
	}
	if !utf8.ValidString(pat) {
		// The expression reads an invalid byte as U+FFFD, which any
		// invalid byte would match.
		c.err = fmt.Errorf("%q is not valid UTF-8 (%w)", pat, errUncertain)
		return c
	}
	mode := pattern.EntireString | pattern.GlobLeadingDot
	if syn != synFnmatch {
		// Dots are decided below (dotLit), not by the expression.
		mode |= pattern.Filenames | pattern.NoGlobStar
	}
	expr, err := pattern.Regexp(pat, mode)
	if err != nil {
		c.err = fmt.Errorf("%q: %v (%w)", pat, err, errUncertain)
		return c
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		c.err = fmt.Errorf("%q: %v (%w)", pat, err, errUncertain)
		return c
	}
	c.re = re
	c.bracket = strings.ContainsAny(pat, "?[")
	return c
}

// match reports whether name (one path component, or a base name) matches.
// dots lets a pattern match a leading dot without spelling it (zsh's D
// qualifier); fnmatch always does. The error says why a name cannot be
// matched with certainty.
func (c *compiledPattern) match(name string, dots bool) (bool, error) {
	if c.err != nil {
		return false, c.err
	}
	if c.syn != synFnmatch && !dots && strings.HasPrefix(name, ".") && !c.dotLit {
		return false, nil
	}
	switch {
	case c.isLit:
		return name == c.lit, nil
	case c.stars != nil:
		return matchStars(c.stars, name), nil
	}
	if !utf8.ValidString(name) {
		return false, fmt.Errorf("%q is not valid UTF-8 (%w)", name, errUncertain)
	}
	if c.bracket && !isASCII(name) {
		// "?" and bracket expressions depend on the locale for a
		// character outside ASCII (one byte or one character; what
		// [[:alpha:]] holds).
		return false, fmt.Errorf("%q holds a character outside ASCII, which the locale decides for this pattern (%w)", name, errUncertain)
	}
	return c.re.MatchString(name), nil
}

// matchPattern is the one function that decides whether name matches pat
// in syntax syn (dots: see compiledPattern.match).
func matchPattern(pat, name string, syn patternSyntax, dots bool) (bool, error) {
	return compilePattern(pat, syn).match(name, dots)
}

// matchStars matches name against parts[0]*parts[1]*...*parts[n-1].
func matchStars(parts []string, name string) bool {
	first, last := parts[0], parts[len(parts)-1]
	if len(name) < len(first)+len(last) || !strings.HasPrefix(name, first) || !strings.HasSuffix(name, last) {
		return false
	}
	rest := name[len(first) : len(name)-len(last)]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// trailingBackslash reports a backslash that escapes nothing.
func trailingBackslash(pat string) bool {
	n := 0
	for i := len(pat) - 1; i >= 0 && pat[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// zshOperator returns the first unescaped character of pat that zsh's
// options may make a glob operator, or 0. A "^" or "!" that opens a
// bracket expression is negation in every dialect.
func zshOperator(pat string) byte {
	inBracket := false
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '\\':
			i++
		case inBracket:
			if c == ']' {
				inBracket = false
			}
		case c == '[':
			inBracket = true
			if i+1 < len(pat) && (pat[i+1] == '^' || pat[i+1] == '!') {
				i++
			}
			if i+1 < len(pat) && pat[i+1] == ']' {
				i++ // "[]...]" and "[!]...]": the "]" is a member
			}
		case strings.IndexByte("^#~()|<>", c) >= 0:
			return c
		}
	}
	if inBracket {
		return '[' // an unclosed bracket: zsh's "bad pattern"
	}
	return 0
}

// extglobOperator reports an unescaped extended-pattern operator: ?( *(
// +( @( !(.
func extglobOperator(pat string) bool {
	for i := 0; i+1 < len(pat); i++ {
		switch pat[i] {
		case '\\':
			i++
		case '?', '*', '+', '@', '!':
			if pat[i+1] == '(' {
				return true
			}
		}
	}
	return false
}
