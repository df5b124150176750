package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/rego"
	"github.com/shellgate/shellgate/render"
)

func init() {
	register("explain", "show why: segments, findings, facts, reads, and every rule that fired", runExplain)
}

func runExplain(e *env) int {
	fs := newFlags(e, "explain", "[--mode readonly|default] [--shell bash|zsh|sh] [--policy DIR]... [--config FILE] [--cwd DIR] [--root DIR]... [--no-station] [--json | --input] COMMAND")
	df := addDecideFlags(fs)
	asJSON := fs.Bool("json", false, "print one JSON object")
	asInput := fs.Bool("input", false, "print the policy input document as JSON (for writing Rego tests) and exit")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	if len(ops) == 0 {
		fs.Usage()
		return exitUsage
	}
	d, err := df.setup(e.stderr)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate explain:", err)
		return exitUsage
	}
	defer d.close()
	d.warnTrust(e.stderr, "explain")
	in, st, serr := d.input(policy.Request{Command: joinCommand(ops)})
	if serr != nil {
		fmt.Fprintln(e.stderr, "shellgate explain:", serr)
	}
	if *asInput {
		b, err := rego.MarshalInput(in)
		if err != nil {
			fmt.Fprintln(e.stderr, "shellgate explain:", err)
			return exitInternal
		}
		fmt.Fprintf(e.stdout, "%s\n", b)
		return exitOK
	}
	x, err := d.Explain(context.Background(), in)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate explain:", err)
		return exitInternal
	}
	if *asJSON {
		res := gate.NewExplainReport(in, st, x, d.engine())
		if err := writeJSON(e.stdout, res); err != nil {
			return exitInternal
		}
		return actionExit(x.Decision.Action)
	}
	w := e.stdout
	fmt.Fprintf(w, "command: %s\nmode: %s\ncwd: %s\nshell: %s\n", render.OneLine(in.Command), in.Mode, in.Cwd, shellLabel(in.Report.Dialect))
	render.Report(w, in.Report)
	printFacts(w, x.Facts, in)
	if st != nil && len(st.Reads)+len(st.RepoHelpers) > 0 {
		fmt.Fprintln(w, "station:")
		for _, rd := range st.Reads {
			msg := ""
			if rd.Message != "" {
				msg = " — " + rd.Message
			}
			fmt.Fprintf(w, "  [%d] %s %s%s\n", rd.Segment, rd.Verdict, rd.Path, msg)
		}
		for _, h := range st.RepoHelpers {
			fmt.Fprintf(w, "  [%d] repo-helper %s in %s\n", h.Segment, h.Key, h.File)
		}
	} else if st == nil {
		fmt.Fprintln(w, "station: did not run (reads are not established)")
	}
	fmt.Fprintln(w, "rules that fired:")
	for _, r := range x.Rules {
		n := ""
		if r.Count > 1 {
			n = fmt.Sprintf(" ×%d", r.Count)
		}
		fmt.Fprintf(w, "  %-36s %s.%s%s\n", r.Location, r.Package, r.Name, n)
	}
	if files := d.engine().UntrustedFiles(); len(files) > 0 {
		fmt.Fprintln(w, "untrusted policy files (only their deny and ask rules apply until you run shellgate trust):")
		for _, f := range files {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	fmt.Fprintln(w, "decision:")
	printDecision(indentWriter{w, "  "}, gate.NewCheckResult(in, nil, x.Decision))
	return actionExit(x.Decision.Action)
}

func printFacts(w io.Writer, f *policy.Facts, in policy.Input) {
	if f == nil {
		return
	}
	var lines []string
	for i, s := range f.Segments {
		if s.Grant != "" {
			lines = append(lines, fmt.Sprintf("  [%d] granted by %q", i, s.Grant))
		}
	}
	for i, wf := range f.Writes {
		p := in.Report.Writes[i]
		if !wf.Established {
			lines = append(lines, fmt.Sprintf("  write %s: not established", p.Path))
			continue
		}
		var notes []string
		for _, n := range []struct {
			on   bool
			what string
		}{{wf.OutsideRoots, "outside the roots"}, {wf.Critical, "critical"}, {wf.Device, "a device"}, {wf.Glob, "every entry"}} {
			if n.on {
				notes = append(notes, n.what)
			}
		}
		if len(notes) == 0 {
			notes = append(notes, "inside the roots")
		}
		real := ""
		if wf.Real != wf.Path {
			real = " (real " + wf.Real + ")"
		}
		lines = append(lines, fmt.Sprintf("  write %s → %s%s: %s", p.Path, wf.Path, real, strings.Join(notes, ", ")))
	}
	if len(f.Roots) > 0 {
		lines = append([]string{"  roots: " + strings.Join(f.Roots, ", ")}, lines...)
	}
	if len(lines) > 0 {
		fmt.Fprintln(w, "facts:")
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
}

// indentWriter indents every line written through it.
type indentWriter struct {
	w      io.Writer
	indent string
}

func (iw indentWriter) Write(p []byte) (int, error) {
	s := strings.TrimSuffix(string(p), "\n")
	out := iw.indent + strings.ReplaceAll(s, "\n", "\n"+iw.indent)
	if strings.HasSuffix(string(p), "\n") {
		out += "\n"
	}
	if _, err := io.WriteString(iw.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// shellLabel says which shell a report read the command as.
func shellLabel(dialect string) string {
	if dialect == "bash+zsh" {
		return "not known: read as bash and as zsh"
	}
	return dialect
}
