package confirm

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/corpus"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/internal/testenv"
	"github.com/shellgate/shellgate/readstation"
)

// needTool returns the path of a program the test drives (testenv.LookPath:
// skipped without it on a developer's machine, a failure in CI).
func needTool(t testing.TB, name string, candidates ...string) string {
	t.Helper()
	return testenv.LookPath(t, append([]string{name}, candidates...)...)
}

// probes are hand-written spellings: the bypasses the issue found and the
// neighbours a fresh attacker would try. Each names the catalog entry it
// is about.
var probes = []Spelling{
	{"env", "env", "env"},
	{"env", "env", "env -u OLDPWD"},
	{"env", "env", "env -0"},
	{"env", "env", "env --"},
	{"env", "env", "env LC_ALL=C"},
	{"env", "env", "env -i"},
	{"printenv", "printenv", "printenv"},
	{"nm", "nm", "nm @.env"},
	{"nm", "nm", "nm -C @.env"},
	{"strings", "strings", "strings @.env"},
	{"readelf", "readelf", "readelf -h @.env"},
	{"objdump", "objdump", "objdump -f @.env"},
	{"size", "size", "size @.env"},
	{"tar", "tar", "tar -tf localhost:archive.tar"},
	{"tar", "tar", "tar tf localhost:archive.tar"},
	{"tar", "tar", "tar -tvf archive.tar"},
	{"tar", "tar", "tar -tzf archive.tar.gz"},
	{"tar", "tar", "tar tf archive.tar"},
	{"tar", "tar", "tar tvzf archive.tar.gz"},
	{"tar", "tar", "tar ftv archive.tar"},
	{"tar", "tar", "tar tf localhost:archive.tar"},
	{"unzip", "unzip", "unzip -x archive.zip"},
	{"unzip", "unzip", "unzip -qx archive.zip"},
	{"unzip", "unzip", "unzip -nx archive.zip"},
	{"unzip", "unzip", "unzip -l archive.zip"},
	{"getent", "getent", "getent shadow"},
	{"getent", "getent", "getent hosts example.invalid"},
	{"getent", "getent", "getent ahosts example.invalid"},
	{"getent", "getent", "getent passwd"},
	{"jq", "jq", "jq -n -f /dev/stdin"},
	{"jq", "jq", "jq -n -f -"},
	{"jq", "jq", "jq -n --from-file /dev/stdin"},
	{"git remote", "git", "git remote show origin"},
	{"git remote", "git", "git remote -v"},
	{"git show", "git", "git show HEAD:.npmrc"},
	{"git show", "git", "git show HEAD:.env"},
	{"git ls-remote", "git", "git ls-remote origin"},
	{"yq", "yq", "yq -s x config/settings.yaml"},
	{"npm help", "npm", "npm help ls"},
	{"docker inspect", "docker", "docker inspect x"},
	{"docker compose config", "docker", "docker compose config"},
	{"cat", "cat", "cat .npmrc"},
	{"cat", "cat", "cat .yarnrc.yml"},
	{"grep", "grep", "grep -r Token ."},
	{"grep", "grep", "grep -r authToken .npmrc"},
	{"man", "man", "man ls"},
	{"find", "find", "find . -name '*.md'"},
	{"less", "less", "less data/plain.txt"},
	{"zcat", "zcat", "zcat notes.txt.gz"},
	{"file", "file", "file -z archive.tar.gz"},
	{"rg", "rg", "rg -z alpha notes.txt.gz"},
	{"git clean", "git", "git clean -n"},
	{"git clean", "git", "git clean -nfdx"},
	{"git clean", "git", "git clean --dry-run -d -x -f"},
	{"git clean", "git", "git clean -fdx"},
	{"ps", "ps", "ps aux"},
	{"ps", "ps", "ps e"},
	// find -exec and -execdir: the command runs over find's matches and
	// must be the only other program; the ones that reach .env are asked.
	{"find", "find", "find src -name '*.go' -exec grep -n TODO {} +"},
	{"find", "find", "find . -name '*.go' -exec grep -n TODO {} \\;"},
	{"find", "find", "find . -name '*.md' -execdir head -n 3 {} \\;"},
	{"find", "find", "find src -type f -exec wc -l {} +"},
	{"find", "find", "find docs -exec cat {} +"},
	{"find", "find", "find . -maxdepth 1 -exec echo {} \\;"},
	{"find", "find", "find . -name '*.go' -exec grep -n TODO {} + -exec wc -c {} +"},
	{"find", "find", "find . -exec cat {} +"},
	{"find", "find", "find . -name '*.go' -exec grep -rn TODO {} +"},
	{"find", "find", "find . -name '*.go' -execdir cat .env {} +"},
	{"find", "find", "find . -exec rm {} +"},
	{"find", "find", "find . -ok cat {} \\;"},
	{"find", "find", "find src -exec rg --pre={} TODO \\;"},
	{"xargs", "xargs", "ls | xargs -I{} rg --pre={} TODO"},
	// --help alone: git's prints its usage; a word after it runs man.
	{"git", "git", "git --help"},
	{"git", "git", "git -h"},
	{"git", "git", "git --help log"},
	{"git", "git", "git -h log"},
	{"git", "git", "git log --help"},
	{"rm", "rm", "rm --help x"},
	// journalctl -n and systemctl status --no-pager print and exit.
	{"journalctl", "journalctl", "journalctl -n 20"},
	{"journalctl", "journalctl", "journalctl -u ssh -n 50 --no-pager"},
	{"journalctl", "journalctl", "journalctl --lines=5 -o json"},
	{"journalctl", "journalctl", "journalctl -n 5 --file data/plain.txt"},
	{"journalctl", "journalctl", "journalctl -n 5 -f"},
	{"systemctl status", "systemctl", "systemctl status ssh --no-pager"},
	{"systemctl status", "systemctl", "systemctl --no-pager status"},
	{"systemctl status", "systemctl", "systemctl status ssh"},
	// Issue 25: reads people allowlist for their agents.
	{"top", "top", "top -b -n 1"},
	{"less", "less", "less data/plain.txt"},
	{"less", "less", "more data/plain.txt"},
	{"man", "man", "man -P cat ls"},
	{"bash", "bash", "bash -n data/plain.txt"},
	{"sh", "sh", "sh -n data/plain.txt"},
	{"zsh", "zsh", "zsh -n data/plain.txt"},
	{"bash", "bash", "bash -n -c 'touch pwned'"},
	{"seq", "seq", "seq 3 -1 1"},
	{"printenv", "printenv", "printenv HOME"},
	{"dpkg", "dpkg", "dpkg -l"},
	{"dpkg", "dpkg", "dpkg -L bash"},
	{"rg", "rg", "rg --files data"},
	{"gofmt", "gofmt", "gofmt -l ."},
	{"grep", "grep", "grep -rn alpha --include=*.txt ."},
	{"cat", "cat", "cat .env.example"},
	{"cat", "cat", "cat config/.env.sample"},
	{"git branch", "git", "git branch --merged HEAD"},
	{"git tag", "git", "git tag --merged HEAD"},
	{"git remote", "git", "git remote show -n origin"},
	{"go list", "go", "go list -json ./..."},
	{"go doc", "go", "go doc -all fmt"},
	{"go mod graph", "go", "go mod graph"},
	{"go mod edit", "go", "go mod edit -json"},
	{"cloc", "cloc", "cloc data"},
	{"bat", "bat", "batcat data/plain.txt"},
	{"shellcheck", "shellcheck", "shellcheck data/plain.txt"},
	{"locate", "locate", "locate plain.txt"},
}

