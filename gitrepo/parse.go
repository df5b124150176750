package gitrepo

import (
	"fmt"
	"strings"
)

// rawEntry is one key as a config file spells it: its canonical name
// (section and key lower-cased, subsection as written) and its value;
// noValue is a bare key ("[core] bare"), which git passes as NULL and
// reads as true.
type rawEntry struct {
	name    string
	value   string
	noValue bool
}

// SyntaxError is a config file git refuses: git dies with "bad config
// line N in file F", reading nothing of the whole configuration.
type SyntaxError struct {
	Line int
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("bad config line %d", e.Line) }

// parser reads a config file byte by byte exactly as git 2.39's
// config.c (git_parse_source, get_next_char, get_value, parse_value,
// get_base_var, get_extended_base_var) does; the functions keep git's names
// and order so that the two can be read side by side.
type parser struct {
	data   []byte
	pos    int
	eof    bool
	linenr int
	// emit receives each entry as git's callback would, in order; an error
	// ends the parse (git: the callback's error makes the line bad).
	emit func(rawEntry) error
	// emitErr is the callback's error, returned as is.
	emitErr error
}

// git's sane_ctype classes (git-compat-util.h): ASCII only, and isspace is
// space, \t, \n and \r (not \v or \f).
func isSpace(c int) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isAlpha(c int) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c int) bool { return c >= '0' && c <= '9' }
func isAlnum(c int) bool { return isAlpha(c) || isDigit(c) }

// isKeyChar is git's iskeychar: alphanumerics and '-'.
func isKeyChar(c int) bool { return isAlnum(c) || c == '-' }

func lower(c int) int {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

const eofChar = -1

func (p *parser) fgetc() int {
	if p.pos >= len(p.data) {
		return eofChar
	}
	c := p.data[p.pos]
	p.pos++
	return int(c)
}

func (p *parser) ungetc() { p.pos-- }

// getNextChar is get_next_char: \r\n reads as \n, end of file as \n with
// eof set.
func (p *parser) getNextChar() int {
	c := p.fgetc()
	if c == '\r' {
		c = p.fgetc()
		if c != '\n' {
			if c != eofChar {
				p.ungetc()
			}
			c = '\r'
		}
	}
	if c == '\n' {
		p.linenr++
	}
	if c == eofChar {
		p.eof = true
		p.linenr++
		c = '\n'
	}
	return c
}

// parseValue is parse_value: ok false where git returns NULL (an open
// quote at the end of the line, an unknown escape).
func (p *parser) parseValue() (string, bool) {
	var b []byte
	quote, comment, space := false, false, 0
	for {
		c := p.getNextChar()
		if c == '\n' {
			if quote {
				p.linenr--
				return "", false
			}
			return cString(b), true
		}
		if comment {
			continue
		}
		if isSpace(c) && !quote {
			if len(b) > 0 {
				space++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		for ; space > 0; space-- {
			b = append(b, ' ')
		}
		if c == '\\' {
			c = p.getNextChar()
			switch c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
			b = append(b, byte(c))
			continue
		}
		if c == '"' {
			quote = !quote
			continue
		}
		b = append(b, byte(c))
	}
}

// cString is what C sees of a buffer: up to its first NUL.
func cString(b []byte) string {
	s := string(b)
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// getValue is get_value: the rest of a key's name, then "= value" or the
// end of the line. false is a bad line.
func (p *parser) getValue(name []byte) bool {
	var c int
	for {
		c = p.getNextChar()
		if p.eof {
			break
		}
		if !isKeyChar(c) {
			break
		}
		name = append(name, byte(lower(c)))
	}
	for c == ' ' || c == '\t' {
		c = p.getNextChar()
	}
	e := rawEntry{name: cString(name), noValue: true}
	if c != '\n' {
		if c != '=' {
			return false
		}
		v, ok := p.parseValue()
		if !ok {
			return false
		}
		e.value, e.noValue = v, false
	}
	p.linenr--
	if err := p.emit(e); err != nil {
		p.emitErr = err
		return false
	}
	p.linenr++
	return true
}

// getExtendedBaseVar is get_extended_base_var: [section "subsection"].
func (p *parser) getExtendedBaseVar(name *[]byte, c int) bool {
	for {
		if c == '\n' {
			p.linenr--
			return false
		}
		c = p.getNextChar()
		if !isSpace(c) {
			break
		}
	}
	if c != '"' {
		return false
	}
	*name = append(*name, '.')
	for {
		c := p.getNextChar()
		if c == '\n' {
			p.linenr--
			return false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			c = p.getNextChar()
			if c == '\n' {
				p.linenr--
				return false
			}
		}
		*name = append(*name, byte(c))
	}
	return p.getNextChar() == ']'
}

// getBaseVar is get_base_var: [section], [section.sub] (lower-cased) or
// the start of [section "sub"].
func (p *parser) getBaseVar(name *[]byte) bool {
	for {
		c := p.getNextChar()
		if p.eof {
			return false
		}
		if c == ']' {
			return true
		}
		if isSpace(c) {
			return p.getExtendedBaseVar(name, c)
		}
		if !isKeyChar(c) && c != '.' {
			return false
		}
		*name = append(*name, byte(lower(c)))
	}
}

// utf8BOM is the byte order mark git skips at the start of a file.
const utf8BOM = "\xef\xbb\xbf"

// parseSource is git_parse_source. It returns nil, or a *SyntaxError, or
// the error emit returned.
func (p *parser) parseSource() error {
	comment := false
	var v []byte
	baselen := 0
	bom := 0 // bytes of the BOM matched; -1 once past the start
	for {
		c := p.getNextChar()
		if bom >= 0 && bom < len(utf8BOM) {
			if c == int(utf8BOM[bom]) {
				bom++
				continue
			}
			if bom != 0 {
				break // a partial BOM
			}
			bom = -1
		}
		if c == '\n' {
			if p.eof {
				return nil
			}
			comment = false
			continue
		}
		if comment {
			continue
		}
		if isSpace(c) {
			continue
		}
		if c == '#' || c == ';' {
			comment = true
			continue
		}
		if c == '[' {
			v = v[:0]
			if !p.getBaseVar(&v) || len(v) < 1 {
				break
			}
			v = append(v, '.')
			baselen = len(v)
			continue
		}
		if !isAlpha(c) {
			break
		}
		v = append(v[:baselen], byte(lower(c)))
		if !p.getValue(v) {
			break
		}
	}
	if p.emitErr != nil {
		return p.emitErr
	}
	return &SyntaxError{Line: p.linenr}
}

// parseConfig parses data, a config file, calling emit for each entry in
// order (emit may stop the parse with an error, which is returned).
func parseConfig(data []byte, emit func(rawEntry) error) error {
	p := &parser{data: data, linenr: 1, emit: emit}
	return p.parseSource()
}

// ParseFile parses one config file as git reads it, without following its
// includes: the entries in order, and the error (a *SyntaxError) that
// makes git refuse it, with the entries before the bad line (git's
// callbacks saw those before it died).
func ParseFile(data []byte) ([]Entry, error) {
	var out []Entry
	err := parseConfig(data, func(e rawEntry) error {
		out = append(out, Entry{Name: e.name, Value: e.value, NoValue: e.noValue})
		return nil
	})
	return out, err
}
