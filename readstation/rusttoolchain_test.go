package readstation

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRustToolchain: what a rust-toolchain file makes rustup install,
// against a RUSTUP_HOME with stable and one component.
func TestRustToolchain(t *testing.T) {
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	const host = "x86_64-unknown-linux-gnu"
	writeTree(t, dir, map[string]string{
		"rustup/settings.toml": "version = \"12\"\ndefault_toolchain = \"stable-" + host + "\"\nprofile = \"default\"\n\n[overrides]\n",
		"rustup/toolchains/stable-" + host + "/lib/rustlib/components":     "rustc-" + host + "\ncargo-" + host + "\nclippy-preview-" + host + "\nrust-src\n",
		"rustup/toolchains/stable-" + host + "/lib/rustlib/" + host + "/x": "",
		"new/rust-toolchain.toml":     "[toolchain]\nchannel = \"1.70.0\"\n",
		"stable/rust-toolchain.toml":  "[toolchain]\nchannel = \"stable\" # the default\ncomponents = [ \"clippy\", \"rust-src\" ]\ntargets = [\n  \"" + host + "\",\n]\n",
		"comp/rust-toolchain.toml":    "[toolchain]\nchannel = \"stable\"\ncomponents = [\"miri\"]\n",
		"target/rust-toolchain.toml":  "[toolchain]\nchannel = 'stable'\ntargets = ['wasm32-unknown-unknown']\n",
		"legacy/rust-toolchain":       "stable\n",
		"legacy2/rust-toolchain":      "nightly-2020-01-01\n",
		"full/rust-toolchain":         "stable-" + host + "\n",
		"bad/rust-toolchain.toml":     "[toolchain\nchannel = stable\n",
		"nested/rust-toolchain.toml":  "[toolchain]\nchannel = \"1.70.0\"\n",
		"nested/inner/rust-toolchain": "stable\n",
		"nested/inner/deeper/f":       "",
		"path/rust-toolchain.toml":    "[toolchain]\npath = \"/opt/x\"\n",
		"plain/f":                     "",
		// TOML's other spellings of a key rustup reads (redteam): read
		// for what they say (go-toml), as rustup's toml crate reads them.
		"quoted/rust-toolchain.toml":    "[toolchain]\n\"channel\" = \"1.70.0\"\n",
		"qtable/rust-toolchain.toml":    "[\"toolchain\"]\nchannel = \"1.70.0\"\n",
		"dotted/rust-toolchain.toml":    "toolchain.channel = \"1.70.0\"\n",
		"inline/rust-toolchain.toml":    "toolchain = { channel = \"1.70.0\" }\n",
		"multiline/rust-toolchain.toml": "[toolchain]\nprofile = \"\"\"\n[x]\nq = \"\"\"\nchannel = \"1.70.0\"\n",
		"qpath/rust-toolchain.toml":     "[toolchain]\n'path' = '/opt/x'\n",
		"dpath/rust-toolchain.toml":     "toolchain.path = \"/opt/x\"\n",
		"epath/rust-toolchain.toml":     "[toolchain]\n\"pa\\u0074h\" = \"/opt/x\"\n",
		"ipath/rust-toolchain.toml":     "toolchain = { path = '''/opt/x''' }\n",
		"mpath/rust-toolchain.toml":     "[toolchain]\npath = \"\"\"\n/opt/x\"\"\"\n",
		"lpath/rust-toolchain":          "[toolchain]\npath = \"/opt/x\"\n",
		// The key's name only in a comment or a value: not a path.
		"cpath/rust-toolchain.toml": "[toolchain]\n# path = \"/opt/x\"\nchannel = \"stable\" # path = '/opt/x'\nprofile = \"path = /opt/x\"\n",
		"vpath/rust-toolchain.toml": "[toolchain]\nchannel = \"stable\"\n[other]\npath = \"/opt/x\"\n",
		// Not TOML, or keys of another type than rustup takes: not read (asks).
		"dup/rust-toolchain.toml":    "[toolchain]\nchannel = \"stable\"\nchannel = \"1.70.0\"\n",
		"type/rust-toolchain.toml":   "[toolchain]\npath = 1\n",
		"ttype/rust-toolchain.toml":  "toolchain = \"stable\"\n",
		"nochan/rust-toolchain.toml": "[toolchain]\nprofile = \"minimal\"\n",
		"bare/rust-toolchain.toml":   "stable\n",
		// One line in rust-toolchain is the legacy form, whatever it
		// holds (rustup: "custom toolchain ... is not installed").
		"oneline/rust-toolchain":   "toolchain.path = \"/opt/x\"\n",
		"twoline/rust-toolchain":   "stable\n\n",
		"rustup-ovr/settings.toml": "default_toolchain = \"stable-" + host + "\"\n\n[overrides]\n\"$T/legacy\" = \"1.60.0-" + host + "\"\n\"$T/new\" = \"stable-" + host + "\"\n",
		"rustup-off/settings.toml": "version = \"12\"\ndefault_toolchain = \"stable-" + host + "\"\nauto_install = \"disable\"\n",
	})
	ovr := filepath.Join(dir, "rustup-ovr", "settings.toml")
	b, err := os.ReadFile(ovr)
	must(t, err)
	must(t, os.WriteFile(ovr, []byte(strings.ReplaceAll(string(b), "$T", dir)), 0o644))
	must(t, os.Symlink(filepath.Join(dir, "rustup", "toolchains"), filepath.Join(dir, "rustup-ovr", "toolchains")))
	const runs = "run the programs in its bin directory in place of the toolchain's"
	const miss = "have rustup download and install it (set RUSTUP_AUTO_INSTALL=0 to make rustup refuse)"
	tests := []struct {
		cmd, cwd string
		env      EnvMap
		want     []string
	}{
		{cmd: "cargo --version", cwd: "new", want: []string{`channel $T/new/rust-toolchain.toml: names the toolchain 1.70.0, which is not installed in $T/rustup/toolchains => ` + miss}},
		{cmd: "rustc --version", cwd: "stable", want: []string{}},
		{cmd: "cargo version", cwd: "comp", want: []string{`components $T/comp/rust-toolchain.toml: names the component miri, which stable-x86_64-unknown-linux-gnu does not have => ` + miss}},
		{cmd: "cargo --version", cwd: "target", want: []string{`targets $T/target/rust-toolchain.toml: names the target wasm32-unknown-unknown, which stable-x86_64-unknown-linux-gnu does not have => ` + miss}},
		{cmd: "cargo --version", cwd: "legacy", want: []string{}},
		{cmd: "cargo --version", cwd: "full", want: []string{}},
		{cmd: "cargo --version", cwd: "legacy2", want: []string{`channel $T/legacy2/rust-toolchain: names the toolchain nightly-2020-01-01, which is not installed in $T/rustup/toolchains => ` + miss}},
		{cmd: "cargo --version", cwd: "nested/inner/deeper", want: []string{}},
		{cmd: "cargo --version", cwd: "bad", want: []string{"not-established: cargo: $T/bad/rust-toolchain.toml cannot be read as a toolchain file (it is not TOML: toml: expected ']' to close table name), so the toolchain rustup runs (and whether it installs one) cannot be established"}},
		{cmd: "cargo --version", cwd: "path", want: []string{`path $T/path/rust-toolchain.toml: names the toolchain directory /opt/x => ` + runs}},
		{cmd: "cargo --version", cwd: "plain", want: []string{}},
		{cmd: "cargo --version", cwd: "quoted", want: []string{`channel $T/quoted/rust-toolchain.toml: names the toolchain 1.70.0, which is not installed in $T/rustup/toolchains => ` + miss}},
		{cmd: "cargo --version", cwd: "qtable", want: []string{`channel $T/qtable/rust-toolchain.toml: names the toolchain 1.70.0, which is not installed in $T/rustup/toolchains => ` + miss}},
		{cmd: "cargo --version", cwd: "dotted", want: []string{`channel $T/dotted/rust-toolchain.toml: names the toolchain 1.70.0, which is not installed in $T/rustup/toolchains => ` + miss}},
		{cmd: "cargo --version", cwd: "inline", want: []string{`channel $T/inline/rust-toolchain.toml: names the toolchain 1.70.0, which is not installed in $T/rustup/toolchains => ` + miss}},
		{cmd: "cargo --version", cwd: "multiline", want: []string{`channel $T/multiline/rust-toolchain.toml: names the toolchain 1.70.0, which is not installed in $T/rustup/toolchains => ` + miss}},
		{cmd: "cargo --version", cwd: "qpath", env: EnvMap{"RUSTUP_AUTO_INSTALL": "0"}, want: []string{`path $T/qpath/rust-toolchain.toml: names the toolchain directory /opt/x => ` + runs}},
		{cmd: "cargo --version", cwd: "dpath", want: []string{`path $T/dpath/rust-toolchain.toml: names the toolchain directory /opt/x => ` + runs}},
		{cmd: "cargo --version", cwd: "epath", want: []string{`path $T/epath/rust-toolchain.toml: names the toolchain directory /opt/x => ` + runs}},
		{cmd: "cargo --version", cwd: "ipath", want: []string{`path $T/ipath/rust-toolchain.toml: names the toolchain directory /opt/x => ` + runs}},
		{cmd: "cargo --version", cwd: "lpath", want: []string{`path $T/lpath/rust-toolchain: names the toolchain directory /opt/x => ` + runs}},
		{cmd: "cargo --version", cwd: "mpath", want: []string{"path $T/mpath/rust-toolchain.toml: names the toolchain directory /opt/x => " + runs}},
		{cmd: "cargo --version", cwd: "dpath", env: EnvMap{"RUSTUP_TOOLCHAIN": "stable"}, want: []string{}},
		{cmd: "cargo --version", cwd: "cpath", want: []string{}},
		{cmd: "cargo --version", cwd: "vpath", want: []string{}},
		{cmd: "cargo --version", cwd: "dup", want: []string{"not-established: cargo: $T/dup/rust-toolchain.toml cannot be read as a toolchain file (it is not TOML: toml: key channel is already defined), so the toolchain rustup runs (and whether it installs one) cannot be established"}},
		{cmd: "cargo --version", cwd: "type", want: []string{"not-established: cargo: $T/type/rust-toolchain.toml cannot be read as a toolchain file (toolchain.path is not a string), so the toolchain rustup runs (and whether it installs one) cannot be established"}},
		{cmd: "cargo --version", cwd: "ttype", want: []string{"not-established: cargo: $T/ttype/rust-toolchain.toml cannot be read as a toolchain file (it has no toolchain table), so the toolchain rustup runs (and whether it installs one) cannot be established"}},
		{cmd: "cargo --version", cwd: "nochan", want: []string{"not-established: cargo: $T/nochan/rust-toolchain.toml cannot be read as a toolchain file (its toolchain table names neither a channel nor a path), so the toolchain rustup runs (and whether it installs one) cannot be established"}},
		{cmd: "cargo --version", cwd: "bare", want: []string{"not-established: cargo: $T/bare/rust-toolchain.toml cannot be read as a toolchain file (it is not TOML: toml: expected '=' after key), so the toolchain rustup runs (and whether it installs one) cannot be established"}},
		{cmd: "cargo --version", cwd: "oneline", want: []string{"not-established: cargo: $T/oneline/rust-toolchain cannot be read as a toolchain file (its one line is not a toolchain name), so the toolchain rustup runs (and whether it installs one) cannot be established"}},
		{cmd: "cargo --version", cwd: "twoline", want: []string{"not-established: cargo: $T/twoline/rust-toolchain cannot be read as a toolchain file (it is not TOML: toml: expected '=' after key), so the toolchain rustup runs (and whether it installs one) cannot be established"}},
		{cmd: "cargo --version", cwd: "new", env: EnvMap{"RUSTUP_TOOLCHAIN": "stable"}, want: []string{}},
		{cmd: "cargo --version", cwd: "new", env: EnvMap{"RUSTUP_AUTO_INSTALL": "0"}, want: []string{}},
		// A directory override comes before the toolchain file.
		{cmd: "cargo --version", cwd: "new", env: EnvMap{"RUSTUP_HOME": "$T/rustup-ovr"}, want: []string{}},
		{cmd: "cargo --version", cwd: "legacy", env: EnvMap{"RUSTUP_HOME": "$T/rustup-ovr"}, want: []string{`channel $T/rustup-ovr/settings.toml: names the toolchain 1.60.0-x86_64-unknown-linux-gnu, which is not installed in $T/rustup-ovr/toolchains => ` + miss}},
		{cmd: "cargo --version", cwd: "new", env: EnvMap{"RUSTUP_HOME": "$T/rustup-off"}, want: []string{}},
		{cmd: "cargo --version", cwd: "new", env: EnvMap{"RUSTUP_HOME": "$T/rustup-off", "RUSTUP_AUTO_INSTALL": "1"}, want: []string{`channel $T/new/rust-toolchain.toml: names the toolchain 1.70.0, which is not installed in $T/rustup-off/toolchains => ` + miss}},
		{cmd: "cargo --version", cwd: "new", env: EnvMap{"RUSTUP_HOME": "?"}, want: []string{"not-established: cargo: RUSTUP_HOME is not known, so whether rustup installs the toolchain $T/new/rust-toolchain.toml names cannot be established",
			// rustup's settings.toml (a read: redrepo4) is below it too.
			"not-established: cargo reads settings.toml below $RUSTUP_HOME, whose value is not known, so whether it runs code or reaches the network a file chose cannot be established"}},
	}
	for _, tc := range tests {
		t.Run(tc.cwd+" "+tc.cmd, func(t *testing.T) {
			env := EnvMap{"RUSTUP_HOME": filepath.Join(dir, "rustup"), "RUSTUP_TOOLCHAIN": "", "RUSTUP_AUTO_INSTALL": "", "CARGO_HOME": ""}
			judgeHidden(t, dir, tc.cwd, tc.cmd, env, tc.env, tc.want)
		})
	}
}