// caseT is one command to confirm.
type caseT struct {
	Spelling
	Source string // corpus, probe or spelling
	Name   string
	Cwd    string
}

// result is one case's fate.
type result struct {
	c        caseT
	allowed  bool
	decision string
	programs map[string]bool
	caches   []string
	opens    []string
	skipped  bool // the entry says why it cannot be confirmed here
	problems []Problem
	dur      time.Duration
	timedOut bool
	err      error
}

// TestConfirm runs every allowed case for real in a decoy workspace under
// strace and fails each case that broke a read-only claim.
func TestConfirm(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every allowed command under strace")
	}
	strace := needTool(t, "strace")
	needTool(t, "bash")
	needTool(t, "git")
	start := time.Now()
	cases, fixture := embeddedCases(t)
	decoyDir := filepath.Join(t.TempDir(), "decoy")
	if err := os.Mkdir(decoyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	d, err := NewDecoy(decoyDir, fixture)
	if err != nil {
		t.Fatal(err)
	}
	sum := confirmIn(t, strace, space{decoy: d}, cases, start)
	fmt.Printf("confirmed %d of %d read-only programs (%d spellings), unconfirmed: %s\n",
		len(sum.confirmed), sum.readOnly, sum.spellings, strings.Join(sum.unconfirmed, ", "))
	fmt.Printf("confirmed --help/--version alone for %d of %d help: true programs, unconfirmed: %s\n",
		len(sum.helpOK), len(sum.helpOK)+len(sum.helpNot), strings.Join(sum.helpNot, ", "))
	fmt.Printf("corpus: %d allowed cases run in the decoy, %d not run here (asked there, or their own fixtures; -v lists them)\n", sum.corpusRun, sum.notRun)
}

