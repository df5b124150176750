package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/policy"
)

// TestOfflineForReadOnly: a command allowed as reversible runs with the
// toolchains told to stay offline; an approved one gets the environment
// as the gate built it.
func TestOfflineForReadOnly(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	t.Setenv("GOPROXY", "https://proxy.example.invalid")
	t.Setenv("GOTOOLCHAIN", "auto")
	dir := t.TempDir()
	g := newGate(t, dir)
	res := g.Run(context.Background(), Request{Command: "go env GOPROXY GOTOOLCHAIN"})
	if res.Status != StatusOK || res.Decision.Action != policy.Allow {
		t.Fatalf("go env: status %s, code %s (%s), decision %s %v", res.Status, res.Code, res.Message, res.Decision.Action, res.Decision.Reasons)
	}
	// Confined, the module cache is the sandbox's own, filled from the
	// user's module cache as a file:// proxy: offline, that is all.
	m, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	userCache := "file://" + filepath.Join(strings.TrimSpace(string(m)), "cache", "download")
	if got := strings.Fields(res.Output.String()); !slices.Equal(got[:2], []string{userCache, "local"}) {
		t.Errorf("read-only go env printed %q; want %s (offline) and local", res.Output.String(), userCache)
	}
	out := filepath.Join(dir, "env.txt")
	res = g.Run(context.Background(), Request{Command: "go env GOPROXY > " + out, Approver: approve(true)})
	if res.Status != StatusOK || !res.Approved {
		t.Fatalf("approved go env: status %s, code %s", res.Status, res.Code)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != userCache+",https://proxy.example.invalid" {
		t.Errorf("approved go env printed %q; want the user's module cache, then the host's GOPROXY", got)
	}
}
