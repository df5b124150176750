package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/rego"
	"github.com/shellgate/shellgate/trust"
)

func init() {
	register("policy", "policy authoring: fmt, lint (compile, check format, check config grants), bundle (an OPA bundle for a fleet), status (the bundle in force)", runPolicy)
}

func runPolicy(e *env) int {
	if len(e.args) == 0 || e.args[0] == "-h" || e.args[0] == "--help" {
		w := e.stdout // asked for: usage on stdout, exit 0
		if len(e.args) == 0 {
			w = e.stderr
		}
		fmt.Fprintln(w, `usage: shellgate policy fmt [-w] [-l] FILE|DIR...
       shellgate policy lint [--catalog FILE] DIR|CONFIG.yaml...
       shellgate policy bundle -o FILE [--revision REV] [--sign-key KEY [--sign-alg ALG] [--key-id ID]] DIR...
       shellgate policy status --opa-config FILE [--json]

fmt prints each module formatted (opa fmt style); -w rewrites the files,
-l lists the files whose formatting differs (exit 1 when any does).
lint compiles the default policy with the modules under each DIR, as check
would, and lists the files fmt would change; for each config file (.yaml,
.yml) it lists, with file:line:col, every grant that puts a wildcard over
an argument that carries code or a command (python3 -c *, bash -c **,
find . -exec **, xargs **, env **), which would allow any code at all.
Exit 0 when clean, 1 when lint finds something, 64 on a usage or compile
error.
bundle writes an OPA bundle (.tar.gz) of the default policy, the modules under
each DIR, the DIRs' shellgate.yaml and catalog.yaml (as data.shellgate_bundle)
and the default decision-log mask; --sign-key signs it as opa build does.
status loads the bundle an OPA config names and prints the revision in force,
and the last decision-log upload the resident engine recorded.`)
		if len(e.args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	sub, args := e.args[0], e.args[1:]
	switch sub {
	case "fmt":
		return policyFmt(e, args)
	case "lint":
		return policyLint(e, args)
	case "bundle":
		return policyBundle(e, args)
	case "status":
		return policyStatus(e, args)
	}
	fmt.Fprintf(e.stderr, "shellgate policy: unknown subcommand %q (want fmt, lint, bundle or status)\n", sub)
	return exitUsage
}

func policyFmt(e *env, args []string) int {
	fs := newFlags(e, "policy fmt", "[-w] [-l] FILE|DIR...")
	write := fs.Bool("w", false, "rewrite the files in place")
	list := fs.Bool("l", false, "list the files whose formatting differs")
	ops, status, ok := parseFlags(e, fs, args)
	if !ok {
		return status
	}
	if len(ops) == 0 {
		fs.Usage()
		return exitUsage
	}
	files, err := regoFiles(ops)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate policy fmt:", err)
		return exitUsage
	}
	status = exitOK
	for _, f := range files {
		src, err := trust.ReadRegular(f, rego.MaxModuleBytes)
		if err != nil {
			fmt.Fprintln(e.stderr, "shellgate policy fmt:", err)
			return exitUsage
		}
		out, err := rego.Format(f, src)
		if err != nil {
			fmt.Fprintln(e.stderr, err)
			return exitUsage
		}
		changed := !bytes.Equal(out, src)
		switch {
		case *list:
			if changed {
				fmt.Fprintln(e.stdout, f)
				status = exitAsk
			}
		case *write:
			if changed {
				if err := os.WriteFile(f, out, 0o644); err != nil {
					fmt.Fprintln(e.stderr, "shellgate policy fmt:", err)
					return exitInternal
				}
			}
		default:
			e.stdout.Write(out)
		}
	}
	return status
}

func policyLint(e *env, args []string) int {
	fs := newFlags(e, "policy lint", "[--catalog FILE] DIR|CONFIG.yaml...")
	catPath := fs.String("catalog", "", "judge config grants against the embedded catalog extended with this YAML `FILE`")
	ops, status, ok := parseFlags(e, fs, args)
	if !ok {
		return status
	}
	if len(ops) == 0 {
		fs.Usage()
		return exitUsage
	}
	var dirs, configs []string
	for _, op := range ops {
		if ext := filepath.Ext(op); ext == ".yaml" || ext == ".yml" {
			configs = append(configs, op)
		} else {
			dirs = append(dirs, op)
		}
	}
	var cat *classify.Catalog
	if *catPath != "" {
		var err error
		if cat, err = loadCatalog(*catPath); err != nil {
			fmt.Fprintln(e.stderr, "shellgate policy lint:", err)
			return exitUsage
		}
	}
	found := 0
	for _, p := range configs {
		cfg, err := policy.LoadConfig(p)
		if err != nil {
			fmt.Fprintln(e.stderr, err)
			return exitUsage
		}
		cfg.Path = p // as given: messages name the file the user named
		for _, pr := range cfg.GrantProblems(cat) {
			fmt.Fprintln(e.stdout, relWhere(pr.Where, cfg, p)+": "+pr.GrantProblem.String())
			found++
		}
	}
	if len(dirs) > 0 {
		bad, err := rego.Lint(dirs...)
		if err != nil {
			fmt.Fprintln(e.stderr, err)
			return exitUsage
		}
		for _, f := range bad {
			fmt.Fprintf(e.stdout, "%s: not formatted (shellgate policy fmt -w %s)\n", f, f)
		}
		found += len(bad)
	}
	if found > 0 {
		return exitAsk
	}
	fmt.Fprintf(e.stdout, "ok: %s\n", strings.Join(ops, " "))
	return exitOK
}

// relWhere writes a grant's location with the file as the user named it.
func relWhere(where string, cfg *policy.Config, given string) string {
	if abs, err := filepath.Abs(given); err == nil && strings.HasPrefix(where, abs+":") {
		return given + strings.TrimPrefix(where, abs)
	}
	return where
}

// regoFiles expands directories to the .rego files under them.
func regoFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(f string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(f, ".rego") {
				out = append(out, f)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
