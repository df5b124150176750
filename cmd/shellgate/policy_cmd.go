package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/shellgate/shellgate/rego"
)

func init() {
	register("policy", "policy authoring: fmt, lint, bundle (an OPA bundle for a fleet), status (the bundle in force)", runPolicy)
}

func runPolicy(e *env) int {
	if len(e.args) == 0 || e.args[0] == "-h" || e.args[0] == "--help" {
		w := e.stdout // asked for: usage on stdout, exit 0
		if len(e.args) == 0 {
			w = e.stderr
		}
		fmt.Fprintln(w, `usage: shellgate policy fmt [-w] [-l] FILE|DIR...
       shellgate policy lint DIR...
       shellgate policy bundle -o FILE [--revision REV] [--sign-key KEY [--sign-alg ALG] [--key-id ID]] DIR...
       shellgate policy status --opa-config FILE [--json]

fmt prints each module formatted (opa fmt style); -w rewrites the files,
-l lists the files whose formatting differs (exit 1 when any does).
lint compiles the default policy with the modules under each DIR, as check
would, and lists the files fmt would change. Exit 0 when clean, 1 when
lint finds something, 64 on a usage or compile error.
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
		src, err := os.ReadFile(f)
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
	fs := newFlags(e, "policy lint", "DIR...")
	ops, status, ok := parseFlags(e, fs, args)
	if !ok {
		return status
	}
	if len(ops) == 0 {
		fs.Usage()
		return exitUsage
	}
	bad, err := rego.Lint(ops...)
	if err != nil {
		fmt.Fprintln(e.stderr, err)
		return exitUsage
	}
	for _, f := range bad {
		fmt.Fprintf(e.stdout, "%s: not formatted (shellgate policy fmt -w %s)\n", f, f)
	}
	if len(bad) > 0 {
		return exitAsk
	}
	fmt.Fprintf(e.stdout, "ok: %s\n", strings.Join(ops, " "))
	return exitOK
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
