package classify

import "strings"

// sedScript checks a sed script: w/W write files, e and s///e run commands,
// r/R read files. Anything it cannot read is not safe.
func (p *argParser) sedScript(a Arg) {
	script := a.Value
	if !a.Static() {
		s, ok := foldHomeScript(a.Value)
		if !ok {
			p.w.find("dynamic-script", "the sed script is only known at run time", a.Span, p.seg.Index)
			return
		}
		script = s
	}
	code, msg, reads := sedCheck(script)
	if code != "" {
		p.w.find(code, "sed: "+msg, a.Span, p.seg.Index)
	}
	for _, f := range reads {
		// sed does not expand ~: the name is taken as written.
		arg := Arg{Value: f, Span: a.Span}
		if strings.Contains(f, homeMark) {
			rest, ok := strings.CutPrefix(f, homeMark)
			if ok && (rest == "" || strings.HasPrefix(rest, "/")) && !strings.Contains(rest, homeMark) {
				arg = Arg{Value: "$HOME" + rest, Dynamic: "home", Pattern: "~" + rest, Span: a.Span}
			} else {
				arg = Arg{Value: strings.ReplaceAll(f, homeMark, "$HOME"), Dynamic: "param", Span: a.Span}
			}
		}
		ref := pathRef(arg, "script", p.seg.Index, p.seg.Cwd, -1)
		p.w.r.Reads = append(p.w.r.Reads, ref)
		p.w.deviceCheck(arg, p.seg.Cwd, a.Span, p.seg.Index)
	}
}

// homeMark stands for $HOME in a folded script: a NUL cannot be in a
// shell word, so it cannot be written in the script itself.
const homeMark = "\x00HOME"

// foldHomeScript returns the script a dynamic word holds when it is one
// double-quoted string whose only expansion is $HOME or ${HOME} (sed
// "1r $HOME/.ssh/id_rsa"), with homeMark in place of each; $HOME is the
// home directory the read station judges against.
func foldHomeScript(src string) (string, bool) {
	if len(src) < 2 || src[0] != '"' || src[len(src)-1] != '"' {
		return "", false
	}
	in := src[1 : len(src)-1]
	if strings.ContainsAny(in, "\"\\`") {
		return "", false
	}
	in = strings.ReplaceAll(in, "${HOME}", homeMark)
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		if in[i] != '$' {
			b.WriteByte(in[i])
			continue
		}
		if !strings.HasPrefix(in[i:], "$HOME") || i+5 < len(in) && isIdentChar(in[i+5]) {
			return "", false
		}
		b.WriteString(homeMark)
		i += 4
	}
	return b.String(), true
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// sedCheck returns a finding code and message for an unsafe sed script,
// and the files its r and R commands read.
func sedCheck(s string) (code, msg string, reads []string) {
	sc := &sedScanner{s: s}
	for sc.i < len(s) {
		sc.skipSpace()
		if sc.i >= len(s) {
			break
		}
		switch s[sc.i] {
		case '\n', ';', '}':
			sc.i++
			continue
		case '#':
			sc.toEOL()
			continue
		}
		if code, msg := sc.addressesScan(); code != "" {
			return code, msg, sc.reads
		}
		if code, msg := sc.commandScan(); code != "" {
			return code, msg, sc.reads
		}
	}
	return "", "", sc.reads
}

// sedScanner reads a sed script from byte i on, collecting the files its
// r and R commands read.
type sedScanner struct {
	s     string
	i     int
	reads []string
}

func (sc *sedScanner) skipSpace() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == ' ' || sc.s[sc.i] == '\t') {
		sc.i++
	}
}

// toEOL reads to the end of the line (not past the newline).
func (sc *sedScanner) toEOL() string {
	j := strings.IndexByte(sc.s[sc.i:], '\n')
	if j < 0 {
		j = len(sc.s) - sc.i
	}
	t := sc.s[sc.i : sc.i+j]
	sc.i += j
	return t
}

// toSeparator reads to the next ";" or newline (a label, a version).
func (sc *sedScanner) toSeparator() {
	for sc.i < len(sc.s) && sc.s[sc.i] != ';' && sc.s[sc.i] != '\n' {
		sc.i++
	}
}

// delimited reads a delimited part starting after the delimiter.
func (sc *sedScanner) delimited(d byte) bool {
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		if c == '\\' {
			sc.i += 2
			continue
		}
		if c == '\n' && d != '\n' {
			// GNU sed allows it only escaped
			return false
		}
		sc.i++
		if c == d {
			return true
		}
	}
	return false
}

