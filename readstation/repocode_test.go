package readstation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRepoCode: project files through which a program runs code the
// repository chose are found from the directory it runs in up to the
// root, by their existence or by a line that names code.
func TestRepoCode(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	files := map[string]string{
		"mono/.pnpmfile.cjs":             "module.exports = {}\n",
		"mono/packages/app/package.json": "{}\n",
		"berry/.yarnrc.yml":              "nodeLinker: node-modules\nplugins:\n  - path: .yarn/plugins/x.cjs\n",
		"classic/.yarnrc":                "yarn-path \"./bin/yarn.js\"\n",
		"clean/.yarnrc.yml":              "nodeLinker: pnp\n",
		"clean/rust-toolchain.toml":      "[toolchain]\nchannel = \"stable\"\n",
		"rust/rust-toolchain.toml":       "[toolchain]\n  path = \"/opt/evil-toolchain\"\n",
		"npmrc/.npmrc":                   "global-pnpmfile = /tmp/x.cjs\n",
	}
	writeTree(t, dir, files)
	// A project file that cannot be read is not established.
	must(t, os.MkdirAll(filepath.Join(dir, "odd", ".pnpmfile.mjs"), 0o755))
	tests := []struct {
		cmd, cwd string
		want     []string
	}{
		{cmd: "pnpm list", cwd: "mono", want: []string{"$T/mono/.pnpmfile.cjs"}},
		{cmd: "pnpm why x", cwd: "mono/packages/app", want: []string{"$T/mono/.pnpmfile.cjs"}},
		{cmd: "cd packages/app && pnpm list", cwd: "mono", want: []string{"$T/mono/.pnpmfile.cjs"}},
		{cmd: "pnpm -C mono list", want: []string{"$T/mono/.pnpmfile.cjs"}},
		{cmd: "pnpm list", cwd: "npmrc", want: []string{"pnpmfile=global-pnpmfile = /tmp/x.cjs in $T/npmrc/.npmrc"}},
		{cmd: "yarn list", cwd: "berry", want: []string{"plugins=plugins: in $T/berry/.yarnrc.yml"}},
		{cmd: "yarn why x", cwd: "classic", want: []string{`yarn-path=yarn-path "./bin/yarn.js" in $T/classic/.yarnrc`}},
		{cmd: "cargo --version", cwd: "rust", want: []string{`path=path = "/opt/evil-toolchain" in $T/rust/rust-toolchain.toml`}},
		{cmd: "yarn list && rustc --version", cwd: "clean", want: []string{}},
		{cmd: "pnpm list", cwd: "clean", want: []string{}},
		{cmd: "cat package.json", cwd: "mono", want: []string{}},
		{cmd: "pnpm list", cwd: "odd", want: []string{"not-established: pnpm list reads $T/odd/.pnpmfile.mjs, which cannot be read (it is a directory), so whether it runs code the repository chose cannot be established"}},
	}
	for _, tc := range tests {
		t.Run(tc.cwd+" "+tc.cmd, func(t *testing.T) {
			cwd := filepath.Join(dir, tc.cwd)
			st := judge(t, tc.cmd, Boundary{Roots: []string{dir}, Cwd: cwd, Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows})
			got := []string{}
			for _, h := range st.RepoHelpers {
				s := h.File
				if h.Key != "" {
					s = h.Key + "=" + h.Value + " in " + h.File
				}
				got = append(got, strings.ReplaceAll(s, dir, "$T"))
			}
			for _, r := range st.Reads {
				if r.Source == "repository" {
					got = append(got, strings.ReplaceAll(string(r.Verdict)+": "+r.Message, dir, "$T"))
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s: (-want +got):\n%s", tc.cmd, d)
			}
		})
	}
}
