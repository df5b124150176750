//go:build linux

package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/execution"
)

// plantedRepo makes a git repository in a workspace as a developer has
// one: a commit, a submodule (its git directory under .git/modules), a
// linked worktree (.git/worktrees), an existing .vscode and .mcp.json,
// and a user config in home. It returns the workspace.
func plantedRepo(t *testing.T, git, home string) string {
	t.Helper()
	base := t.TempDir()
	ws, lib := filepath.Join(base, "ws"), filepath.Join(base, "lib")
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME=", "GIT_CONFIG_NOSYSTEM=1")
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = T\n\temail = t@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{ws, lib} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run(lib, "init", "-q", "-b", "main")
	run(lib, "commit", "-q", "--allow-empty", "-m", "lib")
	run(ws, "init", "-q", "-b", "main")
	for name, body := range map[string]string{"README": "r\n", ".vscode/settings.json": "{}\n", ".mcp.json": "{}\n"} {
		p := filepath.Join(ws, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "lib")
	run(ws, "add", "-A")
	run(ws, "commit", "-q", "-m", "first")
	run(ws, "worktree", "add", "-q", filepath.Join(base, "wt"))
	return ws
}

// snapshotTree records every path under dir with its content (symlinks
// as "-> target"), to tell what a run changed.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			m[rel] = "-> " + l
		case fi.IsDir():
			m[rel] = "dir"
		default:
			b, _ := os.ReadFile(p)
			m[rel] = string(b)
		}
		return nil
	})
	return m
}

