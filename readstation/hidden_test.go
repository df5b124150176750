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
// root, by their existence or by a line that names code (catalog
// hidden_inputs in the project).
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
		"rustup/settings.toml":           "default_toolchain = \"stable-x86_64-unknown-linux-gnu\"\n",
		"rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/components": "rustc-x86_64-unknown-linux-gnu\n",
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
		{cmd: "yarn list", cwd: "berry", want: []string{`plugins=plugins = [{"path":".yarn/plugins/x.cjs"}] in $T/berry/.yarnrc.yml`}},
		{cmd: "yarn why x", cwd: "classic", want: []string{`yarn-path=yarn-path "./bin/yarn.js" in $T/classic/.yarnrc`}},
		{cmd: "cargo --version", cwd: "rust", want: []string{`path=path = "/opt/evil-toolchain" in $T/rust/rust-toolchain.toml`}},
		{cmd: "yarn list && rustc --version", cwd: "clean", want: []string{}},
		{cmd: "pnpm list", cwd: "clean", want: []string{}},
		{cmd: "cat package.json", cwd: "mono", want: []string{}},
		{cmd: "pnpm list", cwd: "odd", want: []string{"not-established: pnpm list reads $T/odd/.pnpmfile.mjs, which cannot be read (it is a directory), so whether it runs code or reaches the network a file chose cannot be established"}},
	}
	for _, tc := range tests {
		t.Run(tc.cwd+" "+tc.cmd, func(t *testing.T) {
			cwd := filepath.Join(dir, tc.cwd)
			st := judge(t, tc.cmd, Boundary{Roots: []string{dir}, Cwd: cwd, Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows,
				Env: EnvMap{"RUSTUP_HOME": filepath.Join(dir, "rustup"), "RUSTUP_TOOLCHAIN": "", "RUSTUP_AUTO_INSTALL": ""}})
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

// judgeHidden judges cmd in dir/cwd with the environment base, a row's
// env over it ("?" makes a variable not known, $T stands for dir), and
// holds the hidden inputs found to want.
func judgeHidden(t *testing.T, dir, cwd, cmd string, base, row EnvMap, want []string) {
	t.Helper()
	for k, v := range row {
		if v == "?" {
			delete(base, k)
			continue
		}
		base[k] = strings.ReplaceAll(v, "$T", dir)
	}
	st := judge(t, cmd, Boundary{Roots: []string{dir}, Cwd: filepath.Join(dir, cwd), Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows, Env: base})
	if d := cmp.Diff(want, hiddenGot(st, dir)); d != "" {
		t.Errorf("%s: (-want +got):\n%s", cmd, d)
	}
}

// hiddenGot renders a station's hidden-input findings for a test: each
// helper as "KEY FILE: WHY => DOES", each not-established repository read
// as "not-established: MESSAGE", $T for the test's directory.
func hiddenGot(st *Station, dir string) []string {
	got := []string{}
	for _, h := range st.RepoHelpers {
		s := h.Key + " " + h.File
		if h.Does != "" {
			s += ": " + h.Why + " => " + h.Does
		}
		got = append(got, strings.ReplaceAll(s, dir, "$T"))
	}
	for _, r := range st.Reads {
		if r.Source == "repository" {
			got = append(got, strings.ReplaceAll(string(r.Verdict)+": "+r.Message, dir, "$T"))
		}
	}
	return got
}

// TestHiddenInputs: the catalog's hidden inputs of read-only programs, in
// the project, its parents and the home directory, each planted once; the
// same command in a plain directory finds none.
func TestHiddenInputs(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	exe := func(p string) {
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755))
	}
	writeTree(t, dir, map[string]string{
		"plain/f.txt":        "x\n",
		"plain/package.json": "{}\n",
		// home directories, one per planted file
		"h-pip/.config/pip/pip.conf":                   "[global]\npython = /tmp/evil\n",
		"h-pipok/.config/pip/pip.conf":                 "[global]\nindex-url = https://example.com/simple\n",
		"h-kube/.kube/config":                          "users:\n- name: u\n  user:\n    exec:\n      command: /tmp/evil\n",
		"h-kubeok/.kube/config":                        "users:\n- name: u\n  user:\n    token: x\n",
		"h-docker/.docker/contexts/meta/abc/meta.json": `{"Name":"r","Endpoints":{"docker":{"Host":"ssh://me@host"}}}`,
		"h-dockerhooks/.docker/config.json":            `{"plugins":{"evil":{"hooks":"ps"}}}`,
		"h-jq/.jq":                                     "def length: $ENV;\n",
		"h-less/.lesskey":                              "#env\nLESSOPEN=|/tmp/evil %s\n",
		"h-svn/.subversion/config":                     "[helpers]\ndiff-cmd = /tmp/evil\n",
		"h-zsh/.zshenv":                                "touch /tmp/pwned\n",
		"h-cargo/.cargo/config.toml":                   "[registry]\nglobal-credential-providers = [\"/tmp/evil\"]\n",
		// Other spellings of the same keys (redteam: each ran the program).
		"h-kubejson/.kube/config":                         `{"users":[{"name":"u","user":{"exec":{"command":"/tmp/evil"}}}]}`,
		"h-kubeflow/.kube/config":                         "users: [{name: u, user: {exec: {command: /tmp/evil}}}]\n",
		"h-dockerlc/.docker/contexts/meta/abc/meta.json":  `{"name":"r","endpoints":{"docker":{"host":"ssh://me@host"}}}`,
		"h-dockeresc/.docker/contexts/meta/abc/meta.json": `{"Name":"r","Endpoints":{"docker":{"Host":"\u0073sh://me@host"}}}`,
		"h-aws/.aws/config":                               "[default]\nCredential_Process : /tmp/evil\n",
		"h-awsok/.aws/config":                             "[default]\nregion = us-east-1\n",
		"h-pipcase/.config/pip/pip.conf":                  "[global]\nPython: /tmp/evil\n",
		"h-cargocred/.cargo/config.toml":                  "registry = { \"global-credential-providers\" = [\"/tmp/evil\"] }\n",
		// project files
		"hg/.hg/hgrc":              "[hooks]\npre-version = /tmp/evil\n",
		"hgok/.hg/hgrc":            "[paths]\ndefault = https://example.com/r\n",
		"deno/deno.json":           `{"lint": {"plugins": ["./evil.ts"]}}`,
		"pnpm/package.json":        `{"packageManager": "pnpm@9.0.0"}`,
		"corepack/package.json":    `{"packageManager": "yarn@4.0.0"}`,
		"volta/package.json":       `{"volta": {"node": "99.0.0"}}`,
		"cargo/.cargo/config.toml": "[registry]\ncredential-provider = \"/tmp/evil\"\n",
	})
	// A yarn that is corepack's shim, and one that is not; a volta shim.
	exe(filepath.Join(dir, "corepack-lib/corepack/shims/yarn"))
	must(t, os.MkdirAll(filepath.Join(dir, "bin-corepack"), 0o755))
	must(t, os.Symlink(filepath.Join(dir, "corepack-lib/corepack/shims/yarn"), filepath.Join(dir, "bin-corepack/yarn")))
	exe(filepath.Join(dir, "bin-plain/yarn"))
	exe(filepath.Join(dir, "bin-plain/node"))
	exe(filepath.Join(dir, ".volta/bin/volta-shim"))
	must(t, os.Symlink(filepath.Join(dir, ".volta/bin/volta-shim"), filepath.Join(dir, "bin-plain/vnode")))
	must(t, os.MkdirAll(filepath.Join(dir, "bin-volta"), 0o755))
	must(t, os.Symlink(filepath.Join(dir, ".volta/bin/volta-shim"), filepath.Join(dir, "bin-volta/node")))
	tests := []struct {
		cmd, cwd, home string
		env            EnvMap
		want           []string
	}{
		{cmd: "pip list", home: "h-pip", want: []string{`python $T/h-pip/.config/pip/pip.conf: sets python ("python = /tmp/evil") => run itself again with the Python interpreter it names`}},
		{cmd: "pip freeze", home: "h-pipok", want: []string{}},
		{cmd: "pip list", home: "h-pipok", env: EnvMap{"PIP_CONFIG_FILE": "$T/h-pip/.config/pip/pip.conf"}, want: []string{`python $T/h-pip/.config/pip/pip.conf: sets python ("python = /tmp/evil") => run itself again with the Python interpreter it names`}},
		{cmd: "kubectl get pods", home: "h-kube", want: []string{`users.0.user.exec $T/h-kube/.kube/config: sets users.0.user.exec = {"command":"/tmp/evil"} => run the credential program it names`}},
		{cmd: "kubectl get pods", home: "h-kube", env: EnvMap{"KUBECONFIG": "$T/h-kubeok/.kube/config"}, want: []string{}},
		{cmd: "kubectl get pods", home: "h-kubeok", want: []string{}},
		{cmd: "kubectl get pods", home: "h-kubeok", env: EnvMap{"KUBECONFIG": "$T/h-kubeok/.kube/config:$T/h-kube/.kube/config"}, want: []string{`users.0.user.exec $T/h-kube/.kube/config: sets users.0.user.exec = {"command":"/tmp/evil"} => run the credential program it names`}},
		{cmd: "docker ps", home: "h-docker", want: []string{`Endpoints.docker.Host $T/h-docker/.docker/contexts/meta/abc/meta.json: sets Endpoints.docker.Host = "ssh://me@host" => reach the engine at the host it names (ssh:// runs ssh, tcp:// connects to it), when that context is the current one`}},
		{cmd: "docker images", home: "h-dockerhooks", want: []string{`plugins.evil.hooks $T/h-dockerhooks/.docker/config.json: sets plugins.evil.hooks = "ps" => run the CLI plugins whose hooks it lists after the command`}},
		{cmd: "docker ps", home: "h-jq", env: EnvMap{"DOCKER_CONFIG": "$T/h-docker/.docker"}, want: []string{`Endpoints.docker.Host $T/h-docker/.docker/contexts/meta/abc/meta.json: sets Endpoints.docker.Host = "ssh://me@host" => reach the engine at the host it names (ssh:// runs ssh, tcp:// connects to it), when that context is the current one`}},
		{cmd: "jq . f.txt", home: "h-jq", want: []string{` $T/h-jq/.jq: exists => load the definitions it holds into every jq program, where they can replace any builtin (and print $ENV, the environment)`}},
		{cmd: "less f.txt", home: "h-less", want: []string{`LESSOPEN $T/h-less/.lesskey: sets LESSOPEN ("LESSOPEN=|/tmp/evil %s") => run the input preprocessor it names on the file`}},
		// The environment's LESSOPEN (Debian's lesspipe), set or not known.
		{cmd: "less f.txt", env: map[string]string{"LESSOPEN": "| /usr/bin/lesspipe %s"}, want: []string{`LESSOPEN $LESSOPEN: is set to "| /usr/bin/lesspipe %s" => run the input preprocessor it names on the file`}},
		{cmd: "less f.txt", env: map[string]string{"LESSCLOSE": "?"}, want: []string{`not-established: less obeys $LESSCLOSE, whose value is not known, so whether it runs a program the variable names cannot be established`}},
		{cmd: "svn diff", home: "h-svn", want: []string{`diff-cmd $T/h-svn/.subversion/config: sets diff-cmd ("diff-cmd = /tmp/evil") => run the diff program it names (svn diff)`}},
		{cmd: "zsh -c 'ls'", home: "h-zsh", want: []string{` $T/h-zsh/.zshenv: exists => source it before the script (zsh runs .zshenv for every shell)`}},
		{cmd: "zsh -c 'ls'", home: "h-zsh", env: EnvMap{"ZDOTDIR": "$T/h-jq"}, want: []string{}},
		{cmd: "cargo search serde", home: "h-cargo", want: []string{`registry.global-credential-providers $T/h-cargo/.cargo/config.toml: sets registry.global-credential-providers = ["/tmp/evil"] => run the credential provider it names for a registry token`}},
		{cmd: "cargo search serde", cwd: "cargo", want: []string{`registry.credential-provider $T/cargo/.cargo/config.toml`}},
		{cmd: "kubectl get pods", home: "h-kubejson", want: []string{`users.0.user.exec $T/h-kubejson/.kube/config: sets users.0.user.exec = {"command":"/tmp/evil"} => run the credential program it names`}},
		{cmd: "kubectl get pods", home: "h-kubeflow", want: []string{`users.0.user.exec $T/h-kubeflow/.kube/config: sets users.0.user.exec = {"command":"/tmp/evil"} => run the credential program it names`}},
		{cmd: "docker ps", home: "h-dockerlc", want: []string{`endpoints.docker.host $T/h-dockerlc/.docker/contexts/meta/abc/meta.json: sets endpoints.docker.host = "ssh://me@host" => reach the engine at the host it names (ssh:// runs ssh, tcp:// connects to it), when that context is the current one`}},
		{cmd: "docker ps", home: "h-dockeresc", want: []string{`Endpoints.docker.Host $T/h-dockeresc/.docker/contexts/meta/abc/meta.json: sets Endpoints.docker.Host = "ssh://me@host" => reach the engine at the host it names (ssh:// runs ssh, tcp:// connects to it), when that context is the current one`}},
		{cmd: "aws s3 ls", home: "h-aws", want: []string{`credential_process or plugins $T/h-aws/.aws/config: sets credential_process or plugins ("Credential_Process : /tmp/evil") => run the credential program it names`}},
		{cmd: "aws s3 ls", home: "h-awsok", want: []string{}},
		{cmd: "pip list", home: "h-pipcase", want: []string{`python $T/h-pipcase/.config/pip/pip.conf: sets python ("Python: /tmp/evil") => run itself again with the Python interpreter it names`}},
		{cmd: "cargo search serde", home: "h-cargocred", want: []string{`registry.global-credential-providers $T/h-cargocred/.cargo/config.toml: sets registry.global-credential-providers = ["/tmp/evil"] => run the credential provider it names for a registry token`}},
		{cmd: "hg --version", cwd: "hg", want: []string{`extensions or hooks $T/hg/.hg/hgrc: sets extensions or hooks ("[hooks]") => load the extensions (Python code) or run the hooks it names`}},
		{cmd: "hg --version", cwd: "hgok", want: []string{}},
		{cmd: "deno lint", cwd: "deno", want: []string{`lint.plugins $T/deno/deno.json: sets lint.plugins ("{\"lint\": {\"plugins\": [\"./evil.ts\"]}}") => load and run the lint plugins it names`}},
		{cmd: "pnpm list", cwd: "pnpm", want: []string{`packageManager $T/pnpm/package.json: sets packageManager = "pnpm@9.0.0" => download and run the pnpm release it names, when it is not the pnpm installed`}},
		{cmd: "yarn list", cwd: "corepack", env: EnvMap{"PATH": "$T/bin-corepack"}, want: []string{`packageManager $T/corepack/package.json: sets packageManager = "yarn@4.0.0" => have corepack download and run the Yarn release it names`}},
		{cmd: "yarn list", cwd: "corepack", env: EnvMap{"PATH": "$T/bin-plain"}, want: []string{}},
		{cmd: "node --version", cwd: "volta", env: EnvMap{"PATH": "$T/bin-volta"}, want: []string{`volta $T/volta/package.json: sets volta = {"node":"99.0.0"} => have volta's shim download and run the Node.js release it pins`}},
		{cmd: "node --version", cwd: "volta", env: EnvMap{"PATH": "$T/bin-plain"}, want: []string{}},
		// The plain workspace and home: nothing.
		{cmd: "pip list && kubectl get pods && docker ps && jq . f.txt && less f.txt && svn diff && zsh -c ls && hg --version && deno lint && pnpm list && yarn list && node --version && cargo search x", want: []string{}},
		// A variable the station does not know is not established.
		{cmd: "kubectl get pods", home: "h-kubeok", env: EnvMap{"KUBECONFIG": "?"}, want: []string{"not-established: kubectl get reads the file $KUBECONFIG names, whose value is not known, so whether it runs code or reaches the network a file chose cannot be established"}},
	}
	for _, tc := range tests {
		t.Run(tc.cwd+" "+tc.home+" "+tc.cmd, func(t *testing.T) {
			cwd := filepath.Join(dir, cmpOr(tc.cwd, "plain"))
			home := filepath.Join(dir, cmpOr(tc.home, "plain"))
			env := EnvMap{"PATH": "", "XDG_CONFIG_HOME": "", "VIRTUAL_ENV": "", "PIP_CONFIG_FILE": "", "KUBECONFIG": "", "DOCKER_CONFIG": "",
				"LESSKEYIN": "", "LESSKEY": "", "LESSOPEN": "", "LESSCLOSE": "", "ZDOTDIR": "", "CARGO_HOME": "", "RUSTUP_TOOLCHAIN": "stable", "RUSTUP_AUTO_INSTALL": "", "RUSTUP_HOME": "", "AWS_CONFIG_FILE": "", "PYTHONUSERBASE": "", "PYTHONNOUSERSITE": ""}
			for k, v := range tc.env {
				if v == "?" {
					delete(env, k)
					continue
				}
				env[k] = strings.ReplaceAll(v, "$T", dir)
			}
			st := judge(t, tc.cmd, Boundary{Roots: []string{dir}, Cwd: cwd, Home: home, DenyRows: DefaultDenyRows, Env: env})
			if d := cmp.Diff(tc.want, hiddenGot(st, dir)); d != "" {
				t.Errorf("%s: (-want +got):\n%s", tc.cmd, d)
			}
		})
	}
}
