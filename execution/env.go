package execution

import (
	"sort"
	"strconv"
	"strings"
)

// RemovedEnv names the variables that are never passed to a command: they
// make bash, the dynamic loader or git run code the policy never saw.
// Exported bash functions (BASH_FUNC_name%%) are removed as well.
var RemovedEnv = []string{
	"BASH_ENV",       // sourced by every non-interactive bash
	"ENV",            // sourced by sh and bash in POSIX mode
	"LD_PRELOAD",     // loads a library into every program
	"LD_AUDIT",       // the same, through the auditing interface
	"PROMPT_COMMAND", // runs before every prompt
	"PS4",            // expanded (with command substitutions) under xtrace
	"SHELLOPTS",      // turns on shell options (xtrace) at startup
	"BASHOPTS",       // turns on shopt options at startup
	"BASH_XTRACEFD",  // redirects the trace
	"CDPATH",         // makes `cd x` land somewhere the policy did not judge
	"GLOBIGNORE",     // changes what a glob expands to
	"IFS",            // word splitting
	"GIT_EXTERNAL_DIFF",
	"GIT_EXEC_PATH", // replaces git's own subcommand programs
	"GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT", // the host's overrides are replaced by the gate's
	"GIT_ASKPASS",
	"SSH_ASKPASS",
	"PERL5OPT",     // options (-M modules) for every perl
	"NODE_OPTIONS", // --require for every node
	"PYTHONSTARTUP",
	"PYTHONINSPECT",
}

// ManagedEnv are set on top of the environment for every command: no
// pager, no prompt, no color, a dumb terminal, no optional git locks.
var ManagedEnv = map[string]string{
	"PAGER":               "cat",
	"GIT_PAGER":           "cat",
	"GIT_TERMINAL_PROMPT": "0",
	"GIT_OPTIONAL_LOCKS":  "0",
	"NO_COLOR":            "1",
	"TERM":                "dumb",
}

// OfflineEnv is set on top of the environment for a command allowed as
// reversible (read-only, no grant needed): such a command never needs the
// network, so the toolchains that would reach it on their own for a
// read-only subcommand (go list fetching modules, or a go.mod toolchain
// line switching Go versions; npm and pip looking things up) are told to
// stay offline. A granted or approved command gets the environment as is.
var OfflineEnv = map[string]string{
	"GOTOOLCHAIN":        "local",
	"GOPROXY":            "off",
	"npm_config_offline": "true",
	"PIP_NO_INDEX":       "1",
	"CARGO_NET_OFFLINE":  "true",
	// A partial clone's read of a missing object fetches it from the
	// promisor remote; git (2.39.5 here, and 2.44 on) refuses to with
	// this set ("lazy fetching disabled").
	"GIT_NO_LAZY_FETCH": "1",
	// rustup installs the toolchain a rust-toolchain.toml names when it
	// is missing (rustup 1.28 on); with 0 it refuses.
	"RUSTUP_AUTO_INSTALL": "0",
}

// offlineGitOverrides are git configuration values forced, after the
// GitOverrides, for a command allowed as reversible: no transport at all,
// even one the repository's own config allows (protocol.NAME.allow
// overrides protocol.allow, so each transport git knows is named), so that
// a lazy fetch, a url.insteadOf or an ext:: remote reaches nothing.
var offlineGitOverrides = [][2]string{
	{"protocol.allow", "never"},
	{"protocol.file.allow", "never"},
	{"protocol.git.allow", "never"},
	{"protocol.ssh.allow", "never"},
	{"protocol.http.allow", "never"},
	{"protocol.https.allow", "never"},
	{"protocol.ext.allow", "never"},
}

// WithOffline returns env (sorted "K=V") with OfflineEnv set on top and
// offlineGitOverrides added to its git overrides.
func WithOffline(env []string) []string {
	out := make([]string, 0, len(env)+len(OfflineEnv))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := OfflineEnv[k]; !ok {
			out = append(out, kv)
		}
	}
	for k, v := range OfflineEnv {
		out = append(out, k+"="+v)
	}
	return appendGitConfig(out, offlineGitOverrides)
}

// gitConfigIndexBelow reports whether k is not a GIT_CONFIG_KEY_i or
// GIT_CONFIG_VALUE_i, or is one with i below n (one git reads).
func gitConfigIndexBelow(k string, n int) bool {
	i, ok := strings.CutPrefix(k, "GIT_CONFIG_KEY_")
	if !ok {
		if i, ok = strings.CutPrefix(k, "GIT_CONFIG_VALUE_"); !ok {
			return true
		}
	}
	c, err := strconv.Atoi(i)
	return err == nil && c >= 0 && c < n
}

