package main

import (
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shellgate/shellgate/agentrules"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/trust"
)

func init() {
	register("trust", "trust a project's .shellgate.yaml and policy directories as they are now", runTrust)
	register("untrust", "forget the trust given to a project's configuration", runUntrust)
}

const trustUsage = `[--json] [DIR]
       shellgate trust --list [--json]

A .shellgate.yaml that shellgate finds in DIR (default: the current
directory) or a parent, and the policy directories it names, may only
tighten the gate until you trust them: their deny rows, mode: readonly and
the deny and ask rules of their modules apply, and their grants, roots,
read_only_programs, replace_default_deny_reads and any allow their modules
produce are ignored. trust records each file's path and the SHA-256 of its
content in the trust store; any later change to them (an edit, a new file
in a policy directory, a re-pointed symlink) makes them untrusted again.
The project's agent settings that allow commands (.claude/settings.json,
.claude/settings.local.json, .gemini/settings.json, .gemini/policies/*.toml
in DIR) are pinned too: their allow rules count only while trusted.
Read them before you trust them.

Flags:`

// trustResult is trust's and untrust's JSON output.
type trustResult struct {
	Store   string        `json:"store"`
	Config  string        `json:"config,omitempty"`
	Entries []trustStatus `json:"entries"`
}

// trustStatus is one entry of the store with its status now.
type trustStatus struct {
	trust.Entry
	// Status is "trusted", "changed" (untrusted again) or "missing"; for
	// untrust, "removed".
	Status string `json:"status"`
}

func runTrust(e *env) int {
	fs := newFlags(e, "trust", trustUsage)
	list := fs.Bool("list", false, "list what is trusted, and whether it changed since")
	asJSON := fs.Bool("json", false, "print one JSON object")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	if len(ops) > 1 || *list && len(ops) > 0 {
		fs.Usage()
		return exitUsage
	}
	path, store, code := openStore(e, "trust")
	if store == nil {
		return code
	}
	if *list {
		res := trustResult{Store: path, Entries: []trustStatus{}}
		for _, en := range store.Entries {
			res.Entries = append(res.Entries, trustStatus{Entry: en, Status: policy.EntryStatus(en)})
		}
		if *asJSON {
			return jsonExit(e, res)
		}
		if len(res.Entries) == 0 {
			fmt.Fprintf(e.stdout, "nothing is trusted (%s)\n", path)
			return exitOK
		}
		for _, en := range res.Entries {
			fmt.Fprintf(e.stdout, "%-8s %-4s %s  sha256:%s  %s\n", en.Status, en.Kind, en.Path, en.SHA256[:12], en.TrustedAt.Format(time.RFC3339))
		}
		return exitOK
	}
	dir, code := trustDir(e, "trust", ops)
	if dir == "" {
		return code
	}
	now := time.Now().UTC().Truncate(time.Second)
	cfg, entries, err := policy.ProjectEntries(dir, now)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate trust:", err)
		return exitUsage
	}
	// The project's agent settings that allow commands (package
	// agentrules): their allow rules count once pinned.
	agentFiles := agentrules.ProjectFiles(dir)
	for _, p := range slices.Sorted(maps.Keys(agentFiles)) {
		entries = append(entries, trust.Entry{Path: p, Kind: trust.KindFile, SHA256: trust.Sum(agentFiles[p]), TrustedAt: now})
	}
	if cfg == nil && len(agentFiles) == 0 {
		fmt.Fprintf(e.stderr, "shellgate trust: no %s in %s or a parent, and no agent settings there that allow commands: nothing to trust (your own config needs no trust)\n", policy.ConfigFileName, dir)
		return exitUsage
	}
	res := trustResult{Store: path}
	if cfg != nil {
		res.Config = cfg.Path
	}
	for _, en := range entries {
		store.Add(en)
		res.Entries = append(res.Entries, trustStatus{Entry: en, Status: "trusted"})
	}
	if err := store.Save(path); err != nil {
		fmt.Fprintln(e.stderr, "shellgate trust:", err)
		return exitInternal
	}
	if *asJSON {
		return jsonExit(e, res)
	}
	for _, en := range res.Entries {
		fmt.Fprintf(e.stdout, "trusted %s (sha256:%s)\n", en.Path, en.SHA256[:12])
	}
	if cfg != nil {
		printGranted(e.stdout, cfg)
	}
	return exitOK
}

