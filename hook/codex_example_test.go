package hook_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shellgate/shellgate/hook"
)

// A hooks file with the shellgate hook is not enough for Codex: it runs the
// hook only once the user's config trusts it.
func ExampleCodexHookTrust() {
	codexHome, _ := os.MkdirTemp("", "codex-home")
	defer os.RemoveAll(codexHome)
	hooksFile := filepath.Join(codexHome, "hooks.json")
	command := hook.CodexFailClosed("/usr/local/bin/shellgate-hook codex")
	if _, err := hook.Install(hook.Codex, hooksFile, command, false); err != nil {
		panic(err)
	}

	st, _ := hook.CodexHookTrust(codexHome, hooksFile)
	fmt.Println(st.Status, st.Active)

	if _, err := hook.TrustCodexHook(codexHome, hooksFile, false); err != nil {
		panic(err)
	}
	st, _ = hook.CodexHookTrust(codexHome, hooksFile)
	fmt.Println(st.Status, st.Active, st.FailClosed)
	// Output:
	// untrusted false
	// trusted true true
}
