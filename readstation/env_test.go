package readstation

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/internal/testenv"
)

// TestRipgrepConfig: whether rg reads hidden names depends on the
// RIPGREP_CONFIG_PATH of the environment it runs in, which is the agent's,
// not this process's. The real rg, run with a config file that says
// --hidden, prints the hidden cfg/.env it skips without one; the station
// judges that .env unless the environment it is given knows the variable
// is not set.
func TestRipgrepConfig(t *testing.T) {
	f := newFixture(t)
	rgrc := filepath.Join(f.home, "rgrc")
	must(t, os.WriteFile(rgrc, []byte("--hidden\n"), 0o644))

	// The real program: the config file shows the hidden names.
	rg := testenv.LookPath(t, "rg")
	run := func(config string) string {
		cmd := exec.Command(rg, "TOKEN", "cfg")
		cmd.Dir = filepath.Join(f.home, "proj")
		cmd.Env = []string{"HOME=" + f.home, "PATH=/usr/bin:/bin", "RIPGREP_CONFIG_PATH=" + config}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := run(""); strings.Contains(out, ".env") {
		t.Fatalf("rg without a config printed a hidden file: %s", out)
	}
	if out := run(rgrc); !strings.Contains(out, "cfg/.env") {
		t.Fatalf("rg with a --hidden config did not print cfg/.env: %s", out)
	}

	// The station, for each thing it may know of the agent's environment.
	t.Setenv("RIPGREP_CONFIG_PATH", rgrc) // this process's: never the agent's unless said
	const skipped, judged = "cfg ok", "cfg denied **/.env"
	// Not knowing the variables, the station cannot read the config file
	// (its --pre) either (redrepo3), nor find the user's git excludes
	// file (its negated patterns: the walk shows every hidden name).
	unknown := []string{judged, "$RIPGREP_CONFIG_PATH not-established"}
	tests := []struct {
		name string
		env  Env
		want []string
	}{
		{"nothing known", nil, unknown},
		{"a request that says nothing of it", EnvMap{"OTHER": "x"}, unknown},
		{"a request: not set", EnvMap{"RIPGREP_CONFIG_PATH": "", "XDG_CONFIG_HOME": ""}, []string{skipped}},
		{"a request: set", EnvMap{"RIPGREP_CONFIG_PATH": rgrc, "XDG_CONFIG_HOME": ""}, []string{judged}},
		{"a runner environment without it", NewFullEnv([]string{"PATH=/bin", "HOME=" + f.home}), []string{skipped}},
		{"a runner environment with it", NewFullEnv([]string{"RIPGREP_CONFIG_PATH=" + rgrc}), []string{judged}},
		{"a runner environment with it empty", NewFullEnv([]string{"RIPGREP_CONFIG_PATH="}), []string{skipped}},
		{"this process's, set", ProcessEnv, []string{judged}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := f.boundary(t, "proj")
			b.Env = tc.env
			if diff := cmp.Diff(tc.want, f.summary(judge(t, "rg TOKEN cfg", b))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	t.Setenv("RIPGREP_CONFIG_PATH", "")
	b := f.boundary(t, "proj")
	b.Env = ProcessEnv
	if diff := cmp.Diff([]string{skipped}, f.summary(judge(t, "rg TOKEN cfg", b))); diff != "" {
		t.Errorf("this process's, not set: (-want +got):\n%s", diff)
	}
}
