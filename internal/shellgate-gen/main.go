// Command shellgate-gen writes shellgate's generated files; go generate
// runs it (go.mod names it in a tool directive):
//
//	go generate ./classify ./codes ./rego
//
// "classify" writes, in the current directory (classify/), catalog.bin,
// agentenv/names.go and shells/table.go from catalog.yaml; "codes" writes
// ../docs/codes.md from the code registry; "rego" writes, in rego/,
// input_gen.go, the description of the policy input derived from its Go
// types (input.go). Tests fail when a generated
// file is not what this writes.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/codes"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "shellgate-gen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: shellgate-gen classify|codes|rego")
	}
	var files map[string][]byte
	switch args[0] {
	case "classify":
		var err error
		if files, err = classify.GeneratedFiles(); err != nil {
			return err
		}
	case "codes":
		files = map[string][]byte{filepath.Join("..", "docs", "codes.md"): []byte(codes.Markdown())}
	case "rego":
		src, err := inputFile()
		if err != nil {
			return err
		}
		files = map[string][]byte{"input_gen.go": src}
	default:
		return fmt.Errorf("unknown target %q (want classify, codes or rego)", args[0])
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.MkdirAll(filepath.Dir(n), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(n, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}
