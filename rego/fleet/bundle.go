package fleet

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/bundle"

	"github.com/shellgate/shellgate/classify"
	"github.com/shellgate/shellgate/policy"
	"github.com/shellgate/shellgate/rego"
	"github.com/shellgate/shellgate/trust"
)

// DataRoot is the bundle data root that holds shellgate's config and
// catalog: data.shellgate_bundle.config and data.shellgate_bundle.catalog
// are the YAML texts of a shellgate config (shellgate.yaml) and of a catalog
// extension (catalog.yaml); either may be absent.
const DataRoot = "shellgate_bundle"

// Roots are the roots a shellgate bundle's manifest claims.
var Roots = []string{"shellgate", DataRoot, "system/log"}

// ConfigFile and CatalogFile are the names, inside a DIR given to Build, of
// the config and the catalog extension the bundle carries.
const (
	ConfigFile  = "shellgate.yaml"
	CatalogFile = "catalog.yaml"
)

// DefaultMask is the decision-log mask policy a bundle carries unless one
// of its directories has a module in package system.log (which then
// replaces it). The logged input lists in "secrets" the source text of
// every env-assignment value and of every read the station denied; the
// mask replaces each of them with "***" wherever it appears in the input
// and the result, and removes the list itself.
const DefaultMask = `package system.log

import rego.v1

# shellgate's default decision-log mask. input.input.secrets lists the
# source text of env-assignment values (TOKEN=abc123 cmd) and of reads the
# read station denied; each is replaced by "***" in every string of the
# logged input and result, and the list itself is erased. Replace this module (a module in
# package system.log in a DIR given to shellgate policy bundle) to mask
# differently.

mask contains "/input/secrets"

mask contains {"op": "upsert", "path": "/input", "value": scrub(object.remove(input.input, ["secrets"]))} if count(_secrets) > 0

mask contains {"op": "upsert", "path": "/result", "value": scrub(input.result)} if {
	count(_secrets) > 0
	input.result
}

_secrets := {s | some s in input.input.secrets; is_string(s); s != ""}

_pairs[s] := "***" if some s in _secrets

# scrub replaces every secret in every string of x (keys stay as they are).
scrub(x) := json.patch(x, [op | some op in _ops(x)])

_ops(x) := {op |
	walk(x, [path, v])
	is_string(v)
	some s in _secrets
	contains(v, s)
	op := {"op": "replace", "path": _pointer(path), "value": strings.replace_n(_pairs, v)}
}

_pointer(path) := concat("", [p |
	some e in path
	p := concat("", ["/", replace(replace(sprintf("%v", [e]), "~", "~0"), "/", "~1")])
])
`

// BundleOptions say what Build puts in a bundle.
type BundleOptions struct {
	// Dirs are the directories whose .rego modules (tests left out),
	// shellgate.yaml and catalog.yaml the bundle carries. At most one of
	// them may hold each of the two YAML files.
	Dirs []string
	// Revision is the manifest's revision; "" makes one from the content
	// (a SHA-256 prefix), so that a changed bundle has a new revision.
	Revision string
	// SigningKey, when set, signs the bundle: a PEM private key (RS256,
	// ES256, ...) or an HMAC secret (HS256), as the text or a file path.
	SigningKey string
	// SigningAlg is the JWT algorithm (default RS256 for a PEM key, else
	// HS256).
	SigningAlg string
	// KeyID is the signature's key id (kid), the name of the key in the
	// agents' OPA config ("keys"); default "shellgate".
	KeyID string
}