// embeddedCases are the embedded corpus's cases and the fixture of its
// shell cases (laid into the decoy so that they find their files).
func embeddedCases(t *testing.T) ([]corpus.Case, corpus.Fixture) {
	t.Helper()
	cases, err := corpus.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if strings.HasSuffix(c.File, ".sh") && len(c.Fixture) > 0 {
			return cases, c.Fixture
		}
	}
	return cases, nil
}

// space is where confirmIn runs the cases: the decoy, or the hostile
// workspace (a decoy with traps planted; label "hostile").
type space struct {
	decoy *Decoy
	label string
	// env is set in the test's own process while the gate decides (the
	// environment a hook would see).
	env []string
	// entryOperands keeps, of the generated spellings, each entry and
	// option alone and with a file, leaving out the other operand
	// variants (@file, host:file, a glob, -, a directory).
	entryOperands bool
}

// summary is what confirmIn counted.
type summary struct {
	confirmed, unconfirmed, helpOK, helpNot []string
	readOnly, spellings, corpusRun, notRun  int
	generated, asked, failed                int
}

// confirmIn generates the cases (the corpus's allowed ones, the probes, the
// spellings), decides each with the real gate in the space's workspace, runs
// the allowed ones under strace and fails each case that broke a claim.
func confirmIn(t *testing.T, strace string, sp space, cases []corpus.Case, start time.Time) summary {
	d := sp.decoy
	where := "the decoy"
	if sp.label != "" {
		where = "the " + sp.label + " workspace"
	}
	t.Setenv("HOME", d.Home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(d.Home, ".config"))
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG_GLOBAL"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	for _, e := range sp.env {
		if k, v, ok := strings.Cut(e, "="); ok {
			t.Setenv(k, v)
		}
	}
	g, err := gate.New(gate.WithCwd(d.Work))
	if err != nil {
		t.Fatal(err)
	}
	cat := classify.DefaultCatalog()

	// The cases: the corpus's allowed ones, the probes, the spellings.
	var all []caseT
	var notRun []string // allowed corpus cases the decoy cannot run, with the reason
	for _, c := range cases {
		if c.Mode != corpus.ModeDefault || c.Expect.Action != corpus.Allow || c.Config != nil {
			continue
		}
		cwd := d.Work
		if strings.HasPrefix(c.Cwd, "~/") {
			cwd = filepath.Join(d.Home, c.Cwd[2:])
		} else if c.Cwd != "" {
			cwd = filepath.Join(d.Work, c.Cwd)
		}
		if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
			notRun = append(notRun, c.Name+": its cwd "+c.Cwd+" is in the case's own fixture, not in "+where)
			continue
		}
		all = append(all, caseT{Spelling: Spelling{Command: c.Command}, Source: "corpus", Name: c.Name, Cwd: cwd})
	}
	for _, p := range probes {
		all = append(all, caseT{Spelling: p, Source: "probe", Name: "probe", Cwd: d.Work})
	}
	// A spelling runs under the first of the program's names that is
	// installed (Debian installs fd as fdfind); a program with none is
	// reported as not installed, not run.
	runName := map[string]string{}
	for _, sd := range spellings(cat) {
		s := sd.Spelling
		if sp.entryOperands && sd.operand != "" && sd.operand != fileVariants[0] {
			// The operand variants test how an entry reads its
			// arguments, which the decoy confirms; a workspace's traps
			// are about the entry and its options (each still runs
			// alone and with a file).
			continue
		}
		rn, ok := runName[s.Program]
		if !ok {
			if p := cat.Lookup(s.Program); p != nil {
				for _, n := range append([]string{p.Name}, p.Aliases...) {
					if installed(n, d.Env) {
						rn = n
						break
					}
				}
			}
			runName[s.Program] = rn
		}
		if rn == "" {
			continue
		}
		s.Command = rn + strings.TrimPrefix(s.Command, s.Program)
		all = append(all, caseT{Spelling: s, Source: "spelling", Name: "spelling", Cwd: d.Work})
	}

	// Decide every case first (the gate is fast and in-process), then run
	// the allowed ones with a bounded pool.
	ctx := context.Background()
	results := make([]result, len(all))
	var toRun []int
	asked := 0
	whyAsked := map[string]string{} // a program's first asked spelling, with its reasons
	for i, c := range all {
		results[i].c = c
		dec, err := g.Check(ctx, gate.Request{Command: c.Command, Cwd: c.Cwd, Mode: corpus.ModeDefault})
		if err != nil {
			results[i].err = err
			continue
		}
		results[i].decision = string(dec.Action)
		if dec.Action != "allow" {
			asked++
			if _, ok := whyAsked[c.Program]; !ok && c.Program != "" {
				var rs []string
				for _, r := range dec.Reasons {
					rs = append(rs, r.String())
				}
				whyAsked[c.Program] = c.Command + ": " + string(dec.Action) + " (" + strings.Join(rs, "; ") + ")"
			}
			if c.Source == "corpus" {
				var codes []string
				for _, r := range dec.Reasons {
					codes = append(codes, r.Code)
				}
				why := "the decoy holds secrets (a committed .env, token files) its corpus fixture does not"
				if sp.label != "" {
					why = "the " + sp.label + " workspace is planted with traps"
				}
				notRun = append(notRun, fmt.Sprintf("%s: %s in %s (%s): %s", c.Name, dec.Action, where, strings.Join(codes, " "), why))
			}
			continue
		}
		results[i].allowed = true
		if c.Entry == "" && dec.Report != nil && len(dec.Report.Segments) > 0 {
			s := dec.Report.Segments[0]
			results[i].c.Program = s.Name
			if p := cat.Lookup(s.Name); p != nil {
				results[i].c.Program = p.Name
			}
			results[i].c.Entry = strings.TrimSpace(results[i].c.Program + " " + s.Subcommand)
		}
		results[i].programs, results[i].caches, results[i].opens = expectFor(cat, dec.Report)
		if p := cat.Lookup(results[i].c.Program); p != nil && p.Unconfirmed != "" {
			results[i].skipped = true
			continue
		}
		toRun = append(toRun, i)
	}
	decided := time.Since(start)

	tmp := filepath.Join(filepath.Dir(d.Dir), "runs-"+filepath.Base(d.Dir))
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	workers := 2 * runtime.GOMAXPROCS(0)
	if workers > 8 {
		workers = 8
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r := &results[i]
				// Each case leaves its markers in a directory of its own,
				// so that a planted program that ran is the case's failure.
				markers := filepath.Join(tmp, fmt.Sprintf("markers-%d", i))
				if err := os.Mkdir(markers, 0o755); err != nil {
					r.err = err
					continue
				}
				env := append(append([]string{}, d.Env...), "SG_MARKERS="+markers)
				o, err := Run(ctx, strace, r.c.Command, r.c.Cwd, tmp, env, Limits{Timeout: 10 * time.Second, OutputCap: 1 << 20})
				if err == nil && o.TimedOut {
					// Stopped mid-run (a loaded machine): its trace ends
					// in a cut line and shows only part of what it does.
					// Run it again with time to finish; a second timeout
					// is judged as it is.
					o, err = Run(ctx, strace, r.c.Command, r.c.Cwd, tmp, env, Limits{Timeout: 60 * time.Second, OutputCap: 1 << 20})
				}
				if err != nil {
					r.err = err
					continue
				}
				r.dur, r.timedOut = o.Duration, o.TimedOut
				r.problems = Judge(o, Expect{
					Programs: r.programs, Caches: r.caches, Opens: r.opens, Cwd: r.c.Cwd, Tmp: tmp,
					Boundary: d.Boundary, Canaries: d.Canaries,
				})
				if ms, _ := os.ReadDir(markers); len(ms) > 0 {
					r.problems = append(r.problems, Problem{ClaimNoExec, fmt.Sprintf("left %d marker files: a program the workspace planted ran", len(ms))})
				}
			}
		}()
	}
	for _, i := range toRun {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	// A helper that ran leaves a marker even where the trace missed it.
	if ms, _ := os.ReadDir(d.Markers); len(ms) > 0 {
		t.Errorf("%d marker files: a helper of the decoy's git config or $PAGER/$EDITOR ran", len(ms))
	}

	// Report per catalog entry.
	type progStat struct {
		ran, failed int
	}
	stats := map[string]*progStat{}
	sum := summary{generated: len(all), asked: asked}
	timeouts := 0
	var slowest time.Duration
	for _, r := range results {
		if r.err != nil {
			t.Errorf("%s %q: %v", r.c.Source, r.c.Command, r.err)
			continue
		}
		if !r.allowed || r.skipped {
			continue
		}
		sum.spellings++
		if r.c.Source == "corpus" {
			sum.corpusRun++
		}
		if r.dur > slowest {
			slowest = r.dur
		}
		if r.timedOut {
			timeouts++
			t.Logf("timed out (not a failure; its trace is judged): %s", r.c.Command)
		}
		st := stats[r.c.Program]
		if st == nil {
			st = &progStat{}
			stats[r.c.Program] = st
		}
		st.ran++
		if len(r.problems) > 0 {
			st.failed++
			sum.failed++
			var lines []string
			for _, p := range r.problems {
				lines = append(lines, "    broke “"+p.Claim+"”: "+p.Detail)
			}
			in := ""
			if sp.label != "" {
				in = " in " + where
			}
			t.Errorf("catalog entry %q (%s %s)%s: %s\n%s", r.c.Entry, r.c.Source, r.c.Name, in, r.c.Command, strings.Join(lines, "\n"))
		}
	}
	ro := ReadOnlyPrograms(cat)
	sum.readOnly = len(ro)
	for _, p := range ro {
		st := stats[p.Name]
		switch {
		case p.Unconfirmed != "":
			sum.unconfirmed = append(sum.unconfirmed, p.Name+" ("+p.Unconfirmed+")")
		case !installedAny(append([]string{p.Name}, p.Aliases...), d.Env):
			sum.unconfirmed = append(sum.unconfirmed, p.Name+" (not installed)")
		case st == nil:
			sum.unconfirmed = append(sum.unconfirmed, p.Name+" (no spelling is allowed in "+where+")")
			if w := whyAsked[p.Name]; w != "" {
				t.Logf("no spelling of %s is allowed in %s; the first: %s", p.Name, where, w)
			}
		case st.failed > 0:
			sum.unconfirmed = append(sum.unconfirmed, fmt.Sprintf("%s (%d of %d spellings failed)", p.Name, st.failed, st.ran))
		default:
			sum.confirmed = append(sum.confirmed, p.Name)
		}
	}
	sort.Strings(sum.unconfirmed)
	// help: true claims --help and --version alone print and exit, for
	// programs that are otherwise not read-only: those claims are counted
	// the same way, so a program missing here is visible, not passed.
	for _, p := range cat.Programs {
		if !p.Help || p.ReadOnly {
			continue
		}
		st := stats[p.Name]
		switch {
		case !installedAny(append([]string{p.Name}, p.Aliases...), d.Env):
			sum.helpNot = append(sum.helpNot, p.Name+" (not installed)")
		case st == nil:
			sum.helpNot = append(sum.helpNot, p.Name+" (no spelling is allowed in "+where+")")
		case st.failed > 0:
			sum.helpNot = append(sum.helpNot, fmt.Sprintf("%s (%d of %d spellings failed)", p.Name, st.failed, st.ran))
		default:
			sum.helpOK = append(sum.helpOK, p.Name)
		}
	}
	sort.Strings(sum.helpNot)
	sum.notRun = len(notRun)
	t.Logf("cases: %d generated, %d allowed and run, %d asked, %d failed, %d timed out; slowest run %v; decided in %v, total %v with %d workers",
		len(all), sum.spellings, asked, sum.failed, timeouts, slowest.Round(time.Millisecond), decided.Round(time.Millisecond), time.Since(start).Round(time.Second), workers)
	var ran []result
	for _, r := range results {
		if r.allowed && !r.skipped && r.err == nil {
			ran = append(ran, r)
		}
	}
	sort.Slice(ran, func(i, j int) bool { return ran[i].dur > ran[j].dur })
	var slow []string
	var total time.Duration
	for i, r := range ran {
		total += r.dur
		if i < 10 {
			slow = append(slow, fmt.Sprintf("%v %s", r.dur.Round(time.Millisecond), r.c.Command))
		}
	}
	t.Logf("runs took %v in all; the slowest:\n  %s", total.Round(time.Second), strings.Join(slow, "\n  "))
	t.Logf("confirmed: %s", strings.Join(sum.confirmed, " "))
	t.Logf("%d allowed corpus cases not run in %s (unconfirmed):\n  %s", len(notRun), where, strings.Join(notRun, "\n  "))
	return sum
}

