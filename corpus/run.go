package corpus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/shellgate/shellgate/policy"
)

// Checker decides one command. The real checker is the gate (classify,
// read station, policy); see [NewGateChecker].
type Checker interface {
	Check(ctx context.Context, in Input) (Outcome, error)
}

// ExitMeaner is implemented by checkers that can say what an exit code
// means for a command run by shell (a case's shell: "bash", "zsh", "sh",
// or "" and "unknown" when not known); cases with exit_meaning need one.
type ExitMeaner interface {
	ExitMeaning(command, shell string, code int) (isError bool, message string)
}

// Input is one request to a Checker.
type Input struct {
	Command string
	// Mode is ModeDefault or ModeReadonly.
	Mode string
	// Shell is the shell that runs it, or "" (both bash and zsh).
	Shell string
	// Cwd is the absolute directory the command runs in.
	Cwd string
	// Root is the workspace root (absolute), or "" for the checker's
	// default roots.
	Root string
	// Home is the home directory (absolute) that ~ and $HOME mean.
	Home string
}

// Outcome is a checker's decision on one command.
type Outcome struct {
	// Action is allow, ask or deny.
	Action string `json:"action"`
	// Reasons are the decision's reasons, in the policy's order.
	Reasons []Reason `json:"reasons,omitempty"`
	// Reversible is the classifier's verdict.
	Reversible bool `json:"reversible"`
	// Reads are the read station's verdicts, and repository helpers as
	// reads with the verdict repo-helper (the path is the helper's key, or
	// for a file of catalog hidden_inputs with no key its name).
	Reads []Read `json:"reads,omitempty"`
}

// Reason is one reason of a decision.
type Reason struct {
	// Code is the stable reason code ("redirect-write").
	Code string `json:"code"`
	// Message is the sentence for a person.
	Message string `json:"message"`
	// Span is the [start, end) byte range in the command.
	Span [2]int `json:"span"`
	// Rule is the policy rule that produced the reason.
	Rule string `json:"rule,omitempty"`
}

// Read is the read station's verdict on one read.
type Read struct {
	// Path is the read as written ("~/.ssh/id_rsa", "src/*.go").
	Path string `json:"path"`
	// Verdict is ok, missing, outside-roots, not-established, denied or
	// repo-helper.
	Verdict string `json:"verdict"`
}

// Codes returns the distinct reason codes of the outcome, in order.
func (o Outcome) Codes() []string {
	var out []string
	for _, r := range o.Reasons {
		if !slices.Contains(out, r.Code) {
			out = append(out, r.Code)
		}
	}
	return out
}

// String renders the outcome compactly: "ask [redirect-write]".
func (o Outcome) String() string {
	if len(o.Reasons) == 0 {
		return o.Action
	}
	return o.Action + " [" + strings.Join(o.Codes(), " ") + "]"
}

// Result is the outcome of one case or one Rego unit test.
type Result struct {
	// Kind is "case" or "rego".
	Kind string `json:"kind"`
	// Name is the case's name, or the Rego test's package.rule.
	Name string `json:"name"`
	// File and Line locate the case or the Rego test rule.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Command and Mode are set for cases.
	Command string `json:"command,omitempty"`
	Mode    string `json:"mode,omitempty"`
	// Want is the expectation and Got the decision, for cases.
	Want *Expect  `json:"want,omitempty"`
	Got  *Outcome `json:"got,omitempty"`
	Pass bool     `json:"pass"`
	// Problems say what did not match; Err is set when the case could
	// not be judged at all (which is a failure).
	Problems []string `json:"problems,omitempty"`
	Err      string   `json:"error,omitempty"`
}

// Summary counts results.
type Summary struct {
	// Passed and Failed count the results.
	Passed int `json:"passed"`
	Failed int `json:"failed"`
}

// Summarize counts passes and failures.
func Summarize(rs []Result) Summary {
	var s Summary
	for _, r := range rs {
		if r.Pass {
			s.Passed++
		} else {
			s.Failed++
		}
	}
	return s
}

// String is the summary line CI reads: "N passed, N failed".
func (s Summary) String() string { return fmt.Sprintf("%d passed, %d failed", s.Passed, s.Failed) }

// Options tune a run.
type Options struct {
	// Parallel is the number of cases judged at once (default GOMAXPROCS).
	Parallel int
	// TempDir is where fixtures are laid (default os.TempDir()).
	TempDir string
	// Home, when set, is the one home directory every fixture's "~/"
	// entries are laid in (it must exist and should be empty). Set it when
	// the checker takes the home directory from the environment rather
	// than from Input.Home: the caller points $HOME at it for the run.
	Home string
}