// TestRustToolchainOracle holds the rust-toolchain check to the real
// rustup: cargo --version runs with RUSTUP_AUTO_INSTALL=1 against a dist
// server on 127.0.0.1:9 (nothing listens); "syncing channel updates" or
// "downloading" means rustup went to install, and the station must have
// found the file that made it; "PLANTED" means it ran the cargo of a
// path toolchain, which the station must have found too.
func TestRustToolchainOracle(t *testing.T) {
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		t.Skip("no cargo on PATH")
	}
	out, err := exec.Command("rustup", "show", "home").Output()
	if err != nil {
		t.Skip("no rustup")
	}
	home := strings.TrimSpace(string(out))
	setups := map[string]string{
		"installed channel":   "[toolchain]\nchannel = \"stable\"\n",
		"missing version":     "[toolchain]\nchannel = \"1.70.0\"\n",
		"missing component":   "[toolchain]\nchannel = \"stable\"\ncomponents = [\"miri\"]\n",
		"installed component": "[toolchain]\nchannel = \"stable\"\ncomponents = [\"clippy\"]\n",
		"missing target":      "[toolchain]\nchannel = \"stable\"\ntargets = [\"wasm32-unknown-unknown\"]\n",
		"legacy missing":      "nightly-2020-01-01\n",
		"legacy installed":    "stable\n",
		// A path toolchain ($P: a directory whose bin/cargo prints
		// PLANTED), in TOML's other spellings (redteam).
		"path dotted":    "toolchain.path = \"$P\"\n",
		"path escaped":   "[toolchain]\n\"pa\\u0074h\" = \"$P\"\n",
		"path inline":    "toolchain = { path = '''$P''' }\n",
		"path multiline": "[\"toolchain\"]\n'path' = \"\"\"\n$P\"\"\"\n",
		"path comment":   "[toolchain]\n# path = \"$P\"\nchannel = \"stable\" # toolchain.path = \"$P\"\n",
	}
	for name, body := range setups {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			file := "rust-toolchain.toml"
			if strings.HasPrefix(name, "legacy") {
				file = "rust-toolchain"
			}
			planted := filepath.Join(dir, "planted")
			writeTree(t, dir, map[string]string{file: strings.ReplaceAll(body, "$P", planted)})
			must(t, os.MkdirAll(filepath.Join(planted, "bin"), 0o755))
			for _, b := range []string{"cargo", "rustc"} {
				must(t, os.WriteFile(filepath.Join(planted, "bin", b), []byte("#!/bin/sh\necho PLANTED\n"), 0o755))
			}
			cmd := exec.Command(cargo, "--version")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "RUSTUP_AUTO_INSTALL=1", "RUSTUP_DIST_SERVER=http://127.0.0.1:9", "RUSTUP_UPDATE_ROOT=http://127.0.0.1:9", "RUSTUP_TOOLCHAIN=", "RUSTUP_HOME="+home)
			out, _ := cmd.CombinedOutput()
			installs := strings.Contains(string(out), "syncing channel updates") || strings.Contains(string(out), "downloading") ||
				strings.Contains(string(out), "PLANTED")
			env := EnvMap{"RUSTUP_HOME": home, "RUSTUP_TOOLCHAIN": "", "RUSTUP_AUTO_INSTALL": "1", "CARGO_HOME": ""}
			st := judge(t, "cargo --version", Boundary{Roots: []string{dir}, Cwd: dir, Home: filepath.Join(dir, "home"), DenyRows: DefaultDenyRows, Env: env})
			got := hiddenGot(st, dir)
			if installs != (len(got) > 0) {
				t.Errorf("rustup installs=%v, station found %q\nrustup said: %s", installs, got, out)
			}
		})
	}
}
