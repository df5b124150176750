package agentrules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// parseClaude reads the Bash rules of a Claude Code settings file: the
// strings of permissions.allow, permissions.deny and permissions.ask. A
// rule of another tool is not shellgate's; a Bash rule Claude Code would
// reject (":*" alone, a malformed call) is left out.
func parseClaude(_ string, data []byte) ([]Rule, error) {
	var s struct {
		Permissions struct {
			Allow []json.RawMessage `json:"allow"`
			Deny  []json.RawMessage `json:"deny"`
			Ask   []json.RawMessage `json:"ask"`
		} `json:"permissions"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("not Claude Code settings JSON: %v", err)
	}
	var out []Rule
	for _, l := range []struct {
		raw    []json.RawMessage
		action string
	}{{s.Permissions.Allow, ActionAllow}, {s.Permissions.Deny, ActionBlock}, {s.Permissions.Ask, ActionBlock}} {
		for _, raw := range l.raw {
			var text string
			if json.Unmarshal(raw, &text) != nil {
				continue
			}
			r, ok, err := ParseClaudeRule(text)
			if err != nil || !ok {
				continue
			}
			r.Action = l.action
			out = append(out, r)
		}
	}
	return out, nil
}

// ParseClaudeRule parses one Claude Code permission rule as Claude Code
// 2.1.332 does (its bD, ro and Syt): "Tool" or "Tool(content)", with \( \)
// and \\ escaped in content. It reports ok false for a rule of another
// tool, and an error for a Bash rule Claude Code does not read.
func ParseClaudeRule(text string) (Rule, bool, error) {
	r := Rule{Agent: Claude, Text: text}
	if strings.IndexByte(text, 0) >= 0 {
		return r, false, errors.New("NUL in rule")
	}
	open, close := firstUnescaped(text, '('), lastUnescaped(text, ')')
	if open < 0 && close < 0 {
		if text != "Bash" {
			return r, false, nil
		}
		r.kind = kindAll
		return r, true, nil
	}
	if open < 0 || close <= open || close != len(text)-1 || strings.ContainsAny(text[:open], "()") {
		return r, false, fmt.Errorf("malformed rule %q", text)
	}
	if text[:open] != "Bash" {
		return r, false, nil
	}
	raw := text[open+1 : close]
	if raw == "" || raw == "*" {
		r.kind = kindAll
		return r, true, nil
	}
	content := strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(raw, `\(`, "("), `\)`, ")"), `\\`, `\`)
	if content == ":*" {
		return r, false, errors.New("prefix cannot be empty before :*")
	}
	if strings.HasSuffix(content, ":*") && len(content) > 2 {
		r.kind, r.text = kindPrefix, strings.TrimSuffix(content, ":*")
		return r, true, nil
	}
	if hasUnescapedStar(content) {
		re, err := wildcardRE(content)
		if err != nil {
			return r, false, err
		}
		r.kind, r.text, r.re = kindWildcard, content, re
		return r, true, nil
	}
	r.kind, r.text = kindExact, content
	return r, true, nil
}

// firstUnescaped is the index of the first c not preceded by an odd run of
// backslashes, or -1.
func firstUnescaped(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c && !escaped(s, i) {
			return i
		}
	}
	return -1
}

func lastUnescaped(s string, c byte) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == c && !escaped(s, i) {
			return i
		}
	}
	return -1
}

func escaped(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// hasUnescapedStar is Claude Code's mSa: a * not escaped by a backslash.
func hasUnescapedStar(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '*' && !escaped(s, i) {
			return true
		}
	}
	return false
}

// wildcardRE compiles a Claude Code wildcard: * is any run of characters,
// \* a literal star, \\ a backslash, and a trailing " *" also matches
// nothing (Bash(npm *) matches npm). The whole text must match. Blanks in
// the pattern are collapsed as the command's are.
func wildcardRE(p string) (*regexp.Regexp, error) {
	p = collapseBlanks(strings.TrimSpace(p))
	var b strings.Builder
	b.WriteString(`\A`)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p) && (p[i+1] == '*' || p[i+1] == '\\'):
			b.WriteString(regexp.QuoteMeta(p[i+1 : i+2]))
			i++
		case c == '*':
			if i == len(p)-1 && i > 0 && p[i-1] == ' ' {
				// " *" at the end: the space is optional too.
				s := b.String()
				b.Reset()
				b.WriteString(strings.TrimSuffix(s, " "))
				b.WriteString(`(?: .*)?`)
				continue
			}
			b.WriteString(`.*`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	return regexp.Compile(b.String())
}