// Filter keeps the cases whose name or command matches re.
func Filter(cases []Case, re *regexp.Regexp) []Case {
	if re == nil {
		return cases
	}
	var out []Case
	for _, c := range cases {
		if re.MatchString(c.Name) || re.MatchString(c.Command) {
			out = append(out, c)
		}
	}
	return out
}

// Factory returns the checker for a configuration: nil is the run's own,
// anything else a case file's config.
type Factory func(cfg *policy.Config) (Checker, error)

// Fixed is the Factory of a single checker, for cases that carry no
// configuration of their own (a case that does fails with an error).
func Fixed(c Checker) Factory {
	return func(cfg *policy.Config) (Checker, error) {
		if cfg != nil {
			return nil, errors.New("this run cannot judge a case under its own config")
		}
		return c, nil
	}
}

// checkers builds one checker per distinct configuration among the cases,
// before the run; a configuration whose checker fails fails its cases.
func checkers(cases []Case, f Factory) func(c Case) (Checker, error) {
	type built struct {
		chk Checker
		err error
	}
	m := map[string]built{}
	for _, c := range cases {
		if _, ok := m[c.ConfigKey]; ok {
			continue
		}
		chk, err := f(c.Config)
		m[c.ConfigKey] = built{chk, err}
	}
	return func(c Case) (Checker, error) {
		b := m[c.ConfigKey]
		return b.chk, b.err
	}
}

// Run judges every case with the checker the factory gives for its
// configuration, in parallel, and compares each decision with the case's
// expectation. Results are in case order. An error is returned only when
// the run itself could not happen (a fixture could not be laid); a checker
// error fails its case.
func Run(ctx context.Context, cases []Case, f Factory, opt Options) ([]Result, error) {
	results := make([]Result, len(cases))
	checkerFor := checkers(cases, f)
	err := each(ctx, cases, opt, func(i int, in Input) {
		c := cases[i]
		r := Result{Kind: "case", Name: c.Name, File: c.File, Line: c.Line, Command: c.Command, Mode: c.Mode}
		want := c.Expect
		r.Want = &want
		chk, err := checkerFor(c)
		if err != nil {
			r.Err = "config: " + err.Error()
			results[i] = r
			return
		}
		got, err := chk.Check(ctx, in)
		if err != nil {
			r.Err = err.Error()
			results[i] = r
			return
		}
		r.Got = &got
		r.Problems = compare(c, got, chk)
		r.Pass = len(r.Problems) == 0
		results[i] = r
	})
	return results, err
}

