//go:build linux

package execution

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSandboxEnvrcNamedPaths: direnv allows an .envrc by its content,
// not what it loads: a confined command that wrote the file an allowed
// .envrc loads (source_env_if_exists, dotenv) had the user's next
// direnv run it. Each case allows the .envrc with the real direnv,
// plants through a confined script, then loads the directory with
// direnv, unconfined.
func TestSandboxEnvrcNamedPaths(t *testing.T) {
	needLandlock(t)
	direnv := needTool(t, "direnv")
	tests := []struct {
		name  string
		dir   string // where the .envrc is, in the workspace
		envrc string
		files map[string]string
		plant string
		keep  []string // made by the command, and kept
	}{{
		name:  "source_env_if_exists of a file not made yet",
		envrc: "source_env_if_exists .envrc.local\n",
		plant: `echo 'export PLANTED=PLANTED-RAN' > .envrc.local`,
	}, {
		name:  "source_env of an existing file",
		envrc: "source_env config/dev.sh # shared settings\n",
		files: map[string]string{"config/dev.sh": "export MODE=dev\n"},
		plant: `echo 'export PLANTED=PLANTED-RAN' >> config/dev.sh`,
	}, {
		name:  "dotenv (.env by default)",
		envrc: "dotenv_if_exists\n",
		plant: `echo 'PLANTED=PLANTED-RAN' > .env`,
	}, {
		name:  "a nested .envrc's dotenv of a named file",
		dir:   "svc",
		envrc: "[ -f .env.dev ] && dotenv .env.dev\n",
		files: map[string]string{"svc/.env.dev": "MODE=dev\n"},
		plant: `echo 'PLANTED=PLANTED-RAN' >> svc/.env.dev`,
	}, {
		// The user's shell runs bin/ls for ls: a new program named as a
		// system one is moved aside; the build's own are kept.
		name:  "PATH_add bin, a program named ls made there",
		envrc: "PATH_add bin\n",
		files: map[string]string{"bin/README": "built programs\n"},
		plant: `printf '#!/bin/sh\necho PLANTED-RAN\n' > bin/ls && chmod +x bin/ls && printf '#!/bin/sh\necho app\n' > bin/myapp && chmod +x bin/myapp`,
		keep:  []string{"bin/myapp"},
	}, {
		name:  "layout node, node_modules/.bin/ls",
		envrc: "layout node\n",
		plant: `mkdir -p node_modules/.bin && printf '#!/bin/sh\necho PLANTED-RAN\n' > node_modules/.bin/ls && chmod +x node_modules/.bin/ls`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, home := t.TempDir(), t.TempDir()
			env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local/share"))
			for p, body := range tt.files {
				touch(t, ws, p)
				must(t, os.WriteFile(filepath.Join(ws, p), []byte(body), 0o644))
			}
			dir := filepath.Join(ws, tt.dir)
			touch(t, dir, ".envrc")
			must(t, os.WriteFile(filepath.Join(dir, ".envrc"), []byte(tt.envrc), 0o644))
			run := func(args ...string) string {
				cmd := exec.Command(direnv, args...)
				cmd.Dir, cmd.Env = dir, env
				out, _ := cmd.CombinedOutput()
				return string(out)
			}
			run("allow", ".")
			out := runSpec(t, context.Background(), Spec{Command: tt.plant, Dir: ws, Env: env, Timeout: time.Minute,
				Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{ws}}})
			got := run("exec", ".", "sh", "-c", `echo "V=$PLANTED"; ls -d /`)
			t.Logf("direnv exec: %s\nconfined: %s", got, out.Output.String())
			if strings.Contains(got, "PLANTED-RAN") {
				t.Errorf("direnv loaded what the confined command wrote:\n%s\ndenied %+v", got, out.Sandbox.Denied)
			}
			for _, p := range tt.keep {
				if !exists(filepath.Join(ws, p)) {
					t.Errorf("%s was not kept: denied %+v", p, out.Sandbox.Denied)
				}
			}
		})
	}
}

// TestEnvrcUses: the files direnv's use flake, use nix and use devenv
// evaluate.
func TestEnvrcUses(t *testing.T) {
	for text, want := range map[string][]string{
		"use flake\n":                {"/w/flake.nix", "/w/flake.lock"},
		"use flake ./nix#dev\n":      {"/w/nix/flake.nix", "/w/nix/flake.lock"},
		"use flake github:o/r\n":     {"/w/flake.nix", "/w/flake.lock"},
		"use nix\n":                  {"/w/shell.nix", "/w/default.nix"},
		"use devenv\nuse node 18\n":  {"/w/devenv.nix", "/w/devenv.yaml", "/w/devenv.lock"},
		"use flake \"$FLAKE_DIR\"\n": nil,
	} {
		if diff := cmp.Diff(want, envrcLoads(text, "/w")); diff != "" {
			t.Errorf("%q (-want +got):\n%s", text, diff)
		}
	}
}

// TestEnvrcPathDirs: the directories an .envrc puts on PATH.
func TestEnvrcPathDirs(t *testing.T) {
	text := "PATH_add bin scripts # tools\npath_add PATH \"$PWD/x\" tools\npath_add MANPATH man\nlayout node\n"
	want := []string{"/w/bin", "/w/scripts", "/w/tools", "/w/node_modules/.bin"}
	if diff := cmp.Diff(want, envrcPathDirs(text, "/w")); diff != "" {
		t.Errorf("PATH directories (-want +got):\n%s", diff)
	}
}

