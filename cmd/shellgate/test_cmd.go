package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/shellgate/shellgate/corpus"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/policy"
)

func init() {
	register("test", "run a corpus of commands (and Rego unit tests) against the policy", runTest)
}

const testUsage = `[--policy DIR]... [--config FILE] [--format text|json|junit|github]
       [--run REGEX] [-v] [CORPUS...]

Judges every case of the corpus through the gate (classify, read station,
policy) and compares the decision with the case's expectation. CORPUS is a
.yaml, .yml or .sh file or a directory of them; by default the embedded
corpus plus ./corpus when it exists. The Rego unit tests (*_test.rego) of
the policy directories run too, in the same summary. The last line of text
and github output is "N passed, N failed".

The configuration is the --config FILE or the defaults: a .shellgate.yaml is
not picked up implicitly, so that a corpus run is reproducible. A YAML
corpus file with a config key judges its cases under that config instead.

Exit status:
  0   every case and Rego test passed
  1   a case or a Rego test failed, or there was nothing to run
  64  usage error: bad flags, a corpus file, config or policy that does not load
  70  internal error

Flags:`

// loadConfig loads --config FILE, or the defaults.
func loadConfig(path string) (*policy.Config, error) {
	if path == "" {
		return policy.DefaultConfig(), nil
	}
	cfg, err := policy.LoadConfig(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

// configMode loads the config at path, as loadConfig does, and picks the
// mode to judge in: mode when given, else the config's.
func configMode(path, mode string) (*policy.Config, string, error) {
	cfg, err := loadConfig(path)
	if err != nil {
		return nil, "", err
	}
	m := mode
	if m == "" {
		m = cfg.Mode
	}
	if m == "" {
		m = corpus.ModeDefault
	}
	if m != corpus.ModeDefault && m != corpus.ModeReadonly {
		return nil, "", fmt.Errorf("--mode %q: want default or readonly", m)
	}
	return cfg, m, nil
}

// runFilter compiles --run's REGEX; "" is no filter (nil).
func runFilter(expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("--run: %w", err)
	}
	return re, nil
}

// newChecker builds the real gate with the config and extra policy dirs.
func newChecker(cfg *policy.Config, dirs []string) (*corpus.GateChecker, error) {
	chk, err := corpus.NewGateChecker(gate.WithConfig(cfg), gate.WithPolicyDirs(absAll(dirs)...))
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return chk, nil
}

// newFactory builds the run's gate at once (so that a broken policy is a
// usage error before anything runs) and a gate for each case file's own
// config as the run meets them; the policy dirs apply to all of them.
func newFactory(cfg *policy.Config, dirs []string) (corpus.Factory, error) {
	chk, err := newChecker(cfg, dirs)
	if err != nil {
		return nil, err
	}
	return func(c *policy.Config) (corpus.Checker, error) {
		if c == nil {
			return chk, nil
		}
		return newChecker(c, dirs)
	}, nil
}

// withCorpusHome points $HOME at a fresh directory for the rest of the
// process: the gate reads the home directory from the environment, and the
// fixtures' "~/" entries are laid there, so cases about ~/.ssh never see the
// real home. It returns the directory and a cleanup.
func withCorpusHome() (string, func(), error) {
	home, err := os.MkdirTemp("", "shellgate-home-")
	if err != nil {
		return "", nil, err
	}
	if home, err = filepath.EvalSymlinks(home); err != nil {
		return "", nil, err
	}
	old, had := os.LookupEnv("HOME")
	os.Setenv("HOME", home)
	return home, func() {
		if had {
			os.Setenv("HOME", old)
		} else {
			os.Unsetenv("HOME")
		}
		corpus.Unlay(home)
		os.RemoveAll(home)
	}, nil
}

func runTest(e *env) int {
	fs := newFlags(e, "test", testUsage)
	var policies repeated
	fs.Var(&policies, "policy", "add the Rego modules in `DIR` to the default policy and run its *_test.rego (repeatable)")
	config := fs.String("config", "", "config `FILE` (default: the embedded defaults)")
	format := fs.String("format", "text", "output: text, json, junit or github")
	runRE := fs.String("run", "", "only the cases whose name or command matches `REGEX`")
	verbose := fs.Bool("v", false, "text: list passing cases too")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	fail := func(err error) int {
		fmt.Fprintln(e.stderr, "shellgate test:", err)
		return exitUsage
	}
	if !validFormat(*format) {
		return fail(fmt.Errorf("unknown --format %q (want %s)", *format, strings.Join(corpus.Formats, ", ")))
	}
	re, err := runFilter(*runRE)
	if err != nil {
		return fail(err)
	}
	cfg, err := loadConfig(*config)
	if err != nil {
		return fail(err)
	}
	cases, err := corpus.LoadCorpora(ops)
	if err != nil {
		return fail(err)
	}
	cases = corpus.Filter(cases, re)
	home, cleanup, err := withCorpusHome()
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate test:", err)
		return exitInternal
	}
	defer cleanup()
	factory, err := newFactory(cfg, policies)
	if err != nil {
		return fail(err)
	}
	ctx := context.Background()
	dirs := append(append([]string(nil), cfg.PolicyDirs...), absAll(policies)...)
	regoResults, err := corpus.RegoTests(ctx, dirs)
	if err != nil {
		return fail(err)
	}
	regoResults = corpus.FilterResults(regoResults, re)
	results, err := corpus.Run(ctx, cases, factory, corpus.Options{Home: home})
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate test:", err)
		return exitInternal
	}
	results = append(results, regoResults...)
	if err := corpus.Write(e.stdout, e.stderr, *format, results, *verbose); err != nil {
		fmt.Fprintln(e.stderr, "shellgate test:", err)
		return exitInternal
	}
	if len(results) == 0 {
		fmt.Fprintln(e.stderr, "shellgate test: no cases to run")
		return 1
	}
	if corpus.Summarize(results).Failed > 0 {
		return 1
	}
	return exitOK
}

func validFormat(f string) bool {
	for _, g := range corpus.Formats {
		if f == g {
			return true
		}
	}
	return false
}
