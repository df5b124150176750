package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/shellgate/shellgate/rego/fleet"
)

func policyBundle(e *env, args []string) int {
	fs := newFlags(e, "policy bundle", "-o FILE [--revision REV] [--sign-key KEY [--sign-alg ALG] [--key-id ID]] DIR...")
	out := fs.String("o", "", "write the bundle (.tar.gz) to `FILE`")
	rev := fs.String("revision", "", "the manifest's revision (default: a digest of the content)")
	key := fs.String("sign-key", "", "sign with this `KEY`: a PEM private key file (RS256) or an HMAC secret (HS256)")
	alg := fs.String("sign-alg", "", "the signing algorithm (RS256, ES256, HS256, ...; default from the key)")
	kid := fs.String("key-id", "shellgate", "the key id the agents' OPA config names under keys")
	ops, status, ok := parseFlags(e, fs, args)
	if !ok {
		return status
	}
	if len(ops) == 0 || *out == "" {
		fs.Usage()
		return exitUsage
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".bundle-*")
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate policy bundle:", err)
		return exitUsage
	}
	defer os.Remove(tmp.Name())
	b, err := fleet.Write(tmp, fleet.BundleOptions{Dirs: ops, Revision: *rev, SigningKey: *key, SigningAlg: *alg, KeyID: *kid})
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// A bundle is published (a web server's worker reads it).
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), *out)
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate policy bundle:", err)
		return exitUsage
	}
	signed := "unsigned"
	if len(b.Signatures.Signatures) > 0 {
		signed = "signed"
	}
	fmt.Fprintf(e.stdout, "wrote %s: revision %s, %d modules, %s\n", *out, b.Manifest.Revision, len(b.Modules), signed)
	return exitOK
}

func policyStatus(e *env, args []string) int {
	fs := newFlags(e, "policy status", "--opa-config FILE [--json]")
	cfgPath := fs.String("opa-config", "", "the OPA configuration `FILE`")
	asJSON := fs.Bool("json", false, "print one JSON object")
	ops, status, ok := parseFlags(e, fs, args)
	if !ok {
		return status
	}
	if len(ops) > 0 || *cfgPath == "" {
		fs.Usage()
		return exitUsage
	}
	s, err := fleetStatus(*cfgPath)
	if err != nil {
		fmt.Fprintln(e.stderr, "shellgate policy status:", err)
		return exitUsage
	}
	if *asJSON {
		b, _ := json.Marshal(s)
		fmt.Fprintln(e.stdout, string(b))
	} else {
		writeFleetStatus(e.stdout, s)
	}
	if s.Revision == "" {
		return exitDeny
	}
	return exitOK
}

// fleetStatus loads the bundle the OPA config at path names (as an engine
// would: persisted or downloaded) and reports it, with the last
// decision-log upload the resident engine recorded in the config's
// persistence_directory.
func fleetStatus(path string) (fleet.Status, error) {
	raw, err := readSmallFile(path)
	if err != nil {
		return fleet.Status{}, err
	}
	var recorded fleet.Status
	if dir := fleet.PersistenceDir(raw); dir != "" {
		recorded, _ = fleet.ReadStatus(dir)
	}
	f, err := startFleet(path)
	if err != nil {
		return fleet.Status{}, err
	}
	s := f.Agent().Status()
	if s.Revision == "" {
		s.Refused = f.Agent().Unavailable()
	}
	f.Agent().StopQuiet(context.Background())
	if s.Upload == "" {
		s.Upload = recorded.Upload
	}
	return s, nil
}

// writeFleetStatus prints the bundle in force and the last upload.
func writeFleetStatus(w io.Writer, s fleet.Status) {
	rev := s.Revision
	if rev == "" {
		rev = "none"
	}
	fmt.Fprintln(w, "bundle revision in force:", rev)
	if s.Refused != "" {
		fmt.Fprintln(w, "refused:", s.Refused)
	}
	up := s.Upload
	if up == "" {
		up = "none recorded"
	}
	fmt.Fprintln(w, "last decision-log upload:", up)
}
