package mcpserver_test

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/mcpserver"
)

// oneGate decides every command with one gate (a program with one
// configuration; shellgate mcp uses a serve.Gates).
type oneGate struct{ g *gate.Gate }

func (o oneGate) GateFor(string) (*gate.Gate, error) { return o.g, nil }

// A client calls the tools of an in-process server: check decides
// without running, bash runs what the policy allows and refuses the rest
// with the reasons.
func Example() {
	dir, err := os.MkdirTemp("", "mcp-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	g, err := gate.New(gate.WithCwd(dir))
	if err != nil {
		panic(err)
	}
	srv, err := mcpserver.New(mcpserver.Options{Gates: oneGate{g}, Cwd: dir, Version: "example"})
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	call := func(tool, command string) (refused bool, out map[string]any) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"command": command}})
		if err != nil {
			panic(err)
		}
		return res.IsError, res.StructuredContent.(map[string]any)
	}
	_, d := call("check", "rm -rf /")
	fmt.Println("check:", d["action"])
	refused, r := call("bash", "echo hello")
	fmt.Println("bash echo hello:", r["status"], refused)
	refused, r = call("bash", "rm -rf /")
	fmt.Println("bash rm -rf /:", r["status"], r["code"], refused)
	// Output:
	// check: deny
	// bash echo hello: ok false
	// bash rm -rf /: error DENIED true
}
