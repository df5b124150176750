package exitmeaning

import (
	"testing"
)

// FuzzInterpret checks the invariants on any command and status: no
// panic, the same answer twice, 0 is never an error, and any other status
// says something (an error, or a message).
func FuzzInterpret(f *testing.F) {
	for _, s := range []string{
		"grep 'a;b' f", "cd x && rg y", "set -o pipefail; a | b", "bash -c 'grep x f'",
		"timeout 5 env A=1 nice grep x", "find . | xargs grep foo", "if a; then b; else c; fi",
		"! grep x", "[[ -f x ]]", "(( x ))", "x=$(y)", "exec grep x", "jq -e .a", "git grep x",
	} {
		for _, code := range []int{0, 1, 2, 123, 124, 127, 137, 141, 255} {
			f.Add(s, code)
		}
	}
	f.Fuzz(func(t *testing.T, cmd string, code int) {
		m := Interpret(cmd, code)
		if m2 := Interpret(cmd, code); m.Error != m2.Error || m.Message != m2.Message || m.Program != m2.Program {
			t.Fatalf("not deterministic: %+v then %+v", m, m2)
		}
		if code == 0 && (m.Error || m.Message != "") {
			t.Fatalf("status 0 means %+v", m)
		}
		if code != 0 && !m.Error && m.Message == "" {
			t.Fatalf("status %d of %q: not an error and no message", code, cmd)
		}
	})
}
