package gate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/trust"
)

// TestGateProjectTrust: a gate on a project config runs what the config
// grants only once the store trusts that content; until then the command
// does not run, and the decision says why.
func TestGateProjectTrust(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, policy.ConfigFileName)
	if err := os.WriteFile(cfgPath, []byte("grants: [\"touch **\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := policy.LoadConfigFrom(cfgPath, policy.SourceProject)
	if err != nil {
		t.Fatal(err)
	}
	trusted := &trust.Store{Version: trust.Version}
	trusted.Add(trust.Entry{Path: cfgPath, Kind: trust.KindFile, SHA256: cfg.SHA256()})
	for _, tc := range []struct {
		name   string
		store  *trust.Store
		action policy.Action
		codes  []string
		ran    bool
	}{
		{"untrusted", &trust.Store{Version: trust.Version}, policy.Ask, []string{"not-read-only", policy.ProjectConfigUntrusted}, false},
		{"trusted", trusted, policy.Allow, []string{"granted"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := policy.ResolveWith(cfg, tc.store, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			g, err := New(WithCwd(dir), WithResolvedConfig(res), WithRunner(&execution.BashRunner{}))
			if err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(dir, "ran-"+tc.name)
			r := g.Run(context.Background(), Request{Command: "touch " + filepath.Base(marker)})
			if r.Decision == nil {
				t.Fatalf("no decision: %+v", r)
			}
			if r.Decision.Action != tc.action {
				t.Errorf("action %s, want %s", r.Decision.Action, tc.action)
			}
			if diff := cmp.Diff(tc.codes, r.Decision.Codes()); diff != "" {
				t.Errorf("codes (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(marker); (err == nil) != tc.ran {
				t.Errorf("ran: %v, want %v (%s)", err == nil, tc.ran, r.Text())
			}
		})
	}
}
