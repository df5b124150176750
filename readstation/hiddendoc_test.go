package readstation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHiddenDocSpellings: hidden inputs with a format are read as the
// program reads the document. Spellings a line pattern could not tell
// from harmless text ask (TOML 1.1's \x escape, which cargo 1.95 reads; a
// key whose table opens on one line and names it on the next; JSON's
// \u-escaped key; a YAML anchor); a key's name in a comment, a value or
// another table does not; a file that does not decode is not established.
func TestHiddenDocSpellings(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	const rustcDoes = " => run the program it names as rustc, or rustc with the environment it sets"
	const kubeDoes = " => run the credential program it names"
	const dockerDoes = " => reach the engine at the host it names (ssh:// runs ssh, tcp:// connects to it), when that context is the current one"
	files := map[string]string{
		"plain/f":         "",
		"home/.keep":      "",
		"xesc/Cargo.toml": "[package]\nname = \"x\"\n",
		// TOML 1.1 (cargo 1.95): a \x escape, no "rustc" and no \u.
		"xesc/.cargo/config.toml": "build = { \"\\x72ust\\x63-wrapper\" = \"/tmp/evil\" }\n",
		// An inline table over several lines (TOML 1.1): the key's table
		// and the key on different lines.
		"split/.cargo/config.toml":  "build = {\n  \"\\x72ustc-wrapper\" = \"/tmp/evil\",\n}\n",
		"dotted/.cargo/config.toml": "build . rustc = '/tmp/evil'\n",
		"env/.cargo/config.toml":    "[ \"env\" ]\nLD_PRELOAD = \"/tmp/evil.so\"\n",
		"incl/.cargo/config.toml":   "include = [\n  \"other.toml\",\n]\n",
		"wsw/.cargo/config":         "[build]\nrustc-workspace-wrapper = \"/tmp/evil\"\n",
		// The names only in comments, values and other tables: allowed
		// (the line pattern asked for each).
		"benign/.cargo/config.toml": "# rustc-wrapper = \"/tmp/evil\"\n[build]\njobs = 4 # [env] include rustc\n[alias]\nrustc-info = \"tree --env rustc-wrapper\"\n[target.x86_64-unknown-linux-gnu]\nrustflags = [\"-Cinclude=1\"]\n",
		"broken/.cargo/config.toml": "[build\nrustc-wrapper = \"/tmp/evil\"\n",
		// kubeconfig: JSON with the key escaped; YAML with an anchor.
		"h-kubeesc/.kube/config":    `{"users":[{"name":"u","user":{"\u0065xec":{"command":"/tmp/evil"}}}]}`,
		"h-kubeanchor/.kube/config": "x: &u {exec: {command: /tmp/evil}}\nusers:\n- name: u\n  user: *u\n",
		"h-kubeok/.kube/config":     "# exec: /tmp/evil\nusers:\n- name: exec\n  user:\n    token: \"exec: /tmp/evil\"\ncontexts:\n- context: {exec: x}\n",
		"h-kubebad/.kube/config":    "users: [\n",
		// docker: a Host that is a TCP address (an engine elsewhere, asked
		// since redrepo3), one that is a local socket, and ssh only in
		// another key.
		"h-dockertcp/.docker/contexts/meta/a/meta.json":  `{"Name":"ssh","Endpoints":{"docker":{"Host":"tcp://h:2375","SkipTLSVerify":false}},"Metadata":{"Description":"ssh://x"}}`,
		"h-dockerhost/.docker/contexts/meta/a/meta.json": `{"Endpoints":{"docker":{"HOST":"SSH://me@h"}}}`,
		"h-dockerunix/.docker/contexts/meta/a/meta.json": `{"Name":"desktop","Endpoints":{"docker":{"Host":"unix:///home/u/.docker/desktop/docker.sock"}},"Metadata":{"Description":"ssh://x"}}`,
		// package.json: volta only as a dependency's name; packageManager
		// naming another manager.
		"pj-ok/package.json":   `{"dependencies":{"volta":"^1.0.0"},"description":"\"volta\": {}","packageManager":"yarn@4.0.0"}`,
		"pj-esc/package.json":  `{"\u0076olta":{"node":"99.0.0"}}`,
		"pj-bom/package.json":  "\ufeff{\"packageManager\": \"pnpm@9.0.0\"}",
		"pj-bad/package.json":  `{"packageManager": "pnpm@9.0.0",}`,
		"pj-tail/package.json": `{} {"packageManager": "pnpm@9.0.0"}`,
		// YAML: a quoted key and a flow mapping (a line pattern anchored
		// at the key missed both); the names in a comment and a value.
		"y-quoted/.yarnrc.yml":       "\"yarnPath\": ./evil.cjs\n",
		"y-flow/.yarnrc.yml":         "{nodeLinker: pnp, yarnPath: ./evil.cjs}\n",
		"y-ok/.yarnrc.yml":           "# yarnPath: ./evil.cjs\nnodeLinker: \"yarnPath: x\"\npackageExtensions: {plugins: {}}\n",
		"p-esc/pnpm-workspace.yaml":  "\"config\\x44ependencies\": {evil: 1.0.0}\n",
		"p-case/pnpm-workspace.yaml": "packages: ['a']\nPnpmfile: ./evil.cjs\n",
	}
	for _, d := range []string{"split", "dotted", "env", "incl", "wsw", "benign", "broken"} {
		files[d+"/Cargo.toml"] = "[package]\nname = \"x\"\n"
	}
	writeTree(t, dir, files)
	exe := filepath.Join(dir, ".volta/bin/volta-shim")
	writeTree(t, dir, map[string]string{".volta/bin/volta-shim": "#!/bin/sh\n"})
	must(t, os.Chmod(exe, 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "bin-volta"), 0o755))
	must(t, os.Symlink(exe, filepath.Join(dir, "bin-volta/node")))
	ne := func(p, format, who string) string {
		return "not-established: " + who + " reads $T/" + p + ", which does not decode as " + format
	}
	tests := []struct {
		cmd, cwd, home string
		env            EnvMap
		want           []string
	}{
		{cmd: "cargo tree --frozen", cwd: "xesc", want: []string{`build.rustc-wrapper $T/xesc/.cargo/config.toml`}},
		{cmd: "cargo tree --frozen", cwd: "split", want: []string{`build.rustc-wrapper $T/split/.cargo/config.toml`}},
		{cmd: "cargo metadata --frozen", cwd: "dotted", want: []string{`build.rustc $T/dotted/.cargo/config.toml`}},
		{cmd: "cargo tree --frozen", cwd: "env", want: []string{`env $T/env/.cargo/config.toml`}},
		{cmd: "cargo tree --frozen", cwd: "incl", want: []string{`include $T/incl/.cargo/config.toml`}},
		{cmd: "cargo tree --frozen", cwd: "wsw", want: []string{`build.rustc-workspace-wrapper $T/wsw/.cargo/config`}},
		{cmd: "cargo tree --frozen", cwd: "benign", want: []string{}},
		{cmd: "cargo tree --frozen", cwd: "broken", want: []string{ne("broken/.cargo/config.toml", "TOML", "cargo tree")}},
		// The user's cargo config, in $CARGO_HOME.
		{cmd: "cargo tree --frozen", cwd: "plain", env: EnvMap{"CARGO_HOME": "$T/xesc/.cargo"}, want: []string{`build.rustc-wrapper $T/xesc/.cargo/config.toml: sets build.rustc-wrapper = "/tmp/evil"` + rustcDoes}},
		{cmd: "kubectl get pods", home: "h-kubeesc", want: []string{`users.0.user.exec $T/h-kubeesc/.kube/config: sets users.0.user.exec = {"command":"/tmp/evil"}` + kubeDoes}},
		{cmd: "kubectl get pods", home: "h-kubeanchor", want: []string{`users.0.user.exec $T/h-kubeanchor/.kube/config: sets users.0.user.exec = {"command":"/tmp/evil"}` + kubeDoes}},
		{cmd: "kubectl get pods", home: "h-kubeok", want: []string{}},
		{cmd: "kubectl get pods", home: "h-kubebad", want: []string{ne("h-kubebad/.kube/config", "YAML", "kubectl get")}},
		{cmd: "docker ps", home: "h-dockertcp", want: []string{`Endpoints.docker.Host $T/h-dockertcp/.docker/contexts/meta/a/meta.json: sets Endpoints.docker.Host = "tcp://h:2375"` + dockerDoes}},
		{cmd: "docker ps", home: "h-dockerunix", want: []string{}},
		{cmd: "docker ps", home: "h-dockerhost", want: []string{`Endpoints.docker.HOST $T/h-dockerhost/.docker/contexts/meta/a/meta.json: sets Endpoints.docker.HOST = "SSH://me@h"` + dockerDoes}},
		{cmd: "node --version", cwd: "pj-ok", env: EnvMap{"PATH": "$T/bin-volta"}, want: []string{}},
		{cmd: "node --version", cwd: "pj-esc", env: EnvMap{"PATH": "$T/bin-volta"}, want: []string{`volta $T/pj-esc/package.json: sets volta = {"node":"99.0.0"} => have volta's shim download and run the Node.js release it pins`}},
		{cmd: "pnpm list", cwd: "pj-ok", want: []string{}},
		{cmd: "yarn list", cwd: "y-quoted", want: []string{`yarnPath $T/y-quoted/.yarnrc.yml`}},
		{cmd: "yarn list", cwd: "y-flow", want: []string{`yarnPath $T/y-flow/.yarnrc.yml`}},
		{cmd: "yarn list", cwd: "y-ok", want: []string{}},
		{cmd: "pnpm list", cwd: "p-esc", want: []string{`configDependencies $T/p-esc/pnpm-workspace.yaml`}},
		{cmd: "pnpm list", cwd: "p-case", want: []string{`Pnpmfile $T/p-case/pnpm-workspace.yaml`}},
		{cmd: "pnpm list", cwd: "pj-bom", want: []string{`packageManager $T/pj-bom/package.json: sets packageManager = "pnpm@9.0.0" => download and run the pnpm release it names, when it is not the pnpm installed`}},
		{cmd: "pnpm list", cwd: "pj-bad", want: []string{ne("pj-bad/package.json", "JSON", "pnpm list")}},
		{cmd: "pnpm list", cwd: "pj-tail", want: []string{ne("pj-tail/package.json", "JSON", "pnpm list")}},
	}
	for _, tc := range tests {
		t.Run(tc.cwd+" "+tc.home+" "+tc.cmd, func(t *testing.T) {
			env := EnvMap{"PATH": "", "KUBECONFIG": "", "DOCKER_CONFIG": "", "CARGO_HOME": "", "RUSTUP_TOOLCHAIN": "stable", "RUSTUP_AUTO_INSTALL": "", "RUSTUP_HOME": ""}
			for k, v := range tc.env {
				env[k] = strings.ReplaceAll(v, "$T", dir)
			}
			st := judge(t, tc.cmd, Boundary{Roots: []string{dir}, Cwd: filepath.Join(dir, cmpOr(tc.cwd, "plain")), Home: filepath.Join(dir, cmpOr(tc.home, "home")), DenyRows: DefaultDenyRows, Env: env})
			got := hiddenGot(st, dir)
			// A not-established read is held to its start (the decoder's
			// message is go-toml's, encoding/json's or yaml's).
			for i, g := range got {
				if strings.HasPrefix(g, "not-established:") {
					if j := strings.Index(g, " ("); j > 0 {
						got[i] = g[:j]
					}
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s: (-want +got):\n%s", tc.cmd, d)
			}
		})
	}
}

