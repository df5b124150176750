package hook

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// A small TOML reader for Codex's config.toml: enough of TOML 1.0 (and the
// 1.1 relaxations Codex's parser accepts) to find hooks.state, projects and
// features, and to know where a value sits in the text so that one value can
// be replaced without touching the rest of the file. Anything it cannot read
// is an error, never a guess.

// tomlTable is a TOML table and how it was defined.
type tomlTable struct {
	vals map[string]any // *tomlTable, []*tomlTable (array of tables), or a value
	kind tableKind
	// end is, for a table defined by a [header], the offset just after its
	// header line: where a new key of the table can be inserted.
	end int
}

type tableKind int

const (
	tableImplicit  tableKind = iota // created as the parent of something else
	tableHeader                     // [a.b]
	tableDotted                     // a.b.c = 1 defines a and a.b
	tableInline                     // {…}: closed, nothing may be added
	tableArrayElem                  // [[a]]
)

// tomlValueSpan is where a key's value sits in the text: [start, end).
type tomlValueSpan struct {
	path       []string
	start, end int
}

type tomlDoc struct {
	root  *tomlTable
	spans []tomlValueSpan
}

func newTable(kind tableKind) *tomlTable {
	return &tomlTable{vals: map[string]any{}, kind: kind}
}

// lookup returns the value at path (tables are *tomlTable).
func (d *tomlDoc) lookup(path ...string) (any, bool) {
	var cur any = d.root
	for _, p := range path {
		t, ok := cur.(*tomlTable)
		if !ok {
			return nil, false
		}
		v, ok := t.vals[p]
		if !ok {
			return nil, false
		}
		cur = v
	}
	return cur, true
}

// span returns where the value at path is written, when it is one value on
// its own (not inside an inline table or array).
func (d *tomlDoc) span(path ...string) (tomlValueSpan, bool) {
	for _, s := range d.spans {
		if equalPath(s.path, path) {
			return s, true
		}
	}
	return tomlValueSpan{}, false
}

