//go:build linux

package sandboxes

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shellgate/shellgate/internal/sandboxtasks"
)

// overhead is the cost measurement: per measured command, the median
// wall time in each runner.
type overhead struct {
	rounds int
	// loadBefore and loadAfter are /proc/loadavg's first three fields.
	loadBefore, loadAfter string
	runners               []string
	lines                 []overheadLine
}

type overheadLine struct {
	name string
	// med[i] is runner i's median wall time, cpu[i] its median CPU
	// time; fails[i] says why its runs failed ("" they worked).
	med, cpu []time.Duration
	fails    []string
}

// compareOverhead times `bash -c true` and a task (go build, warm) in
// every runner: unconfined, shellgate with --sandbox off (its policy and
// runner without confinement), and each sandbox, in alternating rounds
// (each round starts with the next runner), after one warm-up run each.
func compareOverhead(t *testing.T, all []sandbox, base string, tr taskResult) overhead {
	rounds := 9
	if v, err := strconv.Atoi(os.Getenv("SHELLGATE_COMPARE_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	var runners []sandbox
	var ws []string
	for j, sb := range all {
		if sb.unavailable != "" {
			continue
		}
		if sb.shellgate {
			off := sb
			inner := sb.argv
			off.name = "shellgate --sandbox off"
			off.argv = func(w, c string) []string {
				a := inner(w, c)
				for i := range a {
					if a[i] == "workspace-write" {
						a[i] = "off"
					}
				}
				return a
			}
			// A workspace of its own: `go build ./...` writes go/app, and
			// inside workspace-write Go does not see ~/.config/go/env
			// (GOFLAGS=-buildvcs=false here), so the two modes' binaries
			// differ and, sharing a workspace, each run would link again.
			runners = append(runners, off)
			ws = append(ws, taskWorkspace(t, filepath.Join(base, "tasks-shellgate-off")))
		}
		runners = append(runners, sb)
		ws = append(ws, tr.ws[j])
	}
	ov := overhead{rounds: rounds, loadBefore: loadavg()}
	for _, r := range runners {
		ov.runners = append(ov.runners, r.name)
	}
	measured := []struct{ name, cmd string }{
		{"`bash -c true`", "true"},
		{"`go build ./...` (warm caches)", "cd go && go build ./..."},
	}
	// And a build that works in every sandbox, to compare what works.
	for _, name := range []string{"cargo build --offline", "python3 -m unittest", "npm test"} {
		i := slices.IndexFunc(sandboxtasks.Tasks, func(tc sandboxtasks.Task) bool { return tc.Name == name })
		everywhere := i >= 0
		for j, sb := range all {
			if everywhere && sb.unavailable == "" && !tr.worked[i][j] {
				everywhere = false
			}
		}
		if everywhere {
			measured = append(measured, struct{ name, cmd string }{"`" + sandboxtasks.Tasks[i].Cmd + "` (warm)", sandboxtasks.Tasks[i].Cmd})
			break
		}
	}
	for _, m := range measured {
		times := make([][]time.Duration, len(runners))
		cpus := make([][]time.Duration, len(runners))
		fails := make([]string, len(runners))
		for i, r := range runners { // warm-up
			if o := run(r, ws[i], os.Environ(), m.cmd, 5*time.Minute); !o.ran || o.exit != 0 {
				fails[i] = fmt.Sprintf("fails (exit %d%s)", o.exit, strings.TrimPrefix(" "+short(o.refused), " "))
			}
		}
		for round := 0; round < rounds; round++ {
			for k := range runners {
				i := (round + k) % len(runners)
				o := run(runners[i], ws[i], os.Environ(), m.cmd, 5*time.Minute)
				times[i] = append(times[i], o.dur)
				cpus[i] = append(cpus[i], o.cpu)
			}
		}
		line := overheadLine{name: m.name, fails: fails}
		for i := range runners {
			line.med = append(line.med, median(times[i]))
			line.cpu = append(line.cpu, median(cpus[i]))
			t.Logf("%s in %s: %v", m.name, runners[i].name, times[i])
		}
		ov.lines = append(ov.lines, line)
	}
	ov.loadAfter = loadavg()
	return ov
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// writeMarkdown writes the tables.
func writeMarkdown(w *strings.Builder, date string, versions map[string]string, all []sandbox, tr taskResult, escapes []row, ov overhead) {
	fmt.Fprintf(w, "Measured %s on this machine by `SHELLGATE_COMPARE=1 go test ./e2e/sandboxes -run TestCompare -v`.\n\n", date)
	for _, k := range []string{"shellgate", "landlock", "codex", "srt", "srt-tmp", "bubblewrap", "node", "kernel", "go", "user"} {
		if v, ok := versions[k]; ok {
			fmt.Fprintf(w, "- %s: %s\n", k, v)
		}
	}
	for _, sb := range all {
		if sb.unavailable != "" {
			fmt.Fprintf(w, "- **%s cannot run here**: %s\n", sb.name, sb.unavailable)
		}
	}
	header := func(first string) {
		fmt.Fprintf(w, "| %s |", first)
		for _, sb := range all {
			fmt.Fprintf(w, " %s |", sb.name)
		}
		fmt.Fprintf(w, "\n|---|")
		for range all {
			fmt.Fprintf(w, "---|")
		}
		fmt.Fprintln(w)
	}
	count := func(rows []row, kind string) {
		fmt.Fprintf(w, "| **%s** |", kind)
		for j := range all {
			n := 0
			for _, r := range rows {
				if r.cells[j].kind == kind {
					n++
				}
			}
			fmt.Fprintf(w, " **%d of %d** |", n, len(rows))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n### The %d everyday tasks, in workspace-write, toolchains in the real home\n\n", len(tr.rows))
	header("task")
	for _, r := range tr.rows {
		fmt.Fprintf(w, "| %s |", r.name)
		for _, c := range r.cells {
			fmt.Fprintf(w, " %s |", c)
		}
		fmt.Fprintln(w)
	}
	count(tr.rows, "worked")

	fmt.Fprintf(w, "\n### The escapes, each from a script in the workspace, checked on the real system after the run\n\n")
	header("escape")
	for _, r := range escapes {
		fmt.Fprintf(w, "| %s |", r.name)
		for _, c := range r.cells {
			fmt.Fprintf(w, " %s |", c)
		}
		fmt.Fprintln(w)
	}
	count(escapes, "escaped")

	costTable := func(title string, pick func(overheadLine) []time.Duration) {
		fmt.Fprintf(w, "\n### %s\n\n| command |", title)
		for _, n := range ov.runners {
			fmt.Fprintf(w, " %s |", n)
		}
		fmt.Fprintf(w, "\n|---|")
		for range ov.runners {
			fmt.Fprintf(w, "---|")
		}
		fmt.Fprintln(w)
		for _, l := range ov.lines {
			d := pick(l)
			fmt.Fprintf(w, "| %s |", l.name)
			for i := range d {
				cell := fmt.Sprintf("%.1f ms", float64(d[i].Microseconds())/1000)
				if d[0] > 0 {
					cell += fmt.Sprintf(" (%.2f×)", float64(d[i])/float64(d[0]))
				}
				if l.fails[i] != "" {
					cell += " — " + l.fails[i]
				}
				fmt.Fprintf(w, " %s |", cell)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "\nLoad average (1, 5, 15 min) when the cost measurement began: %s; when it ended: %s (the machine has %d CPUs, shared).\n", ov.loadBefore, ov.loadAfter, runtime.NumCPU())
	costTable(fmt.Sprintf("What a run costs: median wall time of %d alternating rounds, and its ratio to the unconfined run", ov.rounds), func(l overheadLine) []time.Duration { return l.med })
	costTable("The same runs' CPU time (user + system of the wrapper and what it waited for; less sensitive to the machine's load, blind to daemons a wrapper does not wait for)", func(l overheadLine) []time.Duration { return l.cpu })
	off, on := slices.Index(ov.runners, "shellgate --sandbox off"), slices.Index(ov.runners, "shellgate")
	if off >= 0 && on >= 0 {
		var parts []string
		for _, l := range ov.lines {
			if l.med[off] > 0 && l.cpu[off] > 0 {
				parts = append(parts, fmt.Sprintf("%.2f× wall, %.2f× CPU on %s", float64(l.med[on])/float64(l.med[off]), float64(l.cpu[on])/float64(l.cpu[off]), l.name))
			}
		}
		fmt.Fprintf(w, "\nshellgate's confinement alone (workspace-write over `--sandbox off`, the same CLI, policy and runner): %s.\n", strings.Join(parts, ", "))
	}
}
