package main

import (
	"encoding/json"
	"fmt"
	"github.com/shellgate/shellgate/rego/fleet"
	"os"
	"path/filepath"

	"github.com/shellgate/shellgate/doctor"
	"github.com/shellgate/shellgate/gate"
	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/policy"
)

func init() {
	register("doctor", "check that each agent really runs shellgate before every shell command (after install)", runDoctor)
}

func runDoctor(e *env) int {
	fs := newFlags(e, "doctor", "[--json] [--dir DIR] [--socket PATH] [--opa-config FILE]")
	opaConfig := fs.String("opa-config", "", "also show the policy bundle in force and the last decision-log upload for this OPA configuration `FILE`")
	jsonOut := fs.Bool("json", false, "print one JSON object")
	dir := fs.String("dir", "", "project directory (default: the current directory)")
	socket := fs.String("socket", hook.DefaultSocketPath(), "the engine's unix socket `PATH`")
	ops, status, ok := parseFlags(e, fs, e.args)
	if !ok {
		return status
	}
	if len(ops) > 0 {
		fs.Usage()
		return exitUsage
	}
	o := doctor.Options{Dir: *dir, DirGiven: *dir != "", Socket: *socket, Version: hook.BuildVersion()}
	var err error
	if o.Dir == "" {
		o.Dir, err = os.Getwd()
	} else {
		o.Dir, err = filepath.Abs(o.Dir)
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate doctor:", err)
		return exitInternal
	}
	if fi, err := os.Stat(o.Dir); err != nil || !fi.IsDir() {
		fmt.Fprintf(e.stderr, "shellgate doctor: %s is not a directory\n", o.Dir)
		return exitUsage
	}
	o.Home, _ = os.UserHomeDir()
	o.CheckPolicy = func(dir string, f hook.Flags) error {
		cfg, err := policy.LoadConfigFor(f.Config, dir)
		if err != nil {
			return err
		}
		_, err = gate.New(gate.WithConfig(cfg), gate.WithPolicyDirs(f.Policy...))
		return err
	}
	r := doctor.Run(o)
	var bundle *fleet.Status
	if *opaConfig != "" {
		st, err := fleetStatus(*opaConfig)
		if err != nil {
			fmt.Fprintln(e.stderr, "shellgate doctor:", err)
			return exitUsage
		}
		bundle = &st
		if st.Revision == "" {
			r.OK = false // every command is denied until a bundle loads
		}
	}
	if *jsonOut {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(struct {
			*doctor.Report
			PolicyBundle *fleet.Status `json:"policy_bundle,omitempty"`
		}{&r, bundle})
	} else {
		err = doctor.WriteText(e.stdout, r)
		if err == nil && bundle != nil {
			writeFleetStatus(e.stdout, *bundle)
		}
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate doctor:", err)
		return exitInternal
	}
	if !r.OK {
		return 1
	}
	return exitOK
}
