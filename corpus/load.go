package corpus

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/trust"
	"go.yaml.in/yaml/v3"
)

// FixtureFile is the name of a directory's default fixture.
const FixtureFile = "fixture.yaml"

// maxErrors bounds how many problems one load reports.
const maxErrors = 20

// errList collects "file:line: message" errors.
type errList []error

func (l *errList) add(file string, line int, format string, args ...any) {
	*l = append(*l, &PosError{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (l errList) err() error {
	if len(l) == 0 {
		return nil
	}
	if len(l) > maxErrors {
		extra := len(l) - maxErrors
		l = append(l[:maxErrors:maxErrors], fmt.Errorf("… and %d more", extra))
	}
	return errors.Join(l...)
}

// PosError is a problem in a corpus file, located by file and line.
type PosError struct {
	File string
	Line int
	Msg  string
}

// Error formats the problem as "file:line: message" ("file: message"
// when the line is unknown).
func (e *PosError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// isCaseFile reports whether name is a corpus file (not a fixture file).
func isCaseFile(name string) bool {
	base := path.Base(name)
	if base == FixtureFile {
		return false
	}
	switch path.Ext(base) {
	case ".yaml", ".yml", ".sh":
		return true
	}
	return false
}

// LoadFS loads every corpus file under dir in fsys (recursively, in lexical
// order). Case files are named prefix + their path under dir.
func LoadFS(fsys fs.FS, dir, prefix string) ([]Case, error) {
	var files []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && isCaseFile(p) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	fixtures := map[string]Fixture{}
	var all []Case
	var errs errList
	for _, p := range files {
		display := prefix + strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		if dir == "." {
			display = prefix + p
		}
		fxDir := path.Dir(p)
		fx, ok := fixtures[fxDir]
		if !ok {
			fx, err = loadFixtureFile(fsys, path.Join(fxDir, FixtureFile), prefix+strings.TrimPrefix(path.Join(fxDir, FixtureFile), dir+"/"))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			fixtures[fxDir] = fx
		}
		data, err := readFileFS(fsys, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cases, err := Parse(display, data, fx)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		all = append(all, cases...)
	}
	return all, errs.err()
}

func loadFixtureFile(fsys fs.FS, p, display string) (Fixture, error) {
	data, err := readFileFS(fsys, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseFixture(display, data)
}

// readFileFS reads the corpus file p of fsys as trust.ReadRegular reads
// one: only a regular file (a FIFO or device named like a case file is an
// error, never a read that blocks) of at most MaxFileBytes.
func readFileFS(fsys fs.FS, p string) ([]byte, error) {
	st, err := fs.Stat(fsys, p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s)", p, st.Mode().Type())
	}
	if st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a corpus file may have", p, st.Size(), MaxFileBytes)
	}
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: more than the %d bytes a corpus file may have", p, MaxFileBytes)
	}
	return data, nil
}

// LoadPath loads a corpus file or a directory of them from the file system.
// A single file uses the fixture.yaml of its own directory.
func LoadPath(p string) ([]Case, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return LoadFS(os.DirFS(p), ".", strings.TrimSuffix(filepath.ToSlash(p), "/")+"/")
	}
	if !isCaseFile(p) {
		return nil, fmt.Errorf("%s: not a corpus file (want .yaml, .yml or .sh)", p)
	}
	dir := filepath.Dir(p)
	fx, err := loadFixtureFile(os.DirFS(dir), FixtureFile, filepath.Join(dir, FixtureFile))
	if err != nil {
		return nil, err
	}
	data, err := trust.ReadRegular(p, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	return Parse(p, data, fx)
}

// Parse parses one corpus file by its extension. fx is the default fixture.
func Parse(name string, data []byte, fx Fixture) ([]Case, error) {
	if strings.HasSuffix(name, ".sh") {
		return ParseSh(name, data, fx)
	}
	return ParseYAML(name, data, fx)
}

// wantRE matches the trailing "# want ACTION [code…]" comment.
var wantRE = regexp.MustCompile(`(?:^|\s)#\s*want\s+(\S+)((?:\s+[a-z0-9][a-z0-9._-]*)*)\s*$`)

// wantStart finds the last "# want" comment of a line.
var wantStart = regexp.MustCompile(`(?:^|\s)#\s*want\s`)

// ParseSh parses a .sh corpus file: one command per line, each with a
// trailing "# want allow|ask|deny [code…]" comment. Lines starting with "#"
// are comments, except the directives "#mode: MODE" and
// "#modes: default readonly" (each following case is also judged in
// readonly mode, its expectation derived by [Derive]).
func ParseSh(name string, data []byte, fx Fixture) ([]Case, error) {
	var errs errList
	var cases []Case
	mode := ModeDefault
	shell := ""
	derive := false
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		line = strings.TrimRight(line, " \t\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		if strings.HasPrefix(trimmed, "#") {
			key, val, ok := strings.Cut(strings.TrimPrefix(trimmed, "#"), ":")
			if !ok || strings.Contains(key, " ") {
				continue // an ordinary comment
			}
			val = strings.TrimSpace(val)
			switch key {
			case "mode":
				if !validModes[val] {
					errs.add(name, n, "unknown mode %q (want default or readonly)", val)
					continue
				}
				mode, derive = val, false
			case "modes":
				if val != "default readonly" {
					errs.add(name, n, "#modes: must be \"default readonly\", got %q", val)
					continue
				}
				mode, derive = ModeDefault, true
			case "shell":
				if !validShells[val] {
					errs.add(name, n, "unknown shell %q (want bash, zsh, sh or unknown)", val)
					continue
				}
				shell = strings.TrimPrefix(val, "unknown")
			}
			continue
		}
		locs := wantStart.FindAllStringIndex(line, -1)
		if len(locs) == 0 {
			errs.add(name, n, "no trailing \"# want allow|ask|deny\" comment")
			continue
		}
		at := locs[len(locs)-1][0]
		m := wantRE.FindStringSubmatch(line[at:])
		if m == nil {
			errs.add(name, n, "malformed want comment %q (want \"# want allow|ask|deny [code…]\")", strings.TrimSpace(line[at:]))
			continue
		}
		if !validActions[m[1]] {
			errs.add(name, n, "unknown action %q (want allow, ask or deny)", m[1])
			continue
		}
		cmd := strings.TrimSpace(line[:at])
		if cmd == "" {
			errs.add(name, n, "no command before the want comment")
			continue
		}
		c := Case{
			Name:    fmt.Sprintf("%s:%d", name, n),
			File:    name,
			Line:    n,
			Command: cmd,
			Mode:    mode,
			Shell:   shell,
			Fixture: fx,
			Expect:  Expect{Action: m[1], Reasons: strings.Fields(m[2])},
		}
		cases = append(cases, c)
		if derive {
			d, err := Derive(c, ModeReadonly)
			if err != nil {
				errs.add(name, n, "%v", err)
				continue
			}
			cases = append(cases, d)
		}
	}
	return cases, errs.err()
}

// ParseFixture parses a fixture.yaml file: a mapping with one key, files.
func ParseFixture(name string, data []byte) (Fixture, error) {
	var errs errList
	root, ok := document(name, data, &errs)
	if !ok {
		return nil, errs.err()
	}
	if root.Kind != yaml.MappingNode {
		errs.add(name, root.Line, "a fixture file is a mapping with a files key")
		return nil, errs.err()
	}
	var fx Fixture
	eachKey(name, root, &errs, func(k string, v *yaml.Node) {
		switch k {
		case "files":
			fx = parseFiles(name, v, &errs)
		default:
			errs.add(name, v.Line, "unknown key %q in fixture file (want files)", k)
		}
	})
	return fx, errs.err()
}

func document(name string, data []byte, errs *errList) (*yaml.Node, bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		// yaml.v3 says "yaml: line N: msg"; keep the line in our format.
		msg := err.Error()
		if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
			n, _ := strconv.Atoi(m[1])
			// yaml.v3 counts lines from 0 in parser errors (all phrased
			// "did not find expected …") and from 1 in scanner errors.
			if strings.HasPrefix(m[2], "did not find expected") {
				n++
			}
			errs.add(name, n, "%s", m[2])
		} else {
			errs.add(name, 0, "%s", strings.TrimPrefix(msg, "yaml: "))
		}
		return nil, false
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		errs.add(name, 0, "empty file")
		return nil, false
	}
	return doc.Content[0], true
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// eachKey calls fn for each key of a mapping, reporting duplicate and
// non-string keys.
func eachKey(name string, m *yaml.Node, errs *errList, fn func(string, *yaml.Node)) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			errs.add(name, k.Line, "mapping key is not a string")
			continue
		}
		if seen[k.Value] {
			errs.add(name, k.Line, "duplicate key %q", k.Value)
			continue
		}
		seen[k.Value] = true
		v = deref(v)
		// Report problems with a value at its key's line.
		if v.Line == 0 {
			v.Line = k.Line
		}
		fn(k.Value, v)
	}
}

