package serve_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/serve"
)

// Gates decide hook queries with a warm gate per config, rebuilt before
// the next decision when the config changed.
func ExampleGates() {
	dir, err := os.MkdirTemp("", "serve-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	cfg := filepath.Join(dir, "shellgate.yaml")
	if err := os.WriteFile(cfg, []byte("mode: default\n"), 0o644); err != nil {
		panic(err)
	}
	gates := serve.NewGates(hook.Flags{Config: cfg})
	ctx := context.Background()
	for _, cmd := range []string{"ls -la", "touch new.txt"} {
		v, err := gates.Decide(ctx, hook.Query{Command: cmd, Cwd: dir, Shell: "bash"})
		if err != nil {
			panic(err)
		}
		fmt.Println(cmd+":", v.Action)
	}
	// The config is made stricter: the very next decision follows it.
	if err := os.WriteFile(cfg, []byte("mode: readonly\n"), 0o644); err != nil {
		panic(err)
	}
	v, err := gates.Decide(ctx, hook.Query{Command: "touch new.txt", Cwd: dir, Shell: "bash"})
	if err != nil {
		panic(err)
	}
	fmt.Println("touch new.txt:", v.Action, v.Reasons[0].Code)
	// Output:
	// ls -la: allow
	// touch new.txt: ask
	// touch new.txt: deny not-read-only
}
