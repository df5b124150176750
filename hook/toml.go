package hook

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Codex's config.toml, read with go-toml (TOML 1.1, which Codex's own
// parser reads too): toml.Unmarshal decides whether the file is valid
// (duplicate keys, tables defined twice, inline tables extended: all
// errors), and the parser of go-toml's unstable package says where each
// table and value is written, so that one value can be replaced, or one key
// added, without touching any other byte of the file. What it cannot read
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

// lookup returns the value at path (tables are *tomlTable; strings are
// strings and booleans bools; other values stand in as their text).
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

// span returns where the value at path is written, when it is a string,
// a boolean, a number or a date on its own (not inside an inline table or
// an array).
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

// tomlError is a parse error with its line.
type tomlError struct {
	line int
	msg  string
}

func (e *tomlError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// bom is the byte order mark a file may start with; it is not part of the
// document.
const bom = "\ufeff"

// parseTOML reads a TOML document.
func parseTOML(src string) (*tomlDoc, error) {
	if !utf8.ValidString(src) {
		return nil, &tomlError{line: 1, msg: "not valid UTF-8"}
	}
	base := 0
	if strings.HasPrefix(src, bom) {
		base = len(bom)
	}
	data := []byte(src[base:])
	var v map[string]any
	if err := toml.Unmarshal(data, &v); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return nil, &tomlError{line: line, msg: strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, &tomlError{line: 1, msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	b := &tomlBuilder{doc: &tomlDoc{root: newTable(tableImplicit)}, src: data, base: base}
	b.cur = b.doc.root
	b.p.Reset(data)
	for b.p.NextExpression() {
		if err := b.expression(b.p.Expression()); err != nil {
			return nil, err
		}
	}
	if err := b.p.Error(); err != nil {
		// toml.Unmarshal read the same bytes: not reached.
		return nil, &tomlError{line: 1, msg: err.Error()}
	}
	return b.doc, nil
}

// tomlBuilder walks the parser's expressions of a document toml.Unmarshal
// has accepted, and builds its tables with where they are written.
type tomlBuilder struct {
	p    unstable.Parser
	src  []byte
	base int // the offset of src in the file (after a BOM)
	doc  *tomlDoc
	cur  *tomlTable
	path []string // of cur
}

// internalf reports a document the builder cannot follow although
// toml.Unmarshal read it: an error, never a guess.
func internalf(format string, a ...any) error {
	return &tomlError{line: 1, msg: "cannot follow the document: " + fmt.Sprintf(format, a...)}
}

func keyOf(n *unstable.Node) []string {
	var key []string
	it := n.Key()
	for it.Next() {
		key = append(key, string(it.Node().Data))
	}
	return key
}

func (b *tomlBuilder) expression(n *unstable.Node) error {
	switch n.Kind {
	case unstable.Table, unstable.ArrayTable:
		key := keyOf(n)
		if len(key) == 0 {
			return internalf("a table header with no key")
		}
		t := b.doc.root
		for _, k := range key[:len(key)-1] {
			next, err := descend(t, k, tableImplicit)
			if err != nil {
				return err
			}
			t = next
		}
		last := key[len(key)-1]
		var cur *tomlTable
		if n.Kind == unstable.ArrayTable {
			arr, _ := t.vals[last].([]*tomlTable)
			cur = newTable(tableArrayElem)
			t.vals[last] = append(arr, cur)
		} else {
			et, ok := t.vals[last].(*tomlTable)
			if !ok {
				et = newTable(tableHeader)
				t.vals[last] = et
			}
			et.kind = tableHeader
			cur = et
		}
		// Where a new key of this table can go: after the header's line
		// (the rest of which holds at most "]" and a comment).
		it := n.Key()
		var lastKey *unstable.Node
		for it.Next() {
			lastKey = it.Node()
		}
		end := int(lastKey.Raw.Offset + lastKey.Raw.Length)
		if i := strings.IndexByte(string(b.src[end:]), '\n'); i >= 0 {
			end += i + 1
		} else {
			end = len(b.src)
		}
		cur.end = b.base + end
		b.cur, b.path = cur, key
		return nil
	case unstable.KeyValue:
		return b.keyValue(b.cur, b.path, n, true)
	}
	return nil // comments
}

// descend returns the sub-table k of t, creating it with kind when absent.
// The last element of an array of tables stands for the array.
func descend(t *tomlTable, k string, kind tableKind) (*tomlTable, error) {
	switch x := t.vals[k].(type) {
	case nil:
		nt := newTable(kind)
		t.vals[k] = nt
		return nt, nil
	case *tomlTable:
		return x, nil
	case []*tomlTable:
		return x[len(x)-1], nil
	}
	return nil, internalf("%s is a value, not a table", k)
}

// keyValue reads the key = value n into t (whose path is base). top says
// whether the value's span is recorded (not inside an inline table).
func (b *tomlBuilder) keyValue(t *tomlTable, base []string, n *unstable.Node, top bool) error {
	key := keyOf(n)
	if len(key) == 0 {
		return internalf("a key-value with no key")
	}
	for _, k := range key[:len(key)-1] {
		next, err := descend(t, k, tableDotted)
		if err != nil {
			return err
		}
		t = next
	}
	val := n.Value()
	v, err := b.value(val)
	if err != nil {
		return err
	}
	t.vals[key[len(key)-1]] = v
	switch val.Kind {
	case unstable.Array, unstable.InlineTable:
	default:
		if top {
			full := append(append([]string(nil), base...), key...)
			start := b.base + int(val.Raw.Offset)
			b.doc.spans = append(b.doc.spans, tomlValueSpan{path: full, start: start, end: start + int(val.Raw.Length)})
		}
	}
	return nil
}

func (b *tomlBuilder) value(n *unstable.Node) (any, error) {
	switch n.Kind {
	case unstable.String:
		return string(n.Data), nil
	case unstable.Bool:
		return string(n.Data) == "true", nil
	case unstable.Array:
		var out []any
		it := n.Children()
		for it.Next() {
			if it.Node().Kind == unstable.Comment {
				continue
			}
			v, err := b.value(it.Node())
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case unstable.InlineTable:
		t := newTable(tableInline)
		it := n.Children()
		for it.Next() {
			if it.Node().Kind != unstable.KeyValue {
				continue
			}
			if err := b.keyValue(t, nil, it.Node(), false); err != nil {
				return nil, err
			}
		}
		closeInline(t)
		return t, nil
	}
	// Numbers and dates: their text stands for them.
	return tomlText(string(n.Data)), nil
}

// tomlText is a value shellgate does not read (a number, a date), as it
// is written.
type tomlText string

// closeInline marks every table inside an inline table as inline too.
func closeInline(t *tomlTable) {
	t.kind = tableInline
	for _, v := range t.vals {
		if st, ok := v.(*tomlTable); ok {
			closeInline(st)
		}
	}
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