// deref follows a YAML alias (*name) to the node its anchor names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func scalar(name string, v *yaml.Node, what string, errs *errList) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		errs.add(name, v.Line, "%s must be a string", what)
		return "", false
	}
	return v.Value, true
}

// ParseYAML parses a YAML corpus file: a list of cases, or a mapping with
// optional files (the fixture shared by its cases), mode, config (a
// configuration in the .shellgate.yaml syntax that its cases are judged
// under instead of the run's: grants, roots, deny rows), and cases.
func ParseYAML(name string, data []byte, fx Fixture) ([]Case, error) {
	var errs errList
	root, ok := document(name, data, &errs)
	if !ok {
		return nil, errs.err()
	}
	mode, shell := ModeDefault, ""
	var list *yaml.Node
	var cfg *policy.Config
	var cfgKey string
	switch root.Kind {
	case yaml.SequenceNode:
		list = root
	case yaml.MappingNode:
		eachKey(name, root, &errs, func(k string, v *yaml.Node) {
			switch k {
			case "files":
				fx = parseFiles(name, v, &errs)
			case "mode":
				if s, ok := scalar(name, v, "mode", &errs); ok {
					if !validModes[s] {
						errs.add(name, v.Line, "unknown mode %q (want default or readonly)", s)
					} else {
						mode = s
					}
				}
			case "shell":
				if s, ok := scalar(name, v, "shell", &errs); ok {
					if !validShells[s] {
						errs.add(name, v.Line, "unknown shell %q (want bash, zsh, sh or unknown)", s)
					} else {
						shell = strings.TrimPrefix(s, "unknown")
					}
				}
			case "config":
				cfg, cfgKey = parseConfig(name, v, &errs)
			case "cases":
				if v.Kind != yaml.SequenceNode {
					errs.add(name, v.Line, "cases must be a list")
					return
				}
				list = v
			default:
				errs.add(name, v.Line, "unknown key %q (want files, mode, shell, config or cases)", k)
			}
		})
		if list == nil && len(errs) == 0 {
			errs.add(name, root.Line, "no cases key")
		}
	default:
		errs.add(name, root.Line, "a corpus file is a list of cases or a mapping with a cases key")
	}
	if list == nil {
		return nil, errs.err()
	}
	var cases []Case
	for _, item := range list.Content {
		c, ok := parseCase(name, deref(item), mode, shell, fx, &errs)
		c.Config, c.ConfigKey = cfg, cfgKey
		if ok {
			cases = append(cases, c)
		}
	}
	return cases, errs.err()
}

