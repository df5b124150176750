package readstation

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// cargo reads the manifest of every crate the package's graph holds by a
// path: a path dependency (in any dependency table, a target's, the
// workspace's), a patch or replace, a workspace member (a glob), the
// workspace a package names. A manifest that does not parse is quoted in
// the TOML error: sub/Cargo.toml linked to ~/.netrc made cargo metadata
// and cargo tree print its line, as a member crates/a/Cargo.toml did
// (cargo 1.95; hostile traps cargo-path-dep-link and cargo-member-link,
// redrepo3). The Cargo.toml files found from the directory it runs in
// are the catalog's reads; this check judges the ones they name, and the
// ones those name, as reads of the command.

// maxCargoManifests bounds the manifests the cargo-manifests check reads.
const maxCargoManifests = 64

// cargoTargetTables are a manifest's tables whose path keys name source
// files, not crates.
var cargoTargetTables = map[string]bool{"lib": true, "bin": true, "example": true, "test": true, "bench": true}

// checkCargoManifests judges the manifests the package names by a path.
func checkCargoManifests(h *hiddenRun) []RepoHelper {
	var files []string
	for d := h.cwd; ; {
		files = append(files, joinAbs(d, "Cargo.toml"))
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	starts := len(files)
	seen := map[string]bool{}
	for _, f := range files {
		seen[f] = true
	}
	const does = "print its line in the TOML error when it does not parse"
	for i := 0; i < len(files); i++ {
		f := files[i]
		if i >= starts {
			h.judgeRead(f, does)
		}
		res := h.j.fs.resolve(f)
		if res.err != nil || !res.exists || !res.mode.IsRegular() || res.real != filepath.Clean(f) || !h.j.m.inRoots(res.real) {
			continue // not there, or judged as a read (a link, not a file)
		}
		data, found := h.read(f)
		if !found {
			continue
		}
		v, err := decodeDoc("toml", data)
		doc, _ := v.(map[string]any)
		if err != nil || doc == nil {
			continue // cargo stops at it (the file itself is judged as a read)
		}
		dir := filepath.Dir(f)
		var named []string
		for _, p := range cargoPaths(doc) {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			named = append(named, filepath.Join(p, "Cargo.toml"))
		}
		for _, g := range cargoMembers(doc) {
			if !filepath.IsAbs(g) {
				g = filepath.Join(dir, g)
			}
			if !strings.ContainsAny(g, "*?[") {
				named = append(named, filepath.Join(g, "Cargo.toml"))
				continue
			}
			fsCalls.Add(1)
			m, err := filepath.Glob(filepath.Join(g, "Cargo.toml"))
			if err != nil {
				h.j.notEstablished(h.s, g, fmt.Sprintf("%s reads the manifests of the workspace members %s names, which cannot be listed (%v)", h.who, show(f), err))
				continue
			}
			named = append(named, m...)
		}
		for _, m := range named {
			m = filepath.Clean(m)
			if seen[m] {
				continue
			}
			seen[m] = true
			if len(files) >= starts+maxCargoManifests {
				h.j.notEstablished(h.s, m, fmt.Sprintf("%s reads more than %d manifests its packages name by a path; the check stopped", h.who, maxCargoManifests))
				return nil
			}
			files = append(files, m)
		}
	}
	return nil
}

// cargoPaths returns every path key's string in a manifest but those of
// its build targets ([lib], [[bin]], ...: source files): dependencies of
// every table (a target's too), patch, replace, package.workspace.
func cargoPaths(doc map[string]any) []string {
	var out []string
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 32 {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if s, ok := x[k].(string); ok && k == "path" {
					out = append(out, s)
					continue
				}
				walk(x[k], depth+1)
			}
		case []any:
			for _, e := range x {
				walk(e, depth+1)
			}
		}
	}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if cargoTargetTables[k] {
			continue
		}
		if k == "package" || k == "project" {
			if p, ok := doc[k].(map[string]any); ok {
				if s, ok := p["workspace"].(string); ok {
					out = append(out, s)
				}
			}
			continue
		}
		walk(doc[k], 0)
	}
	return out
}

// cargoMembers returns the workspace's members (globs allowed).
func cargoMembers(doc map[string]any) []string {
	ws, _ := doc["workspace"].(map[string]any)
	ms, _ := ws["members"].([]any)
	var out []string
	for _, m := range ms {
		if s, ok := m.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