// expectFor is the set of programs a case may execute: every program its
// segments name, the wrappers, and the helpers their catalog entries (and
// subcommands) declare.
func expectFor(cat *classify.Catalog, r *classify.Report) (programs map[string]bool, caches, opens []string) {
	out := map[string]bool{}
	if r == nil {
		return out, nil, nil
	}
	for _, s := range r.Segments {
		if s.Name == "" {
			continue
		}
		out[filepath.Base(s.Name)] = true
		for _, w := range s.Wrappers {
			out[filepath.Base(w)] = true
		}
		p := cat.Lookup(s.Name)
		if p == nil {
			continue
		}
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			out[n] = true
		}
		addHelpers(out, p)
		caches = append(caches, p.Caches...)
		opens = append(opens, p.Opens...)
		for _, w := range strings.Fields(s.Subcommand) {
			if p = p.Sub(w); p == nil {
				break
			}
			addHelpers(out, p)
			caches = append(caches, p.Caches...)
			opens = append(opens, p.Opens...)
		}
	}
	return out, caches, opens
}

func addHelpers(m map[string]bool, p *classify.Program) {
	for _, h := range p.Helpers {
		m[h] = true
	}
}

// installedAny reports whether any of the names is installed.
func installedAny(names []string, env []string) bool {
	for _, n := range names {
		if installed(n, env) {
			return true
		}
	}
	return false
}

// installed reports whether name is a program on the decoy's PATH or a
// bash builtin.
func installed(name string, env []string) bool {
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", `type -t -- "$1" >/dev/null`, "bash", name)
	cmd.Env = env
	return cmd.Run() == nil
}

// TestCatalogConfirmFields: the rows of every catalog entry's caches are
// valid rows, and every read-only program either runs here or says why
// not.
func TestCatalogConfirmFields(t *testing.T) {
	var walk func(p *classify.Program, path string)
	walk = func(p *classify.Program, path string) {
		for _, c := range append(append([]string{}, p.Caches...), p.Opens...) {
			if err := readstation.ValidateRow(c); err != nil {
				t.Errorf("%s: caches or opens: %v", path, err)
			}
		}
		for _, s := range p.Subcommands {
			if s.Unconfirmed != "" {
				t.Errorf("%s %s: unconfirmed belongs on the top-level program", path, s.Name)
			}
			walk(s, path+" "+s.Name)
		}
	}
	for _, p := range classify.DefaultCatalog().Programs {
		walk(p, p.Name)
	}
}
