package readstation

import (
	"os"
	"strings"
)

// Env is what the read station knows of the environment a command will
// run in: the agent's, which need not be the engine's (a resident engine
// or an MCP server started elsewhere). Some variables change what a
// program reads: a catalog walk's hidden.config_env (RIPGREP_CONFIG_PATH
// names an rg config that may say --hidden). Lookup returns a variable's
// value ("" when it is not set) and whether that is known; a variable
// whose value is not known counts as set, so the names it could show are
// judged.
type Env interface {
	Lookup(name string) (value string, known bool)
}

// EnvMap knows the variables it lists, a value "" meaning not set, and
// nothing of any other: what a request carries of the agent's environment
// (the hook client sends the variables the catalog names).
type EnvMap map[string]string

// Lookup returns the listed value; a variable not listed is not known.
func (m EnvMap) Lookup(name string) (string, bool) {
	v, ok := m[name]
	return v, ok
}

// FullEnv is a whole environment: a variable it does not list is not set.
// It is what a command run with exactly that environment sees (the gate's
// runner environment).
type FullEnv map[string]string

// NewFullEnv returns the environment of "NAME=VALUE" entries (as
// os.Environ gives them; a later entry of a name wins).
func NewFullEnv(kv []string) FullEnv {
	m := make(FullEnv, len(kv))
	for _, e := range kv {
		if k, v, ok := strings.Cut(e, "="); ok && k != "" {
			m[k] = v
		}
	}
	return m
}

// Lookup returns the value, "" for a variable not set; every variable is
// known.
func (m FullEnv) Lookup(name string) (string, bool) { return m[name], true }

// ProcessEnv is this process's environment, read when a command is judged:
// for a caller the agent started, whose commands run in its environment
// (shellgate check, the one-shot hook).
var ProcessEnv Env = processEnv{}

type processEnv struct{}

func (processEnv) Lookup(name string) (string, bool) { return os.Getenv(name), true }

// envMaySet reports whether the variable may be set (non-empty) in env: it
// is, or env does not know (a nil env knows nothing).
func envMaySet(env Env, name string) bool {
	if env == nil {
		return true
	}
	v, known := env.Lookup(name)
	return !known || v != ""
}

// RunnerEnv is the whole environment of a command the gate runs itself:
// like FullEnv, and the git settings it passes in GIT_CONFIG_COUNT are the
// gate's own overrides (which neutralise a repository's programs), not
// settings that name programs of their own.
type RunnerEnv struct{ FullEnv }

// NewRunnerEnv returns the runner environment of "NAME=VALUE" entries.
func NewRunnerEnv(kv []string) RunnerEnv { return RunnerEnv{NewFullEnv(kv)} }

// ownGitConfig reports whether env's GIT_CONFIG_COUNT settings are the
// gate's own.
func ownGitConfig(env Env) bool {
	_, ok := env.(RunnerEnv)
	return ok
}