// parseConfig checks a file's config key with the policy's own strict
// parser (the config's lines are reported from the key's line on).
func parseConfig(name string, n *yaml.Node, errs *errList) (*policy.Config, string) {
	if n.Kind != yaml.MappingNode {
		errs.add(name, n.Line, "config must be a mapping in the .shellgate.yaml syntax")
		return nil, ""
	}
	data, err := yaml.Marshal(n)
	if err != nil {
		errs.add(name, n.Line, "config: %v", err)
		return nil, ""
	}
	cfg, err := policy.ParseConfig(data, name+" config")
	if err != nil {
		errs.add(name, n.Line, "config: %v", err)
		return nil, ""
	}
	return cfg, string(data)
}

func parseCase(name string, n *yaml.Node, mode, shell string, fx Fixture, errs *errList) (Case, bool) {
	c := Case{File: name, Line: n.Line, Mode: mode, Shell: shell, Fixture: fx}
	if n.Kind != yaml.MappingNode {
		errs.add(name, n.Line, "a case must be a mapping")
		return c, false
	}
	before := len(*errs)
	hasExpect := false
	eachKey(name, n, errs, func(k string, v *yaml.Node) {
		switch k {
		case "name":
			c.Name, _ = scalar(name, v, "name", errs)
		case "command":
			c.Command, _ = scalar(name, v, "command", errs)
			if c.Command == "" && v.Kind == yaml.ScalarNode {
				errs.add(name, v.Line, "empty command")
			}
		case "mode":
			if s, ok := scalar(name, v, "mode", errs); ok {
				if !validModes[s] {
					errs.add(name, v.Line, "unknown mode %q (want default or readonly)", s)
				}
				c.Mode = s
			}
		case "shell":
			if s, ok := scalar(name, v, "shell", errs); ok {
				if !validShells[s] {
					errs.add(name, v.Line, "unknown shell %q (want bash, zsh, sh or unknown)", s)
				}
				c.Shell = strings.TrimPrefix(s, "unknown")
			}
		case "cwd":
			if s, ok := scalar(name, v, "cwd", errs); ok {
				if s != "" && s != "." && s != "~" {
					if err := checkPath(s); err != nil {
						errs.add(name, v.Line, "cwd: %v", err)
					}
				}
				c.Cwd = s
			}
		case "files":
			c.Fixture = parseFiles(name, v, errs)
		case "expect":
			hasExpect = true
			c.Expect = parseExpect(name, v, errs)
		default:
			errs.add(name, v.Line, "unknown key %q in case (want name, command, mode, shell, cwd, files or expect)", k)
		}
	})
	if c.Command == "" && len(*errs) == before {
		errs.add(name, n.Line, "case has no command")
	}
	if !hasExpect {
		errs.add(name, n.Line, "case has no expect")
	}
	if c.Name == "" {
		c.Name = fmt.Sprintf("%s:%d", name, n.Line)
	} else {
		c.Name = fmt.Sprintf("%s:%d %s", name, n.Line, c.Name)
	}
	return c, len(*errs) == before
}