// TestKeyMatches: the dotted paths of a hidden input's keys over decoded
// documents.
func TestKeyMatches(t *testing.T) {
	tests := []struct {
		format, doc, key string
		fold             bool
		want             []string
	}{
		{"toml", "[target.x86_64-unknown-linux-gnu]\nrunner = \"/evil\"\n[target.'cfg(unix)']\nrunner = [\"/e2\"]\n", "target.*.runner", false,
			[]string{`target.cfg(unix).runner = ["/e2"]`, `target.x86_64-unknown-linux-gnu.runner = "/evil"`}},
		{"toml", "[build]\njobs = 1\n", "build.rustc-wrapper", false, nil},
		{"toml", "build = 1\n", "build.rustc-wrapper", false, nil},
		{"json", `{"users":[{"user":{"Exec":1}},{"user":{"exec":2}}]}`, "users.*.user.exec", false, []string{`users.1.user.exec = 2`}},
		{"json", `{"users":[{"user":{"Exec":1}},{"user":{"exec":2}}]}`, "users.*.user.exec", true, []string{`users.0.user.Exec = 1`, `users.1.user.exec = 2`}},
		{"json", `{"users":{"a":{"user":{"exec":1}}}}`, "users.*.user.exec", false, []string{`users.a.user.exec = 1`}},
		{"json", `{"users":{"user":{"exec":1}}}`, "users.*.user.exec", false, nil},
		{"json", `{"users":[{"user":{"exec":1}}]}`, "users.0.user.exec", false, nil},
		{"yaml", "? users\n: - user: {? exec : x}\n", "users.*.user.exec", false, []string{`users.0.user.exec = "x"`}},
		{"yaml", "1: {exec: x}\n", "*.exec", false, []string{`1.exec = "x"`}},
		{"yaml", "", "a", false, nil},
	}
	for _, tc := range tests {
		doc, err := decodeDoc(tc.format, []byte(tc.doc))
		if err != nil {
			t.Errorf("%s %q: %v", tc.format, tc.doc, err)
			continue
		}
		var got []string
		for _, m := range keyMatches(doc, tc.key, tc.fold) {
			got = append(got, m.path+" = "+showValue(m.value))
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s %q %s: (-want +got):\n%s", tc.format, tc.doc, tc.key, d)
		}
	}
}
