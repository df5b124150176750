package rego

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"
)

// TestResult is the outcome of one Rego test rule (or one named case of a
// parameterized test).
type TestResult struct {
	// Name is "package.test_rule" or "package.test_rule/case".
	Name string
	// Location is the test rule's file:line.
	Location string
	Pass     bool
	Skipped  bool
	// Error is set when the test could not be evaluated.
	Error error
}

// RunTests runs the Rego unit tests (test_ rules) of the given modules (file
// name to source) together with the embedded default policy and its own
// tests when withDefault is set. It fails on a module that does not parse
// or compile.
func RunTests(ctx context.Context, srcs map[string]string, withDefault bool) ([]TestResult, error) {
	all := map[string]string{}
	if withDefault {
		for k, v := range DefaultModules(true) {
			all[k] = v
		}
	}
	for k, v := range srcs {
		all[k] = v
	}
	mods := map[string]*ast.Module{}
	var errs []error
	for n, src := range all {
		m, err := ast.ParseModuleWithOpts(n, src, parserOptions)
		if err != nil {
			errs = append(errs, formatErrors(err))
			continue
		}
		mods[n] = m
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	compiler := ast.NewCompiler().WithCapabilities(capabilities).WithEnablePrintStatements(false)
	ch, err := tester.NewRunner().SetTimeout(testTimeout).SetCompiler(compiler).SetModules(mods).SetDefaultRegoVersion(ast.RegoV1).RunTests(ctx, nil)
	if err != nil {
		return nil, formatErrors(err)
	}
	var out []TestResult
	for r := range ch {
		if r.Error != nil && r.Name == "" {
			return nil, formatErrors(r.Error)
		}
		base := strings.TrimPrefix(r.Package, "data.") + "." + r.Name
		loc := ""
		if r.Location != nil {
			loc = fmt.Sprintf("%s:%d", r.Location.File, r.Location.Row)
		}
		if len(r.SubResults) > 0 {
			for path, sr := range r.SubResults.Iter {
				out = append(out, TestResult{Name: base + "/" + strings.Join(path, "/"), Location: loc, Pass: !sr.Fail})
			}
			// A parameterized test that fails with no failing case (a
			// case list that is undefined) still fails.
			if r.Fail {
				failed := false
				for _, sr := range r.SubResults.Iter {
					failed = failed || sr.Fail
				}
				if !failed {
					out = append(out, TestResult{Name: base, Location: loc, Pass: false})
				}
			}
			continue
		}
		out = append(out, TestResult{Name: base, Location: loc, Pass: r.Pass(), Skipped: r.Skip, Error: r.Error})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// testTimeout bounds one test_ rule. OPA's default (5 s) is tight for a
// table rule on a loaded machine; a rule that loops still ends.
const testTimeout = 60 * time.Second