func parseExpect(name string, n *yaml.Node, errs *errList) Expect {
	var e Expect
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		// Shorthand: expect: ask
		if !validActions[n.Value] {
			errs.add(name, n.Line, "unknown action %q (want allow, ask or deny)", n.Value)
		}
		e.Action = n.Value
		return e
	}
	if n.Kind != yaml.MappingNode {
		errs.add(name, n.Line, "expect must be an action or a mapping")
		return e
	}
	eachKey(name, n, errs, func(k string, v *yaml.Node) {
		switch k {
		case "action":
			if s, ok := scalar(name, v, "action", errs); ok {
				if !validActions[s] {
					errs.add(name, v.Line, "unknown action %q (want allow, ask or deny)", s)
				}
				e.Action = s
			}
		case "reasons":
			if v.Kind != yaml.SequenceNode {
				errs.add(name, v.Line, "reasons must be a list of reason codes")
				return
			}
			for _, r := range v.Content {
				if s, ok := scalar(name, deref(r), "a reason code", errs); ok {
					e.Reasons = append(e.Reasons, s)
				}
			}
		case "reversible":
			var b bool
			if v.Kind != yaml.ScalarNode || v.Decode(&b) != nil || v.Tag != "!!bool" {
				errs.add(name, v.Line, "reversible must be true or false")
				return
			}
			e.Reversible = &b
		case "reads":
			if v.Kind != yaml.MappingNode {
				errs.add(name, v.Line, "reads must map a path to a verdict")
				return
			}
			e.Reads = map[string]string{}
			eachKey(name, v, errs, func(p string, vv *yaml.Node) {
				if s, ok := scalar(name, vv, "a read verdict", errs); ok {
					if !validVerdict[s] {
						errs.add(name, vv.Line, "unknown read verdict %q (want ok, denied, outside-roots, not-established, missing or repo-helper)", s)
					}
					e.Reads[p] = s
				}
			})
		case "exit_meaning":
			e.ExitMeaning = parseExitMeaning(name, v, errs)
		default:
			errs.add(name, v.Line, "unknown key %q in expect (want action, reasons, reversible, reads or exit_meaning)", k)
		}
	})
	if e.Action == "" {
		errs.add(name, n.Line, "expect has no action")
	}
	return e
}