// address reads one address, if there is one: a line number (N, N~M),
// $, /RE/ or \cREc with its I and M flags.
func (sc *sedScanner) address() bool {
	s, n := sc.s, len(sc.s)
	sc.skipSpace()
	if sc.i >= n {
		return true
	}
	switch c := s[sc.i]; {
	case c >= '0' && c <= '9':
		for sc.i < n && (s[sc.i] >= '0' && s[sc.i] <= '9' || s[sc.i] == '~') {
			sc.i++
		}
	case c == '$':
		sc.i++
	case c == '/':
		sc.i++
		if !sc.delimited('/') {
			return false
		}
		sc.regexpFlags()
	case c == '\\':
		if sc.i+1 >= n {
			return false
		}
		d := s[sc.i+1]
		sc.i += 2
		if !sc.delimited(d) {
			return false
		}
		sc.regexpFlags()
	}
	return true
}

func (sc *sedScanner) regexpFlags() {
	for sc.i < len(sc.s) && (sc.s[sc.i] == 'I' || sc.s[sc.i] == 'M') {
		sc.i++
	}
}

// addressesScan reads what comes before a command: an address or a range
// (A,B, A,+N, A,~N), and any "!".
func (sc *sedScanner) addressesScan() (code, msg string) {
	s, n := sc.s, len(sc.s)
	if !sc.address() {
		return "sed-unsafe", "the script could not be read"
	}
	sc.skipSpace()
	if sc.i < n && s[sc.i] == ',' {
		sc.i++
		sc.skipSpace()
		if sc.i < n && (s[sc.i] == '+' || s[sc.i] == '~') {
			sc.i++
		}
		if !sc.address() {
			return "sed-unsafe", "the script could not be read"
		}
	}
	sc.skipSpace()
	for sc.i < n && s[sc.i] == '!' {
		sc.i++
		sc.skipSpace()
	}
	if sc.i >= n {
		return "sed-unsafe", "the script ends after an address"
	}
	return "", ""
}

// commandScan reads one command with its arguments; a command that writes,
// runs or cannot be read returns its finding.
func (sc *sedScanner) commandScan() (code, msg string) {
	s, n := sc.s, len(sc.s)
	cmd := s[sc.i]
	sc.i++
	switch cmd {
	case '{':
	case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'l', 'q', 'Q', 'L':
		sc.skipSpace()
		for sc.i < n && s[sc.i] >= '0' && s[sc.i] <= '9' {
			sc.i++
		}
	case 'a', 'i', 'c':
		// text to the end of the line; a backslash continues it
		for sc.i < n {
			t := sc.toEOL()
			if strings.HasSuffix(t, "\\") && sc.i < n {
				sc.i++
				continue
			}
			break
		}
	case ':', 'b', 't', 'T', 'v':
		sc.toSeparator()
	case 'r', 'R':
		sc.skipSpace()
		if f := sc.toEOL(); f != "" {
			sc.reads = append(sc.reads, f)
		}
	case 'w', 'W':
		return "sed-write", "the w command writes to a file"
	case 'e':
		return "sed-exec", "the e command runs a shell command"
	case 's':
		return sc.substituteScan()
	case 'y':
		if sc.i >= n {
			return "sed-unsafe", "y has no delimiter"
		}
		d := s[sc.i]
		sc.i++
		if !sc.delimited(d) || !sc.delimited(d) {
			return "sed-unsafe", "the y command could not be read"
		}
	default:
		return "sed-unsafe", "unknown command " + string(cmd)
	}
	return "", ""
}

// substituteScan reads an s command after the "s": its pattern, replacement
// and flags (e runs the result, w writes it).
func (sc *sedScanner) substituteScan() (code, msg string) {
	s, n := sc.s, len(sc.s)
	if sc.i >= n {
		return "sed-unsafe", "s has no delimiter"
	}
	d := s[sc.i]
	sc.i++
	if d == '\\' || d == '\n' || !sc.delimited(d) || !sc.delimited(d) {
		return "sed-unsafe", "the s command could not be read"
	}
	for ; sc.i < n && s[sc.i] != ';' && s[sc.i] != '\n' && s[sc.i] != '}'; sc.i++ {
		switch s[sc.i] {
		case 'e':
			return "sed-exec", "the s///e flag runs the pattern space as a command"
		case 'w':
			return "sed-write", "the s///w flag writes to a file"
		case 'g', 'p', 'i', 'I', 'm', 'M', ' ', '\t':
		default:
			if s[sc.i] < '0' || s[sc.i] > '9' {
				return "sed-unsafe", "the s command has an unknown flag " + string(s[sc.i])
			}
		}
	}
	return "", ""
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
