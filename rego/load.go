package rego

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/shellgate/shellgate/trust"
)

//go:embed policy/*.rego
var defaultPolicy embed.FS

// DefaultModules returns the embedded default policy: file name to source,
// tests included when tests is set.
func DefaultModules(tests bool) map[string]string {
	out := map[string]string{}
	entries, _ := fs.ReadDir(defaultPolicy, "policy")
	for _, e := range entries {
		if isTest(e.Name()) && !tests {
			continue
		}
		b, err := fs.ReadFile(defaultPolicy, "policy/"+e.Name())
		if err != nil {
			continue
		}
		out[defaultPrefix+e.Name()] = string(b)
	}
	return out
}

// defaultSources is DefaultModules(false), read once.
var defaultSources = sync.OnceValue(func() map[string]string { return DefaultModules(false) })

// isDefault reports whether a module name is the embedded default's.
func isDefault(name string) bool { return strings.HasPrefix(name, defaultPrefix) }

// defaultPrefix names the embedded default policy's modules.
const defaultPrefix = "default/"

func isTest(name string) bool { return strings.HasSuffix(name, "_test.rego") }

// ReadPolicyDir reads the .rego files under dir (recursively): file path to
// source. Tests are included when tests is set.
func ReadPolicyDir(dir string, tests bool) (map[string]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("policy directory: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("policy directory %s: not a directory", dir)
	}
	out := map[string]string{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".rego") || (!tests && isTest(p)) {
			return nil
		}
		// A module is a regular file (a symlink to one counts): a FIFO
		// or a link to a device would block or never end, and is an
		// error, never skipped.
		b, err := trust.ReadRegular(p, MaxModuleBytes)
		if err != nil {
			return err
		}
		out[p] = string(b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("policy directory %s: %w", dir, err)
	}
	return out, nil
}

// MaxModuleBytes bounds one policy module read from a directory.
const MaxModuleBytes = 4 << 20

var parserOptions = ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true}

