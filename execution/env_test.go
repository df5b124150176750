package execution

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// hostile runs cmd twice in dir: with the hostile host environment as it
// is (the control, which must show the attack working, so the test can
// fail) and through BuildEnv (which must not). attacked inspects the
// directory and the output.
func hostile(t *testing.T, dir string, host []string, cmd string, attacked func(out string) bool) {
	t.Helper()
	raw := runSpec(t, context.Background(), Spec{Command: cmd, Dir: dir, Env: host})
	if !attacked(raw.Output.String()) {
		t.Fatalf("control: the attack did not work with the raw environment, so this test proves nothing; output:\n%s", raw.Output.String())
	}
	cleanup(dir)
	managed := runSpec(t, context.Background(), Spec{Command: cmd, Dir: dir, Env: BuildEnv(host, nil, nil)})
	if attacked(managed.Output.String()) {
		t.Errorf("the attack worked through the managed environment; output:\n%s", managed.Output.String())
	}
}

func cleanup(dir string) { os.Remove(filepath.Join(dir, "PWNED")) }

func pwned(dir string) func(string) bool {
	return func(string) bool {
		_, err := os.Stat(filepath.Join(dir, "PWNED"))
		return err == nil
	}
}

func baseEnv() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
}

func writeScript(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestHostileEnvironment(t *testing.T) {
	dir := t.TempDir()
	evil := filepath.Join(dir, "evil.sh")
	writeScript(t, evil, "touch "+filepath.Join(dir, "PWNED"))
	marker := filepath.Join(dir, "PWNED")
	tests := []struct {
		name string
		env  []string
		cmd  string
		hit  func(string) bool
	}{
		{"BASH_ENV", []string{"BASH_ENV=" + evil}, "true", pwned(dir)},
		{"exported function", []string{"BASH_FUNC_ls%%=() { touch " + marker + "; }"}, "ls >/dev/null", pwned(dir)},
		// bash ignores an inherited PS4 when run as root, but SHELLOPTS still
		// turns tracing on (and as another user PS4 runs its substitutions).
		{"SHELLOPTS", []string{"SHELLOPTS=xtrace", "PS4=$(touch " + marker + ")"}, "true", func(out string) bool {
			_, err := os.Stat(marker)
			return err == nil || strings.Contains(out, "true")
		}},
		{"LD_PRELOAD", []string{"LD_PRELOAD=/nonexistent/evil.so"}, "/bin/true", func(out string) bool { return strings.Contains(out, "evil.so") }},
		{"CDPATH", []string{"CDPATH=/"}, "cd etc && pwd", func(out string) bool { return strings.Contains(out, "/etc") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hostile(t, dir, append(baseEnv(), tt.env...), tt.cmd, tt.hit)
			cleanup(dir)
		})
	}
}

func TestManagedEnvironment(t *testing.T) {
	host := append(baseEnv(),
		"ENV=/tmp/x", "PROMPT_COMMAND=touch /tmp/x", "LD_AUDIT=x.so", "NODE_OPTIONS=--require=/tmp/x.js",
		"PERL5OPT=-Mevil", "GIT_EXEC_PATH=/tmp", "GIT_EXTERNAL_DIFF=/tmp/x", "GIT_CONFIG_PARAMETERS='core.pager'='x'",
		"GIT_CONFIG_KEY_99=core.fsmonitor", "GIT_CONFIG_VALUE_99=/tmp/x", "PAGER=less", "TERM=xterm-256color",
		"KEEP_ME=1", "SECRET_TOKEN=abc",
	)
	out := runSpec(t, context.Background(), Spec{Command: "env", Env: BuildEnv(host, nil, nil)}).Output.Head
	vars := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		k, v, _ := strings.Cut(l, "=")
		vars[k] = v
	}
	for _, k := range []string{"ENV", "PROMPT_COMMAND", "LD_AUDIT", "NODE_OPTIONS", "PERL5OPT", "GIT_EXEC_PATH", "GIT_EXTERNAL_DIFF", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_KEY_99", "GIT_CONFIG_VALUE_99"} {
		if _, ok := vars[k]; ok {
			t.Errorf("%s reached the command", k)
		}
	}
	for k, v := range ManagedEnv {
		if vars[k] != v {
			t.Errorf("%s = %q, want %q", k, vars[k], v)
		}
	}
	if vars["KEEP_ME"] != "1" || vars["GIT_CONFIG_KEY_0"] != GitOverrides[0][0] {
		t.Errorf("host variables or git overrides missing: %v", vars)
	}
	// An allow list keeps only what it names (plus what the gate sets).
	env := BuildEnv(host, []string{"PATH", "KEEP_*"}, map[string]string{"EXTRA": "2", "BASH_ENV": "/tmp/x"})
	if slices.ContainsFunc(env, func(s string) bool {
		return strings.HasPrefix(s, "SECRET_TOKEN=") || strings.HasPrefix(s, "HOME=") || strings.HasPrefix(s, "BASH_ENV=")
	}) || !slices.Contains(env, "KEEP_ME=1") || !slices.Contains(env, "EXTRA=2") {
		t.Errorf("allow list: %v", env)
	}
}

// gitRepo makes a repository whose own configuration tries to run
// programs when read-only git commands run in it.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed for the hostile repository tests: %v", err)
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Dir = dir
		cmd.Env = baseEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "f.txt")
	git("commit", "-qm", "init")
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestHostileRepository(t *testing.T) {
	tests := []struct {
		name   string
		config [][2]string
		cmd    string
		check  func(t *testing.T, out string) // what must still work (exit 0 too)
	}{
		{"core.fsmonitor", [][2]string{{"core.fsmonitor", "EVIL"}}, "git status --short", func(t *testing.T, out string) {
			if !strings.Contains(out, "M f.txt") {
				t.Errorf("git status no longer works:\n%s", out)
			}
		}},
		{"core.hooksPath", [][2]string{{"core.hooksPath", "hooks"}}, "git -c user.email=t@example.com -c user.name=t commit -q --allow-empty -m x && git log -1 --format=%s", func(t *testing.T, out string) {
			if out != "x\n" {
				t.Errorf("git commit no longer works:\n%s", out)
			}
		}},
		{"diff.external", [][2]string{{"diff.external", "EVIL"}}, "git diff", func(t *testing.T, out string) {
			if !strings.Contains(out, "+two") || !strings.Contains(out, "diff --git a/f.txt b/f.txt") {
				t.Errorf("git diff no longer shows the change:\n%s", out)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := gitRepo(t)
			evil := filepath.Join(dir, ".git", "evil.sh")
			writeScript(t, evil, "touch "+filepath.Join(dir, "PWNED"))
			hooks := filepath.Join(dir, ".git", "hooks-evil")
			if err := os.Mkdir(hooks, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, h := range []string{"pre-commit", "post-commit", "commit-msg"} {
				writeScript(t, filepath.Join(hooks, h), "touch "+filepath.Join(dir, "PWNED"))
			}
			for _, kv := range tt.config {
				v := strings.ReplaceAll(kv[1], "EVIL", evil)
				if v == "hooks" {
					v = hooks
				}
				cmd := exec.Command("git", "config", kv[0], v)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git config: %v %s", err, out)
				}
			}
			hostile(t, dir, baseEnv(), tt.cmd, pwned(dir))
			out := runSpec(t, context.Background(), Spec{Command: tt.cmd, Dir: dir, Env: BuildEnv(baseEnv(), nil, nil)})
			if out.ExitCode != 0 {
				t.Errorf("exit %d:\n%s", out.ExitCode, out.Output.String())
			}
			tt.check(t, out.Output.String())
		})
	}
}
