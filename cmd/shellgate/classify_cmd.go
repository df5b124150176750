package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/shellgate/shellgate/classify"
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
	opts := []classify.Option{classify.WithDialect(dialect)}
	if *catFile != "" {
		cat, err := loadCatalog(*catFile)
		if err != nil {
			fmt.Fprintln(e.stderr, "shellgate classify:", err)
			return exitUsage
		}
		opts = append(opts, classify.WithCatalog(cat))
	}
	if *batch {
		if len(ops) > 0 {
			fmt.Fprintln(e.stderr, "shellgate classify: --batch reads commands from stdin; give no COMMAND")
			return exitUsage
		}
		err := readBatch(e.stdin, *input, func(it batchItem) error {
			if it.Err != nil {
				return writeJSON(e.stdout, map[string]any{"line": it.Line, "error": it.Err.Error()})
			}
			o := opts
			if raw, ok := it.Fields["shell"]; ok {
				var s string
				d, err := classify.Dialect(""), json.Unmarshal(raw, &s)
				if err == nil {
					d, err = classify.ParseDialect(s)
				}
				if err != nil {
					return writeJSON(e.stdout, map[string]any{"line": it.Line, "error": "shell: " + err.Error()})
				}
				o = append(opts[:len(opts):len(opts)], classify.WithDialect(d))
			}
			return writeJSON(e.stdout, classify.Classify(it.Command, o...))
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
	r := classify.Classify(joinCommand(ops), opts...)
	if *asJSON {
		if err := writeJSON(e.stdout, r); err != nil {
			return exitInternal
		}
		return exitOK
	}
	printReport(e, r)
	return exitOK
}

// loadCatalog reads a user catalog and lays it over the embedded one.
func loadCatalog(path string) (*classify.Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ext, err := classify.ParseCatalog(data, path)
	if err != nil {
		return nil, err
	}
	return classify.DefaultCatalog().Extend(ext)
}

func printReport(e *env, r *classify.Report) {
	w := e.stdout
	if r.Reversible {
		fmt.Fprintln(w, "reversible: yes (read-only)")
	} else {
		fmt.Fprintln(w, "reversible: no")
	}
	if !r.Parse.OK && r.Parse.Error != "" {
		fmt.Fprintln(w, "parse error:", r.Parse.Error)
	}
	if len(r.Segments) > 0 {
		fmt.Fprintln(w, "segments:")
	}
	for _, s := range r.Segments {
		name := s.Name
		if name == "" {
			name = s.Program
		}
		if s.Subcommand != "" {
			name += " " + s.Subcommand
		}
		var notes []string
		if s.ReadOnly {
			notes = append(notes, "read-only")
		}
		if len(s.Categories) > 0 {
			cats := make([]string, len(s.Categories))
			for i, c := range s.Categories {
				cats[i] = string(c)
			}
			notes = append(notes, strings.Join(cats, ","))
		}
		if len(s.Wrappers) > 0 {
			notes = append(notes, "in "+strings.Join(s.Wrappers, " > "))
		}
		if !s.Cwd.Known {
			notes = append(notes, "cwd unknown")
		} else if s.Cwd.Path != "." {
			notes = append(notes, "cwd "+s.Cwd.Path)
		}
		fmt.Fprintf(w, "  [%d] %s (%s)\n", s.Index, name, strings.Join(notes, "; "))
		for _, c := range s.Code {
			text := c.Span.String()
			if 0 <= c.Span.Start && c.Span.Start <= c.Span.End && c.Span.End <= len(r.Command) {
				text = oneLine(r.Command[c.Span.Start:c.Span.End])
			}
			fmt.Fprintf(w, "      carries %s (%s): %s\n", c.Carries, c.Via, text)
		}
	}
	for _, p := range r.Reads {
		fmt.Fprintf(w, "read:  %s%s\n", describePath(p), "")
	}
	for _, p := range r.Writes {
		fmt.Fprintf(w, "write: %s\n", describePath(p))
	}
	if len(r.Findings) > 0 {
		fmt.Fprintln(w, "findings:")
	}
	for _, f := range r.Findings {
		fmt.Fprintf(w, "  %s: %s\n", f.Code, f.Message)
		fmt.Fprint(w, underline(r.Command, f.Span.Start, f.Span.End, "    "))
	}
}

func describePath(p classify.PathRef) string {
	s := p.Path
	switch p.Kind {
	case "glob":
		s += " (glob)"
	case "dynamic":
		s = p.Path + " (unknown until run: " + p.Dynamic + ")"
	}
	if p.Recursive {
		s += " (recursive)"
	}
	if p.Cwd.Known && p.Cwd.Path != "." && !strings.HasPrefix(p.Path, "/") {
		s += " in " + p.Cwd.Path
	} else if !p.Cwd.Known {
		s += " in an unknown directory"
	}
	return s
}
