package trust_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shellgate/shellgate/trust"
)

// A project file is trusted with exactly the content the user trusted:
// any edit makes it untrusted again.
func Example() {
	dir, _ := os.MkdirTemp("", "trust-example")
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, ".shellgate.yaml")
	os.WriteFile(cfg, []byte("grants: [make lint]\n"), 0o644)

	store := &trust.Store{Version: trust.Version}
	data, _ := os.ReadFile(cfg)
	store.Add(trust.Entry{Path: cfg, Kind: trust.KindFile, SHA256: trust.Sum(data)})
	fmt.Println("trusted:", store.Trusted(cfg, trust.KindFile, trust.Sum(data)))

	os.WriteFile(cfg, []byte("grants: [make lint, \"python3 **\"]\n"), 0o644)
	data, _ = os.ReadFile(cfg)
	fmt.Println("after an edit:", store.Trusted(cfg, trust.KindFile, trust.Sum(data)))
	// Output:
	// trusted: true
	// after an edit: false
}