func parseExitMeaning(name string, n *yaml.Node, errs *errList) *ExitMeaning {
	if n.Kind != yaml.MappingNode {
		errs.add(name, n.Line, "exit_meaning must be a mapping {code, error, message}")
		return nil
	}
	m := &ExitMeaning{}
	hasCode := false
	eachKey(name, n, errs, func(k string, v *yaml.Node) {
		switch k {
		case "code":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || v.Decode(&m.Code) != nil || m.Code < 0 || m.Code > 255 {
				errs.add(name, v.Line, "code must be an integer from 0 to 255")
			}
			hasCode = true
		case "error":
			var b bool
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
				errs.add(name, v.Line, "error must be true or false")
			}
			m.Error = &b
		case "message":
			m.Message, _ = scalar(name, v, "message", errs)
		default:
			errs.add(name, v.Line, "unknown key %q in exit_meaning (want code, error or message)", k)
		}
	})
	if !hasCode {
		errs.add(name, n.Line, "exit_meaning has no code")
	}
	if m.Error == nil && m.Message == "" {
		errs.add(name, n.Line, "exit_meaning checks nothing: give error, message or both")
	}
	return m
}

// parseFiles parses a fixture's files mapping. A value is a file's content
// (a string), nothing for a directory (a key ending in "/"), or a mapping
// with exactly one of content, symlink or dir, and an optional mode
// ("0600").
func parseFiles(name string, n *yaml.Node, errs *errList) Fixture {
	if n.Kind != yaml.MappingNode {
		errs.add(name, n.Line, "files must map a path to its content")
		return nil
	}
	fx := Fixture{}
	eachKey(name, n, errs, func(p string, v *yaml.Node) {
		if err := checkPath(p); err != nil {
			errs.add(name, v.Line, "files: %v", err)
			return
		}
		e := Entry{Path: strings.TrimSuffix(p, "/")}
		switch {
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			if !strings.HasSuffix(p, "/") {
				errs.add(name, v.Line, "files: %q has no content (end a directory's path with /)", p)
				return
			}
			e.Kind = KindDir
		case v.Kind == yaml.ScalarNode:
			if strings.HasSuffix(p, "/") {
				errs.add(name, v.Line, "files: %q ends with / but has content", p)
				return
			}
			e.Kind, e.Content = KindFile, v.Value
		case v.Kind == yaml.MappingNode:
			kinds := 0
			eachKey(name, v, errs, func(k string, vv *yaml.Node) {
				switch k {
				case "content":
					kinds++
					e.Kind = KindFile
					e.Content, _ = scalar(name, vv, "content", errs)
				case "symlink":
					kinds++
					e.Kind = KindSymlink
					e.Target, _ = scalar(name, vv, "symlink", errs)
				case "dir":
					var b bool
					if vv.Tag != "!!bool" || vv.Decode(&b) != nil || !b {
						errs.add(name, vv.Line, "dir must be true")
						return
					}
					kinds++
					e.Kind = KindDir
				case "mode":
					s, ok := scalar(name, vv, "mode", errs)
					if !ok {
						return
					}
					m, err := strconv.ParseUint(s, 8, 32)
					if err != nil || m > 0o777 || m == 0 && s != "0" && s != "0000" && s != "000" {
						errs.add(name, vv.Line, "mode %q is not octal permission bits like \"0600\"", s)
						return
					}
					e.Perm = fs.FileMode(m)
					if m == 0 {
						e.Perm = permNone
					}
				default:
					errs.add(name, vv.Line, "unknown key %q in file entry (want content, symlink, dir or mode)", k)
				}
			})
			if kinds != 1 {
				errs.add(name, v.Line, "files: %q needs exactly one of content, symlink or dir", p)
				return
			}
		default:
			errs.add(name, v.Line, "files: %q must be a string or a mapping", p)
			return
		}
		fx = append(fx, e)
	})
	return fx
}

// permNone stands for mode 0000 (Perm 0 means "default").
const permNone = fs.ModeSticky

// MaxFileBytes bounds one corpus file read from disk (a regular file
// only, opened without blocking).
const MaxFileBytes = 64 << 20