// TestSandboxNothingPlanted: in workspace-write, a script in the
// workspace (so only the sandbox stands in the way) tries to plant every
// file that git, editors, direnv, agents, shells or shellgate run or obey
// later, unconfined, by writing, creating, renaming, linking and
// symlinking: each attempt is refused (or, for a name that did not exist
// yet, undone after the run and reported), while the real git still
// commits, adds, branches and checks out.
func TestSandboxNothingPlanted(t *testing.T) {
	git := needTool(t, "git")
	needLandlock(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	ws := plantedRepo(t, git, home)
	g := newGate(t, ws, WithoutDefaultPolicy(), WithPolicyModules(allowAll))

	// Each attempt runs in its own subshell; none may leave a trace.
	attempts := []struct{ name, sh string }{
		{"hook in .git/hooks", `echo 'touch /tmp/pwned' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`},
		{"core.fsmonitor appended to .git/config", `printf '[core]\n\tfsmonitor = touch /tmp/pwned\n' >> .git/config`},
		{"git config core.fsmonitor (lock file and rename)", `git config core.fsmonitor 'touch /tmp/pwned'`},
		{"config.lock renamed over .git/config", `cp .git/config .git/x.lock && echo '[core] hooksPath = /tmp' >> .git/x.lock && mv -f .git/x.lock .git/config; rm -f .git/x.lock`},
		{".git/info/attributes", `mkdir -p .git/info && echo '* filter=evil' > .git/info/attributes`},
		{".git/commondir (redirects config and hooks)", `echo /tmp/evil > .git/commondir`},
		{"submodule config", `echo '[core] fsmonitor = x' >> .git/modules/lib/config`},
		{"submodule hook", `echo x > .git/modules/lib/hooks/post-checkout`},
		{"worktree config.worktree", `for d in .git/worktrees/*; do echo '[core] fsmonitor = x' > $d/config.worktree; done`},
		{"rename .git away and make a new one", `mv .git .git-old`},
		{"remove .git/hooks and put a symlink there", `rm -rf .git/hooks; ln -s /tmp .git/hooks`},
		{"hard link to .git/config", `ln .git/config cfg && echo '[core] fsmonitor = x' >> cfg`},
		{"symlink hook", `ln -s /bin/true .git/hooks/post-checkout`},
		{".gitmodules", `printf '[submodule "x"]\n\tpath = x\n\turl = ext::sh -c touch% /tmp/pwned\n' > .gitmodules`},
		{".envrc", `echo 'touch /tmp/pwned' > .envrc`},
		{".vscode/tasks.json (existing .vscode)", `echo '{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}' > .vscode/tasks.json`},
		{".vscode/settings.json rewritten", `echo '{"terminal.integrated.shell.linux":"/tmp/x"}' > .vscode/settings.json`},
		{".idea", `mkdir -p .idea && echo x > .idea/workspace.xml`},
		{".mcp.json rewritten", `echo '{"mcpServers":{"x":{"command":"touch"}}}' > .mcp.json`},
		{".claude settings", `mkdir -p .claude && echo '{"hooks":{}}' > .claude/settings.json`},
		{".codex config", `mkdir -p .codex && echo x > .codex/config.toml`},
		{".gemini settings", `mkdir -p .gemini && echo x > .gemini/settings.json`},
		{".cursor", `mkdir -p .cursor && echo x > .cursor/mcp.json`},
		{".qwen", `mkdir -p .qwen && echo x > .qwen/settings.json`},
		{".github/hooks", `mkdir -p .github/hooks && echo x > .github/hooks/hooks.json`},
		{".shellgate.yaml", `echo 'grants: ["**"]' > .shellgate.yaml`},
		{".bashrc", `echo 'touch /tmp/pwned' > .bashrc`},
		{"a device node", `mknod null2 c 1 3`},
		{"nested .envrc in a submodule checkout", `echo 'touch /tmp/pwned' > lib/.envrc`},
		{"the .git file of a submodule checkout", `echo 'gitdir: /tmp/evil' > lib/.git`},
	}
	var script strings.Builder
	for _, a := range attempts {
		script.WriteString("( " + a.sh + " ) 2>&1 | sed 's/^/" + strings.ReplaceAll(a.name, "/", "\\/") + ": /'\n")
	}
	if err := os.WriteFile(filepath.Join(ws, "plant.sh"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshotTree(t, filepath.Join(ws, ".git"))
	beforeTop := snapshotTree(t, ws)
	res := g.Run(context.Background(), Request{Command: "sh plant.sh; rm plant.sh", Sandbox: execution.SandboxWorkspaceWrite})
	if !res.Ran() {
		t.Fatalf("did not run: %s", res.StatusLine())
	}
	out := res.Output.String()
	t.Logf("isolation %v; output:\n%s", res.Sandbox.Isolation, out)
	after := snapshotTree(t, filepath.Join(ws, ".git"))
	// What git itself changes in a run that writes nothing is nothing:
	// .git must be exactly as before.
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf(".git changed (-before +after):\n%s", diff)
	}
	afterTop := snapshotTree(t, ws)
	delete(beforeTop, "plant.sh")
	for p, v := range afterTop {
		if strings.HasPrefix(p, ".git/") || p == ".git" || p == ".github" {
			continue // .git compared above; .github/hooks was moved out of an empty .github
		}
		if beforeTop[p] != v {
			t.Errorf("%s was planted or changed: %q", p, v)
		}
	}
	for p := range beforeTop {
		if _, ok := afterTop[p]; !ok && p != "plant.sh" {
			t.Errorf("%s was removed", p)
		}
	}
	if !strings.Contains(out, execution.SandboxMarker("write", execution.SandboxWorkspaceWrite)) {
		t.Errorf("output lacks the write marker")
	}
	// The names that did not exist yet are reported as refused writes.
	reported := map[string]bool{}
	for _, d := range res.Sandbox.Denied {
		reported[d.Path] = true
	}
	for _, n := range []string{".envrc", ".idea", ".claude", ".shellgate.yaml", ".bashrc", ".git/commondir", "lib/.envrc"} {
		if !reported[filepath.Join(ws, n)] {
			t.Errorf("the planted %s is not among the denials %+v", n, res.Sandbox.Denied)
		}
	}
	// The result's text names a planted path beneath the top.
	if m := execution.SandboxMarker("write of the protected "+filepath.Join(ws, "lib/.envrc"), execution.SandboxWorkspaceWrite); !strings.Contains(res.Text(), m) {
		t.Errorf("the result's text lacks %q:\n%s", m, res.Text())
	}

	// The real git still works in the same sandbox: add, commit, branch,
	// checkout, and it leaves index, objects, refs, logs, ORIG_HEAD and
	// COMMIT_EDITMSG written.
	res = g.Run(context.Background(), Request{Command: `echo change >> README && git add README && git commit -q -m second && git checkout -q -b topic && echo t > t && git add t && git commit -q -m third && git checkout -q main && git reset -q --soft HEAD~1 && git reset -q HEAD@{1} && git log --format=%s --all | sort | tr '\n' ' '`, Sandbox: execution.SandboxWorkspaceWrite})
	if res.Status != StatusOK || res.Output.String() != "first second third " {
		t.Fatalf("git in workspace-write: %s\n%s", res.StatusLine(), res.Output.String())
	}
	for _, f := range []string{"ORIG_HEAD", "COMMIT_EDITMSG", "index", "logs/HEAD", "refs/heads/topic"} {
		if !exists(filepath.Join(ws, ".git", f)) {
			t.Errorf(".git/%s was not written", f)
		}
	}

	// A person widens one call: --unprotect .git/hooks lets that call
	// install a hook; the next call is protected again.
	res = g.Run(context.Background(), Request{Command: "echo '#!/bin/sh' > .git/hooks/pre-push", Sandbox: execution.SandboxWorkspaceWrite, Unprotect: []string{".git/hooks"}})
	if res.Status != StatusOK || !exists(filepath.Join(ws, ".git/hooks/pre-push")) {
		t.Errorf("unprotected .git/hooks: %s\n%s", res.StatusLine(), res.Output.String())
	}
	res = g.Run(context.Background(), Request{Command: "echo x > .git/hooks/pre-rebase", Sandbox: execution.SandboxWorkspaceWrite})
	if res.Status == StatusOK || exists(filepath.Join(ws, ".git/hooks/pre-rebase")) {
		t.Errorf("the widening outlived its call: %s", res.StatusLine())
	}
}

// TestSandboxNoRepositoryPlanted: a workspace with no repository yet; a
// command that makes one (git init, a hook, core.fsmonitor) leaves none
// behind, and the result says what was refused.
func TestSandboxNoRepositoryPlanted(t *testing.T) {
	needTool(t, "git")
	g, dir, _ := sandboxGate(t)
	res := g.Run(context.Background(), Request{Command: "git init -q && git config core.fsmonitor 'touch pwned' && echo made", Sandbox: execution.SandboxWorkspaceWrite})
	if !res.Ran() {
		t.Fatalf("did not run: %s", res.StatusLine())
	}
	if exists(filepath.Join(dir, ".git")) {
		t.Errorf("a repository was left in the workspace:\n%s", res.Output.String())
	}
	if len(res.Sandbox.Denied) == 0 || res.Sandbox.Denied[0].Path != filepath.Join(dir, ".git") {
		t.Errorf("denied = %+v, want the .git it made", res.Sandbox.Denied)
	}
	if !strings.Contains(res.Output.String(), execution.SandboxMarker("write", execution.SandboxWorkspaceWrite)) {
		t.Errorf("output lacks the marker:\n%s", res.Output.String())
	}
}
