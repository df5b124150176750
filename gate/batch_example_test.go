package gate_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
)

// A Batcher decides a stream of commands on every core and answers each
// in input order: check --batch as a library. A JSONL line may name its
// own cwd, mode and shell; a line it cannot decide is an error answer in
// its place.
func ExampleBatcher_Run() {
	dir, err := os.MkdirTemp("", "batch-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	pl, err := gate.NewPipeline(gate.PipelineOptions{})
	if err != nil {
		panic(err)
	}
	in := strings.NewReader(`{"command":"git status"}
{"command":"touch notes.txt"}
{"command":"touch notes.txt","mode":"readonly"}
{"command":"ls","mode":"sometimes"}
`)
	b := gate.Batcher{Checker: pl.Batch(), Defaults: policy.Request{Cwd: dir}}
	err = b.Run(context.Background(), func(yield func(gate.BatchItem) error) error {
		return gate.ReadBatch(in, gate.BatchJSONL, yield)
	}, func(a gate.BatchAnswer) error {
		if a.Err != nil {
			fmt.Printf("line %d: %s\n", a.Item.Line, a.Err.Error)
			return nil
		}
		fmt.Printf("line %d: %s in %s mode\n", a.Item.Line, a.Result.Action, a.Result.Mode)
		return nil
	})
	fmt.Println(err)
	// Output:
	// line 1: allow in default mode
	// line 2: ask in default mode
	// line 3: deny in readonly mode
	// line 4: mode "sometimes": want default or readonly
	// <nil>
}
