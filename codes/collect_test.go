package codes

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	oast "github.com/open-policy-agent/opa/v1/ast"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/rego"
)

// codeRe is the shape of a finding or reason code.
var codeRe = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

// emitted collects, from the sources, every code shellgate can emit, with
// where it was found. It reads:
//   - the Go packages that make findings and reasons: the first argument of
//     every call of a function or method named find, every Code or code
//     field of a composite literal (the effect registry's code), the values
//     of the tables jqBuiltins and shellBuiltins (first element), the first result of every
//     function named *Check or *Scan returning string literals, and
//     every string assigned to a variable named code or *Code; an identifier in
//     those places is resolved through the package's string constants;
//   - every "code" member of an object in the embedded Rego policy, and the
//     values of an object the member's value indexes.
func emitted(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	add := func(code, where string) {
		if code == "" || strings.ToUpper(code) == code {
			// Upper-case codes (INVALID_INPUT) are the gate's error
			// codes, another namespace (gate.Code).
			return
		}
		if !codeRe.MatchString(code) {
			t.Errorf("%s: %q is not a code (lower-case words joined by -)", where, code)
			return
		}
		if _, ok := out[code]; !ok {
			out[code] = where
		}
	}
	consts := map[string]string{}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, dir := range []string{"classify", "readstation", "policy", "gate", "rego", "exitmeaning"} {
		files = append(files, parseDir(t, fset, filepath.Join("..", dir), consts)...)
	}
	goCodes(fset, files, consts, add)
	for name, src := range rego.DefaultModules(false) {
		regoCodes(t, name, src, add)
	}
	return out
}

// parseDir parses the non-test Go files of dir and adds its string
// constants to consts.
func parseDir(t *testing.T, fset *token.FileSet, dir string, consts map[string]string) []*ast.File {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if v, ok := literal(vs.Values[i]); ok {
							consts[n.Name] = v
						}
					}
				}
			}
		}
	}
	return parsed
}

func goCodes(fset *token.FileSet, parsed []*ast.File, consts map[string]string, add func(code, where string)) {
	str := func(e ast.Expr) (string, bool) {
		if v, ok := literal(e); ok {
			return v, true
		}
		switch x := e.(type) {
		case *ast.Ident:
			v, ok := consts[x.Name]
			return v, ok
		case *ast.SelectorExpr:
			v, ok := consts[x.Sel.Name]
			return v, ok
		}
		return "", false
	}
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			where := func() string { return fset.Position(n.Pos()).String() }
			switch x := n.(type) {
			case *ast.CallExpr:
				if name := callName(x.Fun); name == "find" && len(x.Args) > 0 {
					if v, ok := str(x.Args[0]); ok {
						add(v, where())
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := x.Key.(*ast.Ident); ok && (k.Name == "Code" || k.Name == "code") {
					if v, ok := str(x.Value); ok {
						add(v, where())
					}
				}
			case *ast.AssignStmt:
				for i, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok && (id.Name == "code" || strings.HasSuffix(id.Name, "Code")) && i < len(x.Rhs) {
						if v, ok := str(x.Rhs[i]); ok {
							add(v, where())
						}
					}
				}
			case *ast.ValueSpec:
				for i, nm := range x.Names {
					if (nm.Name == "jqBuiltins" || nm.Name == "shellBuiltins") && i < len(x.Values) {
						tableCodes(x.Values[i], str, func(v string) { add(v, where()) })
					}
				}
			case *ast.FuncDecl:
				if (strings.HasSuffix(x.Name.Name, "Check") || strings.HasSuffix(x.Name.Name, "Scan")) && x.Body != nil {
					ast.Inspect(x.Body, func(m ast.Node) bool {
						if r, ok := m.(*ast.ReturnStmt); ok && len(r.Results) > 1 {
							if v, ok := literal(r.Results[0]); ok {
								add(v, fset.Position(r.Pos()).String())
							}
						}
						return true
					})
				}
			}
			return true
		})
	}
}

