package doctor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/trust"
)

// Check is one row of the report.
type Check struct {
	// Name is the check's stable name: settings, hook, agent, command,
	// flags, fail-closed, trust, enabled (per agent and scope); agents,
	// engine, config, policy, project-trust (for the directory).
	Name string `json:"name"`
	// OK is true when the check passed.
	OK bool `json:"ok"`
	// Message says what was found.
	Message string `json:"message"`
	// Fix is the exact command (or edit) that makes a failed check pass.
	Fix string `json:"fix,omitempty"`
	// Advisory is set on a check whose failure does not make the gate
	// inactive (an engine that is down: the hook answers through its
	// one-shot path; an agent with no fail-closed setting at all).
	Advisory bool `json:"advisory,omitempty"`
}

// Scopes of a settings file.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
)

// Agent is what doctor found for one agent in one scope.
type Agent struct {
	Agent hook.Agent `json:"agent"`
	// Scope is ScopeProject or ScopeUser.
	Scope string `json:"scope"`
	// Settings is the settings (or hooks) file examined.
	Settings string `json:"settings"`
	// Active is true when every check that is not advisory passed.
	Active bool    `json:"active"`
	Checks []Check `json:"checks"`
}

// Gate is the verdict for one agent: active when one of its scopes is.
type Gate struct {
	Agent  hook.Agent `json:"agent"`
	Active bool       `json:"active"`
	// Via lists the scopes whose hook is active.
	Via []string `json:"via,omitempty"`
}

// Report is the whole answer.
type Report struct {
	// OK is true when at least one agent was found, every agent found has
	// an active gate, and every check of the directory that is not
	// advisory passed.
	OK bool `json:"ok"`
	// Dir is the project directory examined.
	Dir    string  `json:"dir"`
	Gates  []Gate  `json:"gates"`
	Agents []Agent `json:"agents"`
	// Checks are about the directory, not one agent: the engine, the
	// config and policy in force, the project files left untrusted.
	Checks []Check `json:"checks"`
}

// Options say where to look.
type Options struct {
	// Dir is the project directory (absolute).
	Dir string
	// DirGiven is set when the user named Dir, so that the fix commands
	// name it too (`shellgate install claude --dir DIR`).
	DirGiven bool
	// Home is the user's home directory.
	Home string
	// Getenv reads the environment (PATH for the hook command, CODEX_HOME,
	// GEMINI_CLI_TRUST_WORKSPACE, ...); nil means os.Getenv.
	Getenv func(string) string
	// Socket is the engine's socket; Version the handshake version to
	// ping it with; PingTimeout bounds the ping (0: 500ms).
	Socket      string
	Version     string
	PingTimeout time.Duration
	// CheckPolicy, if set, builds the gate that a hook with flags f would
	// use in dir (the config that applies there or f.Config, the policy
	// compiled with f.Policy) and returns why it cannot be built.
	CheckPolicy func(dir string, f hook.Flags) error
}

func (o *Options) getenv(k string) string {
	if o.Getenv == nil {
		return os.Getenv(k)
	}
	return o.Getenv(k)
}

// installCmd is the command that (re)installs agent's hook in scope.
func (o *Options) installCmd(agent hook.Agent, scope string) string {
	s := "shellgate install " + string(agent)
	if scope == ScopeUser {
		return s + " --user"
	}
	if sp := agent.Spec(); sp != nil && sp.DefaultUser {
		s += " --project"
	}
	if o.DirGiven {
		s += " --dir " + shellQuote(o.Dir)
	}
	return s
}

// settingsPath is where agent keeps its settings in scope.
func (o *Options) settingsPath(agent hook.Agent, scope string) string {
	sc := hook.ScopeProject
	if scope == ScopeUser {
		sc = hook.ScopeUser
	}
	s := agent.Spec()
	if s == nil {
		return ""
	}
	return s.SettingsPath(sc, o.Dir, o.Home, o.getenv)
}