// TestEnvrcLoads: the files an .envrc loads, as written out.
func TestEnvrcLoads(t *testing.T) {
	text := "source_env_if_exists .envrc.local\n# dotenv .env.commented\ndotenv\nsource_env \"$HOME/x\"\n" +
		"use flake; source ./lib/env.sh && dotenv_if_exists -q 'cfg/.env.dev'\nPATH_add bin\n. ../shared.sh\n"
	want := []string{"/w/.envrc.local", "/w/.env", "/w/flake.nix", "/w/flake.lock", "/w/lib/env.sh", "/w/cfg/.env.dev", "/shared.sh"}
	if diff := cmp.Diff(want, envrcLoads(text, "/w")); diff != "" {
		t.Errorf("loads (-want +got):\n%s", diff)
	}
}

// TestSandboxMiseNamedPaths: mise trusts a project directory, not a
// file's content: a confined command that wrote the script a trusted
// mise.toml sources (_.source), its dotenv file (_.file) or a program
// named as a system one in its _.path had the user's next mise (its
// shell hook runs mise env at each prompt) run or read it. The real
// mise trusts the project, then loads it unconfined after the run.
func TestSandboxMiseNamedPaths(t *testing.T) {
	needLandlock(t)
	mise := needTool(t, "mise", filepath.Join(agentsDir(), "node_modules/.bin/mise"))
	ws, home := t.TempDir(), t.TempDir()
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_DATA_HOME="+filepath.Join(home, ".local/share"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local/state"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "MISE_YES=0")
	for p, body := range map[string]string{
		"mise.toml":      "[env]\n_.source = \"./env.sh\"\n_.file = [\".env.mise\"]\n_.path = [\"{{config_root}}/bin\"]\n",
		"env.sh":         "export MODE=dev\n",
		"bin/README":     "built programs\n",
		"svc/.mise.toml": "[[env]]\n_.source = { path = \"svc.sh\" }\n",
		"svc/svc.sh":     "export SVC=1\n",
	} {
		touch(t, ws, p)
		must(t, os.WriteFile(filepath.Join(ws, p), []byte(body), 0o644))
	}
	run := func(dir string, args ...string) string {
		cmd := exec.Command(mise, args...)
		cmd.Dir, cmd.Env = dir, env
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	t.Logf("trust: %s%s", run(ws, "trust", "mise.toml"), run(filepath.Join(ws, "svc"), "trust", ".mise.toml"))
	plant := `echo 'touch pwned; export PLANTED=PLANTED-RAN' >> env.sh; echo 'PLANTED=PLANTED-RAN' > .env.mise; ` +
		`printf '#!/bin/sh\necho PLANTED-RAN\n' > bin/ls; chmod +x bin/ls; echo 'export PLANTED=PLANTED-RAN' >> svc/svc.sh`
	out := runSpec(t, context.Background(), Spec{Command: plant, Dir: ws, Env: env, Timeout: time.Minute,
		Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{ws}}})
	t.Logf("confined: %s", out.Output.String())
	for _, dir := range []string{ws, filepath.Join(ws, "svc")} {
		got := run(dir, "exec", "--", "sh", "-c", `echo "V=$PLANTED"; ls -d /`)
		t.Logf("mise exec in %s: %s", dir, got)
		if strings.Contains(got, "PLANTED-RAN") || exists(filepath.Join(dir, "pwned")) {
			t.Errorf("mise in %s loaded what the confined command wrote:\n%s\ndenied %+v", dir, got, out.Sandbox.Denied)
		}
	}
}

// agentsDir is where .ci/run installs npm tools ($SHELLGATE_AGENTS).
func agentsDir() string {
	if a := os.Getenv("SHELLGATE_AGENTS"); a != "" {
		return a
	}
	return "/opt/shellgate-agents"
}

// TestMiseEnvPaths: what a mise configuration's [env] sources, reads
// and puts on PATH.
func TestMiseEnvPaths(t *testing.T) {
	data := "[env]\nA = \"1\"\n_.source = [\"./a.sh\", { path = \"b.sh\" }]\n_.file = \".env\"\n_.path = [\"{{config_root}}/bin\", \"{{env.HOME}}/x\", \"tools\"]\n"
	files, dirs := miseEnvPaths([]byte(data), "/w")
	if diff := cmp.Diff([]string{"/w/a.sh", "/w/b.sh", "/w/.env"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/w/bin", "/w/tools"}, dirs); diff != "" {
		t.Errorf("dirs (-want +got):\n%s", diff)
	}
}

// TestShadowStatesFIFO: a directory an .envrc puts on PATH that is a FIFO
// in the workspace (planted before the run, or made by the command in its
// place) is passed over, not opened and waited on: before, the scan and
// the check after the run blocked for ever on it.
func TestShadowStatesFIFO(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".envrc"), []byte("PATH_add bin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "bin"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{root}}
	done := make(chan *nestedBefore)
	go func() {
		_, b := protectedPathsScan(c)
		b.check(&guard{})
		done <- b
	}()
	select {
	case b := <-done:
		if !slices.Contains(b.pathDirs, filepath.Join(root, "bin")) {
			t.Errorf("the .envrc's PATH directory was not found (pathDirs %q): the FIFO case is not reached", b.pathDirs)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the scan of a workspace whose .envrc puts a FIFO on PATH blocked")
	}
}
