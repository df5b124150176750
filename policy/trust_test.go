package policy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/shellgate/shellgate/trust"
)

// TestResolve: a project config and its policy directories widen nothing
// until the store trusts their exact content; other configs are used whole.
func TestResolve(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	files := map[string]string{
		".shellgate.yaml": "mode: readonly\ngrants: [\"npm test **\"]\nroots: [../shared]\ndeny_reads: [\"*.key\"]\nread_only_programs: [mytool]\nremote_reads: [gh]\nreplace_default_deny_reads: true\npolicy_dirs: [pol]\nshell: bash\n",
		"pol/a.rego":      "package shellgate\n",
		"pol/a_test.rego": "package shellgate\n",
		"pol/README":      "not a module\n",
	}
	for n, c := range files {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfgPath := filepath.Join(dir, ConfigFileName)
	pol := filepath.Join(dir, "pol")
	load := func(src Source) *Config {
		t.Helper()
		c, err := LoadConfigFrom(cfgPath, src)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	tight := &Config{Mode: ModeReadonly, DenyReads: []string{"*.key"}, PolicyDirs: []string{pol}, Path: cfgPath, Source: SourceProject}
	ignoredCfg := Untrusted{Path: cfgPath, Kind: trust.KindFile, TrustDir: dir, Ignored: []string{
		`grants "npm test **"`, `roots "` + filepath.Join(filepath.Dir(dir), "shared") + `"`, `read_only_programs "mytool"`, `remote_reads "gh"`, "replace_default_deny_reads: true", "shell: bash",
	}}
	ignoredDir := Untrusted{Path: pol, Kind: trust.KindDir, TrustDir: dir, Ignored: []string{"any allow (grant) its Rego modules produce, and every rule they add besides deny and ask"}}
	mods := map[string]string{filepath.Join(pol, "a.rego"): "package shellgate\n"}

	_, entries, err := ProjectEntries(filepath.Join(dir), time.Now())
	if err != nil || len(entries) != 2 {
		t.Fatalf("ProjectEntries: %v %v", entries, err)
	}
	storeWith := func(es ...trust.Entry) *trust.Store {
		s := &trust.Store{Version: trust.Version}
		for _, e := range es {
			s.Add(e)
		}
		return s
	}
	opts := cmp.Options{cmpopts.IgnoreUnexported(Config{}), cmpopts.EquateEmpty()}
	for _, tc := range []struct {
		name     string
		cfg      *Config
		store    *trust.Store
		storeErr error
		want     Resolved
	}{
		{name: "explicit", cfg: load(SourceExplicit), store: nil,
			want: Resolved{Config: load(SourceExplicit), PolicyDirs: []string{pol}}},
		{name: "user", cfg: load(SourceUser), store: nil,
			want: Resolved{Config: load(SourceUser), PolicyDirs: []string{pol}}},
		{name: "project, nothing trusted", cfg: load(SourceProject), store: storeWith(),
			want: Resolved{Config: tight, Full: load(SourceProject), UntrustedModules: mods, Untrusted: []Untrusted{ignoredCfg, ignoredDir}}},
		{name: "project, trusted", cfg: load(SourceProject), store: storeWith(entries...),
			want: Resolved{Config: load(SourceProject), Modules: mods}},
		{name: "project, only the config trusted", cfg: load(SourceProject), store: storeWith(entries[0]),
			want: Resolved{Config: load(SourceProject), UntrustedModules: mods, Untrusted: []Untrusted{ignoredDir}}},
		{name: "project, only the dir trusted", cfg: load(SourceProject), store: storeWith(entries[1]),
			want: Resolved{Config: tight, Full: load(SourceProject), Modules: mods, Untrusted: []Untrusted{ignoredCfg}}},
		{name: "project, another digest", cfg: load(SourceProject), store: storeWith(trust.Entry{Path: cfgPath, Kind: trust.KindFile, SHA256: strings.Repeat("0", 64)}, entries[1]),
			want: Resolved{Config: tight, Full: load(SourceProject), Modules: mods, Untrusted: []Untrusted{ignoredCfg}}},
		{name: "project, store refused", cfg: load(SourceProject), store: storeWith(entries...), storeErr: errors.New("spoiled"),
			want: Resolved{Config: tight, Full: load(SourceProject), UntrustedModules: mods, Untrusted: []Untrusted{ignoredCfg, ignoredDir}, StoreError: errors.New("spoiled")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveWith(tc.cfg, tc.store, "store", tc.storeErr)
			if err != nil {
				t.Fatal(err)
			}
			if (got.StoreError == nil) != (tc.want.StoreError == nil) {
				t.Errorf("store error %v, want %v", got.StoreError, tc.want.StoreError)
			}
			got.StoreError, got.StorePath = nil, ""
			tc.want.StoreError = nil
			if diff := cmp.Diff(&tc.want, got, opts); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got.Config.Source == SourceProject && got.Full == nil && got.Config != tc.cfg {
				t.Error("a trusted project config is not used as it is")
			}
		})
	}

	// A project config that only tightens needs no trust.
	only := &Config{Mode: ModeDefault, DenyReads: []string{"x"}, Path: cfgPath, Source: SourceProject}
	r, err := ResolveWith(only, nil, "", nil)
	if err != nil || len(r.Untrusted) != 0 || r.Full != nil {
		t.Errorf("a tightening-only config: %+v %v", r, err)
	}
	if m := (&Resolved{Untrusted: []Untrusted{ignoredCfg}}).Message(); !strings.Contains(m, "shellgate trust "+dir) || !strings.Contains(m, `grants "npm test **"`) {
		t.Errorf("message %q", m)
	}
	if got := (Untrusted{TrustDir: "/a b/it's"}).TrustCommand(); got != `shellgate trust '/a b/it'\''s'` {
		t.Errorf("TrustCommand quoting: %s", got)
	}
}

func TestFindConfigSource(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	proj := filepath.Join(home, "proj", "sub")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(home, ".config", "shellgate", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(user), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(user, []byte("mode: default\n"), 0o644)
	if p, src, err := FindConfigSource(proj); err != nil || p != user || src != SourceUser {
		t.Errorf("user config: %q %q %v", p, src, err)
	}
	pc := filepath.Join(home, "proj", ConfigFileName)
	os.WriteFile(pc, []byte("mode: default\n"), 0o644)
	if p, src, err := FindConfigSource(proj); err != nil || p != pc || src != SourceProject {
		t.Errorf("project config: %q %q %v", p, src, err)
	}
	c, err := LoadConfigFor("", proj)
	if err != nil || c.Source != SourceProject || c.SHA256() != trust.Sum([]byte("mode: default\n")) {
		t.Errorf("LoadConfigFor: %+v %v", c, err)
	}
	if c, err := LoadConfigFor(pc, proj); err != nil || c.Source != SourceExplicit {
		t.Errorf("LoadConfigFor explicit: %+v %v", c, err)
	}
}

// TestLoadConfigNotRegular: a FIFO (or a huge file) named as a config is
// an error at once, never a read that blocks.
func TestLoadConfigNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, ConfigFileName)
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	if _, err := LoadConfigFrom(fifo, SourceProject); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a FIFO: %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, MaxConfigBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(big); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("a huge config: %v", err)
	}
}
