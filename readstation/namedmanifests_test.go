package readstation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNamedManifestsAndUserSite: the files the redrepo3 traps planted, as
// the station judges them (corpus/confirm's hostile traps run the real
// programs): the go.mod of a directory go.work uses or a replace names,
// the Cargo.toml of a crate a manifest names by a path, pyenv's
// .python-version, linked to a secret, are denied reads (a regular file is
// not); the user's site-packages directory asks for pip, unless
// PYTHONNOUSERSITE is set.
func TestNamedManifestsAndUserSite(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	home := filepath.Join(dir, "home")
	files := map[string]string{
		"home/.vault-token": "hvs.secret\n",
		"home/.netrc":       "machine x password y\n",
		"home/site/.local/lib/python3.11/site-packages/sg.pth": "import os\n",
		// Go: a workspace whose second module's go.mod is a link; a
		// module whose replacement's go.mod is; plain ones.
		"gowork/go.work":            "go 1.21\n\nuse (\n\t.\n\t./sub\n)\n",
		"gowork/go.mod":             "module example.com/a\n\ngo 1.21\n",
		"gorepl/go.mod":             "module example.com/a\n\ngo 1.21\n\nrequire example.com/r v0.0.0\n\nreplace example.com/r => ../gorepl-r\n",
		"goplain/go.work":           "go 1.21\n\nuse ./m\n",
		"goplain/m/go.mod":          "module example.com/m\n\ngo 1.21\n\nreplace example.com/r v1.0.0 => example.com/fork v1.0.1\n",
		"cargodep/Cargo.toml":       "[package]\nname = \"a\"\nversion = \"0.1.0\"\n\n[target.'cfg(unix)'.dependencies]\nsub = { path = \"sub\" }\n\n[lib]\npath = \"src/lib.rs\"\n",
		"cargomem/Cargo.toml":       "[workspace]\nmembers = [\"crates/*\"]\n",
		"cargomem/crates/a/x":       "",
		"cargochain/Cargo.toml":     "[workspace]\nmembers = [\"a\"]\n",
		"cargochain/a/Cargo.toml":   "[package]\nname = \"a\"\nversion = \"0.1.0\"\n[dev-dependencies.b]\npath = \"../b\"\n",
		"cargoplain/Cargo.toml":     "[package]\nname = \"a\"\nversion = \"0.1.0\"\n[dependencies]\nsub = { path = \"sub\" }\n",
		"cargoplain/sub/Cargo.toml": "[package]\nname = \"sub\"\nversion = \"0.1.0\"\n",
		"pyenv/.python-version":     "",
		"pyenvok/.python-version":   "3.11.7\n",
	}
	for p, c := range files {
		full := filepath.Join(dir, p)
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		if c != "" || strings.HasSuffix(p, "/x") {
			must(t, os.WriteFile(full, []byte(c), 0o644))
		}
	}
	link := func(target, p string) {
		full := filepath.Join(dir, p)
		must(t, os.MkdirAll(filepath.Dir(full), 0o755))
		must(t, os.Symlink(filepath.Join(home, target), full))
	}
	link(".vault-token", "gowork/sub/go.mod")
	link(".vault-token", "gorepl-r/go.mod")
	link(".netrc", "cargodep/sub/Cargo.toml")
	link(".netrc", "cargomem/crates/a/Cargo.toml")
	link(".netrc", "cargochain/b/Cargo.toml")
	link(".vault-token", "pyenv/.python-version")

	tests := []struct {
		cmd, cwd string
		env      EnvMap
		want     []string
	}{
		{cmd: "go list ./...", cwd: "gowork", want: []string{"gowork/sub/go.mod denied"}},
		{cmd: "go list -m all", cwd: "gorepl", want: []string{"gorepl-r/go.mod denied"}},
		{cmd: "go list ./...", cwd: "goplain/m", want: []string{}},
		{cmd: "cargo metadata --frozen", cwd: "cargodep", want: []string{"cargodep/sub/Cargo.toml denied"}},
		{cmd: "cargo tree --frozen", cwd: "cargomem", want: []string{"cargomem/crates/a/Cargo.toml denied"}},
		{cmd: "cargo tree --frozen", cwd: "cargochain/a", want: []string{"cargochain/b/Cargo.toml denied"}},
		{cmd: "cargo metadata --frozen", cwd: "cargoplain", want: []string{}},
		{cmd: "python --version", cwd: "pyenv", want: []string{"pyenv/.python-version denied"}},
		{cmd: "python3 --version", cwd: "pyenvok", want: []string{}},
		{cmd: "pip --version", cwd: "pyenvok", env: EnvMap{"PYTHONUSERBASE": "$T/home/site/.local"}, want: []string{"helper home/site/.local/lib/python3.11/site-packages"}},
		{cmd: "pip --version", cwd: "pyenvok", env: EnvMap{"PYTHONUSERBASE": "$T/home/site/.local", "PYTHONNOUSERSITE": "1"}, want: []string{}},
		{cmd: "yq . f.yaml", cwd: "pyenvok", env: EnvMap{"PYTHONUSERBASE": "$T/home/site/.local"}, want: []string{"helper home/site/.local/lib/python3.11/site-packages"}},
		{cmd: "pip --version", cwd: "pyenvok", want: []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.cwd+" "+tc.cmd, func(t *testing.T) {
			env := EnvMap{"PATH": "", "XDG_CONFIG_HOME": "", "GOENV": "off", "GOROOT": "", "GOWORK": "", "GOTOOLCHAIN": "local", "GO111MODULE": "",
				"GOPROXY": "off", "GOFLAGS": "", "TMPDIR": "", "CARGO_HOME": "", "RUSTUP_TOOLCHAIN": "", "RUSTUP_HOME": "", "RUSTUP_AUTO_INSTALL": "0",
				"PYTHONUSERBASE": "", "PYTHONNOUSERSITE": "", "VIRTUAL_ENV": "", "PIP_CONFIG_FILE": ""}
			for k, v := range tc.env {
				env[k] = strings.ReplaceAll(v, "$T", dir)
			}
			st := judge(t, tc.cmd, Boundary{Roots: []string{dir}, Cwd: filepath.Join(dir, tc.cwd), Home: home, DenyRows: DefaultDenyRows, Env: env})
			got := []string{}
			for _, r := range st.Reads {
				if r.Verdict != VerdictOK && r.Source == "repository" {
					got = append(got, strings.TrimPrefix(r.Path, dir+"/")+" "+string(r.Verdict))
				}
			}
			for _, h := range st.RepoHelpers {
				got = append(got, "helper "+strings.TrimPrefix(h.File, dir+"/"))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