func equalPath(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type tomlParser struct {
	src  string
	pos  int
	doc  *tomlDoc
	cur  *tomlTable
	path []string // of cur
}

// tomlError is a parse error with its line.
type tomlError struct {
	line int
	msg  string
}

func (e *tomlError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func (p *tomlParser) fail(format string, a ...any) error {
	return &tomlError{line: 1 + strings.Count(p.src[:min(p.pos, len(p.src))], "\n"), msg: fmt.Sprintf(format, a...)}
}

// parseTOML reads a TOML document.
func parseTOML(src string) (*tomlDoc, error) {
	if !utf8.ValidString(src) {
		return nil, &tomlError{line: 1, msg: "not valid UTF-8"}
	}
	p := &tomlParser{src: src, doc: &tomlDoc{root: newTable(tableImplicit)}}
	if strings.HasPrefix(src, "\ufeff") {
		p.pos = len("\ufeff")
	}
	p.cur = p.doc.root
	for {
		p.skipBlank(true)
		if p.pos >= len(p.src) {
			return p.doc, nil
		}
		var err error
		if p.src[p.pos] == '[' {
			err = p.header()
		} else {
			err = p.keyValue(p.cur, p.path, true)
		}
		if err != nil {
			return nil, err
		}
		if err := p.endOfLine(); err != nil {
			return nil, err
		}
	}
}

// skipBlank skips spaces and tabs, and with newlines also newlines and
// comments.
func (p *tomlParser) skipBlank(newlines bool) {
	for p.pos < len(p.src) {
		switch c := p.src[p.pos]; {
		case c == ' ' || c == '\t':
			p.pos++
		case newlines && (c == '\n' || c == '\r' && strings.HasPrefix(p.src[p.pos:], "\r\n")):
			p.pos++
		case newlines && c == '#':
			p.skipComment()
		default:
			return
		}
	}
}

func (p *tomlParser) skipComment() {
	for p.pos < len(p.src) && p.src[p.pos] != '\n' {
		p.pos++
	}
}

// endOfLine accepts spaces, a comment and the end of the line.
func (p *tomlParser) endOfLine() error {
	p.skipBlank(false)
	if p.pos < len(p.src) && p.src[p.pos] == '#' {
		p.skipComment()
	}
	if p.pos >= len(p.src) {
		return nil
	}
	if p.src[p.pos] == '\n' {
		p.pos++
		return nil
	}
	if strings.HasPrefix(p.src[p.pos:], "\r\n") {
		p.pos += 2
		return nil
	}
	return p.fail("unexpected %q after a value", p.src[p.pos])
}

func (p *tomlParser) header() error {
	array := strings.HasPrefix(p.src[p.pos:], "[[")
	if array {
		p.pos += 2
	} else {
		p.pos++
	}
	p.skipBlank(false)
	key, err := p.key()
	if err != nil {
		return err
	}
	p.skipBlank(false)
	closing := "]"
	if array {
		closing = "]]"
	}
	if !strings.HasPrefix(p.src[p.pos:], closing) {
		return p.fail("table header not closed by %s", closing)
	}
	p.pos += len(closing)
	t := p.doc.root
	for i, k := range key[:len(key)-1] {
		next, err := p.descend(t, k, key[:i+1], tableImplicit)
		if err != nil {
			return err
		}
		t = next
	}
	last := key[len(key)-1]
	existing, ok := t.vals[last]
	var cur *tomlTable
	switch {
	case array:
		arr, isArr := existing.([]*tomlTable)
		if ok && !isArr {
			return p.fail("%s is already defined and is not an array of tables", strings.Join(key, "."))
		}
		cur = newTable(tableArrayElem)
		t.vals[last] = append(arr, cur)
	case !ok:
		cur = newTable(tableHeader)
		t.vals[last] = cur
	default:
		et, isTable := existing.(*tomlTable)
		if !isTable || et.kind != tableImplicit {
			return p.fail("table %s is defined twice", strings.Join(key, "."))
		}
		et.kind = tableHeader
		cur = et
	}
	// Where a new key of this table can go: after the header's line.
	save := p.pos
	if err := p.endOfLine(); err != nil {
		return err
	}
	cur.end = p.pos
	p.pos = save
	p.cur, p.path = cur, key
	return nil
}

// descend returns the sub-table k of t, creating it with kind when absent.
// The last element of an array of tables stands for the array.
func (p *tomlParser) descend(t *tomlTable, k string, path []string, kind tableKind) (*tomlTable, error) {
	v, ok := t.vals[k]
	if !ok {
		nt := newTable(kind)
		t.vals[k] = nt
		return nt, nil
	}
	switch x := v.(type) {
	case *tomlTable:
		if x.kind == tableInline {
			return nil, p.fail("%s is an inline table and cannot be extended", strings.Join(path, "."))
		}
		if kind == tableDotted && x.kind == tableHeader {
			return nil, p.fail("dotted keys cannot extend the table %s", strings.Join(path, "."))
		}
		return x, nil
	case []*tomlTable:
		if kind == tableDotted {
			return nil, p.fail("dotted keys cannot extend the array of tables %s", strings.Join(path, "."))
		}
		return x[len(x)-1], nil
	}
	return nil, p.fail("%s is a value, not a table", strings.Join(path, "."))
}

// keyValue reads key = value into t (whose path is base). top says whether
// the value's span is recorded (not inside an inline table).
func (p *tomlParser) keyValue(t *tomlTable, base []string, top bool) error {
	key, err := p.key()
	if err != nil {
		return err
	}
	p.skipBlank(false)
	if p.pos >= len(p.src) || p.src[p.pos] != '=' {
		return p.fail("expected = after the key %s", strings.Join(key, "."))
	}
	p.pos++
	p.skipBlank(false)
	full := append(append([]string(nil), base...), key...)
	for i, k := range key[:len(key)-1] {
		next, err := p.descend(t, k, full[:len(base)+i+1], tableDotted)
		if err != nil {
			return err
		}
		t = next
	}
	last := key[len(key)-1]
	if _, ok := t.vals[last]; ok {
		return p.fail("key %s is defined twice", strings.Join(full, "."))
	}
	start := p.pos
	v, err := p.value()
	if err != nil {
		return err
	}
	t.vals[last] = v
	if top {
		p.doc.spans = append(p.doc.spans, tomlValueSpan{path: full, start: start, end: p.pos})
	}
	return nil
}

var bareKeyRE = lazyRE(`^[A-Za-z0-9_-]+`)

func (p *tomlParser) key() ([]string, error) {
	var parts []string
	for {
		p.skipBlank(false)
		if p.pos >= len(p.src) {
			return nil, p.fail("expected a key")
		}
		switch p.src[p.pos] {
		case '"':
			if strings.HasPrefix(p.src[p.pos:], `"""`) {
				return nil, p.fail("a key cannot be a multi-line string")
			}
			s, err := p.basicString()
			if err != nil {
				return nil, err
			}
			parts = append(parts, s)
		case '\'':
			if strings.HasPrefix(p.src[p.pos:], `'''`) {
				return nil, p.fail("a key cannot be a multi-line string")
			}
			s, err := p.literalString()
			if err != nil {
				return nil, err
			}
			parts = append(parts, s)
		default:
			m := bareKeyRE().FindString(p.src[p.pos:])
			if m == "" {
				return nil, p.fail("expected a key, found %q", p.src[p.pos])
			}
			p.pos += len(m)
			parts = append(parts, m)
		}
		p.skipBlank(false)
		if p.pos < len(p.src) && p.src[p.pos] == '.' {
			p.pos++
			continue
		}
		return parts, nil
	}
}

// tomlDatetime and tomlNumber keep a date or number as written: shellgate
// needs neither's value.
type (
	tomlDatetime string
	tomlNumber   string
)

// The scalar patterns compile on first use: most processes read no TOML.
var (
	numberRE   = lazyRE(`^[+-]?(?:inf|nan|0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+|[0-9_]+(?:\.[0-9_]+)?(?:[eE][+-]?[0-9_]+)?)$`)
	datetimeRE = lazyRE(`^(?:\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?|\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$`)
	tokenRE    = lazyRE(`^[0-9A-Za-z_+.:-]+`)
	dateTimeRE = lazyRE(`^ \d{2}:\d{2}[0-9A-Za-z_+.:-]*`)
)

// lazyRE is a regular expression compiled on its first use.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

func (p *tomlParser) value() (any, error) {
	if p.pos >= len(p.src) {
		return nil, p.fail("expected a value")
	}
	rest := p.src[p.pos:]
	switch {
	case strings.HasPrefix(rest, `"""`):
		return p.multiBasicString()
	case rest[0] == '"':
		return p.basicString()
	case strings.HasPrefix(rest, `'''`):
		return p.multiLiteralString()
	case rest[0] == '\'':
		return p.literalString()
	case rest[0] == '[':
		return p.array()
	case rest[0] == '{':
		return p.inlineTable()
	}
	tok := tokenRE().FindString(rest)
	if tok == "" {
		return nil, p.fail("expected a value, found %q", rest[0])
	}
	switch tok {
	case "true":
		p.pos += len(tok)
		return true, nil
	case "false":
		p.pos += len(tok)
		return false, nil
	}
	if m := dateTimeRE().FindString(rest[len(tok):]); m != "" && datetimeRE().MatchString(tok+strings.Replace(m, " ", "T", 1)) {
		tok += m
	}
	p.pos += len(tok)
	if datetimeRE().MatchString(strings.Replace(tok, " ", "T", 1)) {
		return tomlDatetime(tok), nil
	}
	if numberRE().MatchString(tok) {
		return tomlNumber(tok), nil
	}
	return nil, p.fail("%q is not a TOML value", tok)
}

func (p *tomlParser) array() (any, error) {
	p.pos++ // [
	arr := []any{}
	for {
		p.skipBlank(true)
		if p.pos >= len(p.src) {
			return nil, p.fail("array not closed")
		}
		if p.src[p.pos] == ']' {
			p.pos++
			return arr, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.skipBlank(true)
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		p.skipBlank(true)
		if p.pos < len(p.src) && p.src[p.pos] == ']' {
			p.pos++
			return arr, nil
		}
		return nil, p.fail("expected , or ] in an array")
	}
}

func (p *tomlParser) inlineTable() (any, error) {
	p.pos++ // {
	t := newTable(tableInline)
	inner := newTable(tableImplicit) // filled, then closed
	for {
		p.skipBlank(true)
		if p.pos >= len(p.src) {
			return nil, p.fail("inline table not closed")
		}
		if p.src[p.pos] == '}' {
			p.pos++
			break
		}
		if err := p.keyValue(inner, nil, false); err != nil {
			return nil, err
		}
		p.skipBlank(true)
		if p.pos < len(p.src) && p.src[p.pos] == ',' {
			p.pos++
			continue
		}
		p.skipBlank(true)
		if p.pos < len(p.src) && p.src[p.pos] == '}' {
			p.pos++
			break
		}
		return nil, p.fail("expected , or } in an inline table")
	}
	t.vals = inner.vals
	closeInline(t)
	return t, nil
}

// closeInline marks every table inside an inline table as inline too.
func closeInline(t *tomlTable) {
	t.kind = tableInline
	for _, v := range t.vals {
		if st, ok := v.(*tomlTable); ok {
			closeInline(st)
		}
	}
}

func (p *tomlParser) literalString() (string, error) {
	p.pos++
	end := strings.IndexAny(p.src[p.pos:], "'\n")
	if end < 0 || p.src[p.pos+end] != '\'' {
		return "", p.fail("literal string not closed on its line")
	}
	s := p.src[p.pos : p.pos+end]
	p.pos += end + 1
	return s, nil
}

func (p *tomlParser) multiLiteralString() (string, error) {
	p.pos += 3
	rest := p.src[p.pos:]
	end := strings.Index(rest, `'''`)
	if end < 0 {
		return "", p.fail("multi-line literal string not closed")
	}
	// Up to two more quotes belong to the string.
	extra := 0
	for extra < 2 && end+3+extra < len(rest) && rest[end+3+extra] == '\'' {
		extra++
	}
	p.pos += end + extra + 3
	return trimFirstNewline(rest[:end+extra]), nil
}

func trimFirstNewline(s string) string {
	if strings.HasPrefix(s, "\r\n") {
		return s[2:]
	}
	return strings.TrimPrefix(s, "\n")
}

func (p *tomlParser) basicString() (string, error) {
	p.pos++
	var b strings.Builder
	for {
		if p.pos >= len(p.src) || p.src[p.pos] == '\n' {
			return "", p.fail("string not closed on its line")
		}
		c := p.src[p.pos]
		switch c {
		case '"':
			p.pos++
			return b.String(), nil
		case '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
}

func (p *tomlParser) multiBasicString() (string, error) {
	p.pos += 3
	if strings.HasPrefix(p.src[p.pos:], "\r\n") {
		p.pos += 2
	} else if strings.HasPrefix(p.src[p.pos:], "\n") {
		p.pos++
	}
	var b strings.Builder
	for {
		if p.pos >= len(p.src) {
			return "", p.fail("multi-line string not closed")
		}
		if strings.HasPrefix(p.src[p.pos:], `"""`) {
			// Up to two more quotes belong to the string.
			n := 3
			for n < 5 && p.pos+n < len(p.src) && p.src[p.pos+n] == '"' {
				n++
			}
			b.WriteString(strings.Repeat(`"`, n-3))
			p.pos += n
			return b.String(), nil
		}
		c := p.src[p.pos]
		if c != '\\' {
			b.WriteByte(c)
			p.pos++
			continue
		}
		// A backslash at the end of a line trims the newline and the
		// whitespace after it.
		j := p.pos + 1
		for j < len(p.src) && (p.src[j] == ' ' || p.src[j] == '\t') {
			j++
		}
		if j < len(p.src) && (p.src[j] == '\n' || strings.HasPrefix(p.src[j:], "\r\n")) {
			p.pos = j
			for p.pos < len(p.src) && strings.ContainsRune(" \t\r\n", rune(p.src[p.pos])) {
				p.pos++
			}
			continue
		}
		if err := p.escape(&b); err != nil {
			return "", err
		}
	}
}

// escape reads one escape sequence at p.pos (a backslash).
func (p *tomlParser) escape(b *strings.Builder) error {
	if p.pos+1 >= len(p.src) {
		return p.fail("unfinished escape")
	}
	c := p.src[p.pos+1]
	p.pos += 2
	simple := map[byte]string{'b': "\b", 't': "\t", 'n': "\n", 'f': "\f", 'r': "\r", '"': `"`, '\\': `\`, 'e': "\x1b"}
	if s, ok := simple[c]; ok {
		b.WriteString(s)
		return nil
	}
	n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if n == 0 || p.pos+n > len(p.src) {
		return p.fail("invalid escape \\%c", c)
	}
	v, err := strconv.ParseUint(p.src[p.pos:p.pos+n], 16, 32)
	if err != nil || !utf8.ValidRune(rune(v)) {
		return p.fail("invalid escape \\%c%s", c, p.src[p.pos:p.pos+n])
	}
	b.WriteRune(rune(v))
	p.pos += n
	return nil
}

// tomlQuote writes s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
