package execution_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/shellgate/shellgate/execution"
)

// Example runs a command confined to its workspace, without the gate: a
// write inside is kept, a write outside is refused by the kernel and the
// outcome names it. It needs a kernel that can confine (Landlock on Linux,
// Seatbelt on macOS).
func Example() {
	work, err := os.MkdirTemp("", "execution-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(work)
	outside, err := os.MkdirTemp("", "execution-outside")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(outside)

	r := &execution.BashRunner{}
	out, err := r.Run(context.Background(), execution.Spec{
		Command: "echo kept > in.txt && cat in.txt; touch " + filepath.Join(outside, "planted"),
		Dir:     work,
		Env:     execution.BuildEnv(os.Environ(), nil, nil),
		Timeout: time.Minute,
		Sandbox: &execution.Confinement{Mode: execution.SandboxWorkspaceWrite, Roots: []string{work}},
	})
	if err != nil {
		panic(err) // this machine cannot confine
	}
	fmt.Println(strings.SplitN(out.Output.String(), "\n", 2)[0])
	fmt.Println("exit", out.ExitCode, "enforced", out.Sandbox.Enforced)
	for _, d := range out.Sandbox.Denied {
		fmt.Println("refused:", d.Op, d.Path == filepath.Join(outside, "planted"))
	}
	_, err = os.Stat(filepath.Join(outside, "planted"))
	fmt.Println("planted outside:", err == nil)
	// Output:
	// kept
	// exit 1 enforced true
	// refused: write true
	// planted outside: false
}
