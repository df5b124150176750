package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bash tool's arguments as they were declared before, field by field,
// three times: the schemas the SDK infers from the embedded declarations
// must be exactly these.
type (
	flatRunArgs struct {
		Command   string `json:"command" jsonschema:"the bash command line to run"`
		Cwd       string `json:"cwd,omitempty" jsonschema:"the directory to run in for this call: absolute, or relative to the session's working directory (default: the session's working directory)"`
		TimeoutMS int64  `json:"timeout_ms,omitempty" jsonschema:"stop the command and everything it started after this many milliseconds (default and ceiling: the server's limits)"`
	}
	flatBashArgs struct {
		Command         string `json:"command" jsonschema:"the bash command line to run"`
		Cwd             string `json:"cwd,omitempty" jsonschema:"the directory to run in for this call: absolute, or relative to the session's working directory (default: the session's working directory)"`
		TimeoutMS       int64  `json:"timeout_ms,omitempty" jsonschema:"stop the command and everything it started after this many milliseconds (default and ceiling: the server's limits)"`
		RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"start the command in the background and return its job id at once (no timeout; read its output with bash_output, stop it with bash_kill)"`
	}
	flatConfinedArgs struct {
		Command           string `json:"command" jsonschema:"the bash command line to run"`
		Cwd               string `json:"cwd,omitempty" jsonschema:"the directory to run in for this call: absolute, or relative to the session's working directory (default: the session's working directory)"`
		TimeoutMS         int64  `json:"timeout_ms,omitempty" jsonschema:"stop the command and everything it started after this many milliseconds (default and ceiling: the server's limits)"`
		RunInBackground   bool   `json:"run_in_background,omitempty" jsonschema:"start the command in the background and return its job id at once (no timeout; read its output with bash_output, stop it with bash_kill)"`
		SandboxEscalation string `json:"sandbox_escalation,omitempty" jsonschema:"only after the sandbox refused this command (a [sandbox: ... denied ...] line): run it once in this wider mode, workspace-write or full-access; needs a justification; a person approves it, and a refusal is final for the command"`
		Justification     string `json:"justification,omitempty" jsonschema:"with sandbox_escalation: one sentence saying why this call needs the wider mode, shown to the person who approves it"`
	}
)

// inputSchemas lists, over a client, the input schema of every tool of a
// server that has one tool per argument type (the tool named after it).
func inputSchemas(t *testing.T, add func(*mcp.Server)) map[string]string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "schemas", Version: "1"}, nil)
	add(srv)
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = string(b)
	}
	return out
}

func addTool[In any](srv *mcp.Server, name string) {
	mcp.AddTool(srv, &mcp.Tool{Name: name}, func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, any, error) {
		return nil, nil, nil
	})
}

// TestArgsSchemas: the SDK promotes the fields of an embedded struct into
// the inferred schema (reflect.VisibleFields), in declaration order, with
// the same descriptions and required fields as the flat declarations.
func TestArgsSchemas(t *testing.T) {
	got := inputSchemas(t, func(srv *mcp.Server) {
		addTool[runArgs](srv, "run")
		addTool[bashArgs](srv, "bash")
		addTool[confinedBashArgs](srv, "confined")
	})
	want := inputSchemas(t, func(srv *mcp.Server) {
		addTool[flatRunArgs](srv, "run")
		addTool[flatBashArgs](srv, "bash")
		addTool[flatConfinedArgs](srv, "confined")
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("schemas (-flat +embedded):\n%s", diff)
	}
	for name, props := range map[string][]string{
		"run":      {"command", "cwd", "timeout_ms"},
		"bash":     {"command", "cwd", "timeout_ms", "run_in_background"},
		"confined": {"command", "cwd", "timeout_ms", "run_in_background", "sandbox_escalation", "justification"},
	} {
		var s struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal([]byte(got[name]), &s); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range props {
			if _, ok := s.Properties[p]; ok {
				names = append(names, p)
			}
		}
		if diff := cmp.Diff(props, names); diff != "" || len(s.Properties) != len(props) || !cmp.Equal(s.Required, []string{"command"}) {
			t.Errorf("%s: properties %v required %v (-want +got):\n%s", name, s.Properties, s.Required, diff)
		}
	}
}

// TestArgsDecode: a call's arguments reach the embedded fields.
func TestArgsDecode(t *testing.T) {
	var a confinedBashArgs
	raw := `{"command":"ls","cwd":"sub","timeout_ms":5,"run_in_background":true,"sandbox_escalation":"full-access","justification":"why"}`
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		t.Fatal(err)
	}
	r := a.request()
	if r.Command != "ls" || r.Cwd != "sub" || r.TimeoutMS != 5 || !a.RunInBackground || r.Escalate != "full-access" || r.Justification != "why" {
		t.Fatalf("decoded %+v, request %+v", a, r)
	}
}
