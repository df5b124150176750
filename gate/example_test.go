package gate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shellgate/shellgate/execution"
	"github.com/shellgate/shellgate/gate"
)

func Example() {
	dir, err := os.MkdirTemp("", "gate-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		panic(err)
	}
	g, err := gate.New(gate.WithCwd(dir))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	// Allowed and run: grep's exit 1 is not a failure.
	res := g.Run(ctx, gate.Request{Command: "grep -n gamma notes.txt"})
	fmt.Println(res.Status, res.Run.ExitCode, res.Meaning.Error, res.Meaning.Message)

	// Denied: never run.
	res = g.Run(ctx, gate.Request{Command: "rm -rf /"})
	fmt.Println(res.Status, res.Code, res.Decision.Action, res.Ran())

	// Asked, with nobody to ask: refused.
	res = g.Run(ctx, gate.Request{Command: "touch new.txt"})
	fmt.Println(res.Status, res.Code, res.Decision.Action, res.Ran())

	// Asked and approved: run.
	yes := gate.ApproverFunc(func(ctx context.Context, d *gate.Decision) (bool, error) { return true, nil })
	res = g.Run(ctx, gate.Request{Command: "touch new.txt", Approver: yes})
	fmt.Println(res.Status, res.Approved, res.Run.ExitCode)
	// Output:
	// failed 1 false No matches found
	// error DENIED deny false
	// error NOT_APPROVED ask false
	// ok true 0
}

func ExampleGate_Check() {
	g, err := gate.New(gate.WithCwd(os.TempDir()))
	if err != nil {
		panic(err)
	}
	d, err := g.Check(context.Background(), gate.Request{Command: "ls -la | head -5", Mode: "readonly"})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Action, d.Reversible, len(d.Report.Segments))
	// Output:
	// allow true 2
}

func ExampleResult_Text() {
	dir, err := os.MkdirTemp("", "gate-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	g, err := gate.New(gate.WithCwd(dir))
	if err != nil {
		panic(err)
	}
	res := g.Run(context.Background(), gate.Request{Command: "echo hello; echo world"})
	res.Run.Duration = 400_000_000 // for a stable example
	fmt.Print(res.Text())
	// Output:
	// Exit code 0 · 0.4 s
	// hello
	// world
}

// The kernel enforces the decision: a command allowed as read-only runs
// in the read-only sandbox, and a write it attempts anyway is refused and
// marked.
func ExampleGate_Run_sandbox() {
	dir, err := os.MkdirTemp("", "gate-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	g, err := gate.New(gate.WithCwd(dir))
	if err != nil {
		panic(err)
	}
	yes := gate.ApproverFunc(func(ctx context.Context, d *gate.Decision) (bool, error) { return true, nil })
	res := g.Run(context.Background(), gate.Request{Command: "touch x", Sandbox: execution.SandboxReadOnly, Approver: yes})
	fmt.Print(res.Output.String())
	fmt.Println(res.Sandbox.Mode, res.Sandbox.Denied[0].Op)
	// Output:
	// touch: cannot touch 'x': Permission denied
	// [sandbox: write denied under read-only mode]
	// read-only write
}

// A background job: the call returns at once; the output is read as it
// comes.
func ExampleGate_Start() {
	dir, err := os.MkdirTemp("", "gate-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	g, err := gate.New(gate.WithCwd(dir))
	if err != nil {
		panic(err)
	}
	j, res := g.Start(context.Background(), gate.Request{Command: "echo started; sleep 0.1; echo done"})
	if j == nil {
		panic(res.StatusLine())
	}
	defer j.Close()
	fmt.Println(res.Status)
	final := j.Wait()
	fmt.Print(j.Read().Output)
	fmt.Println(final.Status, final.Run.ExitCode)
	// Output:
	// running
	// started
	// done
	// ok 0
}

// The engine's front door: one Gate, built once, answers every question
// about a command: Decide (may it run?), Explain (why?), Grant (what
// would allow it next time?) and Run.
func ExampleGate_Decide() {
	dir, err := os.MkdirTemp("", "gate-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	g, err := gate.New(gate.WithCwd(dir))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	d, err := g.Decide(ctx, gate.Request{Command: "npm test > ~/.bashrc", Shell: "bash"})
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Action, d.Codes())
	x, err := g.Explain(ctx, gate.Request{Command: "npm test > ~/.bashrc", Shell: "bash"})
	if err != nil {
		panic(err)
	}
	fmt.Println(x.Action, len(x.Rules) > 0, x.Facts.Writes[0].OutsideRoots)
	gr, err := g.Grant(ctx, gate.Request{Command: "npm test && git status", Shell: "bash"})
	if err != nil {
		panic(err)
	}
	fmt.Println(gr.Action, gr.Grants[0].Pattern)
	gr, _ = g.Grant(ctx, gate.Request{Command: "git status", Shell: "bash"})
	fmt.Println(gr.Action, gr.Nothing())
	// Output:
	// deny [write-outside-roots]
	// deny true true
	// ask npm test
	// allow the command is allowed
}
