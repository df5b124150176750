package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/mcpserver"
	"github.com/shellgate/shellgate/rego/fleet"
	"github.com/shellgate/shellgate/serve"
)

func init() {
	register("mcp", "serve a gated shell to MCP clients over stdio (tools bash, bash_output, bash_kill, bash_readonly, check)", runMCP)
}

func runMCP(e *env) int {
	fs := newFlags(e, "mcp", "[--approve-asks] [--cwd DIR] [--policy DIR]... [--config FILE] [--opa-config FILE]")
	opaConfig := fs.String("opa-config", os.Getenv(OPAConfigEnv), "OPA configuration `FILE` (default: $SHELLGATE_OPA_CONFIG): decide with the policy bundle it names (no --policy or --config then) and log decisions as it says")
	approve := fs.Bool("approve-asks", false, "run commands the policy would ask about (the MCP client's confirmation of each call is the approval); without it they are refused with the reasons")
	cwd := fs.String("cwd", "", "the `DIR` a session starts in; a cd moves the session's directory, as the policy allows a cd (default: the current directory)")
	var policies repeated
	fs.Var(&policies, "policy", "add the Rego modules in `DIR` to the default policy (repeatable)")
	config := fs.String("config", "", "config `FILE` (default: .shellgate.yaml from the command's cwd upward, else the user config)")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	if len(ops) > 0 {
		fs.Usage()
		return exitUsage
	}
	var fl *fleet.Engine
	if *opaConfig != "" {
		if *config != "" || len(policies) > 0 {
			fmt.Fprintln(e.stderr, "shellgate mcp: --opa-config: the policy bundle carries the policy and config; give no --config or --policy")
			return exitUsage
		}
		var err error
		if fl, err = startFleet(*opaConfig); err != nil {
			fmt.Fprintln(e.stderr, "shellgate mcp:", err)
			return exitUsage
		}
		defer fl.Stop()
	}
	srv, err := newMCPServerFleet(*approve, *cwd, policies, *config, fl)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate mcp:", err)
		return exitUsage
	}
	residentGC()
	t := &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
	// SIGINT and SIGTERM end the server the way end of input does: every
	// background job is stopped first.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = srv.Run(ctx, t)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, mcp.ErrConnectionClosed) && ctx.Err() == nil {
		fmt.Fprintln(e.stderr, "shellgate mcp:", err)
		return exitInternal
	}
	return exitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// newMCPServer is the MCP server of the mcp flags.
func newMCPServer(approve bool, cwd string, policies []string, config string) (*mcpserver.Server, error) {
	return newMCPServerFleet(approve, cwd, policies, config, nil)
}

// newMCPServerFleet is newMCPServer, deciding with the policy bundle of
// fl (and logging its decisions) when it is not nil.
func newMCPServerFleet(approve bool, cwd string, policies []string, config string, fl *fleet.Engine) (*mcpserver.Server, error) {
	abs, err := flagCwd(cwd)
	if err != nil {
		return nil, err
	}
	o := mcpserver.Options{Cwd: abs, ApproveAsks: approve, Version: version}
	if fl != nil {
		o.Gates = fleetDecider(fl)
	} else {
		f := hook.Flags{Policy: absAll(policies), Cwd: abs}
		if config != "" {
			f.Config, _ = filepath.Abs(config)
		}
		o.Gates = serve.NewGates(f)
	}
	return mcpserver.New(o)
}
