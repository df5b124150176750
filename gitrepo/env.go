package gitrepo

import (
	"strconv"
	"strings"
)

// EnvNames are the environment variables git reads to find its
// configuration (besides HOME): what a request should say of the
// environment a command runs in. GIT_CONFIG_KEY_<n> and
// GIT_CONFIG_VALUE_<n> are read too, for n below GIT_CONFIG_COUNT: see
// EnvValues.
var EnvNames = []string{
	"GIT_CONFIG_COUNT",
	"GIT_CONFIG_GLOBAL",
	"GIT_CONFIG_NOSYSTEM",
	"GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_SYSTEM",
	"XDG_CONFIG_HOME",
}

// EnvValues returns the value of every variable git reads to find its
// configuration, "" for one not set: EnvNames, and GIT_CONFIG_KEY_<n>
// and GIT_CONFIG_VALUE_<n> for each n below GIT_CONFIG_COUNT (at most
// maxEnvCount).
func EnvValues(getenv func(string) string) map[string]string {
	m := make(map[string]string, len(EnvNames))
	for _, n := range EnvNames {
		m[n] = getenv(n)
	}
	if n, ok := parseCount(strings.TrimSpace(m["GIT_CONFIG_COUNT"])); ok {
		for i := 0; i < n; i++ {
			k, v := "GIT_CONFIG_KEY_"+strconv.Itoa(i), "GIT_CONFIG_VALUE_"+strconv.Itoa(i)
			m[k], m[v] = getenv(k), getenv(v)
		}
	}
	return m
}
