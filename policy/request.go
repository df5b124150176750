package policy

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/readstation"
)

// Request is one command to decide, read once at the edge that received
// it (a CLI flag, a batch line, a hook or serve query, an MCP tool call)
// and passed whole from there: its mode and shell checked, its cwd
// resolved (ResolveCwd).
type Request struct {
	// Command is the command exactly as given.
	Command string
	// Cwd is the directory it runs in: absolute, or, when the caller did
	// not say where (a hook whose agent gave no absolute cwd), as given;
	// the policy then asks with cwd-unknown.
	Cwd string
	// Mode is ModeDefault or ModeReadonly; "" is the config's.
	Mode string
	// Shell is the shell that runs it; DialectUnknown takes the config's,
	// and with none there the command is read as both bash and zsh.
	Shell classify.Dialect
	// Env is what is known of the environment the command runs in
	// (readstation.Boundary.Env); nil is the pipeline's (its
	// PipelineOptions.Env).
	Env readstation.Env
}

// ParseRequest reads a request's text fields as an edge receives them:
// mode "" or a valid mode, a shell classify.ParseDialect knows, and a cwd
// resolved against base (ResolveCwd). The errors name the field.
func ParseRequest(command, cwd, mode, shell, base string) (Request, error) {
	r := Request{Command: command, Mode: mode, Cwd: ResolveCwd(base, cwd)}
	if mode != "" && !ValidMode(mode) {
		return r, fmt.Errorf("mode %q: want %s or %s", mode, ModeDefault, ModeReadonly)
	}
	var err error
	if r.Shell, err = classify.ParseDialect(shell); err != nil {
		return r, err
	}
	return r, nil
}

// ResolveCwd is the one way a request's cwd is resolved: "" is base, a
// relative cwd is relative to base, and the result is cleaned. With no
// base a relative cwd stays as given (nobody said where it is: the policy
// asks with cwd-unknown).
func ResolveCwd(base, cwd string) string {
	switch {
	case cwd == "":
		return base
	case filepath.IsAbs(cwd):
		return filepath.Clean(cwd)
	case base == "":
		return cwd
	}
	return filepath.Join(base, cwd)
}

// Defaults fills what r leaves open from d: its cwd (ResolveCwd against
// d.Cwd), its mode and its shell.
func (r Request) Defaults(d Request) Request {
	r.Cwd = ResolveCwd(d.Cwd, r.Cwd)
	if r.Mode == "" {
		r.Mode = d.Mode
	}
	if r.Shell == classify.DialectUnknown {
		r.Shell = d.Shell
	}
	if r.Env == nil {
		r.Env = d.Env
	}
	return r
}

// Dialect is the shell the config names (DialectUnknown when it names none
// or one Validate refuses).
func (c *Config) Dialect() classify.Dialect {
	if c == nil || strings.TrimSpace(c.Shell) == "" {
		return classify.DialectUnknown
	}
	d, _ := classify.ParseDialect(c.Shell)
	return d
}
