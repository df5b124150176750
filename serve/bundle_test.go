package serve

import (
	"context"
	"net"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/rego/fleet"
)

// TestBundleDecider: under a bundle engine a hook that names its own
// config or policy is denied, a cwd that is not absolute is asked about,
// and while no bundle was ever loaded every command is denied.
func TestBundleDecider(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String()
	l.Close() // no bundle server there
	e, err := fleet.NewEngine(context.Background(), []byte("services:\n  s:\n    url: "+url+"\nbundles:\n  shellgate:\n    service: s\n    resource: b.tar.gz\n"), fleet.EngineOptions{Wait: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Agent().StopQuiet(context.Background())
	dec := gate.NewSourceDecider(e, gate.PipelineOptions{})
	for _, tc := range []struct {
		name   string
		flags  hook.Flags
		q      hook.Query
		action string
		code   string
	}{
		{"own config", hook.Flags{Config: "/x.yaml"}, hook.Query{Command: "ls", Cwd: home}, "deny", fleet.PolicyBundleUnavailable},
		{"own policy", hook.Flags{Policy: []string{"/p"}}, hook.Query{Command: "ls", Cwd: home}, "deny", fleet.PolicyBundleUnavailable},
		{"relative cwd, no bundle", hook.Flags{}, hook.Query{Command: "ls", Cwd: "ws"}, "deny", fleet.PolicyBundleUnavailable},
		{"no bundle", hook.Flags{}, hook.Query{Command: "ls", Cwd: home, Mode: hook.ModeReadonly}, "deny", fleet.PolicyBundleUnavailable},
	} {
		v, err := BundleDecider{Decider: dec, Flags: tc.flags}.Decide(context.Background(), tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var codes []string
		for _, r := range v.Reasons {
			codes = append(codes, r.Code)
		}
		if v.Action != tc.action || !cmp.Equal(codes, []string{tc.code}) {
			t.Errorf("%s: %s %v; want %s [%s]", tc.name, v.Action, codes, tc.action, tc.code)
		}
	}
	if _, err := (BundleDecider{Decider: dec}).Decide(context.Background(), hook.Query{Command: "ls", Cwd: home, Shell: "fish"}); err == nil {
		t.Error("an unknown shell was decided")
	}
}
