// Package agentenv names the environment variables whose value changes
// what a program of the command catalog reads (a walk's hidden.config_env:
// RIPGREP_CONFIG_PATH names an rg config that may say --hidden), for code
// that must not load the catalog: the thin hook client sends their values
// in the agent's environment with every request, since the resident engine
// that judges the command runs in an environment of its own.
//
// The list (names.go) is generated from classify's embedded catalog
// (Catalog.EnvNames); classify's TestAgentEnvNames fails when it is stale,
// and `go generate ./classify` rewrites it.
package agentenv

import (
	"os"

	"github.com/shellgate/shellgate/gitrepo"
)

// Values returns the value of each of Names in this process's environment,
// "" for one that is not set, and of every variable git reads to find its
// configuration (gitrepo.EnvValues: GIT_CONFIG_COUNT and the settings it
// counts, GIT_CONFIG_GLOBAL, XDG_CONFIG_HOME, …): what a request says of
// the agent's.
func Values() map[string]string {
	m := gitrepo.EnvValues(os.Getenv)
	for _, n := range Names {
		m[n] = os.Getenv(n)
	}
	return m
}
