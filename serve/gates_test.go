package serve

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/shellgate/shellgate/hook"
	"github.com/shellgate/shellgate/internal/testenv"
)

const echoDenyModule = `package shellgate

deny contains {"code": "no-echo", "message": "no echoing", "span": seg.span, "segment": i} if {
	some i, seg in input.report.segments
	seg.name == "echo"
}
`

const unrelatedModule = `package shellgate

deny contains {"code": "no-such", "message": "never fires", "span": seg.span, "segment": i} if {
	some i, seg in input.report.segments
	seg.name == "no-such-program-anywhere"
}
`

// workspace is a project directory (a git workspace) with one file, and a
// home of its own so that no user config applies.
func workspace(t *testing.T) string {
	t.Helper()
	return testenv.Project(t, "proj", map[string]string{".git/": "", "notes.txt": "alpha\nbeta\n"})
}

// TestGateCacheSeesChangeDuringBuild: a config or policy file changed
// while the gate is being built (the policy compiles for a while) is
// picked up at the next decision, not stamped as already built.
func TestGateCacheSeesChangeDuringBuild(t *testing.T) {
	write := func(t *testing.T, p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("config", func(t *testing.T) {
		ws := workspace(t)
		cfg := filepath.Join(ws, ".shellgate.yaml")
		write(t, cfg, "mode: default\n")
		c := NewGates(hook.Flags{Config: cfg})
		once := false
		c.afterBuild = func() {
			if !once {
				once = true
				write(t, cfg, "mode: readonly # changed while building\n")
			}
		}
		if _, err := c.GateFor(ws); err != nil {
			t.Fatal(err)
		}
		g, err := c.GateFor(ws)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff("readonly", g.Config().Mode); diff != "" {
			t.Errorf("mode after the config changed during the build (-want +got):\n%s", diff)
		}
	})
	t.Run("policy", func(t *testing.T) {
		ws := workspace(t)
		dir := filepath.Join(t.TempDir(), "pol")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		mod := filepath.Join(dir, "p.rego")
		write(t, mod, unrelatedModule)
		c := NewGates(hook.Flags{Policy: []string{dir}})
		once := false
		c.afterBuild = func() {
			if !once {
				once = true
				write(t, mod, echoDenyModule)
			}
		}
		ctx := context.Background()
		if _, err := c.Decide(ctx, hook.Query{Command: "echo hi", Cwd: ws}); err != nil {
			t.Fatal(err)
		}
		v, err := c.Decide(ctx, hook.Query{Command: "echo hi", Cwd: ws})
		if err != nil {
			t.Fatal(err)
		}
		got := []string{v.Action}
		for _, r := range v.Reasons {
			got = append(got, r.Code)
		}
		if diff := cmp.Diff([]string{"deny", "no-echo"}, got); diff != "" {
			t.Errorf("decision after the policy changed during the build (-want +got):\n%s", diff)
		}
	})
}

// TestHookShell: the hook judges a command as the shell the agent runs it
// in: as bash for a Claude Code user whose login shell is bash, as zsh for
// one whose login shell is zsh, and as both when nothing says.
func TestHookShell(t *testing.T) {
	ws := workspace(t)
	payload := []byte(`{"hook_event_name":"PreToolUse","tool_name":"Bash","cwd":` + strconv.Quote(ws) +
		`,"tool_input":{"command":"for path in .; do ls; done"}}`)
	for _, tc := range []struct {
		name  string
		agent hook.Agent
		f     hook.Flags
		want  string
	}{
		{"claude, login shell bash", hook.Claude, hook.Flags{LoginShell: "/bin/bash"}, `"permissionDecision":"allow"`},
		{"claude, login shell zsh", hook.Claude, hook.Flags{LoginShell: "/bin/zsh"}, `"permissionDecision":"ask"`},
		{"claude, CLAUDE_CODE_SHELL zsh", hook.Claude, hook.Flags{ClaudeShell: "zsh", LoginShell: "/bin/bash"}, `"permissionDecision":"ask"`},
		{"claude, nothing known", hook.Claude, hook.Flags{}, `"permissionDecision":"ask"`},
		{"codex --shell bash", hook.Codex, hook.Flags{Shell: "bash"}, `{}`},
		{"codex, login shell not trusted", hook.Codex, hook.Flags{LoginShell: "/bin/bash"}, `"permissionDecision":"deny"`},
	} {
		ans := hook.Handle(context.Background(), tc.agent, payload, tc.f, NewGates(tc.f), nil)
		if !strings.Contains(string(ans.Stdout), tc.want) {
			t.Errorf("%s: %s, want %s", tc.name, ans.Stdout, tc.want)
		}
		if strings.Contains(tc.want, "ask") && !strings.Contains(string(ans.Stdout), "zsh-special-variable") {
			t.Errorf("%s: the reason does not name the zsh reading: %s", tc.name, ans.Stdout)
		}
	}
}
