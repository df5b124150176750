package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/shellgate/shellgate/gate"
	"io"
)

// writeJSON writes v as one line of JSON, without HTML escaping.
func writeJSON(w io.Writer, v any) error {
	b, err := jsonLine(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// jsonLine is v as one line of JSON, without HTML escaping, with its
// newline.
func jsonLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
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
