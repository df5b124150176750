package agentrules

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shellgate/shellgate/internal/testenv"
)

// codexBin is the npm-installed Codex (SHELLGATE_AGENTS, as the e2e tests
// find it), or the test is skipped (and fails under CI).
func codexBin(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SHELLGATE_AGENTS")
	if dir == "" {
		dir = "/opt/shellgate-agents"
	}
	p := filepath.Join(dir, "node_modules", ".bin", "codex")
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(t, "codex (npm package @openai/codex) not found at %s", p)
	}
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "node (codex's launcher runs on it) not found on PATH")
	}
	return p
}

// TestCodexMatchesExecpolicy holds the matcher of Codex's prefix rules to
// Codex's own: `codex execpolicy check` on the same rules file and the
// same words. Where Codex allows, shellgate's matcher approves the
// segment; where Codex matches nothing or blocks, it approves nothing.
func TestCodexMatchesExecpolicy(t *testing.T) {
	if testing.Short() {
		t.Skip("runs codex; skipped with -short")
	}
	codex := codexBin(t)
	rules := `prefix_rule(pattern=["npm", "test"], decision="allow")
prefix_rule(pattern=["git", ["status", "diff"]])
prefix_rule(pattern=["cargo", "publish"], decision="forbidden")
prefix_rule(pattern=["cargo"], decision="allow")
prefix_rule(pattern=["make", "deploy"], decision="prompt")
`
	dir := t.TempDir()
	rf := filepath.Join(dir, "default.rules")
	if err := os.WriteFile(rf, []byte(rules), 0o600); err != nil {
		t.Fatal(err)
	}
	rs := codexRules(t, rules)
	for _, argv := range [][]string{
		{"npm", "test"},
		{"npm", "test", "--watch"},
		{"npm", "testx"},
		{"npm"},
		{"git", "status", "-s"},
		{"git", "diff"},
		{"git", "push"},
		{"cargo", "build"},
		{"cargo", "publish"},
		{"make", "deploy"},
	} {
		cmd := exec.Command(codex, append([]string{"execpolicy", "check", "--rules", rf, "--"}, argv...)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "CODEX_HOME=" + filepath.Join(dir, "codex")}
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("codex execpolicy check %q: %v\n%s", argv, err, out)
		}
		var res struct {
			Decision string `json:"decision"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatalf("codex execpolicy check %q: %v\n%s", argv, err, out)
		}
		line := strings.Join(argv, " ")
		got := approved(rs, line) != "-"
		if want := res.Decision == "allow"; got != want {
			t.Errorf("%q: shellgate approves %v; codex's decision %q", line, got, res.Decision)
		}
	}
}