// printGranted shows what the trusted config now widens.
func printGranted(w io.Writer, c *policy.Config) {
	for _, kv := range []struct {
		key  string
		vals []string
	}{{"grants", c.Grants}, {"roots", c.Roots}, {"read_only_programs", c.ReadOnlyPrograms}, {"policy_dirs", c.PolicyDirs}} {
		if len(kv.vals) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", kv.key, strings.Join(kv.vals, ", "))
		}
	}
	if c.ReplaceDefaultDenyReads {
		fmt.Fprintln(w, "  replace_default_deny_reads: true")
	}
}

func runUntrust(e *env) int {
	fs := newFlags(e, "untrust", "[--json] [DIR]\n\nForgets the trust given to the .shellgate.yaml that applies in DIR (default:\nthe current directory) and to the policy directories it names: they only\ntighten again.\n\nFlags:")
	asJSON := fs.Bool("json", false, "print one JSON object")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	if len(ops) > 1 {
		fs.Usage()
		return exitUsage
	}
	dir, code := trustDir(e, "untrust", ops)
	if dir == "" {
		return code
	}
	path, store, code := openStore(e, "untrust")
	if store == nil {
		return code
	}
	cfgPath, src, err := policy.FindConfigSource(dir)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate untrust:", err)
		return exitUsage
	}
	res := trustResult{Store: path, Entries: []trustStatus{}}
	if src == policy.SourceProject {
		res.Config = cfgPath
		paths := []string{cfgPath}
		// The policy directories it names, when it still parses (else
		// those the store recorded under the project's directory).
		if cfg, err := policy.LoadConfigFrom(cfgPath, policy.SourceProject); err == nil {
			paths = append(paths, cfg.PolicyDirs...)
		} else {
			top := filepath.Dir(cfgPath) + string(filepath.Separator)
			for _, en := range store.Entries {
				if en.Kind == trust.KindDir && strings.HasPrefix(en.Path, top) {
					paths = append(paths, en.Path)
				}
			}
		}
		for _, p := range paths {
			p = filepath.Clean(p)
			if en, ok := store.Lookup(p); ok && store.Remove(p) {
				res.Entries = append(res.Entries, trustStatus{Entry: en, Status: "removed"})
			}
		}
	}
	if len(res.Entries) > 0 {
		if err := store.Save(path); err != nil {
			fmt.Fprintln(e.stderr, "shellgate untrust:", err)
			return exitInternal
		}
	}
	if *asJSON {
		return jsonExit(e, res)
	}
	if len(res.Entries) == 0 {
		fmt.Fprintf(e.stdout, "nothing was trusted for %s\n", dir)
	}
	for _, en := range res.Entries {
		fmt.Fprintf(e.stdout, "untrusted %s\n", en.Path)
	}
	return exitOK
}

// openStore reads the trust store. A store that cannot be used is an
// error (exitUsage): trust and untrust never write over it.
func openStore(e *env, name string) (string, *trust.Store, int) {
	path, err := trust.Path()
	if err != nil {
		fmt.Fprintf(e.stderr, "shellgate %s: %v\n", name, err)
		return "", nil, exitUsage
	}
	store, err := trust.Load(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "shellgate %s: %v\n", name, err)
		return "", nil, exitUsage
	}
	return path, store, exitOK
}

// trustDir returns the absolute directory ops names (default: the cwd).
func trustDir(e *env, name string, ops []string) (string, int) {
	dir := "."
	if len(ops) == 1 {
		dir = ops[0]
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		var st os.FileInfo
		if st, err = os.Stat(abs); err == nil && !st.IsDir() {
			err = fmt.Errorf("%s is not a directory", abs)
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "shellgate %s: %v\n", name, err)
		return "", exitUsage
	}
	return abs, exitOK
}

func jsonExit(e *env, v any) int {
	if err := writeJSON(e.stdout, v); err != nil {
		return exitInternal
	}
	return exitOK
}
