package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// maxBatchLine is the longest line --batch accepts.
const maxBatchLine = 8 << 20

// batchItem is one command read by --batch.
type batchItem struct {
	Line    int
	Command string
	// Fields are the other fields of a JSONL input object (cwd, mode, ...).
	Fields map[string]json.RawMessage
	// Err is set when the line could not be read as a command.
	Err error
}

// readBatch calls fn for each command on r: one per line ("lines"), or one
// JSON object with a "command" field per line ("jsonl"). Blank lines are
// skipped.
func readBatch(r io.Reader, format string, fn func(batchItem) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), maxBatchLine)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		it := batchItem{Line: n}
		switch format {
		case "", "lines":
			it.Command = line
		case "jsonl":
			var obj map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &obj); err != nil {
				it.Err = fmt.Errorf("line %d: %v", n, err)
			} else if raw, ok := obj["command"]; !ok {
				it.Err = fmt.Errorf("line %d: no \"command\" field", n)
			} else if err := json.Unmarshal(raw, &it.Command); err != nil {
				it.Err = fmt.Errorf("line %d: \"command\" is not a string", n)
			} else {
				delete(obj, "command")
				it.Fields = obj
			}
		default:
			return fmt.Errorf("unknown --input %q (want lines or jsonl)", format)
		}
		if err := fn(it); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading stdin: line %d: %w", n+1, err)
	}
	return nil
}

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
