//go:build unix

package serve

import (
	"context"
	"github.com/shellgate/shellgate/internal/testenv"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
)

// decideWithin is the resident engine's decision on command in cwd, which
// must come back (a read that blocks on a FIFO never would): the test
// fails, rather than hangs, after a minute.
func decideWithin(t *testing.T, g *Gates, command, cwd string) hook.Verdict {
	t.Helper()
	type answer struct {
		v   hook.Verdict
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		v, err := g.Decide(context.Background(), hook.Query{Command: command, Cwd: cwd, Mode: hook.ModeDefault})
		ch <- answer{v, err}
	}()
	select {
	case a := <-ch:
		if a.err != nil {
			t.Fatalf("Decide(%q): %v", command, a.err)
		}
		return a.v
	case <-time.After(time.Minute):
		t.Fatalf("Decide(%q) still blocked after a minute", command)
	}
	return hook.Verdict{}
}

// TestEngineConfigForms: the resident engine, in a project whose
// .shellgate.yaml is a directory, a dangling symlink, a FIFO or a link to
// /dev/zero or /dev/stdin, denies every command with config-unreadable
// naming the file, at once; once the file is removed it answers as
// before (it is not left stuck).
func TestEngineConfigForms(t *testing.T) {
	for _, tc := range testenv.UnreadableForms {
		t.Run(tc.Name, func(t *testing.T) {
			ws := workspace(t)
			p := filepath.Join(ws, policy.ConfigFileName)
			if err := tc.Plant(p); err != nil {
				t.Fatal(err)
			}
			g := NewGates(hook.Flags{})
			v := decideWithin(t, g, "ls", ws)
			if v.Action != "deny" || len(v.Reasons) == 0 || v.Reasons[0].Code != policy.ConfigUnreadable || !strings.Contains(v.Reasons[0].Message, p) {
				t.Errorf("ls with a %s config: %+v", tc.Name, v)
			}
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if v := decideWithin(t, g, "ls", ws); v.Action != "allow" {
				t.Errorf("ls once the config is gone: %+v", v)
			}
		})
	}
}

// TestEngineTrustStoreFIFO (issue 23): a trust store that is a FIFO is
// refused at once (nothing trusted: the project's grant does not apply),
// and once a regular store is back the engine answers at once again.
func TestEngineTrustStoreFIFO(t *testing.T) {
	ws := workspace(t)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	store := filepath.Join(state, "shellgate", "trust.json")
	if err := os.MkdirAll(filepath.Dir(store), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(store, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, policy.ConfigFileName), []byte("grants: [\"make build\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := NewGates(hook.Flags{})
	for i := 0; i < 2; i++ {
		if v := decideWithin(t, g, "make build", ws); v.Action == "allow" {
			t.Errorf("make build granted by an untrusted config: %+v", v)
		}
	}
	if err := os.Remove(store); err != nil {
		t.Fatal(err)
	}
	if v := decideWithin(t, g, "ls", ws); v.Action != "allow" {
		t.Errorf("ls once the store is gone: %+v", v)
	}
}
