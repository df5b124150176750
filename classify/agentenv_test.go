package classify

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/classify/agentenv"
	"github.com/shellgate/shellgate/gitrepo"
)

// TestAgentEnvNames checks that package agentenv names exactly the
// variables the catalog's walks read: the thin client's list is the
// catalog's.
func TestAgentEnvNames(t *testing.T) {
	checkGenerated(t, "agentenv/names.go")
	if !cmp.Equal(agentenv.Names, DefaultCatalog().EnvNames()) || len(agentenv.Names) == 0 {
		t.Errorf("agentenv.Names = %v, the catalog says %v", agentenv.Names, DefaultCatalog().EnvNames())
	}
	t.Setenv(agentenv.Names[0], "/x/config")
	t.Setenv("GIT_CONFIG_COUNT", "")
	// The catalog's names, and those git reads its configuration from.
	all := map[string]bool{}
	for _, n := range append(append([]string(nil), agentenv.Names...), gitrepo.EnvNames...) {
		all[n] = true // the catalog's and git's names overlap (XDG_CONFIG_HOME)
	}
	if v := agentenv.Values(); v[agentenv.Names[0]] != "/x/config" || len(v) != len(all) {
		t.Errorf("Values() = %v", v)
	}
}

// TestEnvNames: a made-up program's config_env is one of the catalog's
// names, in a subcommand too, and PATH, which the read station reads for every
// catalog.
func TestEnvNames(t *testing.T) {
	ext, err := ParseCatalog([]byte(`
programs:
  - name: walker
    read_only: true
    options: [{names: [-a]}]
    operands: [tree...]
    walk: {hidden: {shown_by: [-a], config_env: WALKER_CONFIG}}
  - name: tool
    subcommands:
      - name: scan
        read_only: true
        options: [{names: [-a]}]
        operands: [tree...]
        walk: {hidden: {shown_by: [-a], config_env: TOOL_SCAN_CONFIG}}
`), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"PATH", "TOOL_SCAN_CONFIG", "WALKER_CONFIG"} // PATH: the station looks programs up in it
	if diff := cmp.Diff(want, ext.EnvNames()); diff != "" {
		t.Errorf("EnvNames (-want +got):\n%s", diff)
	}
}
