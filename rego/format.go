package rego

import (
	"sort"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
)

// Format formats a Rego v1 module the way `opa fmt` does. Errors name the
// file, line and column.
func Format(name string, src []byte) ([]byte, error) {
	out, err := format.SourceWithOpts(name, src, format.Opts{RegoVersion: ast.RegoV1, ParserOptions: &parserOptions})
	if err != nil {
		return nil, formatErrors(err)
	}
	return out, nil
}

// Lint compiles the default policy with the modules under dirs, as New
// does, and reports every file under dirs that Format would change.
func Lint(dirs ...string) (unformatted []string, err error) {
	if _, err := New(WithPolicyDirs(dirs...), WithMemo(0)); err != nil {
		return nil, err
	}
	for _, d := range dirs {
		srcs, err := ReadPolicyDir(d, true)
		if err != nil {
			return nil, err
		}
		for name, src := range srcs {
			out, err := Format(name, []byte(src))
			if err != nil {
				return nil, err
			}
			if string(out) != src {
				unformatted = append(unformatted, name)
			}
		}
	}
	sort.Strings(unformatted)
	return unformatted, nil
}
