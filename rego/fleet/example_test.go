package fleet_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shellgate/shellgate/rego/fleet"
)

// Build makes the OPA bundle shellgate policy bundle writes: the default
// policy, the directory's modules and config, and the default mask.
func ExampleBuild() {
	dir, _ := os.MkdirTemp("", "org")
	defer os.RemoveAll(dir)
	org := filepath.Join(dir, "org")
	_ = os.Mkdir(org, 0o755)
	_ = os.WriteFile(filepath.Join(org, "no_curl.rego"), []byte(`package shellgate

import rego.v1

deny contains {"code": "org-no-curl", "message": "no curl"} if {
	some s in input.report.segments
	s.program == "curl"
}
`), 0o644)
	_ = os.WriteFile(filepath.Join(org, "shellgate.yaml"), []byte("mode: readonly\n"), 0o644)
	b, err := fleet.Build(fleet.BundleOptions{Dirs: []string{org}, Revision: "2026-12-01"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Manifest.Revision, *b.Manifest.Roots)
	for _, m := range b.Modules {
		fmt.Println(m.Path)
	}
	fmt.Printf("%q\n", b.Data[fleet.DataRoot].(map[string]any)["config"])
	// Output:
	// 2026-12-01 [shellgate shellgate_bundle system/log]
	// /default/engine.rego
	// /default/shellgate.rego
	// /policy/org/no_curl.rego
	// /system/log/mask.rego
	// "mode: readonly\n"
}