// appendGitConfig returns env (a "K=V" list) with kvs added after the git
// configuration overrides it already has (GIT_CONFIG_COUNT and its
// GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n): later ones win, and none of the
// earlier is lost. A count that is not a number is taken as none; a key
// or value git would not read (numbered at or past the count) is dropped.
// The result is sorted.
func appendGitConfig(env []string, kvs [][2]string) []string {
	n := -1
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			if c, err := strconv.Atoi(v); err == nil && c >= 0 && c < 1<<16 {
				n = c
			}
		}
	}
	out := make([]string, 0, len(env)+2*len(kvs)+1)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GIT_CONFIG_COUNT" || !gitConfigIndexBelow(k, n) {
			continue
		}
		out = append(out, kv)
	}
	if n < 0 {
		n = 0
	}
	for i, kv := range kvs {
		s := strconv.Itoa(n + i)
		out = append(out, "GIT_CONFIG_KEY_"+s+"="+kv[0], "GIT_CONFIG_VALUE_"+s+"="+kv[1])
	}
	out = append(out, "GIT_CONFIG_COUNT="+strconv.Itoa(n+len(kvs)))
	sort.Strings(out)
	return out
}

// GitOverrides are git configuration values forced for the run through
// git's own environment overrides (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n,
// GIT_CONFIG_VALUE_n), which take precedence over every configuration
// file, including the repository's own .git/config: a repository cannot
// make a read-only git command run its programs.
var GitOverrides = [][2]string{
	{"core.fsmonitor", "false"},        // git status would run the monitor program
	{"core.hooksPath", "/dev/null"},    // hooks
	{"diff.external", gitExternalDiff}, // git diff would run the repository's program
	{"core.pager", "cat"},
	{"pager.log", "false"},
	{"pager.diff", "false"},
	{"pager.show", "false"},
	{"core.askPass", ""},
	{"credential.helper", ""},
	{"protocol.ext.allow", "never"}, // ext:: URLs run commands
	{"log.showSignature", "false"},  // would run gpg.program
	{"gpg.program", "false"},
	{"gpg.ssh.program", "false"},
	{"core.sshCommand", "ssh"},
	{"uploadpack.packObjectsHook", ""},
}

// gitExternalDiff replaces a repository's diff.external: git's arguments
// (path old-file old-hex old-mode new-file new-hex new-mode) go to diff -u,
// so git diff still shows a unified diff and keeps its exit status. The
// value cannot be empty: git would try to run "".
const gitExternalDiff = `f() { printf 'diff --git a/%s b/%s\n' "$1" "$1"; diff -u --label "a/$1" --label "b/$1" "$2" "$5"; [ $? -le 1 ]; }; f`

// BuildEnv returns the environment for a command: host (os.Environ's
// form), filtered by allow when allow is not nil (names; a trailing "*"
// matches a prefix), less RemovedEnv and exported functions, plus
// ManagedEnv, the GitOverrides and set (which wins over everything but
// the removals). The result is sorted, one "K=V" per name.
func BuildEnv(host []string, allow []string, set map[string]string) []string {
	m := map[string]string{}
	for _, kv := range host {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if allow != nil && !allowed(k, allow) {
			continue
		}
		m[k] = v
	}
	for k := range m {
		if removed(k) {
			delete(m, k)
		}
	}
	for k, v := range ManagedEnv {
		m[k] = v
	}
	for i, kv := range GitOverrides {
		n := strconv.Itoa(i)
		m["GIT_CONFIG_KEY_"+n] = kv[0]
		m["GIT_CONFIG_VALUE_"+n] = kv[1]
	}
	m["GIT_CONFIG_COUNT"] = strconv.Itoa(len(GitOverrides))
	for k, v := range set {
		if k == "" || strings.ContainsRune(k, '=') || removed(k) {
			continue
		}
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func removed(k string) bool {
	if strings.HasPrefix(k, "BASH_FUNC_") || strings.HasPrefix(k, "GIT_CONFIG_KEY_") || strings.HasPrefix(k, "GIT_CONFIG_VALUE_") {
		return true
	}
	for _, r := range RemovedEnv {
		if k == r {
			return true
		}
	}
	return false
}

func allowed(k string, allow []string) bool {
	for _, a := range allow {
		if a == k || strings.HasSuffix(a, "*") && strings.HasPrefix(k, strings.TrimSuffix(a, "*")) {
			return true
		}
	}
	return false
}

// EnvValue is the value of k in the environment env ("KEY=value" entries;
// the last one wins, as for the program that gets env), "" when unset.
func EnvValue(env []string, k string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if len(env[i]) > len(k) && env[i][len(k)] == '=' && env[i][:len(k)] == k {
			return env[i][len(k)+1:]
		}
	}
	return ""
}
