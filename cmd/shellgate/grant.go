package main

import (
	"context"
	"fmt"

	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/render"
)

func init() {
	register("grant", "print the narrowest config grants that would allow a command's asked segments", runGrant)
}

func runGrant(e *env) int {
	fs := newFlags(e, "grant", `[--policy DIR]... [--config FILE] [--cwd DIR] [--root DIR]... [--no-station] [--json] COMMAND

Prints, for each segment of COMMAND that was asked about and that a grant
could allow, the narrowest grant in the config's grant syntax, ready for the
"grants:" list of .shellgate.yaml. A grant never covers a redirect, a
substitution, a read the station could not clear, or another segment.
Exit status: 0 when there is something to grant, 1 when there is not
(the command is allowed already, denied, or no grant could allow it), 64 on
a usage error.

Flags:`)
	df := addDecideFlags(fs)
	asJSON := fs.Bool("json", false, "print one JSON object")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	if len(ops) == 0 {
		fs.Usage()
		return exitUsage
	}
	*df.mode = policy.ModeDefault // grants apply in default mode only
	d, err := df.setup(e.stderr)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate grant:", err)
		return exitUsage
	}
	defer d.close()
	d.warnTrust(e.stderr, "grant")
	in, _, serr := d.input(policy.Request{Command: joinCommand(ops), Mode: policy.ModeDefault})
	if serr != nil {
		fmt.Fprintln(e.stderr, "shellgate grant:", serr)
	}
	res, err := d.Grant(context.Background(), in)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate grant:", err)
		return exitInternal
	}
	if *asJSON {
		if err := writeJSON(e.stdout, res); err != nil {
			return exitInternal
		}
	} else if len(res.Grants) > 0 {
		fmt.Fprintln(e.stdout, "grants:")
		for _, g := range res.Grants {
			fmt.Fprintf(e.stdout, "  - %s\n", yamlScalar(g.Pattern))
		}
	} else {
		fmt.Fprintln(e.stdout, "nothing to grant:", res.Nothing())
	}
	if !*asJSON {
		for _, n := range res.NoGrants {
			fmt.Fprintf(e.stdout, "no grant for %s: %s\n", render.SegmentText(in.Command, n), n.Why)
		}
	}
	if len(res.Grants) == 0 {
		return exitAsk
	}
	return exitOK
}

// yamlScalar quotes a grant when YAML would not read it back as the same
// plain string.
func yamlScalar(s string) string {
	plain := true
	for i, c := range s {
		if c == ':' || c == '#' || (i == 0 && (c == '*' || c == '-' || c == '!' || c == '&' || c == '?' || c == '[' || c == '{' || c == '%' || c == '@')) {
			plain = false
		}
	}
	if plain {
		return s
	}
	return fmt.Sprintf("%q", s)
}
