package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/shellgate/shellgate/gate"
)

// writeJSON writes v as one line of JSON, without HTML escaping (the
// encoder writes the line in one call).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// inputFormat checks --input: lines or jsonl (see gate.ReadBatch).
func inputFormat(v string) error {
	if v == gate.BatchLines || v == gate.BatchJSONL {
		return nil
	}
	return fmt.Errorf("unknown --input %q (want lines or jsonl)", v)
}

// newFlags makes a flag set that reports errors to e.stderr.
func newFlags(e *env, name, usage string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: shellgate %s %s\n", name, usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, allowing flags after the command operand too
// ("shellgate check 'ls' --json"). When ok is false the command is done
// and exits with status: -h or --help printed the usage to e.stdout
// (exitOK); any other error printed it with the error to e.stderr
// (exitUsage).
func parseFlags(e *env, fs *flag.FlagSet, args []string) (operands []string, status int, ok bool) {
	usage := fs.Usage
	fs.Usage = func() {} // printed below, once the kind of error is known
	defer func() { fs.Usage = usage }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(e.stdout)
				usage()
				fs.SetOutput(e.stderr)
				return nil, exitOK, false
			}
			usage()
			return nil, exitUsage, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return operands, exitOK, true
		}
		if rest[0] == "--" {
			return append(operands, rest[1:]...), exitOK, true
		}
		operands = append(operands, rest[0])
		args = rest[1:]
	}
}
