//go:build linux

package execution

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSandboxCacheNotShared: the sandbox cache is writable by every
// confined command and the build tools trust what is in it (go builds a
// module's source from GOMODCACHE without hashing it again, cargo obeys
// CARGO_HOME/config.toml), so a command confined to one workspace must
// not write what a command confined to another reads: it would plant
// code in the other workspace's builds (a binary the user then runs
// unconfined). Each workspace (set of roots) gets a cache of its own
// under Confinement.Cache; the same workspace keeps its own warm.
func TestSandboxCacheNotShared(t *testing.T) {
	needLandlock(t)
	cache := filepath.Join(t.TempDir(), "shellgate", "sandbox")
	a, b := t.TempDir(), t.TempDir()
	run := func(ws, cmd string) string {
		t.Helper()
		out := runSpec(t, context.Background(), Spec{Command: cmd, Dir: ws, Timeout: time.Minute,
			Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{ws}, Cache: cache}})
		if out.ExitCode != 0 {
			t.Fatalf("%s: exit %d\n%s", cmd, out.ExitCode, out.Output.String())
		}
		return strings.TrimSpace(out.Output.String())
	}
	plant := `for d in "$GOMODCACHE" "$GOCACHE" "$CARGO_HOME" "$npm_config_cache" "$PIP_CACHE_DIR" "$XDG_CACHE_HOME"; do ` +
		`mkdir -p "$d" && echo planted > "$d/planted" || echo "cannot write $d"; done`
	if got := run(a, plant); got != "" {
		t.Fatalf("workspace a could not write its own cache: %s", got)
	}
	look := `for d in "$GOMODCACHE" "$GOCACHE" "$CARGO_HOME" "$npm_config_cache" "$PIP_CACHE_DIR" "$XDG_CACHE_HOME"; do ` +
		`test -e "$d/planted" && echo "$d"; done; true`
	var seen []string
	if got := run(b, look); got != "" {
		seen = strings.Split(got, "\n")
	}
	if diff := cmp.Diff([]string(nil), seen); diff != "" {
		t.Errorf("workspace b's command sees what workspace a's planted in the cache (-want +got):\n%s", diff)
	}
	// The same workspace's cache stays between its runs.
	if got := run(a, look); len(strings.Split(got, "\n")) != 6 {
		t.Errorf("workspace a's own cache did not stay between its runs: %q", got)
	}
	if _, err := os.Stat(cache); err != nil {
		t.Errorf("the cache is not under Confinement.Cache: %v", err)
	}
}
