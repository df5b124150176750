package main

import (
	"context"
	"fmt"
	"github.com/shellgate/shellgate/gate"
	"os"
	"strings"

	"github.com/shellgate/shellgate/corpus"
)

func init() {
	register("diff", "show every command whose decision changes between two policy sets", runDiff)
}

const diffUsage = `--base-policy DIR... --policy DIR... [--config FILE] [--mode default|readonly]
       [--format text|json] [--run REGEX] [--exit-code] [CORPUS... | --batch [--input lines|jsonl]]

Judges every command with the base policy set (the default policy plus each
--base-policy DIR) and with the new one (the default policy plus each
--policy DIR), and prints the commands whose decision changes, grouped by
transition (allow→ask, ask→deny, …; loosened ones first), with the reasons
on each side. The commands are the cases of CORPUS (default: the embedded
corpus plus ./corpus), or with --batch the lines of stdin, judged in the
current directory. Expectations are not consulted.

Exit status:
  0   done (with --exit-code: and nothing changed)
  1   with --exit-code: some decision changed; also when there was nothing
      to compare
  64  usage error: bad flags, input, config or policy
  70  internal error

Flags:`

func runDiff(e *env) int {
	fs := newFlags(e, "diff", diffUsage)
	var base, next repeated
	fs.Var(&base, "base-policy", "a `DIR` of Rego modules in the base policy set (repeatable)")
	fs.Var(&next, "policy", "a `DIR` of Rego modules in the new policy set (repeatable)")
	config := fs.String("config", "", "config `FILE` for both sides (default: the embedded defaults)")
	mode := fs.String("mode", "", "with --batch: the mode to judge in (default: the config's)")
	format := fs.String("format", "text", "output: text or json")
	runRE := fs.String("run", "", "only the cases whose name or command matches `REGEX`")
	exitCode := fs.Bool("exit-code", false, "exit 1 when some decision changed")
	batch := fs.Bool("batch", false, "read one command per line on stdin instead of a corpus")
	input := fs.String("input", "lines", "with --batch: lines, or jsonl (objects with a \"command\" field)")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	fail := func(err error) int {
		fmt.Fprintln(e.stderr, "shellgate diff:", err)
		return exitUsage
	}
	if len(base) == 0 && len(next) == 0 {
		return fail(fmt.Errorf("give --base-policy DIR, --policy DIR or both"))
	}
	if *format != "text" && *format != "json" {
		return fail(fmt.Errorf("unknown --format %q (want text or json)", *format))
	}
	if *batch && len(ops) > 0 {
		return fail(fmt.Errorf("--batch reads commands from stdin; give no CORPUS"))
	}
	if err := inputFormat(*input); *batch && err != nil {
		return fail(err)
	}
	re, err := runFilter(*runRE)
	if err != nil {
		return fail(err)
	}
	cfg, m, err := configMode(*config, *mode)
	if err != nil {
		return fail(err)
	}
	var cases []corpus.Case
	opt := corpus.Options{}
	if *batch {
		wd, err := os.Getwd()
		if err != nil {
			return fail(err)
		}
		err = gate.ReadBatch(e.stdin, *input, func(it gate.BatchItem) error {
			if it.Err != nil {
				return it.Err
			}
			cases = append(cases, corpus.Case{Name: fmt.Sprintf("line %d", it.Line), Command: it.Command, Mode: m, Cwd: wd})
			return nil
		})
		if err != nil {
			return fail(err)
		}
	} else {
		if cases, err = corpus.LoadCorpora(ops); err != nil {
			return fail(err)
		}
		home, cleanup, err := withCorpusHome()
		if err != nil {
			fmt.Fprintln(e.stderr, "shellgate diff:", err)
			return exitInternal
		}
		defer cleanup()
		opt.Home = home
	}
	cases = corpus.Filter(cases, re)
	if len(cases) == 0 {
		fmt.Fprintln(e.stderr, "shellgate diff: no commands to compare")
		return 1
	}
	baseF, err := newFactory(cfg, base)
	if err != nil {
		return fail(fmt.Errorf("base: %w", err))
	}
	nextF, err := newFactory(cfg, next)
	if err != nil {
		return fail(fmt.Errorf("new: %w", err))
	}
	res, err := corpus.Diff(context.Background(), cases, baseF, nextF, opt)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate diff:", err)
		return exitInternal
	}
	if *format == "json" {
		out := struct {
			Total  int            `json:"total"`
			Groups []corpus.Group `json:"groups"`
			Errors []string       `json:"errors,omitempty"`
		}{res.Total, res.Groups(), res.Errors}
		if out.Groups == nil {
			out.Groups = []corpus.Group{}
		}
		err = writeJSON(e.stdout, out)
	} else {
		err = corpus.WriteDiffText(e.stdout, res)
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate diff:", err)
		return exitInternal
	}
	if len(res.Errors) > 0 {
		fmt.Fprintln(e.stderr, "shellgate diff: some commands could not be judged:", strings.Join(res.Errors, "; "))
		return exitInternal
	}
	if *exitCode && len(res.Changes) > 0 {
		return 1
	}
	return exitOK
}
