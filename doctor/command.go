package doctor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/shellgate/shellgate/hook"
)

// parseHookCommand expands the first simple command of a hook command line
// the way the agent's shell will, with env for variables (an unset one is
// an error: its value cannot be known here). It does not run anything.
func parseHookCommand(command string, env func(string) string, vars map[string]string) ([]string, error) {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, fmt.Errorf("the hook command does not parse: %v", err)
	}
	var call *syntax.CallExpr
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && call == nil && len(c.Args) > 0 {
			call = c
		}
		return call == nil
	})
	if call == nil {
		return nil, errors.New("the hook command runs no program")
	}
	cfg := &expand.Config{
		Env: expand.FuncEnviron(func(name string) string {
			if v, ok := vars[name]; ok {
				return v
			}
			return env(name)
		}),
		NoUnset: true,
		CmdSubst: func(io.Writer, *syntax.CmdSubst) error {
			return errors.New("a command substitution")
		},
	}
	var argv []string
	for _, w := range call.Args {
		s, err := expand.Literal(cfg, w)
		if err != nil {
			return nil, fmt.Errorf("cannot tell what %q expands to: %v", command[w.Pos().Offset():w.End().Offset()], err)
		}
		argv = append(argv, s)
	}
	return argv, nil
}

// resolveProgram finds the program a hook command starts: a name with a
// slash is a path (relative to dir), any other is looked up in PATH. It
// must be a regular file with an execute bit.
func resolveProgram(name, dir string, env func(string) string) (string, error) {
	if name == "" {
		return "", errors.New("the hook command's program is empty")
	}
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return p, executable(p)
	}
	for _, d := range filepath.SplitList(env("PATH")) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, name)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if executable(p) == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not found in PATH", name)
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist", p)
		}
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", p)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable (mode %04o)", p, fi.Mode().Perm())
	}
	return nil
}

// hookArgs returns the agent named in a shellgate hook command's argv and
// its flags: `shellgate-hook AGENT FLAGS...` or `shellgate hook AGENT
// FLAGS...`.
func hookArgs(argv []string) (agent string, flags []string) {
	rest := argv[1:]
	if filepath.Base(argv[0]) == "shellgate" && len(rest) > 0 && rest[0] == "hook" {
		rest = rest[1:]
	}
	// The agent is the first operand; flags may come first.
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && i+1 < len(rest) {
				flags = append(flags, a, rest[i+1])
				i++
			} else {
				flags = append(flags, a)
			}
			continue
		}
		if agent == "" {
			agent = a
			continue
		}
		flags = append(flags, a)
	}
	return agent, flags
}

// flagPath is a file a hook command's flag names.
type flagPath struct {
	path   string
	config bool // --config; else --policy
}

// flagPaths returns the files a hook command's --policy and --config
// flags name, which must exist for the hook to decide anything (a missing
// one makes every decision a deny).
func flagPaths(flags []string) []flagPath {
	var out []flagPath
	for i := 0; i < len(flags); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(flags[i], "-"), "=")
		if name != "policy" && name != "config" {
			continue
		}
		if !hasVal {
			if i+1 >= len(flags) {
				continue
			}
			i++
			val = flags[i]
		}
		out = append(out, flagPath{val, name == "config"})
	}
	return out
}

// agentOK reports whether the agent a hook command names answers in agent's
// format.
func agentOK(named string, agent hook.Agent) bool {
	a, err := hook.ParseAgent(named)
	return err == nil && a == agent
}