// Build makes the bundle: the default policy, the modules under each dir,
// the default mask (unless a dir has package system.log), the config and
// the catalog as data. It checks what an engine will check: the modules
// compile with the default policy, the config parses and names no policy
// directories (the bundle carries the policy), the catalog extends the
// embedded one.
func Build(o BundleOptions) (*bundle.Bundle, error) {
	files := map[string][]byte{}
	for n, src := range rego.DefaultModules(false) {
		files[n] = []byte(src)
	}
	user := map[string]string{}
	var cfgText, catText string
	var cfgFrom, catFrom string
	hasMask := false
	for _, d := range o.Dirs {
		mods, err := rego.ReadPolicyDir(d, false)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(filepath.Clean(d))
		for p, src := range mods {
			rel, err := filepath.Rel(d, p)
			if err != nil {
				return nil, err
			}
			name := path.Join("policy", base, filepath.ToSlash(rel))
			if _, dup := files[name]; dup {
				return nil, fmt.Errorf("%s: two directories named %s give the same bundle path %s", p, base, name)
			}
			m, err := ast.ParseModuleWithOpts(p, src, ast.ParserOptions{RegoVersion: ast.RegoV1})
			if err != nil {
				return nil, err
			}
			if m.Package.Path.String() == "data.system.log" {
				hasMask = true
			} else {
				user[p] = src
			}
			files[name] = []byte(src)
		}
		for _, f := range []struct {
			name      string
			text, src *string
		}{{ConfigFile, &cfgText, &cfgFrom}, {CatalogFile, &catText, &catFrom}} {
			p := filepath.Join(d, f.name)
			b, err := trust.ReadRegular(p, policy.MaxConfigBytes)
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if *f.src != "" {
				return nil, fmt.Errorf("%s and %s: a bundle carries one %s", *f.src, p, f.name)
			}
			*f.text, *f.src = string(b), p
		}
	}
	if !hasMask {
		files["system/log/mask.rego"] = []byte(DefaultMask)
	}
	if _, err := rego.New(rego.WithModules(user), rego.WithMemo(0)); err != nil {
		return nil, err
	}
	if _, _, err := ParseData(cfgText, catText, cfgFrom, catFrom); err != nil {
		return nil, err
	}
	data := map[string]any{}
	if cfgFrom != "" {
		data["config"] = cfgText
	}
	if catFrom != "" {
		data["catalog"] = catText
	}
	b := &bundle.Bundle{Data: map[string]any{DataRoot: data}}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	sum := sha256.New()
	for _, n := range names {
		m, err := ast.ParseModuleWithOpts(n, string(files[n]), ast.ParserOptions{RegoVersion: ast.RegoV1})
		if err != nil {
			return nil, err
		}
		b.Modules = append(b.Modules, bundle.ModuleFile{URL: "/" + n, Path: "/" + n, Raw: files[n], Parsed: m})
		fmt.Fprintf(sum, "%s\x00%d\x00%s", n, len(files[n]), files[n])
	}
	fmt.Fprintf(sum, "config\x00%s\x00catalog\x00%s", cfgText, catText)
	rev := o.Revision
	if rev == "" {
		rev = "sha256-" + hex.EncodeToString(sum.Sum(nil))[:16]
	}
	roots := append([]string(nil), Roots...)
	v1 := 1
	b.Manifest = bundle.Manifest{Revision: rev, Roots: &roots, RegoVersion: &v1}
	if o.SigningKey != "" {
		alg := o.SigningAlg
		if alg == "" {
			alg = "HS256"
			if k, err := trust.ReadRegular(o.SigningKey, maxKeyBytes); err == nil && bytes.HasPrefix(k, []byte("-----BEGIN")) || strings.HasPrefix(o.SigningKey, "-----BEGIN") {
				alg = "RS256"
			}
		}
		kid := o.KeyID
		if kid == "" {
			kid = "shellgate"
		}
		if err := b.GenerateSignature(bundle.NewSigningConfig(o.SigningKey, alg, ""), kid, true); err != nil {
			return nil, fmt.Errorf("signing the bundle: %w", err)
		}
	}
	return b, nil
}

// Write builds the bundle (Build) and writes it to w as a .tar.gz, as
// opa build writes one.
func Write(w io.Writer, o BundleOptions) (*bundle.Bundle, error) {
	b, err := Build(o)
	if err != nil {
		return nil, err
	}
	if err := bundle.NewWriter(w).UseModulePath(true).DisableFormat(true).Write(*b); err != nil {
		return nil, err
	}
	return b, nil
}

// ParseData parses a bundle's config and catalog texts (empty: none). The
// config must name no policy directories: a bundle's policy is its modules.
// The catalog is returned laid over the embedded one (nil when none).
func ParseData(cfgText, catText, cfgName, catName string) (*policy.Config, *classify.Catalog, error) {
	if cfgName == "" {
		cfgName = "data." + DataRoot + ".config"
	}
	if catName == "" {
		catName = "data." + DataRoot + ".catalog"
	}
	cfg, err := policy.ParseConfig([]byte(cfgText), cfgName)
	if err != nil {
		return nil, nil, err
	}
	if len(cfg.PolicyDirs) > 0 {
		return nil, nil, fmt.Errorf("%s: policy_dirs: a bundle's config names no policy directories (the bundle carries its modules)", cfgName)
	}
	cfg.Path = ""
	cfg.Source = policy.SourceExplicit
	var cat *classify.Catalog
	if strings.TrimSpace(catText) != "" {
		ext, err := classify.ParseCatalog([]byte(catText), catName)
		if err != nil {
			return nil, nil, err
		}
		if cat, err = classify.DefaultCatalog().Extend(ext); err != nil {
			return nil, nil, err
		}
	}
	return cfg, cat, nil
}

// maxKeyBytes bounds a signing key file (a PEM key is a few KB).
const maxKeyBytes = 1 << 20
