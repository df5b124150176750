package doctor

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the report for a person: each agent and scope with its
// checks (ok, FAIL, or warn for a failed advisory check, each failure with
// its fix), the directory's checks, then one verdict line per agent.
func WriteText(w io.Writer, r Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "shellgate doctor: %s\n", r.Dir)
	for _, a := range r.Agents {
		fmt.Fprintf(&b, "\n%s (%s): %s\n", a.Agent, a.Scope, a.Settings)
		writeChecks(&b, a.Checks)
	}
	fmt.Fprintf(&b, "\nshellgate\n")
	writeChecks(&b, r.Checks)
	b.WriteString("\n")
	for _, g := range r.Gates {
		if g.Active {
			fmt.Fprintf(&b, "%s: the gate is active (%s)\n", g.Agent, strings.Join(g.Via, ", "))
		} else {
			fmt.Fprintf(&b, "%s: the gate is NOT active\n", g.Agent)
		}
	}
	if r.OK {
		b.WriteString("ok: every agent found runs shellgate before each shell command\n")
	} else {
		b.WriteString("not ok: run the fixes above, then shellgate doctor again\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeChecks(b *strings.Builder, cs []Check) {
	for _, c := range cs {
		status := "ok"
		switch {
		case !c.OK && c.Advisory:
			status = "warn"
		case !c.OK:
			status = "FAIL"
		}
		fmt.Fprintf(b, "  %-4s  %-13s  %s\n", status, c.Name, indentRest(c.Message))
		if !c.OK && c.Fix != "" {
			fmt.Fprintf(b, "  %-4s  %-13s  fix: %s\n", "", "", indentRest(c.Fix))
		}
	}
}

// indentRest keeps a multi-line text under its column.
func indentRest(s string) string {
	return strings.ReplaceAll(s, "\n", "\n"+strings.Repeat(" ", 2+4+2+13+2))
}
