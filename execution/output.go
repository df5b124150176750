package execution

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
)

// ViewLimits bound the output a Result carries: a head and a tail of the
// cleaned text, with one line between them saying what was left out.
type ViewLimits struct {
	// MaxBytes bounds head plus tail, in bytes of cleaned text.
	MaxBytes int
	// MaxLines bounds head plus tail, in lines.
	MaxLines int
	// HeadRatio is the share of both budgets that goes to the head (0-1).
	HeadRatio float64
}

// DefaultViewLimits are 30 000 bytes, 2 000 lines, 20 % head.
var DefaultViewLimits = ViewLimits{MaxBytes: 30000, MaxLines: 2000, HeadRatio: 0.2}

func (l ViewLimits) normalized() ViewLimits {
	if l == (ViewLimits{}) {
		return DefaultViewLimits
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultViewLimits.MaxBytes
	}
	if l.MaxLines <= 0 {
		l.MaxLines = DefaultViewLimits.MaxLines
	}
	if l.HeadRatio < 0 || l.HeadRatio > 1 {
		l.HeadRatio = DefaultViewLimits.HeadRatio
	}
	return l
}

// Output is the bounded view of a command's merged stdout and stderr,
// decoded as UTF-8 (invalid bytes become U+FFFD), ANSI escape sequences
// and other control characters removed, CR LF folded to LF.
type Output struct {
	// Head is the start of the output; the whole output when nothing was
	// left out.
	Head string `json:"head"`
	// Tail is the end of the output, when something was left out between.
	Tail string `json:"tail,omitempty"`
	// TotalBytes and TotalLines count the whole cleaned output (up to the
	// capture cap).
	TotalBytes int64 `json:"total_bytes"`
	TotalLines int64 `json:"total_lines"`
	// OmittedBytes and OmittedLines count what is in neither Head nor Tail.
	OmittedBytes int64 `json:"omitted_bytes,omitempty"`
	OmittedLines int64 `json:"omitted_lines,omitempty"`
	// SpillPath is the file holding the whole cleaned output, when a spill
	// directory was given and something was left out.
	SpillPath string `json:"spill_path,omitempty"`
}

// Truncated reports whether part of the output is in neither Head nor Tail.
func (o Output) Truncated() bool { return o.OmittedBytes > 0 || o.Tail != "" }

// OmissionLine is the one line that stands between Head and Tail.
func (o Output) OmissionLine() string {
	s := fmt.Sprintf("[... %d lines, %d bytes left out", o.OmittedLines, o.OmittedBytes)
	if o.SpillPath != "" {
		s += "; full output: " + o.SpillPath
	}
	return s + " ...]"
}