// Run examines every agent in both scopes and the directory. It reads
// files and pings the engine; it runs nothing else.
func Run(o Options) Report {
	r := Report{Dir: o.Dir}
	for _, a := range hook.Agents {
		g := Gate{Agent: a}
		found := false
		for _, scope := range []string{ScopeProject, ScopeUser} {
			if o.Home == "" && scope == ScopeUser {
				continue
			}
			if scope == ScopeUser && o.Home != "" && sameDir(o.Dir, o.Home) {
				continue // the home's project files are the user's
			}
			path := o.settingsPath(a, scope)
			if !exists(filepath.Dir(path)) && !exists(path) {
				continue // the agent is not set up here
			}
			found = true
			ag := o.examine(a, scope, path)
			if ag.Active {
				g.Active = true
				g.Via = append(g.Via, scope)
			}
			r.Agents = append(r.Agents, ag)
		}
		if found {
			r.Gates = append(r.Gates, g)
		}
	}
	if len(r.Gates) == 0 {
		var dirs, others []string
		for _, s := range hook.Specs() {
			dirs = append(dirs, s.Dir)
			others = append(others, string(s.Name))
		}
		r.Checks = append(r.Checks, Check{Name: "agents", Message: fmt.Sprintf("no agent's settings were found here or in your home (%s)", strings.Join(dirs, ", ")),
			Fix: fmt.Sprintf("shellgate install %s   # or %s; --user for every project", others[0], strings.Join(others[1:], ", "))})
	}
	r.Checks = append(r.Checks, o.engineCheck())
	r.Checks = append(r.Checks, o.configChecks()...)
	r.OK = len(r.Gates) > 0
	for _, g := range r.Gates {
		r.OK = r.OK && g.Active
	}
	for _, c := range r.Checks {
		r.OK = r.OK && (c.OK || c.Advisory)
	}
	return r
}

// examine runs the checks of one agent in one scope, in order; a check
// that cannot pass stops the ones that depend on it.
func (o *Options) examine(a hook.Agent, scope, path string) (ag Agent) {
	ag = Agent{Agent: a, Scope: scope, Settings: path}
	add := func(c Check) { ag.Checks = append(ag.Checks, c) }
	defer func() {
		ag.Active = true
		for _, c := range ag.Checks {
			ag.Active = ag.Active && (c.OK || c.Advisory)
		}
	}()
	install := o.installCmd(a, scope)

	data, err := trust.ReadRegular(path, hook.MaxSettingsBytes)
	if errors.Is(err, os.ErrNotExist) {
		add(Check{Name: "settings", Message: path + " does not exist", Fix: install})
		return ag
	}
	if err != nil {
		add(Check{Name: "settings", Message: err.Error(), Fix: "chmod u+r " + shellQuote(path)})
		return ag
	}
	root, err := parseSettings(a, data)
	if err != nil {
		add(Check{Name: "settings", Message: fmt.Sprintf("%s is %v, so %s ignores it", path, err, agentTitle(a)),
			Fix: fmt.Sprintf("mv %s %s && %s   # or fix the file by hand", shellQuote(path), shellQuote(path+".broken"), install)})
		return ag
	}
	what := "valid JSON"
	if a.Spec().Comments {
		what = "valid JSON (comments allowed)"
	}
	add(Check{Name: "settings", OK: true, Message: path + " is " + what})

	entries, elsewhere, err := findEntries(a, root)
	if err != nil {
		add(Check{Name: "hook", Message: fmt.Sprintf("%s: %v", path, err), Fix: fmt.Sprintf("mv %s %s && %s", shellQuote(path), shellQuote(path+".broken"), install)})
		return ag
	}
	st := shellToolOf(a)
	if len(entries) == 0 {
		msg := fmt.Sprintf("no shellgate hook for %s", st.event)
		if st.tool != "" {
			msg += fmt.Sprintf(" with a matcher for %s", st.tool)
		}
		if len(elsewhere) > 0 {
			msg += "; shellgate is only under " + strings.Join(elsewhere, ", ")
		}
		add(Check{Name: "hook", Message: msg, Fix: install})
		return ag
	}
	e := entries[0]
	where := e.event
	if st.tool != "" && !a.Spec().Flat {
		where = fmt.Sprintf("%s %q", e.event, e.matcher)
	}
	add(Check{Name: "hook", OK: true, Message: fmt.Sprintf("%s: %s", where, clip(e.command, 100))})

	o.commandChecks(&ag, a, scope, e, install)
	o.agentChecks(&ag, a, scope, e, install)
	return ag
}