// tableCodes adds the values of a map literal (the first element of each
// value when it is itself a composite literal).
func tableCodes(e ast.Expr, str func(ast.Expr) (string, bool), add func(string)) {
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		return
	}
	for _, el := range cl.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		v := kv.Value
		if c, ok := v.(*ast.CompositeLit); ok && len(c.Elts) > 0 {
			v = c.Elts[0]
		}
		if s, ok := str(v); ok {
			add(s)
		}
	}
}

func callName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}

func literal(e ast.Expr) (string, bool) {
	bl, ok := e.(*ast.BasicLit)
	if !ok || bl.Kind != token.STRING {
		return "", false
	}
	v, err := strconv.Unquote(bl.Value)
	return v, err == nil
}

// regoCodes adds every "code" member of an object in the module: a string,
// or the string values of the object rule its value indexes.
func regoCodes(t *testing.T, name, src string, add func(code, where string)) {
	m, err := oast.ParseModuleWithOpts(name, src, oast.ParserOptions{RegoVersion: oast.RegoV1})
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string][]string{}
	for _, r := range m.Rules {
		if r.Head.Value == nil || len(r.Head.Args) > 0 {
			continue
		}
		if o, ok := r.Head.Value.Value.(oast.Object); ok {
			o.Foreach(func(_, v *oast.Term) {
				if s, ok := v.Value.(oast.String); ok {
					tables[r.Head.Name.String()] = append(tables[r.Head.Name.String()], string(s))
				}
			})
		}
	}
	oast.WalkTerms(m, func(term *oast.Term) bool {
		o, ok := term.Value.(oast.Object)
		if !ok {
			return false
		}
		c := o.Get(oast.StringTerm("code"))
		if c == nil {
			return false
		}
		where := name
		if term.Location != nil {
			where = term.Location.String()
		}
		switch v := c.Value.(type) {
		case oast.String:
			add(string(v), where)
		case oast.Ref:
			for _, s := range tables[v[0].Value.String()] {
				add(s, where)
			}
		}
		return false
	})
}

// TestEveryEmittedCodeIsRegistered: every code the sources can emit is in
// the registry (or is a catalog entry's code), and every code of the
// registry is emitted somewhere (no stale entry).
func TestEveryEmittedCodeIsRegistered(t *testing.T) {
	got := emitted(t)
	if len(got) < 60 {
		t.Fatalf("only %d codes found in the sources: the scan is broken", len(got))
	}
	registered := map[string]bool{}
	seen := map[[2]string]bool{}
	for _, c := range Registry {
		if !codeRe.MatchString(c.Name) || c.From == "" || c.Doc == "" {
			t.Errorf("registry entry %+v: want a code, where it is from and a doc", c)
		}
		if seen[[2]string{c.Name, c.From}] {
			t.Errorf("%s (%s) is registered twice", c.Name, c.From)
		}
		seen[[2]string{c.Name, c.From}] = true
		registered[c.Name] = true
	}
	catalog := map[string]bool{}
	for _, c := range Catalog(classify.DefaultCatalog()) {
		catalog[c.Name] = true
		if c.Doc == "" {
			t.Errorf("catalog code %s has no doc", c.Name)
		}
	}
	var missing []string
	for c, where := range got {
		if !registered[c] {
			missing = append(missing, where+": "+c)
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("not in the registry (codes/codes.go): %s", m)
	}
	for c := range registered {
		if _, ok := got[c]; !ok && !catalog[c] {
			t.Errorf("registered but emitted nowhere: %s", c)
		}
	}
}

// TestDocsListEveryCode: docs/codes.md is the registry rendered (go
// generate ./codes rewrites it).
func TestDocsListEveryCode(t *testing.T) {
	path := filepath.Join("..", "docs", "codes.md")
	want := Markdown()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("docs/codes.md is not the registry (-registry +file; go generate ./codes rewrites it):\n%s", diff)
	}
}