// String is the view as text: the head, the omission line and the tail.
func (o Output) String() string {
	if !o.Truncated() {
		return o.Head
	}
	var b bytes.Buffer
	b.WriteString(o.Head)
	if o.Head != "" && o.Head[len(o.Head)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(o.OmissionLine())
	b.WriteByte('\n')
	b.WriteString(o.Tail)
	return b.String()
}

// cleaner decodes a byte stream as UTF-8 and removes terminal escapes. It
// keeps state across chunks, so a sequence split between two reads is
// still recognised.
type cleaner struct {
	pending [utf8.UTFMax]byte
	npend   int
	state   int // 0 text, 1 after ESC, 2 CSI, 3 string (OSC, DCS...), 4 ESC inside string, 5 nF intermediates
	seqLen  int
	cr      bool // a CR waits to see whether LF follows
}

const (
	maxCSI    = 64
	maxString = 4096
)

// write appends the cleaned form of p to out.
func (c *cleaner) write(out, p []byte) []byte {
	if c.npend > 0 {
		// Complete a rune split across reads.
		for len(p) > 0 && c.npend < utf8.UTFMax && !utf8.FullRune(c.pending[:c.npend]) {
			c.pending[c.npend] = p[0]
			c.npend++
			p = p[1:]
		}
		if !utf8.FullRune(c.pending[:c.npend]) && len(p) == 0 {
			return out
		}
		r, n := utf8.DecodeRune(c.pending[:c.npend])
		rest := append([]byte(nil), c.pending[n:c.npend]...)
		c.npend = 0
		out = c.rune(out, r)
		if len(rest) > 0 {
			out = c.write(out, rest)
		}
	}
	for i := 0; i < len(p); {
		b := p[i]
		if b < utf8.RuneSelf {
			out = c.rune(out, rune(b))
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			c.npend = copy(c.pending[:], p[i:])
			break
		}
		r, n := utf8.DecodeRune(p[i:])
		out = c.rune(out, r)
		i += n
	}
	return out
}

// flush ends the stream.
func (c *cleaner) flush(out []byte) []byte {
	if c.npend > 0 {
		c.npend = 0
		c.state = 0
		out = c.rune(out, utf8.RuneError)
	}
	if c.cr {
		c.cr = false
		out = append(out, '\n')
	}
	return out
}

func (c *cleaner) rune(out []byte, r rune) []byte {
	switch c.state {
	case 1: // after ESC
		c.state = 0
		switch {
		case r == '[':
			c.state, c.seqLen = 2, 0
		case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
			c.state, c.seqLen = 3, 0
		case r >= 0x20 && r <= 0x2f:
			c.state, c.seqLen = 5, 0
		case r >= 0x30 && r <= 0x7e:
			// a two-character sequence: dropped
		default:
			return c.text(out, r)
		}
		return out
	case 2: // CSI parameters and intermediates, then a final byte
		c.seqLen++
		switch {
		case r >= 0x40 && r <= 0x7e:
			c.state = 0
		case r >= 0x20 && r <= 0x3f && c.seqLen < maxCSI:
		default:
			c.state = 0
			return c.text(out, r)
		}
		return out
	case 3: // string until BEL or ST
		c.seqLen++
		switch {
		case r == 0x07 || r == 0x9c:
			c.state = 0
		case r == 0x1b:
			c.state = 4
		case c.seqLen > maxString:
			c.state = 0
		}
		return out
	case 4: // ESC inside a string: "\" ends it, anything else starts anew
		if r == '\\' {
			c.state = 0
			return out
		}
		c.state = 1
		return c.rune(out, r)
	case 5: // nF: intermediates then a final byte
		c.seqLen++
		if r >= 0x20 && r <= 0x2f && c.seqLen < maxCSI {
			return out
		}
		c.state = 0
		if r >= 0x30 && r <= 0x7e {
			return out
		}
		return c.text(out, r)
	}
	switch r {
	case 0x1b:
		c.state = 1
		return c.flushCR(out, r)
	case 0x9b:
		c.state, c.seqLen = 2, 0
		return c.flushCR(out, r)
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f:
		c.state, c.seqLen = 3, 0
		return c.flushCR(out, r)
	}
	return c.text(out, r)
}

func (c *cleaner) flushCR(out []byte, r rune) []byte {
	if c.cr {
		c.cr = false
		out = append(out, '\n')
	}
	return out
}

// text appends a character of plain text.
func (c *cleaner) text(out []byte, r rune) []byte {
	if c.cr {
		c.cr = false
		if r == '\n' {
			return append(out, '\n')
		}
		out = append(out, '\n') // a lone CR would overwrite the line on a terminal
	}
	switch {
	case r == '\r':
		c.cr = true
		return out
	case r == '\n' || r == '\t':
		return append(out, byte(r))
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return utf8.AppendRune(out, utf8.RuneError)
	}
	return utf8.AppendRune(out, r)
}

// viewer keeps the head and the tail of the cleaned text, in bounded
// memory, and counts it all.
type viewer struct {
	headMax, headLinesMax int
	tailMax, tailLinesMax int
	lim                   ViewLimits

	head      []byte
	headLines int
	headFull  bool
	tail      []byte

	total   int64
	newline int64
	last    byte
}

func newViewer(l ViewLimits) *viewer {
	l = l.normalized()
	hb := int(float64(l.MaxBytes) * l.HeadRatio)
	hl := int(float64(l.MaxLines) * l.HeadRatio)
	return &viewer{
		lim:     l,
		headMax: hb, headLinesMax: hl,
		tailMax: l.MaxBytes - hb, tailLinesMax: l.MaxLines - hl,
		tail: make([]byte, 0, 512),
	}
}

func (v *viewer) write(p []byte) {
	if len(p) == 0 {
		return
	}
	v.total += int64(len(p))
	v.newline += int64(bytes.Count(p, []byte{'\n'}))
	v.last = p[len(p)-1]
	if !v.headFull {
		n := 0
		for n < len(p) && len(v.head)+n < v.headMax {
			if p[n] == '\n' {
				v.headLines++
				if v.headLines >= v.headLinesMax {
					n++
					v.headFull = true
					break
				}
			}
			n++
		}
		if !v.headFull && len(v.head)+n >= v.headMax {
			v.headFull = true
			// end the head at a rune boundary
			for n > 0 && n < len(p) && !utf8.RuneStart(p[n]) {
				n--
			}
		}
		v.head = append(v.head, p[:n]...)
		p = p[n:]
	}
	v.tail = append(v.tail, p...)
	// Keep the tail bounded: whenever it grows past twice its budget (and
	// the whole output can no longer fit), move its last tailMax bytes to
	// the front. No allocation in steady state.
	if limit := 2*v.tailMax + v.lim.MaxBytes; len(v.tail) > limit {
		n := copy(v.tail, v.tail[len(v.tail)-v.tailMax:])
		v.tail = v.tail[:n]
	}
}

// output returns the view.
func (v *viewer) output() Output {
	lines := v.newline
	if v.total > 0 && v.last != '\n' {
		lines++
	}
	o := Output{TotalBytes: v.total, TotalLines: lines}
	if v.total <= int64(v.lim.MaxBytes) && lines <= int64(v.lim.MaxLines) {
		o.Head = string(v.head) + string(v.tail)
		return o
	}
	tail := v.tail
	if len(tail) > v.tailMax {
		tail = tail[len(tail)-v.tailMax:]
	}
	// The tail was cut by bytes (here or in write): start at a rune.
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	// at most tailLinesMax lines: start after the (tailLinesMax)th newline
	// from the end, not counting a final one
	nl := 0
	end := len(tail)
	if end > 0 && tail[end-1] == '\n' {
		end--
	}
	for i := end - 1; i >= 0; i-- {
		if tail[i] == '\n' {
			nl++
			if nl >= v.tailLinesMax {
				tail = tail[i+1:]
				break
			}
		}
	}
	o.Head = string(v.head)
	o.Tail = string(tail)
	o.OmittedBytes = v.total - int64(len(o.Head)) - int64(len(o.Tail))
	o.OmittedLines = v.newline - int64(bytes.Count(v.head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	return o
}

// collector is the sink for the merged output stream: it counts raw
// bytes against the capture cap, cleans, spills and keeps the view.
type collector struct {
	cap     int64
	raw     int64
	capHit  bool
	cl      cleaner
	buf     []byte
	bufp    *[]byte
	view    *viewer
	spill   io.Writer
	spillOK bool
	stream  io.Writer // Spec.Stream: the cleaned output as it arrives
}

var cleanBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

func newCollector(l ViewLimits, capBytes int64, spill io.Writer) *collector {
	bp := cleanBufs.Get().(*[]byte)
	return &collector{cap: capBytes, view: newViewer(l), spill: spill, spillOK: spill != nil, buf: (*bp)[:0], bufp: bp}
}

// release returns the collector's buffer to the pool; the collector is
// not used after.
func (c *collector) release() {
	if c.bufp != nil && cap(c.buf) <= 256<<10 {
		*c.bufp = c.buf[:0]
		cleanBufs.Put(c.bufp)
	}
	c.bufp, c.buf = nil, nil
}

// write takes one chunk; it returns false once the capture cap is passed
// (the rest of the chunk past the cap is dropped).
func (c *collector) write(p []byte) bool {
	if c.capHit {
		return false
	}
	if c.cap > 0 && c.raw+int64(len(p)) > c.cap {
		p = p[:c.cap-c.raw]
		c.capHit = true
	}
	c.raw += int64(len(p))
	c.buf = c.cl.write(c.buf[:0], p)
	c.emit()
	return !c.capHit
}

func (c *collector) emit() {
	if len(c.buf) == 0 {
		return
	}
	c.view.write(c.buf)
	if c.stream != nil {
		_, _ = c.stream.Write(c.buf)
	}
	if c.spillOK {
		if _, err := c.spill.Write(c.buf); err != nil {
			c.spillOK = false
		}
	}
}

func (c *collector) finish() Output {
	c.buf = c.cl.flush(c.buf[:0])
	c.emit()
	return c.view.output()
}
