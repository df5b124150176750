package exitmeaning_test

import (
	"fmt"

	"github.com/shellgate/shellgate/exitmeaning"
)

func ExampleInterpret() {
	for _, c := range []struct {
		cmd  string
		code int
	}{
		{"grep -rn 'a;b' src | head", 0},
		{"timeout 30 grep -rn TODO src", 1},
		{"cd src && diff a b", 1},
		{"sleep 600", 137},
	} {
		m := exitmeaning.Interpret(c.cmd, c.code)
		fmt.Printf("%d error=%v %q\n", c.code, m.Error, m.Message)
	}
	// Output:
	// 0 error=false ""
	// 1 error=false "No matches found"
	// 1 error=false "diff: Files differ (or cd failed)"
	// 137 error=true "Killed by signal SIGKILL (9)"
}
