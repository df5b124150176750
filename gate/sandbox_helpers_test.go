package gate

import (
	"os"
	"os/exec"
	"testing"
)

// allowAll is a policy that allows every command: the sandbox alone then
// stands between a command and the file system.
var allowAll = map[string]string{"allow_all.rego": "package shellgate\n\ndecision := {\"action\": \"allow\", \"reasons\": []}\n"}

// askAll is a policy that asks about every command.
var askAll = map[string]string{"ask_all.rego": "package shellgate\n\ndecision := {\"action\": \"ask\", \"reasons\": [{\"code\": \"test\", \"message\": \"asks\"}]}\n"}

// needTool skips a test when a program it drives is missing, except in CI
// (SHELLGATE_CI=1), where it fails.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("SHELLGATE_CI") != "" {
			t.Fatalf("%s is needed by this test and is not installed (.ci/run installs it)", name)
		}
		t.Skipf("%s is not installed", name)
	}
	return p
}

// needLandlock skips (fails in CI) when this kernel cannot confine.
func needLandlock(t *testing.T) SandboxSupport {
	t.Helper()
	s := testRunner.SandboxSupport()
	if s.Err != nil {
		if os.Getenv("SHELLGATE_CI") != "" {
			t.Fatalf("confinement is not available: %v", s.Err)
		}
		t.Skipf("confinement is not available: %v", s.Err)
	}
	return s
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
