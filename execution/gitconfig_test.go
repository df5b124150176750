package execution

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAppendGitConfig(t *testing.T) {
	add := [][2]string{{"protocol.allow", "never"}}
	for _, tc := range []struct {
		name    string
		in, out []string
	}{
		{"none yet", []string{"A=1"}, []string{"A=1", "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.allow", "GIT_CONFIG_VALUE_0=never"}},
		{"after the ones there", []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_VALUE_0=false"},
			[]string{"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=core.fsmonitor", "GIT_CONFIG_KEY_1=protocol.allow", "GIT_CONFIG_VALUE_0=false", "GIT_CONFIG_VALUE_1=never"}},
		{"a stale key past the count is dropped", []string{"GIT_CONFIG_COUNT=0", "GIT_CONFIG_KEY_0=x.y", "GIT_CONFIG_VALUE_0=z"},
			[]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.allow", "GIT_CONFIG_VALUE_0=never"}},
		{"a count that is not a number", []string{"GIT_CONFIG_COUNT=x", "GIT_CONFIG_KEY_0=x.y"},
			[]string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.allow", "GIT_CONFIG_VALUE_0=never"}},
	} {
		if diff := cmp.Diff(tc.out, appendGitConfig(tc.in, add)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	// The offline overrides come after the gate's own, which stay.
	env := WithOffline(BuildEnv(baseEnv(), nil, nil))
	if !slices.Contains(env, "GIT_CONFIG_KEY_0="+GitOverrides[0][0]) || !slices.Contains(env, "GIT_NO_LAZY_FETCH=1") || !slices.Contains(env, "RUSTUP_AUTO_INSTALL=0") {
		t.Errorf("withOffline lost an override or an offline variable: %q", env)
	}
}
