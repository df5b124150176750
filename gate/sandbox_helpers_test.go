package gate

import (
	"os"
	"testing"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/internal/testenv"
)

// allowAll is a policy that allows every command: the sandbox alone then
// stands between a command and the file system.
var allowAll = map[string]string{"allow_all.rego": "package shellgate\n\ndecision := {\"action\": \"allow\", \"reasons\": []}\n"}

// askAll is a policy that asks about every command.
var askAll = map[string]string{"ask_all.rego": "package shellgate\n\ndecision := {\"action\": \"ask\", \"reasons\": [{\"code\": \"test\", \"message\": \"asks\"}]}\n"}

// needTool returns the path of a program the test drives (testenv.LookPath:
// skipped without it on a developer's machine, a failure in CI).
func needTool(t testing.TB, name string, candidates ...string) string {
	t.Helper()
	return testenv.LookPath(t, append([]string{name}, candidates...)...)
}

// needLandlock skips (fails in CI) when this kernel cannot confine.
func needLandlock(t *testing.T) execution.SandboxSupport {
	t.Helper()
	s := testRunner.SandboxSupport()
	if s.Err != nil {
		testenv.Missing(t, "confinement is not available: %v", s.Err)
	}
	return s
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