// commandChecks: the hook command names this agent, its program resolves
// to an executable, and the files its flags name exist.
func (o *Options) commandChecks(ag *Agent, a hook.Agent, scope string, e entry, install string) {
	add := func(c Check) { ag.Checks = append(ag.Checks, c) }
	vars := map[string]string{}
	for _, s := range hook.Specs() {
		if s.ProjectDirVar != "" {
			vars[s.ProjectDirVar] = o.Dir
		}
	}
	if o.Home != "" {
		vars["HOME"] = o.Home
	}
	argv, err := parseHookCommand(e.command, o.getenv, vars)
	if err != nil {
		add(Check{Name: "command", Message: err.Error(), Fix: install})
		return
	}
	named, flags := hookArgs(argv)
	if !agentOK(named, a) {
		add(Check{Name: "agent", Message: fmt.Sprintf("the hook command answers as %q, not as %s: %s would misread its answers", named, a, agentTitle(a)), Fix: install})
	} else {
		add(Check{Name: "agent", OK: true, Message: "the hook command answers as " + string(a)})
	}
	prog, err := resolveProgram(argv[0], o.Dir, o.getenv)
	switch {
	case err == nil:
		add(Check{Name: "command", OK: true, Message: prog + " is executable"})
	case prog != "" && exists(prog):
		add(Check{Name: "command", Message: err.Error() + ": the agent cannot run the hook", Fix: "chmod +x " + shellQuote(prog)})
	default:
		add(Check{Name: "command", Message: err.Error() + ": the agent cannot run the hook", Fix: install})
	}
	var missing []string
	var hf hook.Flags
	for _, fp := range flagPaths(flags) {
		p := fp.path
		if !filepath.IsAbs(p) {
			p = filepath.Join(o.Dir, p)
		}
		if fp.config {
			hf.Config = p
		} else {
			hf.Policy = append(hf.Policy, p)
		}
		if !exists(p) {
			missing = append(missing, p)
		}
	}
	switch {
	case len(missing) > 0:
		add(Check{Name: "flags", Message: fmt.Sprintf("the hook command names %s, which does not exist: every command is denied", strings.Join(missing, ", ")),
			Fix: fmt.Sprintf("mkdir -p %s   # or: %s (without --policy/--config)", shellQuote(missing[0]), install)})
	case (hf.Config != "" || len(hf.Policy) > 0) && o.CheckPolicy != nil:
		if err := o.CheckPolicy(o.Dir, hf); err != nil {
			add(Check{Name: "flags", Message: fmt.Sprintf("the policy the hook command names does not build: %v: every command is denied", err),
				Fix: "shellgate policy lint " + strings.Join(quoteAll(hf.Policy), " ")})
		} else {
			add(Check{Name: "flags", OK: true, Message: "the config and policy the hook command names build"})
		}
	}
}

// agentChecks are the agent's own checks (AgentSpec.Doctor): its
// fail-closed setting, its trust in the hook or the folder, and hooks not
// switched off.
func (o *Options) agentChecks(ag *Agent, a hook.Agent, scope string, e entry, install string) {
	for _, c := range a.Spec().Doctor(hook.DoctorEnv{
		Dir: o.Dir, Home: o.Home, User: scope == ScopeUser, Settings: ag.Settings,
		Getenv: o.getenv, Install: install, Handler: e.handler, Command: e.command,
	}) {
		ag.Checks = append(ag.Checks, Check(c))
	}
}

