package gate

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/shellgate/shellgate/execution"
)

// TestPolicySeesConfinement: a command that is to run reaches the policy
// with what the sandbox can enforce here (input.confinement, from the
// runner's SandboxSupport), so that a rule can ask when a protection is
// missing; a check alone (nothing runs) carries none.
func TestPolicySeesConfinement(t *testing.T) {
	sup := testRunner.SandboxSupport()
	if sup.Err != nil {
		t.Skipf("no confinement here: %v", sup.Err)
	}
	mod := map[string]string{"conf.rego": `package shellgate

decision := {"action": "deny", "reasons": [{"code": "conf", "message": concat(" ", [input.confinement.mechanism, input.confinement.network_guard, concat(",", input.confinement.isolation), concat(";", input.confinement.missing)])}]} if input.confinement
decision := {"action": "allow", "reasons": []} if not input.confinement
`}
	dir := t.TempDir()
	g := newGate(t, dir, WithoutDefaultPolicy(), WithPolicyModules(mod))
	d, err := g.Decide(context.Background(), Request{Command: "true"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Action != "allow" {
		t.Errorf("a check saw input.confinement: %+v", d.Decision)
	}
	res := g.Run(context.Background(), Request{Command: "true", Sandbox: execution.SandboxReadOnly})
	if res.Decision == nil || len(res.Decision.Reasons) != 1 {
		t.Fatalf("run: %s, decision %+v", res.StatusLine(), res.Decision)
	}
	want := strings.Join([]string{sup.Mechanism, sup.NetworkGuard, strings.Join(sup.Isolation, ","), strings.Join(sup.Missing, ";")}, " ")
	if diff := cmp.Diff(want, res.Decision.Reasons[0].Message); diff != "" {
		t.Errorf("input.confinement as the policy saw it (-support +policy):\n%s", diff)
	}
}
