package main

import (
	"encoding/json"
	"fmt"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/render"
	"github.com/shellgate/shellgate/trust"
)

func init() {
	register("classify", "describe a command: segments, reads, writes, findings", runClassify)
}

func runClassify(e *env) int {
	fs := newFlags(e, "classify", "[--json] [--shell bash|zsh|sh] [--batch [--input lines|jsonl]] [--catalog FILE] COMMAND")
	asJSON := fs.Bool("json", false, "print one JSON object")
	batch := fs.Bool("batch", false, "read one command per line on stdin, write one JSON object per line")
	input := fs.String("input", "lines", "with --batch: lines, or jsonl (objects with a \"command\" field)")
	catFile := fs.String("catalog", "", "extend the embedded catalog with this YAML file")
	shell := addShellFlag(fs)
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	dialect, err := classify.ParseDialect(*shell)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate classify: --shell:", err)
		return exitUsage
	}
	var cat *classify.Catalog
	if *catFile != "" {
		if cat, err = loadCatalog(*catFile); err != nil {
			fmt.Fprintln(e.stderr, "shellgate classify:", err)
			return exitUsage
		}
	}
	cl, err := gate.NewClassifier(nil, cat)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate classify:", err)
		return exitUsage
	}
	if *batch {
		if len(ops) > 0 {
			fmt.Fprintln(e.stderr, "shellgate classify: --batch reads commands from stdin; give no COMMAND")
			return exitUsage
		}
		if err := inputFormat(*input); err != nil {
			fmt.Fprintln(e.stderr, "shellgate classify:", err)
			return exitUsage
		}
		err := gate.ReadBatch(e.stdin, *input, func(it gate.BatchItem) error {
			if it.Err != nil {
				return writeJSON(e.stdout, map[string]any{"line": it.Line, "error": it.Err.Error()})
			}
			d := dialect
			if raw, ok := it.Fields["shell"]; ok {
				var s string
				err := json.Unmarshal(raw, &s)
				if err == nil {
					d, err = classify.ParseDialect(s)
				}
				if err != nil {
					return writeJSON(e.stdout, map[string]any{"line": it.Line, "error": "shell: " + err.Error()})
				}
			}
			return writeJSON(e.stdout, cl.Classify(it.Command, d))
		})
		if err != nil {
			fmt.Fprintln(e.stderr, "shellgate classify:", err)
			return exitUsage
		}
		return exitOK
	}
	if len(ops) == 0 {
		fs.Usage()
		return exitUsage
	}
	r := cl.Classify(joinCommand(ops), dialect)
	if *asJSON {
		if err := writeJSON(e.stdout, r); err != nil {
			return exitInternal
		}
		return exitOK
	}
	render.Report(e.stdout, r)
	return exitOK
}

// maxCatalogBytes bounds a user catalog file.
const maxCatalogBytes = 16 << 20

// loadCatalog reads a user catalog and lays it over the embedded one.
func loadCatalog(path string) (*classify.Catalog, error) {
	// A FIFO or a device named as the catalog must not block the read.
	data, err := trust.ReadRegular(path, maxCatalogBytes)
	if err != nil {
		return nil, err
	}
	ext, err := classify.ParseCatalog(data, path)
	if err != nil {
		return nil, err
	}
	return classify.DefaultCatalog().Extend(ext)
}
