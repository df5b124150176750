package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/shellgate/shellgate/corpus"
)

func init() {
	register("audit", "judge a history or an agent transcript: what a policy would have asked or denied", runAudit)
}

const auditUsage = `[--policy DIR]... [--config FILE] [--mode default|readonly] [--json]
       [--corpus OUT.yaml] (--batch | FILE...)

Reads shell commands from stdin (--batch) or from FILEs: one command per
line, or JSON lines — a Claude Code transcript (Bash tool calls), a Codex
rollout or ` + "`codex exec --json`" + ` log (shell / exec_command calls), or objects
with a "command" field. Each command is judged in the directory the
transcript recorded when it exists here, else in the current directory.
Prints a summary table by action and by reason code, then every command the
policy would have asked about or denied, with its reasons. With --corpus,
every distinct command is also written to a YAML corpus file with the
decision it got as its expectation: review it, correct it, and keep it as
cases for shellgate test.

Exit status:
  0   every command was judged
  1   no shell command was found in the input
  64  usage error: bad flags, unreadable input, config or policy
  70  internal error, or some command could not be judged

Flags:`

func runAudit(e *env) int {
	fs := newFlags(e, "audit", auditUsage)
	var policies repeated
	fs.Var(&policies, "policy", "add the Rego modules in `DIR` to the default policy (repeatable)")
	config := fs.String("config", "", "config `FILE` (default: the embedded defaults)")
	mode := fs.String("mode", "", "the mode to judge in (default: the config's)")
	asJSON := fs.Bool("json", false, "print one JSON object: every command's decision and the tallies")
	batch := fs.Bool("batch", false, "read the history or transcript from stdin")
	corpusOut := fs.String("corpus", "", "also write every distinct command with the decision it got as a YAML corpus `FILE` to review and keep")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	fail := func(err error) int {
		fmt.Fprintln(e.stderr, "shellgate audit:", err)
		return exitUsage
	}
	if *batch == (len(ops) > 0) {
		return fail(errors.New("give --batch (stdin) or FILEs, not both and not neither"))
	}
	cfg, m, err := configMode(*config, *mode)
	if err != nil {
		return fail(err)
	}
	var cmds []corpus.Command
	var problems []string
	read := func(name string, r io.Reader) error {
		cs, ps, err := corpus.Extract(r)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		for _, p := range ps {
			problems = append(problems, name+": "+p)
		}
		cmds = append(cmds, cs...)
		return nil
	}
	if *batch {
		if err := read("stdin", e.stdin); err != nil {
			return fail(err)
		}
	}
	for _, p := range ops {
		f, err := os.Open(p)
		if err != nil {
			return fail(err)
		}
		err = read(p, f)
		f.Close()
		if err != nil {
			return fail(err)
		}
	}
	if len(cmds) == 0 {
		for _, p := range problems {
			fmt.Fprintln(e.stderr, "shellgate audit: unreadable:", p)
		}
		fmt.Fprintln(e.stderr, "shellgate audit: no shell commands found")
		return 1
	}
	chk, err := newChecker(cfg, policies)
	if err != nil {
		return fail(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	res, err := corpus.Audit(context.Background(), cmds, chk, m, wd, corpus.Options{})
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate audit:", err)
		return exitInternal
	}
	res.Problems = problems
	if *corpusOut != "" {
		f, err := os.Create(*corpusOut)
		if err != nil {
			return fail(err)
		}
		err = res.WriteCorpus(f, m)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintln(e.stderr, "shellgate audit:", err)
			return exitInternal
		}
	}
	if *asJSON {
		byAction, byCode := res.Tally()
		err = writeJSON(e.stdout, struct {
			Mode     string              `json:"mode"`
			Total    int                 `json:"total"`
			ByAction map[string]int      `json:"by_action"`
			ByCode   map[string]int      `json:"by_code"`
			Entries  []corpus.AuditEntry `json:"entries"`
			Problems []string            `json:"problems,omitempty"`
		}{m, len(res.Entries), byAction, byCode, nonNil(res.Entries), res.Problems})
	} else {
		err = corpus.WriteAuditText(e.stdout, res)
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate audit:", err)
		return exitInternal
	}
	for _, en := range res.Entries {
		if en.Err != "" {
			return exitInternal
		}
	}
	return exitOK
}

func nonNil(es []corpus.AuditEntry) []corpus.AuditEntry {
	if es == nil {
		return []corpus.AuditEntry{}
	}
	return es
}
