package readstation

import (
	"strings"
	"testing"

	"github.com/shellgate/shellgate/classify"
)

// TestCatalogDrivesTheStation gives programs the station has never heard
// of walk and producer rules by a catalog edit alone, and checks that the
// station honours them: it reads the segment's facts, not program names.
// "walker" reads trees (operands tree...); the fixture's cfg holds .env
// (denied) and app.yaml.
func TestCatalogDrivesTheStation(t *testing.T) {
	t.Setenv("RIPGREP_CONFIG_PATH", "")
	f := newFixture(t)
	const base = `
programs:
  - name: walker
    read_only: true
    implicit: "."
    options:
      - names: [--all, -a]
      - names: [--skip, -x]
        value: required
      - names: [-l]
    operands: [tree...]
`
	tests := []struct {
		name, yaml, cmd string
		want            string // verdict and row of the first read
		msg             string // in its message, when set
	}{
		{"no walk: judged whole", "", "walker cfg", "denied **/.env", ""},
		{"names only", "    walk: {names_only: true}\n", "walker cfg", "ok", ""},
		{"hidden skipped", "    walk: {hidden: {shown_by: [-a]}}\n", "walker cfg", "ok", ""},
		{"hidden shown by a cluster", "    walk: {hidden: {shown_by: [-a]}}\n", "walker -la cfg", "denied **/.env", ""},
		{"file exclude", "    walk: {excludes: [{option: --skip, kind: file}]}\n", "walker -x .env cfg", "ok", ""},
		{"dir exclude skips no file", "    walk: {excludes: [{option: --skip, kind: dir}]}\n", "walker -x .env cfg", "denied **/.env", ""},
		{"exclude hint", "    walk: {exclude_hint: exclude it with -x NAME}\n", "walker cfg", "denied **/.env", "exclude it with -x NAME"},
		{"default hint", "", "walker cfg", "denied **/.env", "narrow the path"},
		{"not a producer", "", "walker -l | xargs cat", "not-established", "not a trusted producer"},
		{"producer without its option", "    produces_paths: {any_of: [-l], default_root: cwd}\n", "walker | xargs cat", "not-established", "without one of -l"},
		{"producer", "    produces_paths: {any_of: [-l], default_root: cwd}\n", "walker -l | xargs cat", "denied **/*.pem", "bounded by its roots"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ext, err := classify.ParseCatalog([]byte(base+tc.yaml), "test.yaml")
			must(t, err)
			cat, err := classify.DefaultCatalog().Extend(ext)
			must(t, err)
			r := classify.Classify(tc.cmd, classify.WithCatalog(cat))
			st := Judge(r, f.boundary(t, "proj"))
			if len(st.Reads) == 0 {
				t.Fatalf("%s: no read", tc.cmd)
			}
			rd := &st.Reads[len(st.Reads)-1] // the read fed by the producer, when there is one
			if got := strings.TrimSpace(string(rd.Verdict) + " " + rd.Row); got != tc.want {
				t.Errorf("%s: %q (%s), want %q", tc.cmd, got, rd.Message, tc.want)
			}
			if !strings.Contains(rd.Message, tc.msg) {
				t.Errorf("%s: message %q does not say %q", tc.cmd, rd.Message, tc.msg)
			}
		})
	}
}

// TestCatalogConfigEnv: a walk's config_env, when set, may show hidden
// names, so they are judged.
func TestCatalogConfigEnv(t *testing.T) {
	f := newFixture(t)
	ext, err := classify.ParseCatalog([]byte(`
programs:
  - name: walker
    read_only: true
    options: [{names: [-a]}]
    operands: [tree...]
    walk: {hidden: {shown_by: [-a], config_env: WALKER_TEST_CONFIG}}
`), "test.yaml")
	must(t, err)
	cat, err := classify.DefaultCatalog().Extend(ext)
	must(t, err)
	for _, env := range []struct{ value, want string }{{"", "ok"}, {"/x/config", "denied"}} {
		t.Setenv("WALKER_TEST_CONFIG", env.value)
		st := Judge(classify.Classify("walker cfg", classify.WithCatalog(cat)), f.boundary(t, "proj"))
		if len(st.Reads) != 1 || string(st.Reads[0].Verdict) != env.want {
			t.Errorf("WALKER_TEST_CONFIG=%q: %+v, want %s", env.value, st.Reads, env.want)
		}
	}
}
