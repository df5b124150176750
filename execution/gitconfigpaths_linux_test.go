//go:build linux

package execution

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSandboxConfigNamedPaths: a repository's configuration may name
// files in the workspace that git runs or reads as configuration: a
// hooks directory (core.hooksPath = .husky, as husky sets it), an
// included file (include.path), a helper program by its path
// (core.fsmonitor = tools/fsmon). Those are ordinary workspace files, so
// a confined command could write them and the user's next git commit,
// git status or alias would run what it wrote, unconfined. They are
// protected as the git directory's own files are. Each case plants
// through a script in the workspace, then runs the real git unconfined.
func TestSandboxConfigNamedPaths(t *testing.T) {
	needLandlock(t)
	git := needTool(t, "git")
	tests := []struct {
		name   string
		config [][]string // git config arguments, run before
		files  map[string]string
		plant  string // the confined script
		after  string // run unconfined with git, after
	}{{
		name:   "core.hooksPath (husky's .husky), a hook made",
		config: [][]string{{"core.hooksPath", ".husky"}},
		files:  map[string]string{".husky/commit-msg": "#!/bin/sh\nexit 0\n"},
		plant:  `printf '#!/bin/sh\necho PLANTED-RAN\n' > .husky/pre-commit; chmod +x .husky/pre-commit`,
		after:  "commit -q --allow-empty -m x",
	}, {
		// husky 9 sets core.hooksPath = .husky/_, whose hooks (its h
		// script) run the same-named script one level up: .husky/pre-commit.
		name:   "core.hooksPath = .husky/_ (husky 9), the script its hook runs",
		config: [][]string{{"core.hooksPath", ".husky/_"}},
		files: map[string]string{
			".husky/_/h":          "#!/usr/bin/env sh\nn=$(basename \"$0\")\ns=$(dirname \"$(dirname \"$0\")\")/$n\n[ ! -f \"$s\" ] && exit 0\nsh -e \"$s\" \"$@\"\n",
			".husky/_/pre-commit": "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n",
			".husky/_/commit-msg": "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n",
			".husky/commit-msg":   "exit 0\n",
		},
		plant: `printf 'echo PLANTED-RAN\n' > .husky/pre-commit`,
		after: "commit -q --allow-empty -m x",
	}, {
		name:   "core.hooksPath to a directory that does not exist yet",
		config: [][]string{{"core.hooksPath", "githooks"}},
		plant:  `mkdir githooks && printf '#!/bin/sh\necho PLANTED-RAN\n' > githooks/pre-commit && chmod +x githooks/pre-commit`,
		after:  "commit -q --allow-empty -m x",
	}, {
		name:   "core.hooksPath absolute, inside the root",
		config: [][]string{{"core.hooksPath", "ROOT/tools/hooks"}},
		files:  map[string]string{"tools/hooks/README": "hooks\n"},
		plant:  `printf '#!/bin/sh\necho PLANTED-RAN\n' > tools/hooks/pre-commit; chmod +x tools/hooks/pre-commit`,
		after:  "commit -q --allow-empty -m x",
	}, {
		name:   "include.path of a file in the workspace",
		config: [][]string{{"include.path", "../shared.gitconfig"}},
		files:  map[string]string{"shared.gitconfig": "[user]\n\tname = T\n"},
		plant:  `printf '[alias]\n\tst = !echo PLANTED-RAN\n' >> shared.gitconfig`,
		after:  "st",
	}, {
		name:   "include.path of a file that does not exist yet",
		config: [][]string{{"include.path", "../local.gitconfig"}},
		plant:  `printf '[alias]\n\tst = !echo PLANTED-RAN\n' > local.gitconfig`,
		after:  "st",
	}, {
		name:   "core.fsmonitor naming a script in the workspace",
		config: [][]string{{"core.fsmonitor", "tools/fsmon.sh"}},
		files:  map[string]string{"tools/fsmon.sh": "#!/bin/sh\nexit 1\n"},
		plant:  `printf '#!/bin/sh\necho PLANTED-RAN >&2\nexit 1\n' > tools/fsmon.sh`,
		after:  "status --short",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			env := append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME=", "GIT_CONFIG_NOSYSTEM=1",
				"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
			gitIn := func(args ...string) string {
				cmd := exec.Command(git, args...)
				cmd.Dir, cmd.Env = ws, env
				out, _ := cmd.CombinedOutput()
				return string(out)
			}
			gitIn("init", "-q")
			for p, body := range tt.files {
				touch(t, ws, p)
				must(t, os.WriteFile(filepath.Join(ws, p), []byte(body), 0o755))
				must(t, os.Chmod(filepath.Join(ws, p), 0o755))
			}
			for _, kv := range tt.config {
				gitIn("config", kv[0], strings.ReplaceAll(kv[1], "ROOT", ws))
			}
			touch(t, ws, "README")
			gitIn("add", "README") // an index: git status runs core.fsmonitor
			out := runSpec(t, context.Background(), Spec{Command: tt.plant, Dir: ws, Env: env, Timeout: time.Minute,
				Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{ws}}})
			got := gitIn(strings.Fields(tt.after)...)
			t.Logf("after: %s\nconfined: %s", got, out.Output.String())
			if strings.Contains(got, "PLANTED-RAN") {
				t.Errorf("git %s ran what the confined command wrote:\n%s\nconfined output:\n%s\ndenied %+v", tt.after, got, out.Output.String(), out.Sandbox.Denied)
			}
		})
	}
}