// parseModules parses every module (sorted by name), checks that each is in
// package shellgate (or below it) and that each deny/ask/allow rule yields a
// reason object, and gives every reason literal without a "rule" key one
// that names its file and line. It returns the modules and an index from
// rule name to "file:line".
func parseModules(srcs map[string]string, ownDecision bool) (map[string]*ast.Module, map[string]string, error) {
	names := make([]string, 0, len(srcs))
	for n := range srcs {
		names = append(names, n)
	}
	sort.Strings(names)
	mods := map[string]*ast.Module{}
	index := map[string]string{}
	var errs []error
	for _, n := range names {
		m, err := ast.ParseModuleWithOpts(n, srcs[n], parserOptions)
		if err != nil {
			errs = append(errs, formatErrors(err))
			continue
		}
		if err := checkModule(n, m, index, ownDecision); err != nil {
			errs = append(errs, err)
			continue
		}
		mods[n] = m
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return mods, index, nil
}

// reasonSets are the partial sets whose elements are reasons.
var reasonSets = map[string]bool{"deny": true, "ask": true, "allow": true}

func checkModule(name string, m *ast.Module, index map[string]string, ownDecision bool) error {
	p := m.Package.Path
	if len(p) < 2 || !p[1].Equal(ast.StringTerm("shellgate")) {
		return fmt.Errorf("%s:%d: module is in %s; shellgate modules must be in package shellgate or below it", name, m.Package.Location.Row, strings.TrimPrefix(p.String(), "data."))
	}
	top := len(p) == 2
	for _, r := range m.Rules {
		rn := r.Head.Name.String()
		if len(r.Head.Reference) > 0 {
			rn = r.Head.Reference[0].Value.String()
		}
		if !top {
			// Helpers may live below package shellgate, but reasons there
			// would never reach the decision: say so rather than ignore them.
			if reasonSets[rn] {
				return fmt.Errorf("%s:%d: %s in package %s is not seen by the decision; put deny, ask and allow rules in package shellgate", name, r.Location.Row, rn, strings.TrimPrefix(p.String(), "data."))
			}
			continue
		}
		if rn == "decision" && !isDefault(name) && !ownDecision {
			return fmt.Errorf("%s:%d: decision is the default policy's: add reasons to deny, ask or allow instead", name, r.Location.Row)
		}
		if !reasonSets[rn] {
			continue
		}
		loc := fmt.Sprintf("%s:%d", name, r.Location.Row)
		if len(r.Head.Reference) > 1 || r.Head.Key == nil || r.Head.Value != nil {
			return fmt.Errorf("%s: %s must be a partial set of reason objects (%s contains {...} if ...)", loc, rn, rn)
		}
		obj := reasonObject(r)
		switch v := r.Head.Key.Value.(type) {
		case ast.String, ast.Number, ast.Boolean, ast.Null, *ast.Array, ast.Set:
			return fmt.Errorf("%s: %s yields %s, not a reason object {\"code\": ..., \"message\": ...}", loc, rn, ast.ValueName(v))
		}
		if obj == nil {
			continue // checked when evaluated
		}
		for _, k := range []string{"code", "message"} {
			if obj.Get(ast.StringTerm(k)) == nil {
				return fmt.Errorf("%s: %s yields a reason without %q; a reason is {\"code\", \"message\", \"span\", \"segment\"}", loc, rn, k)
			}
		}
		for _, k := range []string{"code", "message", "rule"} {
			if t := obj.Get(ast.StringTerm(k)); t != nil {
				switch t.Value.(type) {
				case ast.Number, ast.Boolean, ast.Null, *ast.Array, ast.Set, ast.Object:
					return fmt.Errorf("%s: %s yields a reason whose %q is %s, not a string", loc, rn, k, ast.ValueName(t.Value))
				}
			}
		}
		if t := obj.Get(ast.StringTerm("rule")); t != nil {
			if s, ok := t.Value.(ast.String); ok {
				if _, dup := index[string(s)]; !dup {
					index[string(s)] = loc
				}
			}
			continue
		}
		// A reason without a rule name is named by its file and line.
		obj.Insert(ast.StringTerm("rule"), ast.StringTerm(loc))
		index[loc] = loc
	}
	return nil
}

// reasonObject finds the object literal a reason rule yields: the head key,
// or the object bound to the head's variable in the body.
func reasonObject(r *ast.Rule) ast.Object {
	switch v := r.Head.Key.Value.(type) {
	case ast.Object:
		return v
	case ast.Var:
		for _, e := range r.Body {
			if !e.IsAssignment() && !e.IsEquality() {
				continue
			}
			ts, ok := e.Terms.([]*ast.Term)
			if !ok || len(ts) != 3 {
				continue
			}
			if lhs, ok := ts[1].Value.(ast.Var); ok && lhs.Equal(v) {
				if o, ok := ts[2].Value.(ast.Object); ok {
					return o
				}
			}
		}
	}
	return nil
}

// formatErrors prints OPA errors as "file:line:col: message", one a line.
func formatErrors(err error) error {
	var aerrs ast.Errors
	if !errors.As(err, &aerrs) {
		return err
	}
	lines := make([]string, 0, len(aerrs))
	for _, e := range aerrs {
		msg := e.Message
		if name, ok := strings.CutPrefix(msg, "undefined function "); ok && removedBuiltins[name] {
			msg += " (not available: shellgate policies must be deterministic, so non-deterministic builtins are left out)"
		}
		if e.Location != nil {
			lines = append(lines, fmt.Sprintf("%s:%d:%d: %s: %s", e.Location.File, e.Location.Row, e.Location.Col, e.Code, msg))
		} else {
			lines = append(lines, fmt.Sprintf("%s: %s", e.Code, msg))
		}
	}
	return errors.New(strings.Join(lines, "\n"))
}

// removedBuiltins are the builtins left out of the capabilities.
var removedBuiltins = map[string]bool{}

// capabilities are the builtins offered to policies: every deterministic
// builtin of this OPA version.
var capabilities = func() *ast.Capabilities {
	c := ast.CapabilitiesForThisVersion()
	keep := c.Builtins[:0]
	for _, b := range c.Builtins {
		if b.Nondeterministic || nondeterministicName(b.Name) {
			removedBuiltins[b.Name] = true
			continue
		}
		keep = append(keep, b)
	}
	c.Builtins = keep
	return c
}()

func nondeterministicName(n string) bool {
	for _, p := range []string{"http.", "net.", "rand.", "uuid.", "opa.runtime", "time.now_ns", "io.jwt.decode_verify", "crypto.x509.parse_and_verify"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}