// compare lists how got differs from the case's expectation.
func compare(c Case, got Outcome, chk Checker) []string {
	var p []string
	e := c.Expect
	if got.Action != e.Action {
		p = append(p, fmt.Sprintf("action: want %s, got %s", e.Action, got.Action))
	}
	codes := got.Codes()
	for _, want := range e.Reasons {
		if !slices.Contains(codes, want) {
			p = append(p, fmt.Sprintf("reason %s: missing", want))
		}
	}
	if e.Reversible != nil && *e.Reversible != got.Reversible {
		p = append(p, fmt.Sprintf("reversible: want %t, got %t", *e.Reversible, got.Reversible))
	}
	for _, path := range sortedKeys(e.Reads) {
		want := e.Reads[path]
		var verdicts []string
		for _, rd := range got.Reads {
			if rd.Path == path {
				verdicts = append(verdicts, rd.Verdict)
			}
		}
		switch {
		case len(verdicts) == 0:
			p = append(p, fmt.Sprintf("read %s: want %s, got no such read", path, want))
		case !slices.Contains(verdicts, want):
			p = append(p, fmt.Sprintf("read %s: want %s, got %s", path, want, strings.Join(verdicts, ",")))
		}
	}
	if m := e.ExitMeaning; m != nil {
		em, ok := chk.(ExitMeaner)
		if !ok {
			p = append(p, "exit_meaning: the checker cannot interpret exit codes")
		} else {
			isErr, msg := em.ExitMeaning(c.Command, c.Shell, m.Code)
			if (m.Error != nil && isErr != *m.Error) || (m.Message != "" && msg != m.Message) {
				want := fmt.Sprintf("%q", m.Message)
				if m.Error != nil {
					want = fmt.Sprintf("error=%t %s", *m.Error, want)
				}
				p = append(p, fmt.Sprintf("exit %d: want %s, got error=%t %q", m.Code, want, isErr, msg))
			}
		}
	}
	return p
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// each lays every distinct fixture once, then calls fn for every case with
// its Input, from opt.Parallel goroutines. Fixtures are removed afterwards.
func each(ctx context.Context, cases []Case, opt Options, fn func(i int, in Input)) error {
	base, err := os.MkdirTemp(opt.TempDir, "shellgate-corpus-")
	if err != nil {
		return err
	}
	defer func() {
		Unlay(base)
		os.RemoveAll(base)
	}()
	layouts := map[string]Layout{}
	homeSeen := map[string]string{}
	// Cases of one file share their fixture's backing array: compute each
	// fixture's key once.
	keys := map[*Entry]string{}
	inputs := make([]Input, len(cases))
	for i, c := range cases {
		if filepath.IsAbs(c.Cwd) {
			// A host case (audit, diff --batch): the real directory and home.
			home, _ := os.UserHomeDir()
			inputs[i] = Input{Command: c.Command, Mode: c.Mode, Shell: c.Shell, Cwd: c.Cwd, Home: home}
			continue
		}
		var key string
		if len(c.Fixture) > 0 {
			k, ok := keys[&c.Fixture[0]]
			if !ok {
				k = c.Fixture.Key()
				keys[&c.Fixture[0]] = k
			}
			key = k
		}
		l, ok := layouts[key]
		if !ok {
			dir := filepath.Join(base, fmt.Sprintf("f%d", len(layouts)))
			if err := os.Mkdir(dir, 0o755); err != nil {
				return err
			}
			l, err = c.Fixture.LayShared(dir, opt.Home, homeSeen)
			if err != nil {
				return fmt.Errorf("%s: laying fixture: %w", c.Name, err)
			}
			layouts[key] = l
		}
		cwd := l.Work
		if c.Cwd != "" && c.Cwd != "." {
			cwd = l.Resolve(c.Cwd)
		}
		inputs[i] = Input{Command: c.Command, Mode: c.Mode, Shell: c.Shell, Cwd: cwd, Root: l.Work, Home: l.Home}
	}
	n := opt.Parallel
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i, inputs[i])
			}
		}()
	}
	var cerr error
loop:
	for i := range cases {
		select {
		case next <- i:
		case <-ctx.Done():
			cerr = ctx.Err()
			break loop
		}
	}
	close(next)
	wg.Wait()
	if cerr != nil {
		return errors.Join(errors.New("run interrupted"), cerr)
	}
	return nil
}

// Figures are the two numbers the corpus exists to measure.
type Figures struct {
	// ReadOnly counts the cases expected to be allowed (read-only work),
	// ReadOnlyAllowed those of them that were.
	ReadOnly, ReadOnlyAllowed int
	// Unsafe counts the cases expected to be asked about or denied,
	// UnsafeAllowed those of them that were allowed anyway.
	Unsafe, UnsafeAllowed int
	// UnsafeDenied counts the cases expected to be denied, DeniedAllowed
	// those that were allowed, DeniedAsked those that were only asked.
	UnsafeDenied, DeniedAsked int
}

// Measure computes the figures from case results (Rego results are left out).
func Measure(rs []Result) Figures {
	var f Figures
	for _, r := range rs {
		if r.Kind != "case" || r.Want == nil {
			continue
		}
		allowed := r.Got != nil && r.Got.Action == Allow
		switch r.Want.Action {
		case Allow:
			f.ReadOnly++
			if allowed {
				f.ReadOnlyAllowed++
			}
		default:
			f.Unsafe++
			if allowed {
				f.UnsafeAllowed++
			}
			if r.Want.Action == Deny {
				f.UnsafeDenied++
				if r.Got != nil && r.Got.Action == Ask {
					f.DeniedAsked++
				}
			}
		}
	}
	return f
}

// String renders the figures as two sentences.
func (f Figures) String() string {
	return fmt.Sprintf("read-only cases allowed without asking: %d of %d (%s); unsafe cases allowed: %d of %d (%s); deny cases only asked: %d of %d",
		f.ReadOnlyAllowed, f.ReadOnly, percent(f.ReadOnlyAllowed, f.ReadOnly),
		f.UnsafeAllowed, f.Unsafe, percent(f.UnsafeAllowed, f.Unsafe),
		f.DeniedAsked, f.UnsafeDenied)
}
