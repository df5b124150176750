package classify

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"mvdan.cc/sh/v3/syntax"
)

// TestWithStatements: the statements passed are the command's top-level
// ones, in order, after their segments are in the report; and the set and
// exit builtins are read as the shell reads them.
func TestWithStatements(t *testing.T) {
	src := "set -eo pipefail; cd x && grep y z | wc -l; set +e; exit $?"
	var got []string
	rep := Classify(src, WithDialect(DialectBash), WithStatements(func(s *syntax.Stmt) {
		got = append(got, src[s.Pos().Offset():s.End().Offset()])
	}))
	if !rep.Parse.OK || len(rep.Segments) != 6 {
		t.Errorf("report: parse %+v, %d segments, want 6", rep.Parse, len(rep.Segments))
	}
	want := []string{"set -eo pipefail;", "cd x && grep y z | wc -l;", "set +e;", "exit $?"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}

	var opts []string
	var exits []string
	e, p := false, false
	parseStmts(src, syntax.LangBash, func(s *syntax.Stmt) bool {
		e, p = SetStatusOptions(s, e, p)
		opts = append(opts, fmt.Sprintf("e=%v p=%v", e, p))
		isExit, pass := ExitStatement(s)
		exits = append(exits, fmt.Sprintf("%v/%v", isExit, pass))
		return true
	})
	if diff := cmp.Diff([]string{"e=true p=true", "e=true p=true", "e=false p=true", "e=false p=true"}, opts); diff != "" {
		t.Errorf("SetStatusOptions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"false/false", "false/false", "false/false", "true/true"}, exits); diff != "" {
		t.Errorf("ExitStatement (-want +got):\n%s", diff)
	}
	for in, want := range map[string]string{"exit": "true/true", "exit 3": "true/false", "exit $? ": "true/true", "exit $x": "true/false", "exit &": "false/false", "quit": "false/false"} {
		parseStmts(in, syntax.LangBash, func(s *syntax.Stmt) bool {
			isExit, pass := ExitStatement(s)
			if got := fmt.Sprintf("%v/%v", isExit, pass); got != want {
				t.Errorf("ExitStatement(%q) = %s, want %s", in, got, want)
			}
			return true
		})
	}
}