// engineCheck pings the engine. A missing or silent engine is advisory:
// the hook answers through its one-shot path and starts one.
func (o *Options) engineCheck() Check {
	timeout := o.PingTimeout
	if timeout <= 0 {
		timeout = 500 * time.Millisecond
	}
	fix := fmt.Sprintf("shellgate serve --socket %s --log %s &", shellQuote(o.Socket), shellQuote(filepath.Join(filepath.Dir(o.Socket), "engine.log")))
	resp, err := hook.Ping(o.Socket, o.Version, timeout)
	switch {
	case err == nil:
		return Check{Name: "engine", OK: true, Message: fmt.Sprintf("the engine answers on %s (pid %d)", o.Socket, resp.Pid)}
	case errors.Is(err, hook.ErrVersion):
		return Check{Name: "engine", Advisory: true, Message: fmt.Sprintf("an engine of another version answered on %s; it steps down, and the next hook call starts this one", o.Socket), Fix: fix}
	case errors.Is(err, os.ErrNotExist):
		return Check{Name: "engine", Advisory: true, Message: fmt.Sprintf("no engine is running on %s: hook calls answer through the slower one-shot path and start one", o.Socket), Fix: fix}
	}
	return Check{Name: "engine", Advisory: true, Message: fmt.Sprintf("the engine on %s does not answer (%v): hook calls answer through the one-shot path, and a new engine takes over", o.Socket, err), Fix: fix}
}

// configChecks: the config in force for the directory, its policy
// directories, and (with CheckPolicy) that the whole policy compiles.
func (o *Options) configChecks() []Check {
	var out []Check
	cfgPath, src, err := policy.FindConfigSource(o.Dir)
	if err != nil {
		return append(out, Check{Name: "config", Message: "finding the config: " + err.Error(), Fix: "ls -ld " + shellQuote(o.Dir)})
	}
	cfg := policy.DefaultConfig()
	if cfgPath == "" {
		out = append(out, Check{Name: "config", OK: true, Message: "no .shellgate.yaml here or above, and no user config: the defaults apply"})
	} else if cfg, err = policy.LoadConfigFrom(cfgPath, src); err != nil {
		return append(out, Check{Name: "config", Message: fmt.Sprintf("%v: every command is denied until it is fixed", err), Fix: "edit " + cfgPath + ", then run: shellgate check true"})
	} else {
		out = append(out, Check{Name: "config", OK: true, Message: fmt.Sprintf("config in force: %s (%s)", cfgPath, src)})
	}
	var dirs, missing []string
	for _, d := range cfg.PolicyDirs {
		if !filepath.IsAbs(d) && cfgPath != "" {
			d = filepath.Join(filepath.Dir(cfgPath), d)
		}
		dirs = append(dirs, d)
		if !exists(d) {
			missing = append(missing, d)
		}
	}
	switch {
	case len(missing) > 0:
		out = append(out, Check{Name: "policy", Message: fmt.Sprintf("policy directory %s does not exist: every command is denied", strings.Join(missing, ", ")), Fix: "mkdir -p " + shellQuote(missing[0])})
		return out
	case o.CheckPolicy != nil:
		if err := o.CheckPolicy(o.Dir, hook.Flags{}); err != nil {
			fix := "shellgate check true"
			if len(dirs) > 0 {
				fix = "shellgate policy lint " + strings.Join(quoteAll(dirs), " ")
			}
			out = append(out, Check{Name: "policy", Message: fmt.Sprintf("the policy does not build: %v: every command is denied", err), Fix: fix})
			return out
		}
	}
	msg := "the embedded default policy"
	if len(dirs) > 0 {
		msg += ", with the modules in " + strings.Join(dirs, ", ")
	}
	if o.CheckPolicy != nil {
		msg += " (it compiles)"
	}
	out = append(out, Check{Name: "policy", OK: true, Message: msg})
	if c, ok := projectTrustCheck(cfg); ok {
		out = append(out, c)
	}
	return out
}

// agentTitle is the agent's name for a person.
func agentTitle(a hook.Agent) string {
	if s := a.Spec(); s != nil {
		return s.Title
	}
	return string(a)
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func sameDir(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

// shellQuote quotes s for sh when it holds anything but plain characters.
func shellQuote(s string) string {
	special := func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}
	if s != "" && strings.IndexFunc(s, special) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuote(s)
	}
	return out
}