// TestSandboxConfigNamedPathsWorktree: a linked worktree confined as the
// root (its git directory in Confinement.GitDirs, as the gate passes it)
// has the hooks directory its repository's configuration names in the
// worktree protected too.
func TestSandboxConfigNamedPathsWorktree(t *testing.T) {
	needLandlock(t)
	git := needTool(t, "git")
	base := t.TempDir()
	main, wt := filepath.Join(base, "main"), filepath.Join(base, "wt")
	env := append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME=", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.com")
	gitIn := func(dir string, args ...string) string {
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = dir, env
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	must(t, os.MkdirAll(main, 0o755))
	gitIn(main, "init", "-q")
	gitIn(main, "commit", "-q", "--allow-empty", "-m", "x")
	gitIn(main, "config", "core.hooksPath", ".husky")
	gitIn(main, "worktree", "add", "-q", wt)
	out := runSpec(t, context.Background(), Spec{Command: `mkdir -p .husky && printf '#!/bin/sh\necho PLANTED-RAN\n' > .husky/pre-commit && chmod +x .husky/pre-commit`,
		Dir: wt, Env: env, Timeout: time.Minute,
		Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{wt}, GitDirs: []string{filepath.Join(main, ".git", "worktrees", "wt")}}})
	if got := gitIn(wt, "commit", "-q", "--allow-empty", "-m", "y"); strings.Contains(got, "PLANTED-RAN") {
		t.Errorf("git commit in the worktree ran what the confined command wrote:\n%s\ndenied %+v", got, out.Sandbox.Denied)
	}
}

// TestSandboxProtectedSymlinkTargets: a protected name that is a symlink
// (Android's repo tool links .git/config into .repo/projects; a
// .vscode kept elsewhere in the repository) leads to a file or
// directory that is as much obeyed as the name: where that lies in the
// roots it is protected in the name's place, at the top and beneath it.
func TestSandboxProtectedSymlinkTargets(t *testing.T) {
	needLandlock(t)
	git := needTool(t, "git")
	ws := t.TempDir()
	env := append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME=", "GIT_CONFIG_NOSYSTEM=1")
	cmd := exec.Command(git, "init", "-q", ws)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	touch(t, ws, "store/config")
	touch(t, ws, "tools/vscode/settings.json")
	touch(t, ws, "envs/dev.sh")
	cfg, _ := os.ReadFile(filepath.Join(ws, ".git/config"))
	must(t, os.WriteFile(filepath.Join(ws, "store/config"), cfg, 0o644))
	must(t, os.Remove(filepath.Join(ws, ".git/config")))
	must(t, os.Symlink("../store/config", filepath.Join(ws, ".git/config")))
	must(t, os.Symlink("tools/vscode", filepath.Join(ws, ".vscode")))
	must(t, os.MkdirAll(filepath.Join(ws, "pkg"), 0o755))
	must(t, os.Symlink("../envs/dev.sh", filepath.Join(ws, "pkg/.envrc")))
	before := snapshotFiles(t, ws)
	out := runSpec(t, context.Background(), Spec{Command: `printf '[core]\n\tfsmonitor = touch pwned\n' >> .git/config; ` +
		`printf '[core]\n\tfsmonitor = touch pwned\n' >> store/config; echo '{}' > tools/vscode/tasks.json; echo 'touch pwned' >> envs/dev.sh; true`,
		Dir: ws, Env: env, Timeout: time.Minute, Sandbox: &Confinement{Mode: SandboxWorkspaceWrite, Roots: []string{ws}}})
	after := snapshotFiles(t, ws)
	for _, p := range []string{"store/config", "envs/dev.sh", "tools/vscode/tasks.json"} {
		if after[p] != before[p] {
			t.Errorf("%s, which a protected symlink leads to, was written: %q\noutput:\n%s", p, after[p], out.Output.String())
		}
	}
}
